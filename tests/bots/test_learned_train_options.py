"""The learned bidder's training options: the spread trick source and the moving average of the weights."""

from __future__ import annotations

import numpy as np
import pytest

from tribridge.bots.learned import PolicyNetwork
from tribridge.bots.learned_train import TrainConfig, train_bidder
from tribridge.errors import InvalidInput


def _tiny(**changes: object) -> TrainConfig:
    """A training run small enough for a test."""
    settings: dict[str, object] = {
        "seed": 6,
        "iterations": 1,
        "batch": 48,
        "hidden": 6,
        "eval_deals": 20,
        "reference": "paper",
        **changes,
    }
    return TrainConfig(**settings)  # type: ignore[arg-type]


def test_the_averaged_weights_are_the_moving_average_of_the_trained_ones() -> None:
    """One iteration with average d writes d * start + (1 - d) * trained; the training itself is unchanged."""
    plain = train_bidder(_tiny()).policy
    averaged = train_bidder(_tiny(average=0.25)).policy
    start = PolicyNetwork.initial(6, seed=6)
    for s, p, a in zip(start.arrays(), plain.arrays(), averaged.arrays()):
        np.testing.assert_allclose(a, 0.25 * s + 0.75 * p, rtol=1e-5, atol=1e-6)
    assert averaged.info["average"] == "0.25"


def test_training_on_spread_tricks_runs_and_repeats() -> None:
    """The spread source trains, measures its curve with the same source, and gives the same weights twice."""
    config = _tiny(tricks="spread", iterations=2, spread=1.2)
    first, second = train_bidder(config), train_bidder(config)
    for a, b in zip(first.policy.arrays(), second.policy.arrays()):
        np.testing.assert_array_equal(a, b)
    assert all(np.isfinite(c.reward_vs_reference or 0.0) for c in first.curves)
    assert first.policy.info["tricks"] == "spread"


@pytest.mark.parametrize("changes", [{"average": 1.0}, {"average": -0.1}, {"spread": 0.0}, {"tricks": "exact"}])
def test_bad_options_are_refused(changes: dict[str, object]) -> None:
    """A decay outside 0..1, a spread that is not positive or an unknown trick source raises InvalidInput."""
    with pytest.raises(InvalidInput):
        _tiny(**changes).check()
