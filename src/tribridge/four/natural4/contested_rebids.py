"""Opener's side after the opponents interfered: opener's answer to partner's negative double, opener's
reopening double when partner passed, and responder's answer to that reopening double."""

from __future__ import annotations

from tribridge.four.natural4.compete import answers_to_takeout, their_strain
from tribridge.four.natural4.context import Ctx, bid_of, strain_of
from tribridge.four.natural4.core import CallKind, Meaning, Rule
from tribridge.four.natural4.system import at_least, at_most
from tribridge.four.rules import same_side

__all__ = ["after_negative_double", "reopenings", "answers_to_reopening", "REOPENING"]

M = Meaning
C, D, H, S, N = 0, 1, 2, 3, 4
SUIT_ORDER = (S, H, D, C)
REOPENING = "reopening double"


def after_negative_double(ctx: Ctx) -> list[Rule]:
    """Opener's rebid after partner's negative double: partner's major, no-trump with a stopper, a second suit,
    or the opening suit again; a minimum passes when the opponents bid again."""
    x = strain_of(ctx.opening or "1N")
    t = their_strain(ctx)
    partner = ctx.shown[ctx.partner]
    free = ctx.auction.calls[-1] != "P"  # the opponents bid again: opener is no longer forced
    least = 15 if free else 11
    rules: list[Rule] = []
    for m in (S, H):
        if partner.min_len[m] >= 4 and m not in ctx.their_suits():
            lv = ctx.cheapest(m)
            if lv <= 3:
                rules.append(Rule(bid_of(4, m), M("game in partner's major", 17, 37, at_least(m, 4))))
                rules.append(Rule(bid_of(lv, m), M("four cards in partner's major", least, 16, at_least(m, 4))))
    nt = ctx.cheapest_bid(N)
    if nt and int(nt[0]) <= 3 and t != N:
        lo, hi = {1: (12, 14), 2: (15, 17), 3: (18, 21)}[int(nt[0])]
        stop = lambda h, c: h.stopper(t)  # noqa: E731
        rules.append(Rule(nt, M("no-trump, stopper in their suit", max(lo, least), hi, balanced=True), stop))
    own = bid_of(ctx.cheapest(x), x) if x != N and ctx.cheapest(x) <= 3 else None
    if own:
        rules.append(Rule(own, M("rebids the opening suit", least, 16, at_least(x, 6))))
    for s in SUIT_ORDER:
        lv = ctx.cheapest(s)
        if s in (x, t) or s in ctx.their_suits():
            continue
        if partner.min_len[s] < 4 and lv <= 3:
            rules.append(Rule(bid_of(lv, s), M("second suit", least, 37, at_least(s, 4))))
        elif lv == 4 and s in (C, D):
            rules.append(Rule(bid_of(lv, s), M("second suit", 15, 37, at_least(s, 5))))
    if own:
        rules.append(Rule(own, M("rebids the opening suit", least, 16, at_least(x, 5))))
    if not free:
        rules.append(Rule("P", M("penalty pass: length in their suit", 0, 37, at_least(t, 4), kind=CallKind.PENALTY)))
        if own:
            rules.append(Rule(own, M("forced answer to partner's double")))
    return rules


def reopenings(ctx: Ctx) -> list[Rule]:
    """Opener's reopening double when partner passed and the opponents stopped at the one or two level: 12+ HCP
    and a singleton or void in their suit when they bid once, 16+ and at most a doubleton when they bid again."""
    last = ctx.last_bid
    if last is None or last[1] == "N" or int(last[0]) > 2 or ctx.ours():
        return []
    if any(c == "X" for c in ctx.auction.calls):
        return []
    t = strain_of(last)
    their_bids = sum(
        1 for i, c in enumerate(ctx.auction.calls) if c[0].isdigit() and not same_side(ctx.seat_of(i), ctx.seat)
    )
    lo, short = (12, 1) if their_bids == 1 else (16, 2)
    return [
        Rule(
            "X",
            M(
                f"{REOPENING}: short in their suit, for takeout",
                lo,
                37,
                max_len=at_most(t, short),
                kind=CallKind.REOPENING_DOUBLE,
            ),
        )
    ]


def answers_to_reopening(ctx: Ctx) -> list[Rule]:
    """Responder's answer to opener's reopening double: pass for penalties with their suit, else as to a
    takeout double."""
    t = their_strain(ctx)
    strong_trumps = Rule(
        "P",
        M("penalty pass: length and strength in their suit", 5, 37, at_least(t, 4), kind=CallKind.PENALTY),
        lambda h, c: h.honours(t) >= 2,
    )
    return [strong_trumps] + answers_to_takeout(ctx, t)
