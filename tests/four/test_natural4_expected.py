"""The four-handed bidder's pricing of contracts: trick-count laws, expected scores against a plain sum, and the
choice of a slam by expected score."""

import importlib

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tribridge.cards import Hand
from tribridge.four.natural4 import read_auction
from tribridge.four.natural4.context import Ctx
from tribridge.four.natural4.core import HandInfo
from tribridge.four.natural4.expected import ContractValues, trick_distribution
from tribridge.four.rules import Auction4
from tribridge.rules.duplicate import duplicate_score

placement = importlib.import_module("tribridge.four.natural4.placement")
expected_tricks = arrays(np.float64, st.tuples(st.integers(1, 6), st.just(5)), elements=st.floats(0, 13))


@given(expected_tricks)
def test_trick_distribution_is_a_law_over_0_to_13(tricks):
    law = trick_distribution(tricks)
    assert law.shape == tricks.shape + (14,)
    assert np.allclose(law.sum(axis=-1), 1.0)
    assert (law >= 0).all()


def test_trick_distribution_is_centred_away_from_the_ends():
    law = trick_distribution(np.array([6.3]))[0]
    assert abs(float(law @ np.arange(14)) - 6.3) < 1e-6


@settings(max_examples=50)
@given(expected_tricks, st.integers(1, 7), st.integers(0, 4), st.integers(0, 2), st.booleans(), st.booleans())
def test_values_are_the_plain_expected_scores(tricks, level, strain, doubling, vulnerable, doubled_when_down):
    doubled_from = 2 if doubled_when_down else 99
    values = ContractValues.of(tricks, vulnerable, not vulnerable, doubled_from)
    law = trick_distribution(tricks).mean(axis=0)[strain]
    declare = 0.0
    for t in range(14):
        down = level + 6 - t
        doubled = doubling if doubling or down < doubled_from else 1
        declare += law[t] * duplicate_score(level, strain, doubled, vulnerable, t)
    defend = -sum(law[t] * duplicate_score(level, strain, doubling, not vulnerable, 13 - t) for t in range(14))
    assert np.isclose(values.declare(level, strain, doubling), declare)
    assert np.isclose(values.defend(level, strain, doubling), defend)


def _ctx(calls, seat, dealer=0):
    auction = Auction4.from_calls(dealer, list(calls))
    shown, meanings = read_auction(auction)
    return Ctx(auction, seat, shown, meanings)


def test_thirteen_top_tricks_are_priced_as_a_grand_slam():
    hand = HandInfo.of(Hand.from_pbn("AKQJT98.AKQ.AKQ.").cards)
    level, strain = placement._by_score(hand, _ctx(["1C", "P"], seat=2), 3)
    assert level == 7 and strain in (3, 4)


def test_a_weak_hand_opposite_1nt_prices_no_slam():
    hand = HandInfo.of(Hand.from_pbn("8642.J53.T72.864").cards)
    level, _ = placement._by_score(hand, _ctx(["1N", "P"], seat=2), 4)
    assert level < 6


def test_over_their_preempt_a_strong_fit_bids_and_a_weak_hand_defends():
    ctx = _ctx(["1H", "4S"], seat=2)  # partner opened 1H, the next hand jumped to 4S
    strong = HandInfo.of(Hand.from_pbn("2.AQJ4.AK32.KQ43").cards)
    level, strain = placement._by_score(strong, ctx, 2)
    assert level >= 5 and strain in (0, 1, 2, 4)
    weak = HandInfo.of(Hand.from_pbn("8642.J53.T72.864").cards)
    assert placement._by_score(weak, ctx, 2)[0] == 0


def test_partner_hands_are_drawn_in_batches_until_enough_fit():
    from tribridge.dealing.streams import random_stream
    from tribridge.four.natural4.core import Shown
    from tribridge.four.natural4.tricks import sample_partner_hands

    hand = Hand.from_pbn("8642.J53.T72.864").cards
    narrow = Shown(lo=18, hi=19)  # few random hands have 18-19 HCP
    one_batch = sample_partner_hands(hand, narrow, random_stream(3), wanted=16, draws=40)
    batches = sample_partner_hands(hand, narrow, random_stream(3), wanted=16, draws=40, most_draws=4000)
    assert len(one_batch) < 16 and len(batches) == 16
    assert np.array_equal(batches[: len(one_batch)], one_batch)  # the first batch is the same draw
    hcp = np.maximum(0, 4 - batches % 13).sum(axis=1)
    assert ((hcp >= 18) & (hcp <= 19)).all()
