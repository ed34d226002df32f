"""Competitive bidding: overcalls, takeout and penalty doubles, advancing partner's overcall or double, responding
after the opponents interfere (negative double, redouble, raises), and Blackwood replies."""

from __future__ import annotations

from tribridge.four.natural4.context import Ctx, bid_of, strain_of
from tribridge.four.natural4.core import CallKind, HandInfo, Meaning, Rule, lens_at_least
from tribridge.four.natural4.system import at_least, at_most, longest

__all__ = [
    "direct_actions",
    "advances",
    "answers_to_takeout",
    "their_strain",
    "contested_responses",
    "blackwood_replies",
    "partner_aces",
    "ACE_REPLIES",
]

M = Meaning
C, D, H, S, N = 0, 1, 2, 3, 4
SUIT_ORDER = (S, H, D, C)
ACE_REPLIES = {"5C": (0, 4), "5D": (1,), "5H": (2,), "5S": (3,)}
# (min HCP, max HCP, min length) of a simple overcall at levels 1, 2 and 3
OVERCALL = {1: (8, 17, 5), 2: (11, 17, 5), 3: (13, 18, 6)}


def their_strain(ctx: Ctx) -> int:
    """The strain of the last bid (no-trump when nobody has bid)."""
    last = ctx.last_bid
    return strain_of(last) if last else N


def _stops(suits: set[int]):
    return lambda h, c: all(h.stopper(s) for s in suits)


def _unbid_support(t: int, least: int = 3, majors: int = 3):
    """Takeout shape: ``least`` or more cards in every suit they have not bid, ``majors`` or more in a major."""
    return lambda h, c: all(
        h.lens[s] >= (majors if s in (H, S) else least) for s in range(4) if s != t and s not in c.their_suits()
    )


def direct_actions(ctx: Ctx) -> list[Rule]:
    """Our side's first action after the opponents opened."""
    t = their_strain(ctx)
    level = int(ctx.last_bid[0]) if ctx.last_bid else 1
    rules: list[Rule] = []
    if t == N:
        if level == 1:
            rules.append(Rule("X", M("penalty double of 1NT", 15, 37, kind=CallKind.PENALTY)))
        for s in SUIT_ORDER:
            call = ctx.cheapest_bid(s)
            if call and int(call[0]) <= 3:
                rules.append(
                    Rule(
                        call,
                        M("natural overcall", 8, 16, at_least(s, 6)),
                        lambda h, c, s=s: h.honours(s) >= 2 and s == longest(h, SUIT_ORDER),
                    )
                )
        rules.append(Rule("P", M("no suitable action")))
        return rules
    nt = ctx.cheapest_bid(N)
    if nt and int(nt[0]) <= 2:
        rules.append(Rule(nt, M("no-trump overcall, stopper in their suit", 15, 18, balanced=True), _stops({t})))
    elif nt == "3N" and level == 3:
        no_void = lambda h, c: min(h.lens) >= 1 and h.stopper(t)  # noqa: E731
        rules.append(Rule(nt, M("no-trump over their preempt, stopper in their suit", 16, 21), no_void))
    for s in SUIT_ORDER:
        if s == t or s in ctx.their_suits():
            continue
        lv = ctx.cheapest(s)
        if lv in OVERCALL:
            lo, hi, n = OVERCALL[lv]
            rules.append(
                Rule(
                    bid_of(lv, s),
                    M("overcall", lo, hi, at_least(s, n)),
                    lambda h, c, s=s, lv=lv: (
                        h.honours(s) >= lv and s == longest(h, tuple(x for x in SUIT_ORDER if x != t))
                    ),
                )
            )
        if lv == 3:
            rules.append(
                Rule(
                    bid_of(lv, s),
                    M("overcall of their preempt", 14, 18, at_least(s, 5)),
                    lambda h, c, s=s: h.honours(s) >= 3 and s == longest(h, tuple(x for x in SUIT_ORDER if x != t)),
                )
            )
        if lv + 1 <= 3 and level == 1:
            rules.append(
                Rule(
                    bid_of(lv + 1, s),
                    M("weak jump overcall", 5, 10, at_least(s, 6)),
                    lambda h, c, s=s: h.honours(s) >= 2,
                )
            )
    if level <= 2:
        rules += [
            Rule("X", M("takeout double", 12, 37, max_len=at_most(t, 2)), _unbid_support(t)),
            Rule("X", M("takeout double", 14, 37, max_len=at_most(t, 3)), _unbid_support(t)),
        ]
    if 3 <= level <= 4:
        rules += [
            Rule("X", M("takeout double", 13, 37, max_len=at_most(t, 2)), _unbid_support(t, 2)),
            Rule("X", M("takeout double", 16, 37, max_len=at_most(t, 3)), _unbid_support(t, 2, 2)),
        ]
    if level <= 4:
        rules += [
            Rule("X", M("takeout double, strong hand", 18, 37)),
        ]
    rules.append(Rule("P", M("no suitable action")))
    return rules


