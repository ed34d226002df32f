"""``LearnedBidder``: a small policy network, trained by self-play, over the bidding observation of ``selfplay.encoding``.

The bidder chooses among pass, double, redouble and the three cheapest legal bids of each
denomination (:func:`considered_calls`). The network is a two-layer ReLU perceptron in numpy. Its
input is the bidding observation (``encode_view(view, bidding_only=True)``, the same vector
``selfplay.BiddingBatch`` gives) followed by a few numbers read off it (:func:`policy_features`: suit
lengths, high-card points, the highest bid so far, who holds it and its doubling), because those
are what a bidder needs first and a small network learns them slowly from the 52 card bits. It puts
out one number per call number (``selfplay.actions``: pass, double, redouble, the 35 bids): the call's
expected reward in hundreds of points (the player's score minus the mean of the other two). The
policy is the softmax of these over the considered calls at the network's ``temperature``; the
bidder plays the call of highest value (the most probable), so it is deterministic. The shipped
weights are ``tribridge/data/learned_bidder.npz`` (``tribridge train-bidder``, see docs/bots.md);
they were trained under the default auction options and the classic scheme.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from tribridge.errors import InvalidInput
from tribridge.rules.auction import Call
from tribridge.rules.view import SeatView
from tribridge.selfplay.actions import FIRST_BID, N_BIDS, N_CALLS, action_of, call_of
from tribridge.selfplay.encoding import BIDDING_SIZE, BLOCKS, encode_view

__all__ = [
    "N_FEATURES",
    "WEIGHTS_RESOURCE",
    "LearnedBidder",
    "PolicyNetwork",
    "considered_calls",
    "default_policy",
    "masked_softmax",
    "policy_features",
]

WEIGHTS_RESOURCE = "learned_bidder.npz"
LEVELS_CONSIDERED = 3
"""Bids considered per denomination: the cheapest legal one and the next ``LEVELS_CONSIDERED - 1`` levels."""
_HCP = np.array([4.0, 3.0, 2.0, 1.0] + [0.0] * 9, dtype=np.float32)  # rank 0 = ace
_EXTRA_FEATURES = 4 + 4 + 1 + (N_BIDS + 1) + 3 + 3
N_FEATURES = BIDDING_SIZE + _EXTRA_FEATURES
"""Length of :func:`policy_features`' rows: the observation, then lengths, points, the highest bid."""


def policy_features(obs: np.ndarray) -> np.ndarray:
    """``float32[n, N_FEATURES]``: bidding observations (``float32[n, BIDDING_SIZE]``) and what is read off them.

    After the observation: the four suit lengths / 13, the high-card points per suit / 10 and in all
    / 40, the highest bid one-hot (35 bids, then "none"), the calling offset of its bidder, and its
    doubling (none, doubled, redoubled). The highest bid is the highest-numbered bid made, which is
    the last bid under the default (contract) ranking.
    """
    obs = np.asarray(obs, dtype=np.float32)
    if obs.ndim != 2 or obs.shape[1] != BIDDING_SIZE:
        raise InvalidInput("obs", f"expected float32[n, {BIDDING_SIZE}] bidding observations, got {obs.shape}")
    n = len(obs)
    hand = obs[:, BLOCKS["hand"]].reshape(n, 4, 13)
    suit_points = hand @ _HCP
    bids = obs[:, BLOCKS["bids"]].reshape(n, N_BIDS, 3)
    made: np.ndarray = bids.sum(axis=2) > 0
    has_bid: np.ndarray = made.sum(axis=1) > 0
    top = np.where(has_bid, N_BIDS - 1 - np.argmax(made[:, ::-1], axis=1), N_BIDS)
    rows = np.arange(n)
    top_bid = np.zeros((n, N_BIDS + 1), dtype=np.float32)
    top_bid[rows, top] = 1.0
    at = np.minimum(top, N_BIDS - 1)
    holder = bids[rows, at] * has_bid[:, None]
    doubled = obs[:, BLOCKS["doubles"]].reshape(n, N_BIDS, 3)[rows, at].any(axis=1) & has_bid
    redoubled = obs[:, BLOCKS["redoubles"]].reshape(n, N_BIDS, 3)[rows, at].any(axis=1) & has_bid
    doubling = np.zeros((n, 3), dtype=np.float32)
    doubling[rows, redoubled * 2 + (doubled & ~redoubled)] = 1.0
    extra = [hand.sum(axis=2) / 13.0, suit_points / 10.0, suit_points.sum(axis=1, keepdims=True) / 40.0]
    return np.concatenate([obs, *extra, top_bid, holder, doubling], axis=1).astype(np.float32)


