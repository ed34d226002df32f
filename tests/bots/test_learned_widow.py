"""The learned bidder's widow inputs: the trick estimator's tricks of the hand with fixed draws of the widow."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.bots.learned import (
    N_FEATURES,
    WIDOW_FEATURES,
    LearnedBidder,
    PolicyNetwork,
    n_features,
    policy_features,
    widow_features,
)
from tribridge.cards import random_deal
from tribridge.dealing.streams import random_stream
from tribridge.estimators.tricks import estimate_tricks
from tribridge.rules.deal import DealState
from tribridge.selfplay import BiddingBatch
from tribridge.selfplay.actions import N_CALLS, action_of
from tribridge.selfplay.encoding import encode_view


def _hands(seed: int, n: int) -> np.ndarray:
    """``bool[n, 52]``: the dealer's hand of ``n`` random deals."""
    batch = BiddingBatch(n)
    batch.reset(seed=seed)
    return batch.owners == batch.dealers[:, None]


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), samples=st.integers(1, 12))
def test_widow_features_depend_on_the_hand_only(seed: int, samples: int) -> None:
    """A hand gets the same row alone or among others; tricks lie in 0..1 and the shares fall with the level."""
    hands = _hands(seed, 5)
    together = widow_features(hands, samples)
    assert together.shape == (5, WIDOW_FEATURES) and together.dtype == np.float32
    for i in range(5):
        np.testing.assert_array_equal(widow_features(hands[i : i + 1], samples)[0], together[i])
    assert (together >= 0).all() and (together <= 1).all()
    shares = together[:, 5:].reshape(5, -1, 5)  # [hand, level, strain]
    assert (np.diff(shares, axis=1) <= 0).all()


def test_widow_features_are_the_estimator_over_widows_of_the_unseen_cards() -> None:
    """The mean tricks are the estimator's mean over widows drawn from the 39 cards the hand lacks."""
    hands = _hands(3, 2)
    bits = np.int64(1) << np.arange(13, dtype=np.int64)
    got = widow_features(hands, 400)[:, :5] * 13.0
    rng = np.random.default_rng(0)
    for i, hand in enumerate(hands):
        unseen = np.flatnonzero(~hand)
        widows = np.zeros((2000, 52), dtype=bool)
        for k in range(2000):
            widows[k, rng.choice(unseen, 13, replace=False)] = True
        own = np.repeat((hand.reshape(4, 13) * bits).sum(axis=1)[None, :], 2000, axis=0)
        mean = estimate_tricks(own, (widows.reshape(-1, 4, 13) * bits).sum(axis=2)).mean(axis=0)
        np.testing.assert_allclose(got[i], mean, atol=0.25)


def test_a_network_with_widow_inputs_saves_loads_and_bids(tmp_path) -> None:
    """The input size follows the widow samples; the file keeps them; the bidder calls legally and fast enough."""
    net = PolicyNetwork.initial(hidden=8, seed=2, widow_samples=4)
    assert net.W1.shape[0] == n_features(4) == N_FEATURES + WIDOW_FEATURES
    net.save(tmp_path / "w.npz")
    back = PolicyNetwork.load(tmp_path / "w.npz")
    assert back.widow_samples == 4 and back.copy().widow_samples == 4
    state = DealState.start(random_deal(random_stream(5, 0)), 0)
    view = state.view(state.turn)
    assert LearnedBidder(back).bid(view) in view.legal_calls()
    obs = BiddingBatch(3).observation()
    assert back.features(obs).shape == (3, n_features(4))
    np.testing.assert_array_equal(back.features(obs)[:, :N_FEATURES], policy_features(obs))


def test_weights_without_widow_inputs_still_load(tmp_path) -> None:
    """A file written before the widow inputs (no widow_samples entry) loads with none."""
    net = PolicyNetwork.initial(hidden=4, seed=1)
    net.save(tmp_path / "old.npz")
    with np.load(tmp_path / "old.npz") as data:
        arrays = {k: data[k] for k in data.files if k != "widow_samples"}
    np.savez(tmp_path / "older.npz", **arrays)
    assert PolicyNetwork.load(tmp_path / "older.npz").widow_samples == 0


def test_the_bidder_remembers_a_hands_widow_inputs_and_forgets_the_oldest() -> None:
    """Calls with a remembered hand give what a fresh computation gives; the memory stays bounded."""
    net = PolicyNetwork.initial(hidden=8, seed=3, widow_samples=4)
    bidder = LearnedBidder(net)
    bidder.HANDS_REMEMBERED = 5
    state = DealState.start(random_deal(random_stream(11, 0)), 1)
    while state.phase == "auction":
        view = state.view(state.turn)
        for _ in range(2):  # the second call answers from memory
            obs = encode_view(view, bidding_only=True)[None, :]
            legal = np.zeros((1, N_CALLS), dtype=bool)
            legal[0, [action_of(c) for c in view.legal_calls()]] = True
            np.testing.assert_array_equal(bidder.probabilities(view), net.probabilities(obs, legal)[0])
        state = state.apply(bidder.bid(view))
    for seed in range(12):
        hand_state = DealState.start(random_deal(random_stream(100 + seed, 0)), 0)
        bidder.bid(hand_state.view(hand_state.turn))
    assert len(bidder._widows) == 5
