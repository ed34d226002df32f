"""Tests of the NT call algorithm: hand-worked examples and agreement of kernel and reference."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.cards import Hand
from tribridge.dealing.random import deal_hand_masks
from tribridge.errors import InvalidInput
from tribridge.estimators.nt_call import (
    VERDICTS,
    highest_nt_level_batch,
    nt_call,
    nt_call_batch,
    nt_call_detail_batch,
)


def masks_of(pbn: str, size: int | None = 13):
    return Hand.from_pbn(pbn, size=size).masks()


def test_paper_example_is_yes_at_1nt_with_hand_worked_trace():
    # ♣AKQ ♦AK6 ♥AJ85 ♠K84 (PBN is S.H.D.C)
    result = nt_call(masks_of("K84.AJ85.AK6.AKQ"), 1)
    t = result.trace
    assert result.verdict == "yes"
    assert (t.tricks_needed, t.losers_allowed) == (7, 6)
    assert t.leads == (0, 0, 0, 1) and t.counts == (3, 3, 4, 3) and t.delta == 1
    # remaining starts at 6-1=5. ♣ A-K 0, K-Q 0; ♦ A-K 0, K-6 gap 6 > 5 skipped;
    # ♥ A-J 2 (5->3), J-8 2 (3->1), 8-5 gap 2 > 1; ♠ K-8 4, 8-4 3 skipped.
    assert [(s.suit, s.between, s.taken) for s in t.steps] == [
        (0, 0, True),
        (0, 0, True),
        (1, 0, True),
        (1, 6, False),
        (2, 2, True),
        (2, 2, True),
        (2, 2, False),
        (3, 4, False),
        (3, 3, False),
    ]
    assert t.count_of_one == 9 and t.remaining == 1
    # at 3NT: K = 4, remaining 3: ♣ +2, ♦ +1, ♥ A-J (3->1), J-8 skipped -> 4+4 = 8 < 9
    three = nt_call(masks_of("K84.AJ85.AK6.AKQ"), 3)
    assert three.verdict == "no" and three.trace.count_of_one == 8 and three.trace.remaining == 1


def test_condition_a_fails_when_leading_zeros_exceed_k():
    # no aces and no kings: every suit leads with at least 2 zeros -> delta >= 8 > 6
    result = nt_call(masks_of("QJT9.QJT9.QJT.QJ"), 1)
    assert result.verdict == "fail_a" and result.trace.delta == 8


def test_void_counts_thirteen_leading_zeros():
    result = nt_call(masks_of("AKQJT98765432..."), 1)
    assert result.verdict == "fail_a" and result.trace.leads == (13, 13, 13, 0)


def test_condition_b_fails_when_a_suit_has_no_more_cards_than_its_leading_zeros():
    # ♠ K alone: lead 1, count 1 -> 1 <= 1 fails B; delta = 1 passes A
    result = nt_call(masks_of("K.AKQJ.AKQJ.AKQJ"), 1)
    assert result.verdict == "fail_b" and result.trace.delta == 1


def test_condition_b_passes_with_one_more_card_than_leading_zeros():
    result = nt_call(masks_of("K2.AKQ.AKQJ.AKQJ"), 1)
    assert result.verdict == "yes"


def test_small_cards_count_but_big_gaps_are_skipped():
    # aces and small cards only: every gap after an ace is too big to pay for
    result = nt_call(masks_of("A5432.A432.A32.A"), 1)
    # leads 0,0,0,0 -> remaining 6; ♣ A alone; ♦ A-3 gap 10, 3-2 0 (+1); ♥ A-4 gap 9, 4-3 (+1), 3-2 (+1);
    # ♠ A-5 gap 8, 5-4, 4-3, 3-2 (+3) -> count 4 + 6 = 10, nothing paid: remaining 6
    assert result.verdict == "yes" and result.trace.count_of_one == 10 and result.trace.remaining == 6
    assert nt_call(masks_of("A5432.A432.A32.A"), 4).verdict == "yes"  # P = 10
    assert nt_call(masks_of("A5432.A432.A32.A"), 5).verdict == "no"  # P = 11


def test_invalid_inputs():
    with pytest.raises(InvalidInput, match="level"):
        nt_call((1, 1, 1, 1), 0)
    with pytest.raises(InvalidInput, match="masks"):
        nt_call((1, 1, 1), 1)
    with pytest.raises(InvalidInput, match="masks"):
        nt_call_batch(np.full((2, 4), 9000), 1)


def _agree(masks: np.ndarray, level: int) -> None:
    codes, counts, remainings = nt_call_detail_batch(masks, level)
    for i in range(masks.shape[0]):
        ref = nt_call(masks[i], level)
        assert VERDICTS[codes[i]] == ref.verdict, (masks[i], level)
        if ref.trace.count_of_one is not None:
            assert (counts[i], remainings[i]) == (ref.trace.count_of_one, ref.trace.remaining)


@pytest.mark.parametrize("level", range(1, 8))
def test_kernel_agrees_with_reference_on_100000_single_hands(level):
    _agree(deal_hand_masks(100_000, 1000 + level, 1)[:, 0], level)


@pytest.mark.parametrize("level", range(1, 8))
def test_kernel_agrees_with_reference_on_26_card_inputs(level):
    hands = deal_hand_masks(20_000, 2000 + level, 2)
    _agree(hands[:, 0] | hands[:, 1], level)


@given(st.lists(st.integers(0, 8191), min_size=4, max_size=4), st.integers(1, 7))
@settings(max_examples=300, deadline=None)
def test_kernel_agrees_with_reference_on_any_card_set(masks, level):
    _agree(np.array([masks], dtype=np.int64), level)


def test_highest_level_is_the_highest_yes():
    masks = deal_hand_masks(50_000, 9, 2)
    both = masks[:, 0] | masks[:, 1]
    highest = highest_nt_level_batch(both)
    yes = np.stack([nt_call_batch(both, level) == 1 for level in range(1, 8)], axis=1)
    expected = np.where(yes.any(axis=1), 7 - np.argmax(yes[:, ::-1], axis=1), 0)
    assert (highest == expected).all()
    assert highest.max() >= 5  # 26-card inputs reach high levels
