"""``tribridge bid4``: a four-handed bidder's call for one position (the robot API's bidders), with what it shows."""

from __future__ import annotations

import argparse

from tribridge.cli.common import print_json


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``bid4`` command."""
    p = sub.add_parser(
        "bid4",
        help="a four-handed bidder's call for one position, with its explanation",
        description="The call of a four-handed bidder (natural4, or natural4-search: natural4's candidate calls "
        "weighed over sampled layouts, rolled out and scored double dummy) for the seat on turn.",
    )
    p.add_argument("hand", help="PBN hand of the seat on turn, e.g. AK5.AQ73.432.Q86 (spades first)")
    p.add_argument("--auction", default="", help="the calls so far, e.g. 1C-P-1S (empty: the dealer calls)")
    p.add_argument("--dealer", default="N", help="N, E, S or W (default N)")
    p.add_argument("--vul", default="None", help="None, NS, EW or All (default None)")
    p.add_argument("--bidder", default="natural4", help="natural4 (default) or natural4-search")
    p.add_argument("--system", default="SAYC", help="our side's system: SAYC (default) or 2/1")
    p.add_argument("--their-system", default="SAYC", help="the opponents' system, for reading their calls")
    p.add_argument("--layouts", type=int, default=None, help="natural4-search: layouts searched (default 24)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def _system(name: str, field: str) -> str:
    """The system ``name`` asks for; InvalidInput naming ``field`` for one the bidder does not play."""
    from tribridge.errors import InvalidInput
    from tribridge.four import natural4

    played, note = natural4.system_for(name)
    if note:
        raise InvalidInput(field, f"unknown system {name!r}: expected one of {', '.join(natural4.SYSTEMS)}")
    return played


def decide(args: argparse.Namespace) -> dict:
    """The position's call, explanation and (for the search) each candidate's mean IMPs, as a JSON-ready dict."""
    from tribridge.cards import Hand
    from tribridge.errors import InvalidInput
    from tribridge.four import bidders, natural4, search
    from tribridge.four.natural4 import Bid4View
    from tribridge.four.rules import Auction4, parse_ctx
    from tribridge.server.robot.params import parse_seat, parse_vul

    name = bidders.bidder_named(args.bidder, "--bidder")
    dealer = parse_seat(args.dealer, "--dealer")
    auction = Auction4.from_calls(dealer, parse_ctx(args.auction, "--auction"), "--auction")
    if auction.is_over:
        raise InvalidInput("--auction", "the auction is already over: no call is due")
    hand = tuple(sorted(Hand.from_pbn(args.hand, "hand").cards))
    ours, theirs = (_system(args.system, "--system"), _system(args.their_system, "--their-system"))
    systems = natural4.side_systems(auction.turn, ours, theirs)  # type: ignore[arg-type]
    view = Bid4View(auction.turn, dealer, parse_vul(args.vul), hand, auction, systems)  # type: ignore[arg-type]
    if name == search.NAME:
        if args.layouts is not None and not 1 <= args.layouts <= search.MAX_LAYOUTS:
            raise InvalidInput("--layouts", f"expected 1..{search.MAX_LAYOUTS}, got {args.layouts}")
        d = search.decide_call(view, search.SearchConfig(layouts=args.layouts or search.LAYOUTS))
        extra = {
            "natural4_call": d.natural,
            "searched": d.searched,
            "layouts": d.layouts,
            "relaxed_layouts": d.relaxed,
            "unreplayed_layouts": d.unreplayed,
            "candidates": [{"call": s.call, "imps": round(s.imps, 3), "stderr": round(s.stderr, 3)} for s in d.scores],
        }
        return {"call": d.call, "explanation": d.explanation, "alert": d.alert, "bidder": name, **extra}
    plain = bidders.decide_with(name, view)
    return {"call": plain.call, "explanation": plain.explanation, "alert": plain.alert, "bidder": name}


def run(args: argparse.Namespace) -> int:
    """Print the call (text or JSON)."""
    out = decide(args)
    if args.json:
        print_json(out)
        return 0
    print(f"{out['call']}: {out['explanation']}" + (" (alert)" if out["alert"] else ""))
    for c in out.get("candidates", []):
        print(f"  {c['call']:>3s} {c['imps']:+.2f} IMPs ± {c['stderr']:.2f}")
    return 0
