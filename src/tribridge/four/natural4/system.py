"""The uncontested part of the system: openings, responses, opener's rebids, the no-trump structure (Stayman,
Jacoby transfers), the strong 2♣ and weak twos. Each situation is a list of rules, tried in order."""

from __future__ import annotations

from tribridge.four.natural4.context import Ctx, bid_of, strain_of
from tribridge.four.natural4.core import CallKind, HandInfo, Meaning, Rule, lens_at_least, lens_at_most
from tribridge.four.natural4.two_over_one import forcing_nt, forcing_nt_rebids, one_nt_response, two_level_response

__all__ = ["openings", "responses", "opener_rebids", "responder_rebids"]

M = Meaning
C, D, H, S, N = 0, 1, 2, 3, 4
KEYS = "cdhs"
NO_MAJOR = lens_at_most(h=3, s=3)
SPLINTER_WORKING = 14  # opener's HCP outside the splinter suit (its ace counts) that start Blackwood


def at_least(suit: int, n: int, **more: int) -> tuple[int, int, int, int]:
    """Minimum lengths with ``suit`` at least ``n`` (and keyword extras)."""
    return lens_at_least(**{KEYS[suit]: n, **more})


def at_most(suit: int, n: int, **more: int) -> tuple[int, int, int, int]:
    """Maximum lengths with ``suit`` at most ``n`` (and keyword extras)."""
    return lens_at_most(**{KEYS[suit]: n, **more})


def opens(h: HandInfo, ctx: Ctx | None = None) -> bool:
    """Opening strength: 12+ HCP, or 10-11 with the rule of 20."""
    return h.hcp >= 12 or h.hcp + sum(sorted(h.lens)[-2:]) >= 20


def longest(h: HandInfo, suits: tuple[int, ...]) -> int:
    """The longest of ``suits`` (the higher-ranking on a tie)."""
    return max(suits, key=lambda s: (h.lens[s], s))


def openings(ctx: Ctx) -> list[Rule]:
    """Opening bids."""
    rules = [
        Rule("2C", M("strong artificial opening, forcing", 22, 37, alert=True)),
        Rule("2N", M("opening", 20, 21, balanced=True)),
        Rule("1N", M("opening", 15, 17, balanced=True)),
        Rule("1S", M("opening", 10, 21, at_least(S, 5)), lambda h, c: opens(h) and h.lens[S] >= h.lens[H]),
        Rule("1H", M("opening", 10, 21, at_least(H, 5)), opens),
        Rule(
            "1D",
            M("opening", 10, 21, at_least(D, 3)),
            lambda h, c: opens(h) and (h.lens[D] > h.lens[C] or h.lens[D] == h.lens[C] >= 4),
        ),
        Rule("1C", M("opening", 10, 21, at_least(C, 3)), opens),
    ]
    for suit in (S, H, D):
        rules.append(
            Rule(
                bid_of(2, suit),
                M(
                    "weak two",
                    5,
                    10,
                    at_least(suit, 6),
                    at_most(suit, 6, **{KEYS[m]: 3 for m in (H, S) if m != suit}),
                    kind=CallKind.PREEMPT,
                ),
                lambda h, c, s=suit: h.honours(s) >= 2,
            )
        )
    for suit in (S, H):
        rules.append(Rule(bid_of(4, suit), M("preempt", 5, 10, at_least(suit, 8), kind=CallKind.PREEMPT)))
    for suit in (S, H, D, C):
        rules.append(
            Rule(
                bid_of(3, suit),
                M("preempt", 5, 10, at_least(suit, 7), kind=CallKind.PREEMPT),
                lambda h, c, s=suit: h.honours(s) >= 2,
            )
        )
    rules.append(Rule("P", M("no opening bid", 0, 11)))
    return rules


