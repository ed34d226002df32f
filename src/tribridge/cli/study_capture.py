"""``tribridge study capture``: the capture paper's Tables I–II, per reading, beside the published figures."""

from __future__ import annotations

import argparse

from tribridge.cli.common import print_json, progress_bar


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``capture`` study."""
    p = sub.add_parser(
        "capture",
        help="capture estimator on random 26-card partnerships (Tables I–II)",
        description="Deal two random 13-card hands per deal (declarer = 1s, partner = 2s), run the "
        "capture estimator, print status counts and the capture histogram beside "
        "Tables I–II. --all-readings runs the 12 readings and ranks them.",
    )
    p.add_argument("--deals", type=int, default=1_000_000, help="deals per run (default 1,000,000 as in the paper)")
    p.add_argument("--runs", type=int, default=3, help="runs (default 3)")
    p.add_argument("--seed", type=int, default=1, help="study seed (default 1)")
    p.add_argument("--limit", choices=["max", "min", "none"], default="max", help="capture limit (default max)")
    p.add_argument("--gap", choices=["static", "live"], default="static", help="gap reading (default static)")
    p.add_argument("--replacements", type=int, choices=[1, 2], default=1, help="replacements per capture (default 1)")
    p.add_argument("--all-readings", action="store_true", help="run every reading and rank them against Table I")
    p.add_argument("--plot", default=None, help="write the capture histogram to this PNG file")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the study and print the tables."""
    from tribridge.estimators.capture import CaptureReading
    from tribridge.sim.papers import capture_figure, capture_study, capture_tables_markdown

    reading = "all" if args.all_readings else CaptureReading(args.limit, args.gap, args.replacements)
    with progress_bar("capture study", total=args.deals * args.runs, enabled=not args.json) as bar:
        result = capture_study(args.deals, args.runs, args.seed, reading, progress=bar.advance)
    if args.plot:
        capture_figure(result, args.plot)
    if args.json:
        print_json(result.to_json())
        return 0
    print(capture_tables_markdown(result))
    for label, data in result.readings.items():
        print(f"\n{label}: captures histogram (qualifying deals, T = 0..13) per run:")
        for r in data.results:
            print("  " + " ".join(str(v) for v in r.captures_histogram))
    if args.plot:
        print(f"\nplot written to {args.plot}")
    return 0
