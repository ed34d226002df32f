"""``tribridge capture``: the iterative capture estimator on one deal (or a file of deals)."""

from __future__ import annotations

import argparse

from tribridge.cli.common import print_json, run_json_lines
from tribridge.errors import InvalidInput


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``capture`` command."""
    p = sub.add_parser(
        "capture",
        help="run the capture estimator on a deal",
        description="Run the capture estimator (docs/algorithms.md) on a PBN deal for the partnership of the "
        "declarer and the hand opposite; the declarer's cards are the 1s.",
    )
    p.add_argument("deal", nargs="?", help='PBN deal, e.g. "N:AKQ2.KJ4.T98.762 ... ... ..."')
    p.add_argument("--declarer", default="N", help="declarer seat N, E, S or W (default N)")
    p.add_argument("--limit", choices=["max", "min", "none"], default="max", help="capture limit M(s) (default max)")
    p.add_argument("--gap", choices=["static", "live"], default="static", help="gap reading (default static)")
    p.add_argument(
        "--replacements",
        type=int,
        choices=[1, 2],
        default=1,
        help="opponent cards marked played per capture (default 1)",
    )
    p.add_argument("--steps", action="store_true", help="also list the captures step by step")
    p.add_argument("--file", default=None, help="read one deal per line ('-' for stdin) and write JSON lines")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def evaluate(deal: str, declarer: str, limit: str, gap: str, replacements: int) -> dict:
    """The estimator's result for one PBN deal as a JSON-ready dict."""
    from tribridge.cards import Deal, Seat
    from tribridge.estimators.capture import capture, state_from_owners

    seat = Seat.parse(declarer, "declarer")
    parsed = Deal.from_pbn(deal)
    result = capture(state_from_owners(parsed.to_owners(), int(seat)), limit, gap, replacements).to_dict()
    return {"deal": parsed.to_pbn(), "declarer": seat.letter, "reading": f"{limit}/{gap}/{replacements}", **result}


def run(args: argparse.Namespace) -> int:
    """Evaluate one deal, or every line of a file (JSON lines out)."""
    if args.file:

        def one_line(text: str) -> dict:
            out = evaluate(text, args.declarer, args.limit, args.gap, args.replacements)
            out.pop("state")
            if not args.steps:
                out.pop("steps")
            return out

        return run_json_lines(args.file, one_line)
    if not args.deal:
        raise InvalidInput("deal", "give a PBN deal or --file")
    out = evaluate(args.deal, args.declarer, args.limit, args.gap, args.replacements)
    if args.json:
        print_json(out)
        return 0
    print(
        f"{out['reading']}, declarer {out['declarer']}: {out['status']}, captures T = {out['captures']}, "
        f"budget left Z = {out['budget_left']} (Δ = {out['delta']}"
        + (f", stopped: {out['stop_reason']})" if out["stop_reason"] else ")")
    )
    if args.steps:
        for step in out["steps"]:
            kind = (
                "free"
                if step["first"] is None
                else f"{step['first']}→{step['second']} gap {step['raw_gap']} (eff {step['effective_gap']})"
            )
            print(f"  suit {'♣♦♥♠'[step['suit']]} {kind}: T = {step['captures']}, Z = {step['budget_left']}")
    return 0
