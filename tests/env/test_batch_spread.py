"""The ``spread`` trick source of ``BiddingBatch``: expected points over a normal spread of the estimator's tricks."""

from __future__ import annotations

from math import erf, sqrt

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.errors import InvalidInput
from tribridge.estimators.tricks import estimate_tricks
from tribridge.selfplay import BiddingBatch
from tribridge.selfplay.contracts import (
    POSITION_SEATS,
    check_batch_tricks_source,
    estimated_trick_distribution,
    normal_cdf,
    score_table,
)


@given(st.floats(-8.0, 8.0))
def test_normal_cdf_matches_erf(x: float) -> None:
    """The numpy distribution function agrees with math.erf to 1e-7."""
    assert abs(float(normal_cdf(np.array([x]))[0]) - 0.5 * (1.0 + erf(x / sqrt(2.0)))) < 1e-7


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**31), spread=st.floats(0.7, 3.0))
def test_trick_distribution_is_a_distribution_around_the_estimate(seed: int, spread: float) -> None:
    """Each row sums to 1 and has the estimator's tricks as its mean (a spread of 0.7 or more, tails inside 0..13)."""
    batch = BiddingBatch(4)
    batch.reset(seed=seed)
    rng = np.random.default_rng(seed)
    positions, strains = rng.integers(0, 3, 4), rng.integers(0, 5, 4)
    chances = estimated_trick_distribution(batch.owners, batch.dealers, positions, strains, spread)
    assert chances.shape == (4, 14)
    assert (chances >= 0).all()
    np.testing.assert_allclose(chances.sum(axis=1), 1.0, atol=1e-9)
    seats = POSITION_SEATS[batch.dealers, positions]
    masks = [(batch.owners == s[:, None]).reshape(-1, 4, 13) for s in (seats, (batch.dealers + 2) % 4)]
    bits = 1 << np.arange(13)
    expected = estimate_tricks(*((m * bits).sum(axis=2) for m in masks))[np.arange(4), strains]
    inside = (expected > 4 * spread) & (expected < 13 - 4 * spread)
    mean = chances @ np.arange(14)
    np.testing.assert_allclose(mean[inside], expected[inside], atol=1e-3)


def test_a_narrow_spread_scores_as_the_estimate() -> None:
    """With a tiny spread the expected points are the points of the estimator's whole tricks."""
    sharp, whole = BiddingBatch(64, tricks="spread", spread=1e-3), BiddingBatch(64, tricks="estimate")
    for batch in (sharp, whole):
        batch.reset(seed=5)
        for call in (9, 0, 0):  # 2C by the dealer (call 3 + 5 = 2C), then two passes
            batch.step(np.full(64, call))
    assert sharp.done.all()
    off_the_half = np.abs(sharp.declarer_tricks - whole.declarer_tricks) == 0
    assert off_the_half.mean() > 0.9
    np.testing.assert_allclose(sharp.rewards[off_the_half], whole.rewards[off_the_half], atol=1e-6)


def test_spread_rewards_are_expected_points() -> None:
    """The declarer's points are the table's points weighted by the trick distribution."""
    batch = BiddingBatch(16, tricks="spread", relative=True)
    batch.reset(seed=8)
    for call in (7, 0, 0):  # 1NT by the dealer, two passes
        batch.step(np.full(16, call))
    chances = estimated_trick_distribution(batch.owners, batch.dealers, np.zeros(16, np.int64), np.full(16, 4))
    declarer_points = chances @ score_table()[4, 0, :, 0]
    np.testing.assert_allclose(batch.scores[:, 0], np.rint(declarer_points))
    relative = batch.rewards[:, 0]
    assert np.all(np.abs(relative - (batch.scores[:, 0] - batch.scores[:, 1:].mean(axis=1))) < 1.0)


def test_spread_checks_its_input() -> None:
    """An unknown source or a spread that is not positive raises InvalidInput."""
    assert check_batch_tricks_source("spread") == "spread"
    with pytest.raises(InvalidInput, match="tricks"):
        check_batch_tricks_source("guess")
    with pytest.raises(InvalidInput, match="spread"):
        BiddingBatch(2, tricks="spread", spread=0.0)
    with pytest.raises(InvalidInput, match="spread"):
        estimated_trick_distribution(np.zeros((0, 52), np.uint8), [], [], [], spread=-1.0)