def answers_to_takeout(ctx: Ctx, t: int) -> list[Rule]:
    """Answers to partner's takeout double of the opponents' strain ``t``."""
    unbid = tuple(s for s in SUIT_ORDER if s != t and s not in ctx.their_suits())
    best = lambda h: max(unbid, key=lambda s: (h.lens[s] + (1 if s in (H, S) else 0), s))  # noqa: E731
    rules = []
    for s in unbid:
        lv = ctx.cheapest(s)
        if lv + 1 <= 4:
            rules.append(
                Rule(
                    bid_of(lv + 1, s),
                    M("jump answer to partner's takeout double", 9, 12, at_least(s, 4)),
                    lambda h, c, s=s: s == best(h),
                )
            )
    nt = ctx.cheapest_bid(N)
    if nt and int(nt[0]) <= 3:
        lo, hi = {"1": (6, 10), "2": (11, 12), "3": (9, 15)}[nt[0]]
        rules.append(
            Rule(
                nt,
                M("answer to partner's takeout double, stopper in their suit", lo, hi),
                lambda h, c: h.stopper(t) and h.lens[t] >= 3,
            )
        )
    for s in unbid:
        call = ctx.cheapest_bid(s)
        if call and int(call[0]) <= 4:
            rules.append(Rule(call, M("answer to partner's takeout double"), lambda h, c, s=s: s == best(h)))
    rules.append(Rule("P", M("penalty pass: long, strong trumps", 6, 37, at_least(t, 5), kind=CallKind.PENALTY)))
    return rules


def advances(ctx: Ctx) -> list[Rule]:
    """Our first action after partner overcalled or doubled the opponents' opening."""
    t = their_strain(ctx)
    partner_call = ctx.actions_of(ctx.partner)[-1]
    rho_passed = ctx.auction.calls[-1] == "P"
    if partner_call == "X" and tuple(ctx.auction.calls[-2:]) != ("X", "P") and rho_passed:
        return []  # the doubled contract is gone and the opponents have bid again: nothing forces an answer
    if partner_call == "X" and t != N and rho_passed and not ctx.ours():
        return answers_to_takeout(ctx, t)
    if partner_call == "X" and t == N and rho_passed:
        return [Rule("P", M("leaves partner's penalty double in"))]
    if partner_call == "1N" and rho_passed and ctx.last_bid == "1N":
        return _after_nt_overcall(ctx)
    rules: list[Rule] = []
    if partner_call[0].isdigit() and partner_call[1] != "N":
        p = strain_of(partner_call)
        lv = ctx.cheapest(p)
        if p in (H, S) and lv <= 4:
            rules.append(Rule(bid_of(4, p), M("raise to game", 13, 37, at_least(p, 3))))
        if lv + 1 <= 4:
            rules.append(Rule(bid_of(lv + 1, p), M("jump raise", 10, 12, at_least(p, 3))))
        if lv <= 3:
            rules.append(Rule(bid_of(lv, p), M("raise", 6, 9, at_least(p, 3))))
    for s in SUIT_ORDER:
        call = ctx.cheapest_bid(s)
        if call and int(call[0]) <= 2 and s not in ctx.their_suits():
            rules.append(Rule(call, M("new suit", 10, 37, at_least(s, 5)), lambda h, c, s=s: h.honours(s) >= 2))
    nt = ctx.cheapest_bid(N)
    if nt and int(nt[0]) <= 3 and t != N:
        lo, hi = {1: (8, 11), 2: (12, 14), 3: (15, 18)}[int(nt[0])]
        rules.append(Rule(nt, M("no-trump, stopper in their suit", lo, hi), _stops(ctx.their_suits())))
    return rules


def _after_nt_overcall(ctx: Ctx) -> list[Rule]:
    """Advancing partner's 15-18 1NT overcall: natural, as over an opening 1NT but without the conventions."""
    theirs = ctx.their_suits()
    rules: list[Rule] = []
    for m in (S, H):
        if m not in theirs:
            rules.append(Rule(bid_of(4, m), M("to play", 10, 37, at_least(m, 6), kind=CallKind.TO_PLAY)))
            rules.append(Rule(bid_of(3, m), M("five-card suit, forcing to game", 10, 37, at_least(m, 5))))
    rules += [Rule("3N", M("to play", 10, 37, kind=CallKind.TO_PLAY)), Rule("2N", M("invites 3NT", 8, 9))]
    for s in SUIT_ORDER:
        if s not in theirs:
            weak = M("to play", 0, 7, at_least(s, 5), kind=CallKind.TO_PLAY)
            rules.append(Rule(bid_of(2, s), weak, lambda h, c, s=s: s == longest(h, SUIT_ORDER)))
    rules.append(Rule("P", M("nothing to add", 0, 7)))
    return rules


