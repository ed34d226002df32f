"""``tribridge nt-call``: the NT call algorithm on one hand (or a file of hands), with its trace."""

from __future__ import annotations

import argparse

from tribridge.cli.common import print_json, run_json_lines
from tribridge.errors import InvalidInput


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``nt-call`` command."""
    p = sub.add_parser(
        "nt-call",
        help="run the paper's No-Trump call algorithm on a hand",
        description="Run the NT call algorithm (docs/algorithms.md) on a PBN hand S.H.D.C, optionally together "
        "with the partner's hand (the 26-card test). Verdict yes, no, fail_a or fail_b, with the trace.",
    )
    p.add_argument("hand", nargs="?", help="PBN hand, e.g. K84.AJ85.AK6.AKQ (spades first)")
    p.add_argument("--level", type=int, default=1, help="NT level 1..7 (default 1)")
    p.add_argument("--partner", default=None, help="partner's PBN hand: test the partnership's 26 cards")
    p.add_argument(
        "--file",
        default=None,
        help="read one item per line ('HAND' or 'HAND PARTNER'; '-' for stdin) and write JSON lines",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def evaluate(hand: str, level: int, partner: str | None = None) -> dict:
    """The verdict and trace of one hand (and partner) as a JSON-ready dict."""
    from tribridge.cards import Hand
    from tribridge.estimators.nt_call import nt_call

    own = Hand.from_pbn(hand, "hand")
    cards = set(own.cards)
    if partner is not None:
        other = Hand.from_pbn(partner, "partner")
        if cards & other.cards:
            raise InvalidInput("partner", "the partner's hand shares cards with the hand")
        cards |= other.cards
    result = nt_call(Hand(frozenset(cards)).masks(), level).to_dict()
    return {"hand": own.to_pbn(), "partner": partner and Hand.from_pbn(partner).to_pbn(), **result}


def _text(out: dict) -> str:
    suits = "♣♦♥♠"
    lines = [
        f"{out['level']}NT ({'with partner' if out['partner'] else 'single hand'}): {out['verdict'].upper()}",
        f"  P = {out['tricks_needed']} tricks, K = {out['losers_allowed']} losers allowed",
        "  leading zeros " + " ".join(f"{suits[s]}{v}" for s, v in enumerate(out["leads"])) + f"  Δ = {out['delta']}",
        "  ones per suit " + " ".join(f"{suits[s]}{v}" for s, v in enumerate(out["counts"])),
    ]
    if out["count_of_one"] is not None:
        from tribridge.cards import RANK_CHARS

        lines.append(f"  remaining zeros start at {out['losers_allowed'] - out['delta']}; count_of_one starts at 4")
        for step in out["steps"]:
            lines.append(
                f"    {suits[step['suit']]} {RANK_CHARS[step['first']]}→{RANK_CHARS[step['second']]}: "
                f"{step['between']} zeros between, {'taken' if step['taken'] else 'skipped'}; "
                f"remaining {step['remaining']}"
            )
        lines.append(
            f"  count_of_one = {out['count_of_one']} (needs ≥ {out['tricks_needed']}), remaining = {out['remaining']}"
        )
    elif out["verdict"] == "fail_a":
        lines.append(f"  Condition A failed: Δ = {out['delta']} > K = {out['losers_allowed']}")
    else:
        lines.append("  Condition B failed: a suit has no more ones than leading zeros")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Evaluate one hand, or every line of a file (JSON lines out)."""
    if args.file:

        def one_line(text: str) -> dict:
            parts = text.split()
            if len(parts) > 2:
                raise InvalidInput("line", f"expected 'HAND' or 'HAND PARTNER', got {text!r}")
            return evaluate(parts[0], args.level, parts[1] if len(parts) == 2 else args.partner)

        return run_json_lines(args.file, one_line)
    if not args.hand:
        raise InvalidInput("hand", "give a PBN hand or --file")
    out = evaluate(args.hand, args.level, args.partner)
    if args.json:
        print_json(out)
    else:
        print(_text(out))
    return 0