def _major_responses(m: int, two_over_one: bool = False) -> list[Rule]:
    """Responses to 1M (``two_over_one``: 2/1 by an unpassed hand, ``natural4.two_over_one``)."""
    other = S if m == H else H
    one_nt = one_nt_response(m, two_over_one)
    rules = [
        Rule(
            "4N",
            M(
                f"Blackwood (asks for aces), {('hearts', 'spades')[m - 2]} agreed",
                19,
                37,
                at_least(m, 4),
                alert=True,
                kind=CallKind.BLACKWOOD,
            ),
        ),
    ]
    for z in (S, H, D, C):
        if z != m:
            rules.append(
                Rule(
                    bid_of(4 if z < m else 3, z),
                    M(
                        "splinter: game values, a singleton or void here",
                        13,
                        16,
                        at_least(m, 4),
                        at_most(z, 1),
                        alert=True,
                    ),
                )
            )
    rules.append(
        Rule("2N", M("Jacoby 2NT: game-forcing raise", 13, 37, at_least(m, 4), alert=True, kind=CallKind.JACOBY_2NT))
    )
    rules += [
        Rule(
            bid_of(4, m), M("raise to game", 13, 16, at_least(m, 3)), lambda h, c: h.hcp + h.shortness_points(m) <= 16
        ),
        Rule(bid_of(3, m), M("limit raise", 10, 12, at_least(m, 3))),
        Rule(bid_of(2, m), M("single raise", 6, 9, at_least(m, 3))),
    ]
    if m == H:
        rules.append(Rule("1S", M("new suit, forcing", 6, 37, at_least(S, 4), lens_at_most(h=2))))
    rules += [
        Rule("3N", M("no fit", 16, 18, max_len=at_most(m, 2), balanced=True)),
    ]
    for suit in (D, C):
        rules.append(
            Rule(
                bid_of(2, suit),
                two_level_response(two_over_one, at_least(suit, 4), at_most(m, 2)),
                lambda h, c, s=suit: s == longest(h, (C, D, other)),
            )
        )
    if m == S:
        rules.append(Rule("2H", two_level_response(two_over_one, at_least(H, 5), at_most(S, 2))))
    rules += [
        Rule("1N", one_nt),
        Rule("P", M("too weak to respond", 0, 5)),
    ]
    return rules


def _minor_responses(m: int) -> list[Rule]:
    raise_len = 5 if m == C else 4
    rules = [
        Rule(
            "1H",
            M("new suit, forcing", 6, 37, at_least(H, 4)),
            lambda h, c: not (h.lens[S] >= 5 and h.lens[S] >= h.lens[H]),
        ),
        Rule("1S", M("new suit, forcing", 6, 37, at_least(S, 4))),
    ]
    if m == C:
        rules.append(Rule("1D", M("new suit, forcing", 6, 37, at_least(D, 4, h=0), NO_MAJOR)))
    rules += [
        Rule(bid_of(3, m), M("limit raise", 11, 12, at_least(m, raise_len), NO_MAJOR)),
        Rule(bid_of(2, m), M("single raise", 6, 10, at_least(m, raise_len), NO_MAJOR)),
        Rule("1N", M("no major", 6, 10, max_len=NO_MAJOR)),
        Rule("3N", M("no major", 16, 18, max_len=NO_MAJOR, balanced=True)),
        Rule("2N", M("no major", 13, 15, max_len=NO_MAJOR, balanced=True)),
    ]
    if m == D:
        rules.append(Rule("2C", M("new suit, forcing", 11, 37, at_least(C, 4), NO_MAJOR)))
    rules.append(Rule("P", M("too weak to respond", 0, 5)))
    return rules