def contested_responses(ctx: Ctx) -> list[Rule]:
    """Our first action after partner opened and an opponent interfered."""
    opening = ctx.opening or ""
    x = strain_of(opening)
    last = ctx.auction.calls[-1]
    rules: list[Rule] = []
    if ctx.doubled_us() and opening[0] == "1":
        rules.append(Rule("XX", M("redouble: the balance of strength", 10, 37)))
        if x == N:
            for s in SUIT_ORDER:
                call = ctx.cheapest_bid(s)
                if call and call[0] == "2":
                    rules.append(
                        Rule(
                            call,
                            M("to play, escaping the double", 0, 9, at_least(s, 5), kind=CallKind.TO_PLAY),
                            lambda h, c, s=s: s == longest(h, SUIT_ORDER),
                        )
                    )
            rules.append(Rule("P", M("content to play 1NT doubled", 0, 9)))
            return rules
    t = their_strain(ctx)
    support = 3 if x in (H, S) else 4
    if x != N:
        lv = ctx.cheapest(x)
        if x in (H, S) and lv <= 4:
            rules.append(
                Rule(
                    bid_of(4, x),
                    M("raise to game", 13, 16, at_least(x, support)),
                    lambda h, c: h.hcp + h.shortness_points(x) <= 16,
                )
            )
        if lv <= 3:
            rules.append(Rule(bid_of(lv, x), M("raise", 6, 10, at_least(x, support))))
    if last != "X" and t != N:
        level = int(ctx.last_bid[0]) if ctx.last_bid else 1
        unbid_majors = [s for s in (H, S) if s != x and s not in ctx.their_suits()]
        rules += _new_suits(ctx, x, major_only=True)
        if level <= 2 and unbid_majors:
            rules.append(
                Rule(
                    "X",
                    M(
                        "negative double: 4+ cards in the unbid major",
                        6 if level == 1 else 8,
                        37,
                        lens_at_least(**{"hs"[s - H]: 4 for s in unbid_majors}),
                        kind=CallKind.NEGATIVE_DOUBLE,
                    ),
                )
            )
        elif level <= 2 and t != x:
            rules.append(
                Rule(
                    "X",
                    M(
                        "penalty double: length and strength in their suit",
                        10,
                        37,
                        at_least(t, 4),
                        kind=CallKind.PENALTY,
                    ),
                    lambda h, c: h.honours(t) >= 2,
                )
            )
        nt = ctx.cheapest_bid(N)
        if nt and int(nt[0]) <= 3:
            lo, hi = {1: (8, 10), 2: (11, 12), 3: (13, 17)}[int(nt[0])]
            rules.append(Rule(nt, M("no-trump, stopper in their suit", lo, hi), _stops(ctx.their_suits())))
    rules += _new_suits(ctx, x, major_only=False)
    rules.append(Rule("P", M("nothing to add", 0, 9)))
    return rules


def _new_suits(ctx: Ctx, x: int, major_only: bool) -> list[Rule]:
    """New five-card suits after partner's opening and an interference (only the majors with ``major_only``)."""
    rules = []
    for s in SUIT_ORDER:
        call = ctx.cheapest_bid(s)
        if major_only and s not in (H, S):
            continue
        if call and s != x and s not in ctx.their_suits() and int(call[0]) <= 3:
            lo = {"1": 6, "2": 10, "3": 10}[call[0]]
            rules.append(
                Rule(
                    call,
                    M("new suit", lo, 37, at_least(s, 5)),
                    lambda h, c, s=s, n=int(call[0]): h.honours(s) >= min(n, 2),
                )
            )
    return rules


def blackwood_replies(ctx: Ctx) -> list[Rule]:
    """Replies to partner's Blackwood 4NT: 5♣ 0 or 4 aces, 5♦ 1, 5♥ 2, 5♠ 3."""
    words = {"5C": "0 or 4 aces", "5D": "1 ace", "5H": "2 aces", "5S": "3 aces"}

    def with_aces(counts: tuple[int, ...]):
        """The test that the hand holds one of ``counts`` aces."""
        return lambda h, c: h.aces in counts

    return [
        Rule(call, M(f"Blackwood reply, {words[call]}", alert=True, kind=CallKind.BLACKWOOD_REPLY), with_aces(n))
        for call, n in ACE_REPLIES.items()
    ]


def partner_aces(reply: str, mine: HandInfo) -> int:
    """Partner's aces from a Blackwood reply (5♣ is 4 when this hand has none, else 0)."""
    counts = ACE_REPLIES.get(reply, (0,))
    if len(counts) == 2:
        return 4 if mine.aces == 0 else 0
    return counts[0]
