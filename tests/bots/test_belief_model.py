"""Belief model: probabilities respect certain knowledge, inference agrees with a readable reference,
PIMC with the model deals only consistent layouts, training recovers a planted model, the command runs."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.bots.belief import layout_respects
from tribridge.bots.belief_features import CARD_FEATURES, HAND_FEATURES, PAIR_FEATURES, RANK_FEATURES, view_features
from tribridge.bots.belief_games import GameRecord, game_views
from tribridge.bots.belief_model import (
    BeliefModel,
    importance_resample,
    layout_log_weights,
    reference_probabilities,
)
from tribridge.bots.belief_train import BeliefData, calibration_table, fit_belief, log_likelihoods
from tribridge.bots.play import PimcPlayer, pimc_decide
from tribridge.cards import random_deal
from tribridge.cli.main import main
from tribridge.errors import InvalidInput
from tribridge.rules.deal import DealState


def random_view(seed: int):
    """A random deal, a random legal auction that ends in a contract, random play; one player's view."""
    rng = np.random.default_rng(seed)
    deal = random_deal(rng)
    while True:
        state = DealState.start(deal, int(rng.integers(4)))
        while state.phase == "auction":
            legal = state.legal_actions()
            bids = [c for c in legal if c.kind != "pass"]
            first_call = not state.auction.calls
            call = bids[int(rng.integers(len(bids)))] if bids and (first_call or rng.random() < 0.35) else legal[0]
            if call.kind == "pass" and not any(c.kind == "pass" for c in legal):
                call = legal[0]
            state = state.apply(call)
        if state.play is not None:
            break
    for _ in range(int(rng.integers(0, 48))):
        cards = [a for a in state.legal_actions() if hasattr(a, "index")]
        state = state.apply(cards[int(rng.integers(len(cards)))])
    player = state.players[int(rng.integers(3))]
    return state, state.view(player)


def random_model(seed: int, scale: float = 1.0) -> BeliefModel:
    rng = np.random.default_rng(seed)
    return BeliefModel(
        rng.normal(0, scale, (len(HAND_FEATURES), len(CARD_FEATURES))),
        rng.normal(0, scale, (len(PAIR_FEATURES), len(RANK_FEATURES))),
    )


@given(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
@settings(max_examples=25, deadline=None)
def test_probabilities_sum_to_one_over_possible_hands_and_are_zero_elsewhere(view_seed, weight_seed):
    state, view = random_view(view_seed)
    features = view_features(view)
    probs = random_model(weight_seed).probabilities(features)
    position = features.position
    knowledge = position.knowledge()
    owners = state.play.deal.to_owners()
    voids = position.voids()
    for c in range(52):
        if knowledge.known_owner[c] >= 0:
            assert probs[c].sum() == 0.0  # seen: no probability anywhere
            continue
        assert probs[c].sum() == pytest.approx(1.0)
        assert probs[c, owners[c]] > 0  # the truth is always possible
        for s in range(4):
            if s in dict(position.hands) or knowledge.needs()[s] == 0 or c // 13 in voids[s]:
                assert probs[c, s] == 0.0


@given(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1))
@settings(max_examples=15, deadline=None)
def test_vectorised_probabilities_agree_with_the_reference(view_seed, weight_seed):
    _, view = random_view(view_seed)
    features = view_features(view)
    model = random_model(weight_seed, scale=0.7)
    assert np.allclose(model.probabilities(features), reference_probabilities(model, features), atol=1e-12)


def test_uniform_model_gives_each_hand_its_share_of_the_unseen_cards():
    _, view = random_view(3)
    features = view_features(view)
    probs = BeliefModel.uniform().probabilities(features)
    for c in np.flatnonzero(features.allowed.any(axis=1)):
        share = (
            np.where(features.allowed[c], features.needs, 0) / np.where(features.allowed[c], features.needs, 0).sum()
        )
        assert np.allclose(probs[c], share)


