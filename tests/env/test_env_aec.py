"""The PettingZoo environment: PettingZoo's API test, and random games scored as DealState scores them."""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test

from tribridge.cards import random_deal
from tribridge.dealing.streams import random_stream
from tribridge.env import AGENTS, BiddingBatch, contract_tricks, env, raw_env
from tribridge.errors import IllegalAction, InvalidInput
from tribridge.rules.deal import DealState
from tribridge.selfplay.actions import N_ACTIONS, decode
from tribridge.selfplay.encoding import BIDDING_SIZE, FULL_SIZE


@pytest.mark.parametrize("kwargs", [{}, {"mode": "bidding"}, {"opponents": {"player_2": "random"}}, {"relative": True}])
def test_pettingzoo_api(kwargs: dict) -> None:
    """PettingZoo's own API test passes in every mode."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the test's advice that a Dict observation is unusual
        api_test(env(**kwargs), num_cycles=200)


def _play_randomly(e, rng: np.random.Generator) -> tuple[list[tuple[str, int]], dict[str, float]]:
    """Random legal actions to the end; the (agent, action) pairs taken and each agent's summed rewards."""
    taken = []
    rewards = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _info = e.last()
        rewards[agent] += reward
        assert obs["observation"].shape == e.observation_space(agent)["observation"].shape
        if terminated or truncated:
            e.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        taken.append((agent, action))
        e.step(action)
    return taken, rewards


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31), scheme=st.sampled_from(["classic", "tribridge"]), relative=st.booleans())
def test_random_games_score_as_deal_state(seed: int, scheme: str, relative: bool) -> None:
    """A random full game through the environment ends with DealState's points for the same actions."""
    e = env(scheme=scheme, relative=relative)
    e.reset(seed=seed)
    assert e.observation_space("player_0")["observation"].shape == (FULL_SIZE,)
    taken, rewards = _play_randomly(e, np.random.default_rng(seed))
    state = DealState.start(random_deal(random_stream(seed, 0)), 0)
    for agent, action in taken:
        assert state.turn == state.players[AGENTS.index(agent)]
        state = state.apply(decode(action))
    assert state.is_terminal()
    points = state.points(scheme)
    expected = np.array([points[p] for p in state.players], dtype=float)
    if relative:
        expected = expected - (expected.sum() - expected) / 2
    assert [rewards[a] for a in AGENTS] == pytest.approx(expected.tolist())


def test_bidding_mode_matches_the_batch() -> None:
    """The bidding-only environment and BiddingBatch give the same observations and rewards for the same calls."""
    rng = np.random.default_rng(5)
    for number in range(4):
        e = raw_env(mode="bidding")
        deal = random_deal(random_stream(77, number))
        e.reset(options={"deal": deal, "dealer": number})
        batch = BiddingBatch(1)
        batch.reset(owners=deal.to_owners()[None, :], dealers=np.array([number]))
        while not batch.done[0]:
            agent = e.agent_selection
            obs = e.observe(agent)
            assert obs["observation"].shape == (BIDDING_SIZE,)
            np.testing.assert_array_equal(obs["observation"], batch.observation()[0])
            np.testing.assert_array_equal(obs["action_mask"].astype(bool), batch.legal_mask()[0])
            weights = obs["action_mask"] * rng.random(len(obs["action_mask"]))
            weights[0] *= 4
            action = int(np.argmax(weights))
            e.step(action)
            batch.step(np.array([action]))
        assert all(e.terminations.values())
        assert [e.rewards[a] for a in AGENTS] == batch.rewards[0].tolist()


def test_bidding_mode_scores_the_contract_from_its_tricks() -> None:
    """The bidding mode's rewards are DealState's points with the trick source's tricks taken."""
    e = raw_env(mode="bidding", tricks="dd")
    deal = random_deal(random_stream(3, 0))
    e.reset(options={"deal": deal, "dealer": "N"})
    for call in ("1N", "P", "P"):
        e.step(int(np.flatnonzero([str(decode(a)) == call for a in range(N_ACTIONS)])[0]))
    state = DealState.start(deal, "N")
    for call in ("1N", "P", "P"):
        state = state.apply(call)
    assert state.play is not None
    tricks = contract_tricks(state, "dd")
    finished = replace(state, play=state.play.agreed_claim(state.contract.declarer, tricks))  # type: ignore[union-attr]
    assert [e.rewards[a] for a in AGENTS] == [float(finished.points()[p]) for p in state.players]


def test_opponents_act_inside_step() -> None:
    """With two bots named, one agent is left and every step is its own."""
    e = env(opponents={"player_1": "random", "player_2": "random"})
    e.reset(seed=2)
    assert e.agents == ["player_0"]
    taken, _rewards = _play_randomly(e, np.random.default_rng(0))
    assert {agent for agent, _ in taken} <= {"player_0"}
    assert e.unwrapped.state.is_terminal()


def test_reset_is_reproducible() -> None:
    """reset(seed) deals deal 0 of the seed's stream; the next resets go on with deals 1, 2, ..."""
    e = raw_env()
    e.reset(seed=9)
    first = e.state.deal
    e.reset()
    second = e.state.deal
    e.reset(seed=9)
    assert e.state.deal == first == random_deal(random_stream(9, 0))
    assert second == random_deal(random_stream(9, 1))


def test_bad_input() -> None:
    """Unknown modes, players and illegal actions are refused naming the field."""
    with pytest.raises(InvalidInput, match="mode"):
        raw_env(mode="play")
    with pytest.raises(InvalidInput, match="opponents"):
        raw_env(opponents={"widow": "random"})
    e = raw_env()
    e.reset(seed=1)
    with pytest.raises(IllegalAction, match="action"):
        e.step(1)  # a double before any bid
