"""LearnedSimulationBidder: the network alone where it is sure, the network and SimulationBidder averaged elsewhere."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from auction_views import random_view
from tribridge.bots import get_bidder, get_bot
from tribridge.bots.bidding import SimulationBidder
from tribridge.bots.learned import LearnedBidder, default_policy
from tribridge.bots.learned_sim import WEIGHTS_RESOURCE, LearnedSimulationBidder
from tribridge.bots.play import PimcPlayer
from tribridge.errors import InvalidInput
from tribridge.rules.view import SeatView

LAYOUTS = 16  # few layouts: the tests check the arithmetic, not the strength

views = st.builds(random_view, st.integers(0, 2**31), st.integers(0, 8))


def its_network() -> LearnedBidder:
    """The learned bidder with learned-sim's shipped network."""
    return LearnedBidder(default_policy(WEIGHTS_RESOURCE))


def test_its_network_is_run_i3_of_the_docs() -> None:
    """The shipped network was trained by the command docs/bots.md gives for run I3."""
    info = default_policy(WEIGHTS_RESOURCE).info
    expected = {"seed": "1", "iterations": "100", "batch": "1024", "tricks": "spread", "reference_share": "0.95"}
    assert {key: info[key] for key in expected} == expected
    assert info["reference_mix"] == "auction" and info["widow_samples"] == "32" and info["replay"] == "8"


def test_values_are_the_networks_outputs_in_points_best_first() -> None:
    bidder = its_network()
    for seed in range(6):
        view = random_view(seed, seed)
        values = bidder.values(view)
        assert values[0][0] == bidder.bid(view)
        assert [v for _, v in values] == sorted((v for _, v in values), reverse=True)
        assert {c for c, _ in values} == {c for c, _ in bidder.candidates(view)}
        assert all(c in view.legal_calls() for c, _ in values)


@settings(max_examples=12, deadline=None)
@given(view=views)
def test_a_sure_network_calls_alone_and_an_unsure_one_blends(view: SeatView) -> None:
    network = its_network().values(view)
    simulated = dict(SimulationBidder(layouts=LAYOUTS).candidates(view))
    bidder = LearnedSimulationBidder(gap=float("inf"), weight=0.25, layouts=LAYOUTS)
    got = bidder.candidates(view)
    if len(network) == 1:
        assert got == network and bidder.consulted == 0
        return
    assert bidder.consulted == 1 and {c for c, _ in got} == set(simulated)
    valued = dict(network)
    for call, value in got:
        expected = 0.25 * valued[call] + 0.75 * simulated[call] if call in valued else simulated[call]
        assert value == pytest.approx(expected)
    assert [v for _, v in got] == sorted((v for _, v in got), reverse=True)
    never = LearnedSimulationBidder(gap=0.0, layouts=LAYOUTS)
    assert never.candidates(view) == network and never.consulted == 0 and never.calls == 1


def test_the_extremes_are_the_two_bidders() -> None:
    """Weight 0 with an infinite gap calls as SimulationBidder; gap 0 calls as the network."""
    simulation, network = SimulationBidder(layouts=LAYOUTS), its_network()
    only_simulation = LearnedSimulationBidder(weight=0.0, gap=float("inf"), layouts=LAYOUTS)
    only_network = LearnedSimulationBidder(gap=0.0, layouts=LAYOUTS)
    for seed in range(8):
        view = random_view(100 + seed, seed)
        if len(network.values(view)) > 1:
            assert only_simulation.bid(view) == simulation.bid(view)
        assert only_network.bid(view) == network.bid(view)


def test_bad_settings_name_the_field() -> None:
    for options, field in (({"weight": 1.5}, "weight"), ({"weight": -0.1}, "weight"), ({"gap": -1.0}, "gap")):
        with pytest.raises(InvalidInput) as err:
            LearnedSimulationBidder(**options)
        assert err.value.field == field
    with pytest.raises(InvalidInput):
        LearnedSimulationBidder(gap=float("nan"))


def test_the_registry_names() -> None:
    assert isinstance(get_bidder("learned-sim"), LearnedSimulationBidder)
    bot = get_bot("learned-sim", player_options={"layouts": 4})
    assert isinstance(bot.bidder, LearnedSimulationBidder) and isinstance(bot.player, PimcPlayer)
    assert isinstance(get_bidder("learned-sim", gap=10.0, weights=None), LearnedSimulationBidder)


def test_values_follow_the_reward_scale_the_weights_were_trained_at() -> None:
    view = random_view(3, 2)
    policy = default_policy(WEIGHTS_RESOURCE)
    at_100 = dict(LearnedBidder(policy).values(view))
    halved = policy.copy()
    halved.info["reward_scale"] = "50"
    at_50 = dict(LearnedBidder(halved).values(view))
    assert at_50.keys() == at_100.keys()
    assert all(at_50[call] == pytest.approx(at_100[call] / 2) for call in at_100)


def test_both_shipped_networks_are_loaded_once() -> None:
    """A table with a learned and a learned-sim bot does not read the two weight files again at every bot."""
    shipped, its_own = default_policy(), default_policy(WEIGHTS_RESOURCE)
    assert default_policy() is shipped and default_policy(WEIGHTS_RESOURCE) is its_own and shipped is not its_own
