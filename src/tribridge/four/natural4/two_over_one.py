"""What 2/1 game forcing changes in the uncontested system (``system``): over 1♥/1♠ a two-level new suit by
an unpassed hand forces to game (13+), 1NT is forcing (6-12), and opener does not pass that 1NT."""

from __future__ import annotations

from tribridge.four.natural4.context import Ctx, bid_of
from tribridge.four.natural4.core import Meaning, Rule, lens_at_least, lens_at_most

__all__ = ["forcing_nt", "forcing_nt_rebids", "one_nt_response", "two_level_response"]

C, D = 0, 1
KEYS = "cdhs"
Lens = tuple[int, int, int, int]


def two_level_response(two_over_one: bool, min_len: Lens, max_len: Lens) -> Meaning:
    """A new suit at the two level over 1M with these suit lengths: forcing to game in 2/1 (13+), else 11+."""
    if two_over_one:
        return Meaning("two over one, forcing to game", 13, 37, min_len, max_len)
    return Meaning("new suit, forcing", 11, 37, min_len, max_len)


def forcing_nt(ctx: Ctx, x: int) -> bool:
    """Whether partner's 1NT over this seat's 1M opening is forcing: 2/1, and partner had not passed."""
    return ctx.two_over_one and x in (2, 3) and ctx.calls_of(ctx.partner)[0][1] != "P"


def one_nt_response(m: int, two_over_one: bool) -> Meaning:
    """1NT over 1M: 6-12 without three cards in the major; forcing (and alerted) in 2/1."""
    short = lens_at_most(**{KEYS[m]: 2})
    if two_over_one:
        return Meaning("forcing 1NT", 6, 12, max_len=short, alert=True)
    return Meaning("no fit", 6, 12, max_len=short)


def forcing_nt_rebids(x: int) -> list[Rule]:
    """Opener's last resorts over the forcing 1NT, after the natural rebids: a six-card suit, two of the longer
    minor (it may be three cards; clubs with three of each), else two of the five-card major."""
    rules = [Rule(bid_of(2, x), Meaning("rebid", 10, 15, lens_at_least(**{KEYS[x]: 6})))]
    for minor in (C, D):
        rules.append(
            Rule(
                bid_of(2, minor),
                Meaning("rebid over the forcing 1NT, may be three cards", 10, 17, lens_at_least(**{KEYS[minor]: 3})),
                lambda h, c, z=minor: h.lens[z] >= h.lens[D + C - z],
            )
        )
    rules.append(Rule(bid_of(2, x), Meaning("rebid over the forcing 1NT", 10, 15, lens_at_least(**{KEYS[x]: 5}))))
    return rules
