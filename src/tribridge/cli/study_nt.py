"""``tribridge study nt``: the NT call paper's Tables 3 and 4, our counts beside the published ones."""

from __future__ import annotations

import argparse

from tribridge.cli.common import print_json, progress_bar
from tribridge.errors import InvalidInput


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``nt`` study."""
    p = sub.add_parser(
        "nt",
        help="NT call algorithm on random hands (Tables 3–4)",
        description="Deal random hands, run the NT call algorithm per level on the single hand and "
        "on the partnership's 26 cards; print the counts beside Tables 3 and 4.",
    )
    p.add_argument("--hands", type=int, default=100_000, help="hands per run (default 100,000 as in the paper)")
    p.add_argument("--runs", type=int, default=3, help="runs (default 3)")
    p.add_argument("--seed", type=int, default=1, help="study seed (default 1)")
    p.add_argument("--levels", default="1,2,3", help="comma-separated levels 1..7 (default 1,2,3)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the study and print the tables."""
    from tribridge.sim.papers import nt_study, nt_tables_markdown

    try:
        levels = [int(v) for v in args.levels.split(",") if v.strip()]
    except ValueError:
        raise InvalidInput("levels", f"expected comma-separated integers, got {args.levels!r}") from None
    with progress_bar("nt study", total=args.hands * args.runs, enabled=not args.json) as bar:
        result = nt_study(args.hands, args.runs, args.seed, levels, progress=bar.advance)
    if args.json:
        print_json(result.to_json())
        return 0
    print(nt_tables_markdown(result))
    for lv in result.levels:
        counts = [r.single[str(lv)] for r in result.results]
        print(
            f"\n{lv}NT single hand per run: " + "; ".join(", ".join(f"{k} {v:,}" for k, v in c.items()) for c in counts)
        )
    return 0
