"""The OpenSpiel game ``python_tribridge``: OpenSpiel's random simulation test, DealState's scores, and MCTS bidding."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install 'tribridge[openspiel]')")

import tribridge.env.openspiel_game  # noqa: E402,F401 - registers python_tribridge
from tribridge.cards import Deal, Hand  # noqa: E402
from tribridge.rules.deal import DealState  # noqa: E402
from tribridge.selfplay.actions import decode  # noqa: E402
from tribridge.selfplay.contracts import settle  # noqa: E402


def _random_game(game, rng: np.random.Generator):
    """A state played to the end with random chance outcomes and random legal actions."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    return state


@pytest.mark.parametrize("mode", ["bidding", "full"])
def test_openspiel_random_simulation(mode: str) -> None:
    """OpenSpiel's own random-simulation checks pass."""
    game = pyspiel.load_game("python_tribridge", {"mode": mode})
    pyspiel.random_sim_test(game, num_sims=2, serialize=False, verbose=False)


@pytest.mark.parametrize("mode", ["bidding", "full"])
def test_openspiel_returns_are_deal_state_points(mode: str) -> None:
    """A random game's returns are what DealState scores for its deal and actions."""
    game = pyspiel.load_game("python_tribridge", {"mode": mode, "dealer": 1})
    state = _random_game(game, np.random.default_rng(4))
    history = state.history()
    cards = history[:52]
    deal = Deal(tuple(Hand.from_cards(cards[s::4]) for s in range(4)))  # type: ignore[arg-type]
    replayed = DealState.start(deal, 1)
    for action in history[52:]:
        replayed = replayed.apply(decode(action))
    if mode == "bidding":
        replayed = settle(replayed, "estimate")
    points = replayed.points()
    assert state.returns() == [float(points[p]) for p in replayed.players]


def test_mcts_bids_in_the_bidding_game() -> None:
    """OpenSpiel's MCTS (random rollouts) chooses legal calls in the bidding-only game."""
    from open_spiel.python.algorithms import mcts

    game = pyspiel.load_game("python_tribridge", {"mode": "bidding"})
    bot = mcts.MCTSBot(
        game,
        uct_c=2.0,
        max_simulations=10,
        evaluator=mcts.RandomRolloutEvaluator(1, np.random.RandomState(0)),
        random_state=np.random.RandomState(1),
    )
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[rng.integers(len(outcomes))][0])
    for _ in range(3):
        if state.is_terminal():
            break
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert len(state.history()) > 52
