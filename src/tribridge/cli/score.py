"""``tribridge score``: score one 3PAB contract under a scheme (per-player scores and the breakdown)."""

from __future__ import annotations

import argparse
from typing import Any

from tribridge.cli.common import print_json
from tribridge.errors import InvalidInput

# How each entry of a score's breakdown is shown in the text output.
BREAKDOWN_LABELS: dict[str, str] = {
    "contract_tricks": "tricks bid (below the line)",
    "overtricks": "overtricks",
    "double_bonus": "bonus for making a doubled contract",
    "making_bonus": "bonus for making the contract",
    "slam_bonus": "slam bonus",
    "undertricks_each_defender": "undertricks (to each defender)",
    "declarer_penalty": "declarer's undertrick penalty",
    "honours_declarer": "honours held by declarer and dummy",
    "honours_defender_lho": "honours held by the left-hand defender",
    "honours_defender_rho": "honours held by the right-hand defender",
}


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``score`` command."""
    p = sub.add_parser(
        "score",
        help="score one contract (declarer, each defender, breakdown)",
        description="Score one deal: the declarer's score, each defender's score and the breakdown "
        "under a scoring scheme (a preset or a TOML file; see docs/rules.md).",
    )
    p.add_argument("--contract", required=True, help="contract such as 3NT, 4S, 2H (4SX, 2HXX also accepted)")
    dbl = p.add_mutually_exclusive_group()
    dbl.add_argument("--doubled", action="store_true", help="the contract is doubled")
    dbl.add_argument("--redoubled", action="store_true", help="the contract is redoubled")
    p.add_argument("--tricks", type=int, required=True, help="tricks won by the declarer's side, 0..13")
    p.add_argument("--scheme", default="classic", help="classic (default), tribridge, or a path to a .toml scheme")
    p.add_argument(
        "--honours",
        default=None,
        metavar="D,L,R",
        help="score honours: trump honours (aces in NT) held by declarer with dummy, "
        "declarer's LHO and RHO, e.g. 4,1,0",
    )
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def parse_honours(text: str) -> Any:
    """Parse ``D,L,R`` honour counts into a ``HonoursHeld``."""
    from tribridge.rules.scoring import HonoursHeld  # imported here: start-up time

    parts = [x.strip() for x in text.split(",")]
    if len(parts) != 3 or not all(x.isdigit() for x in parts):
        raise InvalidInput("honours", f"expected three counts D,L,R such as 4,1,0, got {text!r}")
    declarer, lho, rho = (int(x) for x in parts)
    return HonoursHeld(declarer, (lho, rho))


def run(args: argparse.Namespace) -> int:
    """Print the score."""
    # imported here: start-up time
    from dataclasses import replace

    from tribridge.cards import Seat
    from tribridge.rules.auction import Contract
    from tribridge.rules.scoring import get_scheme, score_deal

    contract = Contract.parse(args.contract, Seat.S)
    if args.doubled or args.redoubled:
        if contract.doubling:
            raise InvalidInput("contract", f"{args.contract!r} is already marked doubled; drop --doubled/--redoubled")
        contract = replace(contract, doubling=2 if args.redoubled else 1)
    scheme = get_scheme(args.scheme)
    honours = None
    if args.honours is not None:
        honours = parse_honours(args.honours)
        scheme = replace(scheme, honours=True)
    elif scheme.honours:
        raise InvalidInput("honours", f"scheme {scheme.name!r} scores honours: give --honours D,L,R")
    score = score_deal(contract, args.tricks, scheme, honours)
    need = contract.tricks_needed
    diff = args.tricks - need
    outcome = ("made" + (f" +{diff}" if diff else "")) if diff >= 0 else f"down {-diff}"
    shown = str(contract)
    if args.json:
        print_json(
            {
                "contract": shown,
                "tricks": args.tricks,
                "result": outcome,
                "scheme": scheme.name,
                "declarer": score.declarer,
                "each_defender": score.each_defender,
                "defenders": list(score.defenders),
                "net": score.net,
                "trick_points": score.trick_points,
                "breakdown": score.breakdown,
            }
        )
        return 0
    print(f"{shown}, {args.tricks} tricks: {outcome} (scoring scheme {scheme.name})")
    rows = [("Declarer", score.declarer)]
    if score.defenders[0] == score.defenders[1]:
        rows.append(("Each defender", score.each_defender))
    else:
        rows += [("Left-hand defender", score.defenders[0]), ("Right-hand defender", score.defenders[1])]
    rows += [("Declarer minus defenders", score.net), ("Toward game (below the line)", score.trick_points)]
    rows += [(f"  {BREAKDOWN_LABELS.get(key, key.replace('_', ' '))}", value) for key, value in score.breakdown.items()]
    width = max(len(label) for label, _ in rows)
    for i, (label, value) in enumerate(rows):
        if i == len(rows) - len(score.breakdown) and score.breakdown:
            print("Made up of:")
        print(f"{label.ljust(width)}  {value:>6}")
    return 0