def _nt_responses(level: int) -> list[Rule]:
    """Responses to 1NT (level 1) or 2NT (level 2): Stayman, Jacoby transfers, natural no-trump raises."""
    lo = 8 if level == 1 else 4
    game = 10 if level == 1 else 4
    slam = 18 if level == 1 else 12
    two = level + 1
    rules = [
        Rule(
            bid_of(two, D),
            M("Jacoby transfer to hearts", 0, 37, at_least(H, 5), alert=True),
            lambda h, c: h.lens[H] >= h.lens[S],
        ),
        Rule(bid_of(two, H), M("Jacoby transfer to spades", 0, 37, at_least(S, 5), alert=True)),
        Rule(
            bid_of(two, C),
            M("Stayman, asks for a 4-card major", lo - 3, 37, alert=True),
            lambda h, c: 4 in (h.lens[H], h.lens[S]) and h.hcp + h.shortness_points(-1) >= lo,
        ),
    ]
    if level == 1:
        rules.append(Rule("2N", M("invites 3NT", 8, 9, max_len=NO_MAJOR)))
    rules += [
        Rule("3N", M("to play", game, slam - 3, max_len=NO_MAJOR, kind=CallKind.TO_PLAY)),
        Rule("4N", M("invites 6NT", slam - 2, slam - 1, max_len=NO_MAJOR)),
        Rule("6N", M("to play", slam, slam + 3, max_len=NO_MAJOR, kind=CallKind.TO_PLAY)),
        Rule("7N", M("to play", slam + 4, 37, max_len=NO_MAJOR, kind=CallKind.TO_PLAY)),
        Rule("P", M("no game interest", 0, lo - 1)),
    ]
    return rules


def _weak_two_responses(m: int, level: int) -> list[Rule]:
    rules = []
    if m in (H, S):
        rules.append(
            Rule(bid_of(4, m), M("to play", 14, 37, at_least(m, 3 if level == 2 else 2), kind=CallKind.TO_PLAY))
        )
    rules.append(Rule("3N", M("to play", 16, 37, balanced=True, kind=CallKind.TO_PLAY)))
    if m in (C, D):
        rules.append(Rule(bid_of(5, m), M("to play", 16, 37, at_least(m, 3), kind=CallKind.TO_PLAY)))
    if level == 2:
        rules.append(Rule(bid_of(3, m), M("preemptive raise", 0, 13, at_least(m, 3))))
    rules.append(Rule("P", M("no game interest", 0, 14)))
    return rules


def responses(ctx: Ctx) -> list[Rule]:
    """Responses to partner's opening bid when the opponents have stayed silent."""
    opening = ctx.opening or ""
    level, strain = int(opening[0]), strain_of(opening)
    kinds = ctx.our_kinds(ctx.partner)
    if opening == "2C":
        return [Rule("2D", M("waiting response, artificial", alert=True))]
    if strain == N and level in (1, 2):
        return _nt_responses(level)
    if level == 1 and strain in (H, S):
        return _major_responses(strain, ctx.two_over_one and not ctx.calls_of(ctx.seat))  # a passed hand: as SAYC
    if level == 1:
        return _minor_responses(strain)
    if kinds and kinds[-1] == CallKind.PREEMPT:
        return _weak_two_responses(strain, level)
    return []


def _after_nt_response(ctx: Ctx, nt_level: int, response: str) -> list[Rule]:
    """Opener's answer to Stayman or a transfer."""
    lo, hi = (15, 17) if nt_level == 1 else (20, 21)
    two = nt_level + 1
    if response == bid_of(two, C):
        return [
            Rule(bid_of(two, H), M("Stayman reply", lo, hi, at_least(H, 4), balanced=True)),
            Rule(bid_of(two, S), M("Stayman reply", lo, hi, at_least(S, 4, h=0), at_most(H, 3), balanced=True)),
            Rule(
                bid_of(two, D),
                M("Stayman reply, no 4-card major (artificial)", lo, hi, max_len=NO_MAJOR, balanced=True, alert=True),
            ),
        ]
    if response == bid_of(two, D):
        return [Rule(bid_of(two, H), M("completes the transfer", lo, hi, balanced=True))]
    if response == bid_of(two, H):
        return [Rule(bid_of(two, S), M("completes the transfer", lo, hi, balanced=True))]
    return []


def _after_two_clubs() -> list[Rule]:
    rules = [
        Rule("2N", M("strong balanced", 22, 24, balanced=True)),
        Rule("3N", M("strong balanced", 25, 27, balanced=True)),
    ]
    for suit in (S, H, D, C):
        call = bid_of(2 if suit in (H, S) else 3, suit)
        rules.append(
            Rule(
                call,
                M("natural, game forcing", 22, 37, at_least(suit, 5 if suit in (H, S) else 4)),
                lambda h, c, s=suit: s == longest(h, (C, D, H, S)),
            )
        )
    return rules


