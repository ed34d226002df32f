"""Tests of the capture estimator: the reading of docs/algorithms.md §2 pinned by hand-worked examples; kernel = reference."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.dealing.random import deal_batch
from tribridge.errors import InvalidInput
from tribridge.estimators.capture import (
    ALL_READINGS,
    STATUSES,
    capture,
    capture_batch,
    capture_masks_batch,
    state_from_owners,
)

# 2 suits x 6 ranks, zero budget 2, stop count 5 (the generalised estimator), worked by hand:
# row 0 = 1 2 0 1 0 2: owned 0,1,3,5, δ=0, c1=c2=2, Zs=2;  row 1 = 0 1 2 1 0 2: owned 1,2,3,5, δ=1, c1=c2=2, Zs=2.
# Δ = 1 ≤ 2, B holds (2 > 0, 2 > 1), Z = 1.
SMALL = np.array([[1, 2, 0, 1, 0, 2], [0, 1, 2, 1, 0, 2]])


def test_small_max_static_one_replacement():
    # free captures: T=2, rightmost 0s (col 4, col 4) played. Loop: ♣0 (0,1) gap 0 and ♣1 (1,2) gap 0 tie ->
    # lower suit: row 0, T=3, col 2 played (Zs0=0); row 0 at its limit max(2,2)=2 -> row 1 (1,2): T=4,
    # col 0 played. Both rows at their limit: stop (no suit). Z unchanged at 1.
    r = capture(SMALL, zero_budget=2, stop_count=5)
    assert (r.captures, r.status, r.budget_left, r.stop_reason) == (4, "qualified", 1, "no_suit")
    assert r.state == ((1, 2, 3, 1, 3, 2), (3, 1, 2, 1, 3, 2))
    assert [(s.suit, s.first, s.second) for s in r.steps] == [(0, None, None), (1, None, None), (0, 0, 1), (1, 1, 2)]


def test_small_no_limit_static_vs_live_gap():
    # limit none. T=3 after row 0 (0,1) as above (col 2 played, Zs0 = 0). Next: row 0 (1,3), row 1 (1,2) gap 0.
    # Static: row 0's gap is 1 (eff 0 since Zs0 = 0); tie on eff, smaller raw -> row 1 (1,2), then row 1 (2,3)
    # (raw 0 beats row 0's raw 1). Live: col 2 is played, so row 0 (1,3) has live gap 0 -> tie -> row 0,
    # then row 0 (3,5) (col 4 played, gap 0) -> T = 5 stops.
    static = capture(SMALL, limit="none", zero_budget=2, stop_count=5)
    live = capture(SMALL, limit="none", gap="live", zero_budget=2, stop_count=5)
    assert static.captures == live.captures == 5 and static.stop_reason == live.stop_reason == "stop_count"
    assert [(s.suit, s.first, s.second) for s in static.steps[2:]] == [(0, 0, 1), (1, 1, 2), (1, 2, 3)]
    assert [(s.suit, s.first, s.second) for s in live.steps[2:]] == [(0, 0, 1), (0, 1, 3), (0, 3, 5)]
    assert [s.raw_gap for s in static.steps[2:]] == [0, 0, 0] and live.steps[3].raw_gap == 0


def test_small_two_replacements():
    # each free capture plays both zeros of its row: Zs = 0 everywhere, so every gap is free (eff 0)
    r = capture(SMALL, replacements=2, zero_budget=2, stop_count=5)
    assert r.state == ((1, 2, 3, 1, 3, 2), (3, 1, 2, 1, 3, 2))
    assert (r.captures, r.budget_left) == (4, 1)


def test_one_suit_budget_paid_static_vs_live():
    # 1 0 0 2 0 1 2 0, zero budget 3: owned 0,3,5,6; Zs=4, Z=3. Free: T=1, col 7 played.
    # (0,3) gap 2 -> Z=1, col 4 played. Static (3,5) gap 1 -> Z=0, col 2 played; (5,6) -> T=4, col 1; done.
    # Live: (3,5) has only the played col 4 between -> gap 0, Z stays 1.
    row = np.array([[1, 0, 0, 2, 0, 1, 2, 0]])
    static = capture(row, limit="none", zero_budget=3, stop_count=8)
    live = capture(row, limit="none", gap="live", zero_budget=3, stop_count=8)
    assert (static.captures, static.budget_left, static.stop_reason) == (4, 0, "no_suit")
    assert (live.captures, live.budget_left) == (4, 1)
    assert [s.effective_gap for s in static.steps] == [0, 2, 1, 0]


def test_stop_when_smallest_gap_exceeds_budget():
    # 1 0 0 0 2 1 0 2, zero budget 2: Z=2, free capture plays col 6; (0,4) gap 3 > 2 with Zs=3 > 0 -> stop.
    r = capture(np.array([[1, 0, 0, 0, 2, 1, 0, 2]]), limit="none", zero_budget=2, stop_count=8)
    assert (r.captures, r.budget_left, r.stop_reason) == (1, 2, "budget")


def test_conditions_a_and_b_on_the_full_deck():
    # Condition B pinned: partner void in a suit the side leads from the top (δ=0, c2=0 <= 0) fails B
    state = np.zeros((4, 13), dtype=int)
    state[:, 0] = 1
    state[:, 1] = 1
    state[:3, 2] = 2
    state[3, 2] = 1  # partner has nothing in ♠
    state[:3, 3] = 2
    assert capture(state).status == "fail_b"
    state[3, 3] = 2  # now partner holds one ♠: c2 = 1 > δ = 0
    assert capture(state).status == "qualified"
    # Condition A pinned: Δ = 7 > 6
    state = np.zeros((4, 13), dtype=int)
    state[0, 7:10] = 1
    state[0, 10:13] = 2
    state[1:, 0] = 1
    state[1:, 1] = 2
    r = capture(state)
    assert (r.status, r.delta, r.budget_left, r.captures) == ("fail_a", 7, -1, 0)


def test_full_deck_qualified_example_by_hand():
    # ♣ A K Q J (1 2 1 2) then opponents; ♦ ♥ ♠ each A (1) K (2) then opponents: Δ = 0, Z = 6.
    state = np.zeros((4, 13), dtype=int)
    state[0, :4] = [1, 2, 1, 2]
    state[1:, 0] = 1
    state[1:, 1] = 2
    r = capture(state)  # max/static/1: ♣ limit 2, others limit 1 -> free 4 + one more ♣ = 5, then no suit
    assert (r.captures, r.budget_left, r.stop_reason) == (5, 6, "no_suit")
    r = capture(state, limit="none")  # ♣ all 4, others 2 each: 4 free + 3 + 1 + 1 + 1 = 10
    assert (r.captures, r.budget_left) == (10, 6)
    r = capture(state, limit="min")  # min(c1,c2) = 1 in ♦♥♠, 2 in ♣ -> 5
    assert r.captures == 5


def test_default_call_equals_generalised_call_with_standard_parameters():
    deals = deal_batch(200, 4)
    for owners in deals:
        state = state_from_owners(owners, 1)
        assert capture(state) == capture(state, "max", "static", 1, zero_budget=6, stop_count=13)


def test_invalid_inputs():
    with pytest.raises(InvalidInput, match="limit"):
        capture(np.zeros((4, 13), int), limit="most")
    with pytest.raises(InvalidInput, match="gap"):
        capture(np.zeros((4, 13), int), gap="dynamic")
    with pytest.raises(InvalidInput, match="replacements"):
        capture(np.zeros((4, 13), int), replacements=3)
    with pytest.raises(InvalidInput, match="state"):
        capture(np.full((4, 13), 5))
    with pytest.raises(InvalidInput, match="declarer"):
        capture_batch(deal_batch(2, 1), 4)


def _agree(owners: np.ndarray, declarer: int, reading) -> None:
    batch = capture_batch(owners, declarer, reading.limit, reading.gap, reading.replacements)
    for i in range(owners.shape[0]):
        ref = capture(state_from_owners(owners[i], declarer), reading.limit, reading.gap, reading.replacements)
        got = (int(batch.captures[i]), STATUSES[batch.status[i]], int(batch.budget_left[i]))
        assert got == (ref.captures, ref.status, ref.budget_left), (reading, owners[i].tolist())


@pytest.mark.parametrize("reading", ALL_READINGS, ids=lambda r: r.label)
def test_kernel_agrees_with_reference_on_random_deals(reading):
    deals = deal_batch(3000, 17)
    _agree(deals, 0, reading)
    _agree(deals[:1000], 3, reading)


@given(st.integers(0, 2**32 - 1), st.integers(0, 3), st.sampled_from(ALL_READINGS))
@settings(max_examples=150, deadline=None)
def test_kernel_agrees_with_reference_hypothesis(seed, declarer, reading):
    _agree(deal_batch(4, seed), declarer, reading)


def test_masks_batch_equals_owner_batch():
    deals = deal_batch(2000, 23)
    from tribridge.dealing.random import owners_to_mask_batch

    masks = owners_to_mask_batch(deals)
    a = capture_batch(deals, 2, "min", "live", 2)
    b = capture_masks_batch(masks[:, 2], masks[:, 0], "min", "live", 2)
    assert all((x == y).all() for x, y in zip(a, b))