def considered_calls(legal: np.ndarray) -> np.ndarray:
    """``bool[n, N_CALLS]``: the calls the bidder chooses from, out of the legal ones ``bool[n, N_CALLS]``.

    Pass, double and redouble when legal, and in each denomination the ``LEVELS_CONSIDERED`` cheapest
    legal bids (as ``SimulationBidder`` considers the cheapest two): far fewer choices to explore than
    all 35 bids, with every game and slam still reachable by a jump or in a later round.
    """
    legal = np.asarray(legal, dtype=bool)
    out = legal.copy()
    bids = legal[:, FIRST_BID:].reshape(len(legal), 7, 5)  # [n, level, denomination]
    out[:, FIRST_BID:] = (bids & (np.cumsum(bids, axis=1) <= LEVELS_CONSIDERED)).reshape(len(legal), N_BIDS)
    return out


def masked_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Row-wise softmax of ``logits`` over the True entries of ``mask`` (0 elsewhere; all 0 in an all-False row)."""
    z = np.where(mask, logits, -np.inf)
    top = np.max(z, axis=-1, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    e = np.where(mask, np.exp(z - top), 0.0)
    total = e.sum(axis=-1, keepdims=True)
    return e / np.where(total > 0, total, 1.0)


@dataclass
class PolicyNetwork:
    """Weights of the perceptron features -> ReLU(W1) -> ReLU(W2) -> W3: each call's value; the policy's temperature."""

    W1: np.ndarray
    b1: np.ndarray
    W2: np.ndarray
    b2: np.ndarray
    W3: np.ndarray
    b3: np.ndarray
    temperature: float = 0.1
    info: dict[str, str] = field(default_factory=dict)

    @classmethod
    def initial(cls, hidden: int = 128, seed: int = 0, temperature: float = 0.1) -> PolicyNetwork:
        """He-initialised weights for ``hidden`` units per layer (the output layer small, biases 0)."""
        if hidden < 1:
            raise InvalidInput("hidden", f"expected at least one hidden unit, got {hidden}")
        if not temperature > 0:
            raise InvalidInput("temperature", f"expected a positive temperature, got {temperature}")
        rng = np.random.default_rng(seed)

        def layer(n_in: int, n_out: int, gain: float) -> np.ndarray:
            return (rng.standard_normal((n_in, n_out)) * gain * np.sqrt(2.0 / n_in)).astype(np.float32)

        return cls(
            W1=layer(N_FEATURES, hidden, 1.0),
            b1=np.zeros(hidden, np.float32),
            W2=layer(hidden, hidden, 1.0),
            b2=np.zeros(hidden, np.float32),
            W3=layer(hidden, N_CALLS, 0.01),
            b3=np.zeros(N_CALLS, np.float32),
            temperature=float(temperature),
        )

    @classmethod
    def array_names(cls) -> tuple[str, ...]:
        """Names of the weight arrays, in order."""
        return tuple(f.name for f in fields(cls) if f.name not in ("info", "temperature"))

    def arrays(self) -> list[np.ndarray]:
        """The weight arrays in :meth:`array_names` order."""
        return [getattr(self, name) for name in self.array_names()]

    def copy(self, temperature: float | None = None) -> PolicyNetwork:
        """A copy of the weights (with another ``temperature`` if given)."""
        arrays = {name: a.copy() for name, a in zip(self.array_names(), self.arrays())}
        chosen = self.temperature if temperature is None else float(temperature)
        return PolicyNetwork(**arrays, temperature=chosen, info=dict(self.info))

    @property
    def hidden(self) -> int:
        """Units per hidden layer."""
        return int(self.W1.shape[1])

    def hidden_layers(self, features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The two hidden layers' activations for ``float32[n, N_FEATURES]``."""
        h1 = np.maximum(features @ self.W1 + self.b1, 0.0)
        h2 = np.maximum(h1 @ self.W2 + self.b2, 0.0)
        return h1, h2

    def forward(self, features: np.ndarray) -> np.ndarray:
        """``float32[n, N_CALLS]``: each call's value (hundreds of points) for ``float32[n, N_FEATURES]``."""
        _, h2 = self.hidden_layers(features)
        return h2 @ self.W3 + self.b3

    def probabilities_of(self, features: np.ndarray, considered: np.ndarray) -> np.ndarray:
        """``float[n, N_CALLS]``: the policy over the ``considered`` calls for ``policy_features`` rows."""
        return masked_softmax(self.forward(features).astype(np.float64) / self.temperature, considered)

    def probabilities(self, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """``float[n, N_CALLS]``: the policy over the considered calls of ``legal`` for bidding observations ``obs``."""
        return self.probabilities_of(policy_features(obs), considered_calls(legal))

    # --- files ----------------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the weights (float32) and ``info`` to an ``.npz`` file."""
        arrays: dict[str, np.ndarray] = {
            name: np.asarray(a, np.float32) for name, a in zip(self.array_names(), self.arrays())
        }
        arrays["n_features"] = np.array(N_FEATURES)
        arrays["temperature"] = np.array(self.temperature)
        arrays["info_keys"] = np.array(list(self.info.keys()), dtype=str)
        arrays["info_values"] = np.array([str(v) for v in self.info.values()], dtype=str)
        np.savez_compressed(path, allow_pickle=False, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> PolicyNetwork:
        """Read weights written by :meth:`save`; their input size must be this version's ``N_FEATURES``."""
        with np.load(path) as data:
            if int(data["n_features"]) != N_FEATURES:
                raise InvalidInput("weights", f"{path}: built for {int(data['n_features'])} features, not {N_FEATURES}")
            arrays = {name: np.asarray(data[name], np.float32) for name in cls.array_names()}
            data_temperature = float(data["temperature"])
            info = dict(zip((str(k) for k in data["info_keys"]), (str(v) for v in data["info_values"])))
        return cls(**arrays, temperature=float(data_temperature), info=info)


@lru_cache(maxsize=1)
def default_policy() -> PolicyNetwork:
    """The shipped weights (``tribridge/data/learned_bidder.npz``)."""
    ref = resources.files("tribridge").joinpath("data", WEIGHTS_RESOURCE)
    with resources.as_file(ref) as path:
        return PolicyNetwork.load(path)


class LearnedBidder:
    """Calls with the policy network: the considered call of highest value (candidates: each call's probability).

    ``weights`` is an ``.npz`` file of ``tribridge train-bidder`` (default: the shipped weights) or a
    ``PolicyNetwork``.
    """

    name = "learned"

    def __init__(self, weights: str | Path | PolicyNetwork | None = None) -> None:
        if weights is None:
            self.policy = default_policy()
        elif isinstance(weights, PolicyNetwork):
            self.policy = weights
        else:
            self.policy = PolicyNetwork.load(weights)

    def probabilities(self, view: SeatView) -> np.ndarray:
        """``float[N_CALLS]``: the policy's probability of each call number (0 for those not considered)."""
        legal = view.legal_calls()
        if not legal:
            raise InvalidInput("view", f"it is not {view.player}'s turn to call")
        mask = np.zeros((1, N_CALLS), dtype=bool)
        mask[0, [action_of(c) for c in legal]] = True
        return self.policy.probabilities(encode_view(view, bidding_only=True)[None, :], mask)[0]

    def candidates(self, view: SeatView) -> list[tuple[Call, float]]:
        """Every considered call with its probability, most probable first (ties: lower call number first)."""
        probs = self.probabilities(view)
        legal = np.zeros((1, N_CALLS), dtype=bool)
        legal[0, [action_of(c) for c in view.legal_calls()]] = True
        order = sorted(np.flatnonzero(considered_calls(legal)[0]).tolist(), key=lambda a: (-probs[a], a))
        return [(call_of(a), float(probs[a])) for a in order]

    def bid(self, view: SeatView) -> Call:
        """The considered call of highest value (the most probable)."""
        return self.candidates(view)[0][0]

    __call__ = bid
