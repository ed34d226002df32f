"""``tribridge play-random``: play one whole 3PAB deal with random legal policies (a smoke test of the engine)."""

from __future__ import annotations

import argparse
from typing import Any

from tribridge.cli.common import print_json
from tribridge.errors import InvalidInput


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``play-random`` command."""
    p = sub.add_parser(
        "play-random",
        help="play one deal with random legal calls and cards",
        description="Deal, bid and play one whole deal with random legal policies and print the record "
        "(text, --json, --pbn or --lin). A quick check that the rules engine runs end to end.",
    )
    p.add_argument("--seed", type=int, default=None, help="random seed (default: fresh entropy)")
    p.add_argument("--dealer", default="N", help="dealer seat N, E, S or W (default N)")
    p.add_argument("--scheme", default="classic", help="classic (default), tribridge, or a .toml scheme file")
    p.add_argument(
        "--ranking", choices=("contract", "value"), default="contract", help="bid ranking (default contract)"
    )
    p.add_argument("--dealer-must-bid", action="store_true", help="the dealer must open (IB rule)")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print the deal record as JSON")
    fmt.add_argument("--pbn", action="store_true", help="print the deal record as PBN")
    fmt.add_argument("--lin", action="store_true", help="print the deal record as LIN (BBO's hand viewer)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Play and print one deal."""
    # imported here: start-up time
    from tribridge.rules.auction import AuctionOptions
    from tribridge.rules.game import play_random_deal

    if args.seed is not None and args.seed < 0:
        raise InvalidInput("seed", f"expected a seed >= 0, got {args.seed}")
    record = play_random_deal(args.seed, args.scheme, args.dealer, AuctionOptions(args.ranking, args.dealer_must_bid))
    if args.json:
        print_json(record.to_json())
        return 0
    if args.pbn:
        print(record.to_pbn(), end="")
        return 0
    if args.lin:
        from tribridge.rules.lin import record_to_lin

        print(record_to_lin(record, board=1), end="")
        return 0
    print(format_record(record))
    return 0


def format_record(record: Any) -> str:
    """A played deal as text a bridge player reads: hands, auction, contract, reseating, tricks and score."""
    seat_names = {"N": "North", "E": "East", "S": "South", "W": "West"}
    lines = [
        f"Dealer {seat_names[record.dealer.letter]}; the widow is {seat_names[record.widow.letter]} "
        "(opposite the dealer)"
    ]
    for seat in range(4):
        tag = "  (widow)" if seat == record.widow else ""
        lines.append(f"  {seat_names['NESW'[seat]]:<5}  {record.deal[seat].to_pbn()}{tag}")
    lines.append("Auction: " + " ".join(str(c) for c in record.calls))
    if record.contract is None:
        lines.append("Passed out: all three players passed; no score.")
        return "\n".join(lines)
    declarer = record.declarer
    lines.append(f"Contract: {record.contract} by {seat_names[declarer.letter]}")
    dummy_seat = record.contract.declarer.partner
    moved = [(dealt, play) for dealt, play in sorted(record.seat_map.items()) if dealt != play]
    if not moved:
        lines.append(f"The widow's hand is dummy, already opposite the declarer at {seat_names[dummy_seat.letter]}.")
    else:
        lines.append(
            f"The widow's hand is dummy: it moves to {seat_names[dummy_seat.letter]}, opposite the "
            "declarer; "
            + "; ".join(
                f"the player dealt {seat_names[a.letter]} now sits {seat_names[b.letter]}"
                for a, b in moved
                if a != record.widow
            )
            + "."
        )
    need = record.contract.tricks_needed
    diff = record.declarer_tricks - need
    outcome = (
        ("made" + (f" with {diff} overtrick{'s' if diff > 1 else ''}" if diff else ""))
        if diff >= 0
        else f"down {-diff}"
    )
    lines.append(f"Declarer's side took {record.declarer_tricks} tricks: {outcome}.")
    s = record.score
    lines.append(
        f"Score ({record.scheme}): declarer {s.declarer}; defenders {s.defenders[0]} (left) and "
        f"{s.defenders[1]} (right); declarer minus defenders {s.net}"
    )
    return "\n".join(lines)
