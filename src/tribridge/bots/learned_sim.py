"""The learned bidder's values averaged with SimulationBidder's where the network is unsure (``learned-sim``).

The network values each considered call from the hand and the auction alone; SimulationBidder
values each of its candidate calls by rolling the auction out over layouts of the hidden cards
drawn to fit the auction. The two estimates err in different ways (the network by fitting one
function to every position, the simulation by its sampled layouts and by letting this seat pass
after the call it tries), so their average picks better calls than the network alone (about a
quarter of a point a deal against PaperBidder; docs/bots.md has the measurements), in the manner of
AlphaGo's leaf values, which mixed the value network's estimate with a rollout's outcome half and
half. Simulation costs some forty times the network, so it is consulted only where the network's
two most valuable calls lie within ``gap`` points of each other.
"""

from __future__ import annotations

from pathlib import Path

from tribridge.bots.bidding import SimulationBidder
from tribridge.bots.learned import LearnedBidder, PolicyNetwork, default_policy
from tribridge.errors import InvalidInput
from tribridge.rules.auction import Call
from tribridge.rules.view import SeatView

__all__ = ["DEFAULT_GAP", "DEFAULT_WEIGHT", "WEIGHTS_RESOURCE", "LearnedSimulationBidder"]

WEIGHTS_RESOURCE = "learned_sim_bidder.npz"
"""The network's shipped weights: run I3 of docs/bots.md (the closest of the runs to SimulationBidder's margin)."""

DEFAULT_WEIGHT = 0.5
"""The network's share of a blended value (SimulationBidder's is the rest)."""
DEFAULT_GAP = 5.0
"""Points between the network's two best calls from which it calls alone."""


class LearnedSimulationBidder:
    """Calls the network's best call when it leads the next by ``gap`` points or more, else the best blended value.

    A blended value is ``weight`` × the network's value of a call plus (1 − ``weight``) ×
    SimulationBidder's mean score of it (points a deal, both this seat's score minus the mean of the
    other two players'), over SimulationBidder's candidate calls; a candidate the network does not
    consider keeps its simulated score. ``weights`` are the network's (default: ``WEIGHTS_RESOURCE``);
    ``layouts`` and ``evaluator`` go to SimulationBidder. ``consulted`` counts the calls that ran the
    simulation, ``calls`` all calls.
    """

    name = "learned-sim"

    def __init__(
        self,
        weights: str | Path | PolicyNetwork | None = None,
        weight: float = DEFAULT_WEIGHT,
        gap: float = DEFAULT_GAP,
        layouts: int | None = None,
        evaluator: str = "auto",
    ) -> None:
        if not 0.0 <= weight <= 1.0:
            raise InvalidInput("weight", f"expected the network's share between 0 and 1, got {weight}")
        if not gap >= 0.0:
            raise InvalidInput("gap", f"expected a number of points 0 or more, got {gap}")
        self.learned = LearnedBidder(default_policy(WEIGHTS_RESOURCE) if weights is None else weights)
        self.simulation = SimulationBidder(layouts=layouts, evaluator=evaluator)
        self.weight = float(weight)
        self.gap = float(gap)
        self.consulted = 0
        self.calls = 0

    def candidates(self, view: SeatView) -> list[tuple[Call, float]]:
        """The calls with their values (points), best first: the network's alone, or blended with the simulation's."""
        self.calls += 1
        network = self.learned.values(view)
        if len(network) == 1 or network[0][1] - network[1][1] >= self.gap:
            return network
        self.consulted += 1
        valued = dict(network)
        blended = [
            (call, self.weight * valued[call] + (1.0 - self.weight) * score if call in valued else score)
            for call, score in self.simulation.candidates(view)
        ]
        return sorted(blended, key=lambda pair: -pair[1])

    def bid(self, view: SeatView) -> Call:
        """The call of highest value (see the class)."""
        return self.candidates(view)[0][0]

    __call__ = bid