def _after_new_suit(x: int, y: int, level: int) -> list[Rule]:
    """Opener's rebid after 1x - 1y (``level`` 1) or 1x - 2y (``level`` 2): both forcing, y is 4+ long."""
    support = 4 if (y in (H, S) and level == 1) or y in (C, D) else 3
    rules = []
    if y in (H, S):
        rules += [
            Rule(bid_of(4, y), M("raise to game", 18 if level == 1 else 15, 21, at_least(y, support))),
            Rule(bid_of(3, y), M("invitational raise", 16, 17, at_least(y, support)), lambda h, c: level == 1),
            Rule(
                bid_of(level + 1 if level == 1 else 3, y),
                M("raise", 10, 15 if level == 1 else 14, at_least(y, support)),
            ),
        ]
    if level == 1 and x in (C, D) and y in (C, D, H):
        for z in (H, S):
            if z > y:
                rules.append(Rule(bid_of(1, z), M("new suit", 10, 18, at_least(z, 4), at_most(y, 3))))
    for z in (S, H, D, C):
        if z not in (x, y):
            jump = bid_of((1 if z > y else 2) + 1, z) if level == 1 else bid_of(3, z)
            rules.append(
                Rule(
                    jump,
                    M("jump shift, forcing to game", 19, 21, at_least(z, 4)),
                    lambda h, c, z=z: z == longest(h, tuple(s for s in (C, D, H, S) if s not in (x, y))),
                )
            )
    rules += [
        Rule(bid_of(2, N) if level == 1 else "3N", M("rebid", 18, 19, balanced=True)),
        Rule("1N" if level == 1 else "2N", M("rebid", 12, 14, balanced=True)),
        Rule(bid_of(3, x), M("jump rebid", 16, 18, at_least(x, 6))),
        Rule(bid_of(2, x), M("rebid", 10, 15, at_least(x, 6))),
    ]
    if y in (C, D) and x in (C, D):
        rules.append(Rule(bid_of(level + 1, y), M("raise", 10, 15, at_least(y, 4))))
    for z in (S, H, D, C):
        if z in (x, y):
            continue
        if z < x:
            rules.append(Rule(bid_of(2, z), M("second suit", 10, 18, at_least(z, 4))))
        elif level == 1 or z > y:
            rules.append(Rule(bid_of(2, z), M("reverse, forcing", 17, 21, at_least(z, 4, **{KEYS[x]: 5}))))
    rules += [
        Rule(bid_of(2, x), M("rebid", 10, 15, at_least(x, 5))),
        Rule("1N" if level == 1 else "2N", M("rebid", 10, 14)),
    ]
    return rules


def _after_raise(x: int, partner_level: int) -> list[Rule]:
    """Opener's rebid after partner raised opener's suit (single raise or limit raise)."""
    if partner_level == 2:
        if x in (H, S):
            points = lambda h: h.hcp + h.length_points() + h.shortness_points(x)  # noqa: E731
            return [
                Rule(bid_of(4, x), M("game", 13, 21), lambda h, c: points(h) >= 19),
                Rule(bid_of(3, x), M("invites game", 12, 18), lambda h, c: points(h) >= 17),
                Rule("P", M("minimum opening", 10, 18)),
            ]
        return [
            Rule("3N", M("to play", 18, 19, balanced=True, kind=CallKind.TO_PLAY)),
            Rule(bid_of(3, x), M("invites game", 16, 17)),
            Rule("P", M("minimum opening", 10, 15)),
        ]
    accept = lambda h, c: h.hcp + h.length_points() + h.shortness_points(x) >= 15  # noqa: E731
    if x in (H, S):
        return [
            Rule(bid_of(4, x), M("accepts the invitation", 10, 16), accept),
            Rule("P", M("declines the invitation", 10, 14)),
        ]
    return [Rule("3N", M("accepts the invitation", 13, 21)), Rule("P", M("declines the invitation", 10, 14))]


