"""``tribridge deal``: print seeded random deals in PBN or JSON (the widow sits opposite the dealer)."""

from __future__ import annotations

import argparse
import json
import sys

from tribridge.cli.common import progress_bar
from tribridge.dealing.streams import random_stream
from tribridge.errors import InvalidInput


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``deal`` command."""
    p = sub.add_parser(
        "deal",
        help="print seeded random deals (PBN or JSON)",
        description="Deal N uniformly random deals from a seed and print them as PBN records or JSON. "
        "The same seed always gives the same deals. In 3PAB the widow is the hand opposite the dealer.",
    )
    p.add_argument("--count", type=int, default=1, help="number of deals (default 1)")
    p.add_argument("--seed", type=int, default=None, help="random seed (default: fresh entropy)")
    p.add_argument("--dealer", default="N", help="dealer seat N, E, S or W (default N)")
    p.add_argument("--format", choices=("pbn", "json"), default="pbn", help="output format (default pbn)")
    p.add_argument("--json", action="store_true", help="same as --format json")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print the deals."""
    # imported here: start-up time

    from tribridge.cards import SEAT_CHARS, Seat, random_deal
    from tribridge.rules.pbn_write import deal_board_pbn

    if args.count < 0:
        raise InvalidInput("count", f"expected a number of deals >= 0, got {args.count}")
    if args.seed is not None and args.seed < 0:
        raise InvalidInput("seed", f"expected a seed >= 0, got {args.seed}")
    dealer = Seat.parse(args.dealer, "dealer")
    widow = dealer.partner
    rng = random_stream(args.seed)
    as_json = args.json or args.format == "json"
    out = sys.stdout
    if as_json:
        out.write("[")
    with progress_bar("dealing", args.count) as bar:
        for board in range(1, args.count + 1):
            deal = random_deal(rng)
            if as_json:
                record = {
                    "board": board,
                    "dealer": dealer.letter,
                    "widow": widow.letter,
                    "deal": deal.to_pbn(int(dealer)),
                    "hands": {SEAT_CHARS[s]: deal[s].to_pbn() for s in range(4)},
                }
                out.write(("\n  " if board == 1 else ",\n  ") + json.dumps(record))
            else:
                if board > 1:
                    out.write("\n")
                out.write(deal_board_pbn(deal, dealer, board))
            bar.advance()
    if as_json:
        out.write("\n]\n" if args.count else "]\n")
    return 0
