"""The searching bidder's layouts: every layout not flagged relaxed meets every constraint it claims."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tribridge.cards import random_deal
from tribridge.dealing.streams import random_stream
from tribridge.four.natural4 import Bid4View, bid
from tribridge.four.natural4.core import HandInfo
from tribridge.four.rules import Auction4
from tribridge.four.sampler import (
    LayoutSample,
    SeatConstraint,
    auction_constraints,
    prefer_replayed,
    replay_misses,
    sample_layouts,
)


def meets(hand: HandInfo, c: SeatConstraint) -> bool:
    """The constraint checked from the hand's own features (independent of the sampler's arithmetic)."""
    if not c.lo <= hand.hcp <= c.hi or (c.balanced and not hand.balanced) or hand.aces not in c.aces:
        return False
    return all(a <= n <= b for a, n, b in zip(c.min_len, hand.lens, c.max_len))


def auction_after(seed: int, calls: int, random_calls: bool) -> tuple[Auction4, tuple[int, ...], str]:
    """An auction of up to ``calls`` calls on a random deal (natural4's, or random legal calls), the hand on
    turn and the vulnerability."""
    rng = random_stream(seed)
    deal = random_deal(rng)
    vul = ("None", "NS", "EW", "All")[seed % 4]
    auction = Auction4(seed % 4)
    for _ in range(calls):
        seat = auction.turn
        call = bid(Bid4View(seat, auction.dealer, vul, tuple(deal[seat].cards), auction))
        if random_calls:
            legal = auction.legal_calls()
            call = legal[int(rng.integers(len(legal)))] if rng.random() < 0.5 else "P"
        after = auction.apply(call)
        if after.is_over:
            break
        auction = after
    return auction, tuple(deal[auction.turn].cards), vul


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.integers(0, 14), st.booleans(), st.integers(1, 40))
def test_layouts_meet_the_constraints_they_claim(seed, calls, random_calls, wanted):
    auction, hand, vul = auction_after(seed, calls, random_calls)
    seat = auction.turn
    others = [s for s in range(4) if s != seat]
    constraints = auction_constraints(auction, vul, others)
    sample = sample_layouts(seat, hand, constraints, wanted, random_stream(seed, 1), max_draws=3000)
    assert len(sample.layouts) == wanted
    assert sample.relaxed_count == int(sample.relaxed.sum())
    for layout, relaxed in zip(sample.layouts, sample.relaxed):
        assert sorted(np.flatnonzero(layout == seat).tolist()) == sorted(hand)
        assert all((layout == s).sum() == 13 for s in range(4))
        fits = all(meets(HandInfo.of(np.flatnonzero(layout == s).tolist()), constraints[s]) for s in others)
        assert fits != relaxed  # kept layouts fit; a relaxed one misses something


def test_relaxed_layouts_are_the_closest_and_counted():
    # South claims 30+ HCP and East 20+: impossible together, so every layout is relaxed
    hand = tuple(range(13))  # North: all the clubs
    impossible = {1: SeatConstraint(lo=20), 2: SeatConstraint(lo=30), 3: SeatConstraint()}
    sample = sample_layouts(0, hand, impossible, 8, random_stream(3), max_draws=2000)
    assert len(sample.layouts) == 8 and sample.relaxed_count == 8 and sample.draws == 2000
    easy = sample_layouts(0, hand, {1: SeatConstraint(), 2: SeatConstraint(), 3: SeatConstraint()}, 8, random_stream(3))
    assert easy.relaxed_count == 0 and easy.draws == 1000


def test_blackwood_reply_constrains_aces():
    auction = Auction4.from_calls(0, ["1S", "P", "3S", "P", "4N", "P", "5H", "P"])
    constraints = auction_constraints(auction, "None", [1, 2, 3])
    assert constraints[2].aces == (2,)
    assert constraints[1].aces == (0, 1, 2, 3, 4)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**9), st.integers(1, 12))
def test_the_real_layout_replays_natural4s_auction_and_others_are_counted(seed, calls):
    auction, _, vul = auction_after(seed, calls, False)
    deal = random_deal(random_stream(seed))
    seat = auction.turn
    others = [s for s in range(4) if s != seat]
    real = deal.to_owners()
    drawn = sample_layouts(seat, tuple(deal[seat].cards), {}, 6, random_stream(seed, 2)).layouts
    misses = replay_misses(np.concatenate([real[None], drawn]), auction, vul, others)
    assert misses[0] == 0  # natural4 made these very calls with these hands
    for layout, miss in zip(drawn, misses[1:]):  # recount each layout's calls one by one
        expected = 0
        for i, call in enumerate(auction.calls):
            s = (auction.dealer + i) % 4
            if s in others:
                hand = tuple(int(c) for c in np.flatnonzero(layout == s))
                expected += (
                    bid(Bid4View(s, auction.dealer, vul, hand, Auction4(auction.dealer, auction.calls[:i]))) != call
                )
        assert miss == expected


def test_prefer_replayed_keeps_fitting_layouts_with_fewest_misses_first():
    layouts = np.arange(6, dtype=np.uint8)[:, None].repeat(52, axis=1)  # layouts told apart by their first card
    sample = LayoutSample(layouts, np.array([False, False, True, False, False, False]), 500)
    kept, misses = prefer_replayed(sample, np.array([2, 0, 0, 1, 0, 3]), 4)
    assert kept.layouts[:, 0].tolist() == [1, 4, 3, 0]  # no miss (in drawing order), one, two; the relaxed last
    assert misses.tolist() == [0, 0, 1, 2] and not kept.relaxed.any() and kept.draws == 500