def test_a_bid_suit_is_marked_for_the_bidder_only():
    state, view = random_view(11)
    features = view_features(view)
    col = PAIR_FEATURES.index("bids_in_suit")
    for made in view.calls:
        if made.call.is_bid and int(made.call.denom) < 4:
            seat = int(state.seat_of(made.player))
            if seat != int(state.contract.declarer) ^ 2:
                suit = int(made.call.denom)
                assert features.pair[seat, suit * 13 : suit * 13 + 13, col].min() > 0
    dummy = int(state.contract.declarer) ^ 2
    assert features.pair[dummy, :, col].max() == 0  # the widow never calls


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=8, deadline=None)
def test_pimc_with_model_weights_deals_only_consistent_layouts(seed):
    _, view = random_view(seed)
    if len(view.legal_cards()) < 2:
        return
    features = view_features(view)
    model = random_model(seed, scale=2.0)
    position = features.position
    decision = pimc_decide(position, layouts=8, early_layouts=(4,), potentials=model.potentials(features), pool=3)
    knowledge = position.knowledge()
    assert 1 <= len(decision.sample.layouts) <= 8
    for layout in decision.sample.layouts:
        assert layout_respects(layout, knowledge)
    assert decision.card in [c.index for c in view.legal_cards()]


def test_play_checks_choose_among_more_model_layouts_than_they_keep():
    """With the model, play checks rank ``oversample`` times the layouts (they used to rank only those kept)."""
    from unittest import mock

    from tribridge.bots import play as play_module
    from tribridge.bots.layout_solve import hidden_plays

    for seed in range(40):  # a view whose decider has several cards and has seen hidden cards played
        _, view = random_view(seed)
        features = view_features(view)
        if len(view.legal_cards()) > 1 and 8 <= len(features.position.played) <= 20 and hidden_plays(features.position):
            break
    potentials = random_model(seed, scale=0.05).potentials(features)  # mild weights: resampling keeps many
    with mock.patch.object(play_module, "consistent_order", wraps=play_module.consistent_order) as ranked:
        decision = pimc_decide(features.position, layouts=6, check_plays=2, oversample=3, potentials=potentials)
    assert len(ranked.call_args.args[0]) > 6 and ranked.call_args.args[2] == 6
    assert decision.sample is not None and len(decision.sample.layouts) <= 6


def test_layout_weights_reject_impossible_placements_and_resampling_follows_weights():
    potentials = np.full((52, 4), -np.inf)
    potentials[:, 1:] = 0.0
    layouts = np.tile(np.repeat(np.arange(4), 13), (2, 1)).astype(np.uint8)
    with pytest.raises(InvalidInput):
        layout_log_weights(layouts, potentials, np.arange(52))  # cards 0..12 lie with seat 0
    assert list(layout_log_weights(layouts, potentials, np.arange(13, 52))) == [0.0, 0.0]
    rng = np.random.default_rng(0)
    picked = importance_resample(np.array([0.0, np.log(3.0)]), 400, rng)
    assert abs((picked == 1).mean() - 0.75) < 0.01  # systematic resampling: within 1/count of the weights
    assert set(importance_resample(np.array([-50.0, 0.0, -50.0]), 10, rng)) == {1}


def test_pimc_player_belief_option_is_checked_and_keyed():
    assert PimcPlayer().cache_key() != PimcPlayer(belief="model").cache_key()
    assert PimcPlayer(belief="model").cache_key() != PimcPlayer(belief="model", pool=2).cache_key()
    assert (
        PimcPlayer(belief="model", belief_model=random_model(1)).cache_key()
        != PimcPlayer(belief="model", belief_model=random_model(2)).cache_key()
    )
    with pytest.raises(InvalidInput) as err:
        PimcPlayer(belief="oracle")
    assert err.value.field == "belief"
    with pytest.raises(InvalidInput):
        PimcPlayer(belief="model", pool=0)