def _after_one_nt(x: int, forcing: bool = False) -> list[Rule]:
    """Opener's rebid after 1x - 1NT (``forcing``: 2/1's forcing 1NT, which opener does not pass)."""
    rules = [
        Rule("2N", M("invites game", 18, 19, balanced=True)),
        Rule(bid_of(3, x), M("jump rebid", 16, 18, at_least(x, 6))),
        Rule(bid_of(2, x), M("rebid", 10, 15, at_least(x, 6))),
    ]
    for z in (S, H, D, C):
        if z < x:
            rules.append(Rule(bid_of(2, z), M("second suit", 10, 18, at_least(z, 4))))
        elif z > x:
            rules.append(Rule(bid_of(2, z), M("reverse, forcing", 17, 21, at_least(z, 4, **{KEYS[x]: 5}))))
    if forcing:
        return rules + forcing_nt_rebids(x)
    return rules + [Rule("P", M("content with 1NT", 10, 17)), Rule(bid_of(2, x), M("rebid", 10, 15, at_least(x, 5)))]


def _after_jacoby(x: int) -> list[Rule]:
    """Opener's rebid after 1M - 2NT (Jacoby): a singleton or void at the three level, a second five-card suit
    at the four level, else the strength: 3M 18+, 3NT 15-17, 4M a minimum."""
    rules = [
        Rule(
            bid_of(3, z),
            M(
                "Jacoby 2NT reply: a singleton or void here",
                10,
                37,
                at_least(x, 5),
                at_most(z, 1),
                alert=True,
                kind=CallKind.JACOBY_2NT_REPLY,
            ),
        )
        for z in (S, H, D, C)
        if z != x
    ]
    rules += [
        Rule(
            bid_of(4, z),
            M(
                "Jacoby 2NT reply: a second five-card suit",
                10,
                37,
                at_least(z, 5, **{KEYS[x]: 5}),
                kind=CallKind.JACOBY_2NT_REPLY,
            ),
        )
        for z in (D, C) + ((H,) if x == S else ())
    ]
    flat = at_least(x, 5, **{KEYS[z]: 2 for z in (S, H, D, C) if z != x})  # no singleton or void
    return rules + [
        Rule(
            bid_of(3, x),
            M("Jacoby 2NT reply: no shortness, extra values", 18, 37, flat, kind=CallKind.JACOBY_2NT_REPLY),
        ),
        Rule("3N", M("Jacoby 2NT reply: no shortness", 15, 17, flat, kind=CallKind.JACOBY_2NT_REPLY)),
        Rule(bid_of(4, x), M("Jacoby 2NT reply: minimum, no shortness", 10, 14, flat, kind=CallKind.JACOBY_2NT_REPLY)),
    ]


def _after_one_nt_rebid(m: int) -> list[Rule]:
    """Responder's game-forcing jump in a five-card major after opener's 1NT rebid: opener picks 4M or 3NT."""
    return [Rule(bid_of(3, m), M("five-card suit, forcing to game: choice of games", 12, 37, at_least(m, 5)))]


