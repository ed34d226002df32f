"""The learned bidder: legal and deterministic calls, its features and gradients against plain references,
the numpy reference bidders against the real ones, a tiny training run through the command, the registry names."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auction_views import random_view
from tribridge.bots import bot_parts, get_bidder, get_bot
from tribridge.bots.bidding import PaperBidder
from tribridge.bots.learned import (
    LEVELS_CONSIDERED,
    N_FEATURES,
    LearnedBidder,
    PolicyNetwork,
    considered_calls,
    default_policy,
    n_features,
    policy_features,
)
from tribridge.bots.learned_reference import REFERENCES, position_nt_levels, reference_actions
from tribridge.bots.learned_train import (
    REFERENCE_MIXES,
    ROLLOUTS,
    TrainConfig,
    _learner_seats,
    call_values,
    play_auctions,
    train_bidder,
    value_gradients,
)
from tribridge.bots.play import DoubleDummyPlayer, PimcPlayer
from tribridge.cards import random_deal
from tribridge.cli.main import main
from tribridge.dealing.streams import random_stream
from tribridge.errors import InvalidInput
from tribridge.rules.auction import PASS
from tribridge.rules.deal import DealState
from tribridge.rules.view import SeatView
from tribridge.selfplay import BiddingBatch, settle
from tribridge.selfplay.actions import N_CALLS, action_of, call_of
from tribridge.selfplay.contracts import BATCH_TRICK_SOURCES
from tribridge.selfplay.encoding import encode_view

views = st.builds(random_view, st.integers(0, 2**31), st.integers(0, 12), st.floats(0.2, 8.0))


@settings(max_examples=40, deadline=None)
@given(view=views)
def test_calls_are_legal_and_candidates_are_a_distribution(view: SeatView) -> None:
    bidder = LearnedBidder()
    call = bidder.bid(view)
    assert call in view.legal_calls()
    cands = bidder.candidates(view)
    assert cands[0][0] == call
    assert all(c in view.legal_calls() for c, _ in cands)
    assert sum(p for _, p in cands) == pytest.approx(1.0)
    assert [p for _, p in cands] == sorted((p for _, p in cands), reverse=True)


def test_the_bidder_is_deterministic() -> None:
    for seed in range(5):
        view = random_view(seed, seed)
        assert LearnedBidder().bid(view) == LearnedBidder().bid(view) == LearnedBidder(default_policy()).bid(view)
        assert LearnedBidder().candidates(view) == LearnedBidder().candidates(view)


def test_the_shipped_weights_load() -> None:
    policy = default_policy()
    assert policy.widow_samples == 32
    assert policy.W1.shape == (n_features(policy.widow_samples), policy.hidden)
    assert policy.W3.shape == (policy.hidden, N_CALLS)
    assert all(np.isfinite(a).all() for a in policy.arrays())
    assert int(policy.info["iterations"]) > 0


def test_weights_of_another_input_size_are_refused(tmp_path) -> None:
    policy = PolicyNetwork.initial(hidden=3)
    policy.W1 = policy.W1[:-1]
    path = tmp_path / "w.npz"
    np.savez(path, **dict(zip(policy.array_names(), policy.arrays())), n_features=N_FEATURES - 1)
    with pytest.raises(InvalidInput):
        PolicyNetwork.load(path)


def test_a_view_off_turn_is_refused() -> None:
    state = DealState.start(random_deal(random_stream(3)), 0)
    with pytest.raises(InvalidInput):
        LearnedBidder().bid(state.view(state.players[1]))


def _reference_features(view: SeatView) -> list[float]:
    """The numbers after the observation in ``policy_features``, computed from the view itself."""
    cards = sorted(view.held)
    lengths = [sum(c // 13 == s for c in cards) / 13 for s in range(4)]
    points = [sum(max(0, 4 - c % 13) for c in cards if c // 13 == s) / 10 for s in range(4)]
    top, holder, doubling = [0.0] * 36, [0.0] * 3, [1.0, 0.0, 0.0]
    bids = [m for m in view.calls if m.call.kind == "bid"]
    if not bids:
        top[35] = 1.0
    else:
        last = bids[-1]
        top[5 * (last.call.level - 1) + int(last.call.denom)] = 1.0  # type: ignore[arg-type]
        order = view.auction.bidders
        holder[(order.index(last.player) - order.index(view.player)) % 3] = 1.0
        after = [m.call.kind for m in view.calls[view.calls.index(last) + 1 :]]
        doubling = [0.0, 0.0, 1.0] if "redouble" in after else [0.0, 1.0, 0.0] if "double" in after else doubling
    return lengths + points + [sum(points) / 4] + top + holder + doubling


@settings(max_examples=40, deadline=None)
@given(view=views)
def test_features_match_a_reading_of_the_view(view: SeatView) -> None:
    obs = encode_view(view, bidding_only=True)
    got = policy_features(obs[None, :])[0]
    np.testing.assert_array_equal(got[: len(obs)], obs)
    np.testing.assert_allclose(got[len(obs) :], _reference_features(view), atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(view=views)
def test_considered_calls_are_pass_doubles_and_the_cheapest_levels(view: SeatView) -> None:
    legal = view.legal_calls()
    mask = np.zeros((1, N_CALLS), dtype=bool)
    mask[0, [action_of(c) for c in legal]] = True
    expected = {c for c in legal if not c.is_bid}
    for denom in range(5):
        expected |= set(sorted((c for c in legal if c.is_bid and int(c.denom) == denom), key=lambda c: c.level)[:3])  # type: ignore[arg-type]
    assert LEVELS_CONSIDERED == 3
    assert {c for c in legal if considered_calls(mask)[0, action_of(c)]} == expected


def test_gradients_match_finite_differences() -> None:
    rng = np.random.default_rng(0)
    policy = PolicyNetwork.initial(hidden=5, seed=1)
    for name in policy.array_names():  # float64 and non-zero biases, so every entry is exercised
        array = getattr(policy, name)
        setattr(policy, name, array.astype(np.float64) + 0.3 * rng.standard_normal(array.shape))
    m = 7
    obs = np.stack([encode_view(random_view(s, s % 5), bidding_only=True) for s in range(m)])
    masks = rng.random((m, N_CALLS)) < 0.5
    args = (policy_features(obs).astype(np.float64), masks, rng.standard_normal((m, N_CALLS)))
    grads, _ = value_gradients(policy, *args)
    for name, grad in zip(policy.array_names(), grads):
        array = getattr(policy, name)
        for index in list(np.ndindex(array.shape))[:: max(1, array.size // 6)]:
            keep = array[index]
            array[index] = keep + 1e-6
            up = value_gradients(policy, *args)[1]
            array[index] = keep - 1e-6
            down = value_gradients(policy, *args)[1]
            array[index] = keep
            assert grad[index] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-7), (name, index)


def test_the_loss_is_the_squared_error_of_the_considered_calls() -> None:
    policy = PolicyNetwork.initial(hidden=6, seed=2)
    features = policy_features(np.stack([encode_view(random_view(s, 3), bidding_only=True) for s in range(4)]))
    masks = np.zeros((4, N_CALLS), dtype=bool)
    masks[:, [0, 5, 9]] = True
    targets = np.arange(4 * N_CALLS, dtype=np.float32).reshape(4, N_CALLS) / 50
    q = policy.forward(features)
    expected = sum(0.5 * (q[i, a] - targets[i, a]) ** 2 for i in range(4) for a in (0, 5, 9)) / 4
    assert value_gradients(policy, features, masks, targets)[1] == pytest.approx(expected, rel=1e-5)


def test_the_numpy_paper_bidder_calls_as_paper_bidder() -> None:
    n = 40
    deals = [random_deal(random_stream(11, i)) for i in range(n)]
    dealers = np.arange(n) % 4
    batch = BiddingBatch(n)
    batch.reset(owners=np.stack([d.to_owners() for d in deals]), dealers=dealers)
    levels = position_nt_levels(batch)
    rng = np.random.default_rng(0)
    while not batch.done.all():
        batch.step(reference_actions(batch, "paper", levels, rng))
    paper = PaperBidder()
    for i, deal in enumerate(deals):
        state = DealState.start(deal, int(dealers[i]))
        while state.phase == "auction":
            state = state.apply(paper.bid(state.view(state.turn)))  # type: ignore[arg-type]
        assert batch.call_numbers(i) == [action_of(c) for c in state.auction.calls]


def test_call_values_replay_the_auction_and_score_each_call() -> None:
    """With the network passing after its tried call and paper bidders beside it, each value is the relative score
    of that auction as DealState plays and scores it (``env.settle`` with the estimator's tricks)."""
    n = 12
    deals = [random_deal(random_stream(5, i)) for i in range(n)]
    batch = BiddingBatch(n, relative=True)
    batch.reset(owners=np.stack([d.to_owners() for d in deals]))
    passer = PolicyNetwork.initial(hidden=4)
    passer.b3[0] = 1e4  # always passes when it may
    learner = np.zeros((n, 3), dtype=bool)
    learner[np.arange(n), np.arange(n) % 3] = True
    rng = np.random.default_rng(0)
    decisions = play_auctions(batch, passer, learner, "paper", rng)
    assert decisions is not None
    picked = np.array([int(np.flatnonzero(decisions.rows == i)[0]) for i in range(n)])
    values = call_values(batch, decisions, picked, passer, learner, TrainConfig(), rng)
    paper = PaperBidder()
    for k, j in enumerate(picked):
        i, position, turn = int(decisions.rows[j]), int(decisions.positions[j]), int(decisions.turns[j])
        for call in np.flatnonzero(decisions.masks[j]):
            state = DealState.start(deals[i], i % 4)
            for made in [*batch.call_numbers(i)[:turn], int(call)]:
                state = state.apply(call_of(made))
            while state.phase == "auction":
                mine = state.turn == state.players[position]
                state = state.apply(
                    PASS if mine and PASS in state.legal_actions() else paper.bid(state.view(state.turn))
                )  # type: ignore[arg-type]
            points = settle(state, "estimate").points()
            me = points[state.players[position]]
            expected = me - (sum(points.values()) - me) / 2
            assert values[k, call] == pytest.approx(expected), (i, call)


def test_the_numpy_random_bidder_passes_half_the_time_and_stays_legal() -> None:
    batch = BiddingBatch(2000)
    rng = np.random.default_rng(1)
    first = reference_actions(batch, "random", np.zeros((2000, 3), np.int64), rng)
    assert 0.45 < (first == 0).mean() < 0.55
    while not batch.done.all():
        batch.step(reference_actions(batch, "random", np.zeros((2000, 3), np.int64), rng))  # raises if illegal


def test_a_tiny_training_run_writes_weights_and_curves(tmp_path, capsys) -> None:
    out = tmp_path / "tiny.npz"
    args = [
        "train-bidder",
        "--seed",
        "3",
        "--iterations",
        "3",
        "--batch",
        "64",
        "--hidden",
        "8",
        "--temperature",
        "0.2",
    ]
    assert main([*args, "--eval-deals", "30", "--reference", "random", "--out", str(out), "--quiet"]) == 0
    assert "reward_vs_reference_end" in capsys.readouterr().out
    curves = json.loads(out.with_suffix(".json").read_text())
    assert [c["iteration"] for c in curves["curves"]] == [1, 2, 3]
    assert all(np.isfinite(c["reward_vs_reference"]) and c["entropy"] > 0 for c in curves["curves"])
    bidder = LearnedBidder(out)
    assert bidder.policy.hidden == 8 and bidder.policy.temperature == pytest.approx(0.2)
    assert bidder.policy.info["seed"] == "3"
    view = random_view(1, 2)
    assert bidder.bid(view) in view.legal_calls()


def test_bad_training_settings_are_refused() -> None:
    with pytest.raises(InvalidInput):
        TrainConfig(reference="simulation").check()
    with pytest.raises(InvalidInput):
        TrainConfig(tricks="exact").check()
    with pytest.raises(InvalidInput):
        TrainConfig(batch=0).check()
    with pytest.raises(InvalidInput):
        TrainConfig(temperature=0.0).check()
    with pytest.raises(InvalidInput, match="reference_mix"):
        TrainConfig(reference_mix="deal").check()
    with pytest.raises(InvalidInput, match="rollouts"):
        TrainConfig(rollouts="best").check()


@pytest.mark.parametrize("share", [0.0, 0.6, 1.0])
def test_the_auction_mix_gives_an_auction_to_the_reference_or_to_the_network(share: float) -> None:
    """With ``reference_mix="auction"`` both other seats are the reference's, or all three the network's."""
    config = TrainConfig(batch=3000, reference_share=share, reference_mix="auction")
    learner = _learner_seats(config, np.random.default_rng(5))
    forced = learner[np.arange(3000), np.arange(3000) % 3]
    assert forced.all()
    network_only = learner.sum(axis=1)
    assert set(np.unique(network_only)) <= {1, 3}
    assert (network_only == 1).mean() == pytest.approx(share, abs=0.03)
    by_seat = _learner_seats(TrainConfig(batch=3000, reference_share=share), np.random.default_rng(5))
    assert (by_seat.sum(axis=1) == 2).any() == (0 < share < 1)


def test_the_registry_names() -> None:
    assert isinstance(get_bidder("learned"), LearnedBidder)
    bot = get_bot("learned", player_options={"layouts": 4})
    assert isinstance(bot.bidder, LearnedBidder) and isinstance(bot.player, PimcPlayer)
    assert bot_parts("learned+dd") == ("learned", "dd")
    assert isinstance(get_bot("learned+dd").player, DoubleDummyPlayer)


def test_the_command_defaults_are_the_training_defaults() -> None:
    from tribridge.cli.train_bidder import CHOICES, SETTINGS

    assert CHOICES["reference"] == list(REFERENCES) and CHOICES["reference_mix"] == list(REFERENCE_MIXES)
    assert CHOICES["rollouts"] == list(ROLLOUTS) and sorted(CHOICES["tricks"]) == sorted(BATCH_TRICK_SOURCES)

    defaults = TrainConfig()
    assert {name: default for name, _, default, _ in SETTINGS} == {
        name: getattr(defaults, name) for name, *_ in SETTINGS
    }


def test_the_same_settings_train_the_same_weights() -> None:
    config = TrainConfig(seed=4, iterations=2, batch=48, hidden=6, eval_deals=20, reference="random")
    first, second = train_bidder(config), train_bidder(config)
    for a, b in zip(first.policy.arrays(), second.policy.arrays()):
        np.testing.assert_array_equal(a, b)
    assert [c.reward_vs_reference for c in first.curves] == [c.reward_vs_reference for c in second.curves]