def test_fit_recovers_a_planted_model():
    rng = np.random.default_rng(5)
    d = len(BeliefModel.uniform().flat())
    n = 6000
    x = rng.normal(0, 1, (n, 4, d)).astype(np.float32)
    prior = np.log(rng.integers(1, 13, (n, 4)).astype(float))
    prior[rng.random((n, 4)) < 0.2] = -np.inf
    prior[:, 0] = 0.0  # every row has a possible hand
    truth = rng.normal(0, 0.4, d)
    z = prior + x.astype(np.float64) @ truth
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(4, p=row) for row in p])
    data = BeliefData(x, prior, y, np.zeros(n, dtype=np.int64), np.arange(n))
    model, history = fit_belief(data, l2=1e-6, iterations=15)
    assert all(b <= a + 1e-12 for a, b in zip(history, history[1:]))
    assert np.corrcoef(model.flat(), truth)[0, 1] > 0.95
    assert log_likelihoods(data, model).mean() > log_likelihoods(data, BeliefModel.uniform()).mean()


def test_calibration_table_counts_every_pair():
    table = calibration_table(np.array([0.05, 0.15, 0.95, 1.0]), np.array([0, 1, 1, 1]), bins=10)
    assert sum(row["pairs"] for row in table) == 4
    assert table[-1]["observed"] == 1.0 and table[0]["observed"] == 0.0


def test_model_file_round_trip_and_shape_check(tmp_path):
    model = random_model(4)
    model.info = {"deals": 3}
    model.save(tmp_path / "m.npz")
    back = BeliefModel.load(tmp_path / "m.npz")
    assert np.array_equal(back.flat(), model.flat())
    assert back.info == {"deals": "3"}
    with pytest.raises(InvalidInput) as err:
        BeliefModel(np.zeros((2, 2)), model.V)
    assert err.value.field == "W"


def test_train_belief_command_runs_on_a_tiny_size(tmp_path, capsys):
    out = tmp_path / "model.npz"
    games = tmp_path / "games.jsonl"
    code = main(["train-belief", "--deals", "2", "--seed", "3", "--out", str(out), "--games-out", str(games), "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["deals"] == 2 and report["rows"] > 0
    assert report["train_loglik_per_card_model"] >= report["train_loglik_per_card_uniform"] - 1e-9
    BeliefModel.load(out)
    assert len(games.read_text().splitlines()) == 2
    again = tmp_path / "again.npz"
    assert main(["train-belief", "--deals", "2", "--games", str(games), "--out", str(again)]) == 0
    assert np.allclose(BeliefModel.load(again).flat(), BeliefModel.load(out).flat())


def test_train_belief_rejects_bad_sizes(capsys):
    assert main(["train-belief", "--deals", "0"]) == 2
    assert "deals" in capsys.readouterr().err


def test_game_views_give_each_player_its_view_and_the_true_owners():
    state, _ = random_view(22)  # nine cards played
    record = GameRecord(
        0,
        state.deal.to_pbn(),
        int(state.dealer),
        tuple(str(c) for c in state.auction.calls),
        tuple(str(p.card) for p in state.view(state.players[0]).played),
        ("",) * 4,
        ("",) * 4,
    )
    seen = 0
    for view, owners in game_views(record, snapshots=(0, 1, 5)):
        seen += 1
        assert view.phase == "play" and len(view.played) in (0, 1, 5)
        assert all(owners[c] == int(view.seat) for c in view.hand.cards)
        assert all(owners[p.card.index] == int(p.seat) for p in view.played)
        assert (view.dummy is not None) == (len(view.played) > 0)
    played = len(record.cards)
    assert played > 5 and seen == 9


def test_pimc_model_is_a_registered_bot_that_plays_legal_cards():
    from tribridge.bots import get_bot
    from tribridge.cards import Deal, Seat
    from tribridge.rules.deal import DealState

    bot = get_bot("pimc-model", player_options={"layouts": 4})
    assert bot.player.belief == "model" and bot.player.layouts == 4
    assert get_bot("pimc").player.belief == "paper"
    assert bot.player.cache_key() != get_bot("pimc", player_options={"layouts": 4}).player.cache_key()
    state = DealState.start(
        Deal.from_pbn("N:AKQ2.KJ4.Q73.A95 J84.QT98.K52.J73 T976.753.AJ8.K62 53.A62.T964.QT84"), Seat.N
    )
    for call in ("1N", "P", "P"):
        state = state.apply(call)
    for _ in range(6):
        view = state.view(state.turn)
        card = bot.play(view)
        assert card in view.legal_cards()
        state = state.apply(card, state.turn)