def _after_splinter(ctx: Ctx, m: int) -> list[Rule]:
    """Opener's answer to partner's splinter: Blackwood with enough working values (kings, queens and jacks in
    the splinter suit are wasted opposite a singleton or void), else game."""
    z = strain_of(ctx.bids_of(ctx.partner)[0])

    def working(h: HandInfo, c: Ctx) -> bool:
        """Whether the HCP outside the splinter suit (its ace counts) reach SPLINTER_WORKING."""
        wasted = sum(4 - card % 13 for card in h.cards if card // 13 == z and 1 <= card % 13 <= 3)
        return h.hcp - wasted >= SPLINTER_WORKING

    suit = ("hearts", "spades")[m - 2]
    return [
        Rule(
            "4N",
            M(f"Blackwood (asks for aces), {suit} agreed", 10, 37, at_least(m, 5), alert=True, kind=CallKind.BLACKWOOD),
            working,
        ),
        Rule(bid_of(4, m), M("signs off in game opposite the splinter", 10, 37, at_least(m, 5))),
    ]


def responder_rebids(ctx: Ctx) -> list[Rule]:
    """Responder's second call, uncontested: after 1NT (or 2NT) - Stayman or a transfer - and opener's answer,
    and after opener's 1NT rebid over a major."""
    opening = ctx.opening or ""
    mine, theirs = ctx.bids_of(ctx.seat), ctx.bids_of(ctx.partner)
    if len(mine) == 1 and theirs[1:] == ["1N"] and mine[0] in ("1H", "1S"):
        return _after_one_nt_rebid(strain_of(mine[0]))
    if opening not in ("1N", "2N") or len(mine) != 1 or len(theirs) != 2:
        return []
    two = int(opening[0]) + 1
    ask, answer = mine[0], theirs[1]
    inv = (8, 9) if opening == "1N" else (3, 3)
    game = (10, 15) if opening == "1N" else (4, 10)
    if ask in (bid_of(two, D), bid_of(two, H)):
        m = H if ask[1] == "D" else S
        return [
            Rule(bid_of(4, m), M("to play", game[0], game[1], at_least(m, 6), kind=CallKind.TO_PLAY)),
            Rule("3N", M("choice of games", game[0], game[1], at_least(m, 5), at_most(m, 5))),
            Rule(bid_of(3, m), M("invites game", inv[0], inv[1], at_least(m, 6)), lambda h, c: two == 2),
            Rule("2N", M("invites game", inv[0], inv[1], at_least(m, 5), at_most(m, 5)), lambda h, c: two == 2),
            Rule("P", M("to play", 0, inv[0] - 1, at_least(m, 5), kind=CallKind.TO_PLAY)),
        ]
    if ask == bid_of(two, C) and answer[1] in "HS":
        m = strain_of(answer)
        return [
            Rule(bid_of(4, m), M("to play, a 4-4 fit", game[0], game[1], at_least(m, 4), kind=CallKind.TO_PLAY)),
            Rule(bid_of(3, m), M("invites game, a 4-4 fit", inv[0], inv[1], at_least(m, 4)), lambda h, c: two == 2),
            Rule("3N", M("to play, no fit", game[0], game[1], max_len=at_most(m, 3), kind=CallKind.TO_PLAY)),
            Rule("2N", M("invites 3NT, no fit", inv[0], inv[1], max_len=at_most(m, 3)), lambda h, c: two == 2),
        ]
    if ask == bid_of(two, C):
        return [
            Rule("3N", M("to play", game[0], game[1], kind=CallKind.TO_PLAY)),
            Rule("2N", M("invites 3NT", inv[0], inv[1]), lambda h, c: two == 2),
        ]
    return []


def opener_rebids(ctx: Ctx) -> list[Rule]:
    """Opener's second call when the opponents have stayed silent."""
    opening = ctx.bids_of(ctx.seat)[0]
    response = ctx.bids_of(ctx.partner)[0] if ctx.bids_of(ctx.partner) else None
    if response is None:
        return []
    x, level = strain_of(opening), int(opening[0])
    if x == N and level in (1, 2):
        return _after_nt_response(ctx, level, response)
    if opening == "2C" and response == "2D":
        return _after_two_clubs()
    if level != 1 or x == N:
        return []
    y, rlevel = strain_of(response), int(response[0])
    if y == x:
        return _after_raise(x, rlevel) if rlevel in (2, 3) else []
    if x in (H, S) and response == bid_of(4 if y < x else 3, y) and y != N:
        return _after_splinter(ctx, x)
    if response == "1N":
        return _after_one_nt(x, forcing_nt(ctx, x))
    if (
        response == "2N"
        and x in (H, S)
        and ctx.our_kinds(ctx.partner)[-1] in (CallKind.JACOBY_2NT, CallKind.JACOBY_2NT_REPLY)
    ):
        return _after_jacoby(x)
    if y != N and rlevel <= 2:
        return _after_new_suit(x, y, rlevel)
    return []
