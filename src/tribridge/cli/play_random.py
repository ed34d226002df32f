"""``tribridge play-random``: play one whole 3PAB deal with random legal policies (a smoke test of the engine)."""

from __future__ import annotations

import argparse

from tribridge.cli.common import print_json
from tribridge.errors import InvalidInput
from tribridge.rules.auction import AuctionOptions
from tribridge.rules.game import play_random_deal


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``play-random`` command."""
    p = sub.add_parser(
        "play-random", help="play one deal with random legal calls and cards",
        description="Deal, bid and play one whole deal with random legal policies and print the record "
                    "(text, --json or --pbn). A quick check that the rules engine runs end to end.",
    )
    p.add_argument("--seed", type=int, default=None, help="random seed (default: fresh entropy)")
    p.add_argument("--dealer", default="N", help="dealer seat N, E, S or W (default N)")
    p.add_argument("--scheme", default="classic", help="classic (default), tribridge, or a .toml scheme file")
    p.add_argument("--ranking", choices=("contract", "value"), default="contract", help="bid ranking (default contract)")
    p.add_argument("--dealer-must-bid", action="store_true", help="the dealer must open (IB rule)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the deal record as JSON")
    fmt.add_argument("--pbn", action="store_true", help="print the deal record as PBN")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Play and print one deal."""
    if args.seed is not None and args.seed < 0:
        raise InvalidInput("seed", f"expected a seed >= 0, got {args.seed}")
    record = play_random_deal(args.seed, args.scheme, args.dealer,
                              AuctionOptions(args.ranking, args.dealer_must_bid))
    if args.json:
        print_json(record.to_json())
        return 0
    if args.pbn:
        print(record.to_pbn(), end="")
        return 0
    print(f"dealer {record.dealer.letter}, widow {record.widow.letter}")
    for seat in range(4):
        tag = " (widow)" if seat == record.widow else ""
        print(f"  {'NESW'[seat]}: {record.deal[seat].to_pbn()}{tag}")
    print("auction: " + " ".join(str(c) for c in record.calls))
    if record.contract is None:
        print("thrown in: all three passed")
        return 0
    moved = {a.letter: b.letter for a, b in record.seat_map.items() if a != b}
    print(f"contract {record.contract} by {record.declarer.letter}; dummy (widow's hand) at "
          f"{record.contract.declarer.partner.letter}" + (f"; moves {moved}" if moved else ""))
    print(f"declarer's tricks: {record.declarer_tricks}")
    s = record.score
    print(f"score ({record.scheme}): declarer {s.declarer}, defenders {s.defenders[0]} and {s.defenders[1]}, net {s.net}")
    return 0
