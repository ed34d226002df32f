"""``LearnedBidder``: a small policy network, trained by self-play, over the bidding observation of ``selfplay.encoding``.

The bidder chooses among pass, double, redouble and the three cheapest legal bids of each
denomination (:func:`considered_calls`). The network is a two-layer ReLU perceptron in numpy. Its
input is the bidding observation (``encode_view(view, bidding_only=True)``, the same vector
``selfplay.BiddingBatch`` gives) followed by a few numbers read off it (:func:`policy_features`: suit
lengths, high-card points, the highest bid so far, who holds it and its doubling), because those
are what a bidder needs first and a small network learns them slowly from the 52 card bits; a
network built with ``widow_samples`` > 0 also gets the trick estimator's tricks of its hand with that
many fixed draws of the widow (:func:`widow_features`), the shipped one with 32. It puts
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
from tribridge.selfplay.actions import FIRST_BID, N_BIDS, N_CALLS, action_mask, call_of
from tribridge.selfplay.encoding import BIDDING_SIZE, BLOCKS, encode_view

__all__ = [
    "N_FEATURES",
    "POINTS_PER_UNIT",
    "WEIGHTS_RESOURCE",
    "WIDOW_FEATURES",
    "LearnedBidder",
    "PolicyNetwork",
    "considered_calls",
    "default_policy",
    "masked_softmax",
    "n_features",
    "policy_features",
    "widow_features",
]

WEIGHTS_RESOURCE = "learned_bidder.npz"
LEVELS_CONSIDERED = 3
"""Bids considered per denomination: the cheapest legal one and the next ``LEVELS_CONSIDERED - 1`` levels."""
POINTS_PER_UNIT = 100.0
"""Points in one unit of the network's values, unless its weights' info names another ``reward_scale``."""
_HCP = np.array([4.0, 3.0, 2.0, 1.0] + [0.0] * 9, dtype=np.float32)  # rank 0 = ace
_EXTRA_FEATURES = 4 + 4 + 1 + (N_BIDS + 1) + 3 + 3
N_FEATURES = BIDDING_SIZE + _EXTRA_FEATURES
"""Length of :func:`policy_features`' rows: the observation, then lengths, points, the highest bid."""
WIDOW_LEVELS = (7, 8, 9, 10)
_WIDOW_LEVELS = np.array(WIDOW_LEVELS)[:, None]  # [level, strain]
WIDOW_FEATURES = 5 * (1 + len(WIDOW_LEVELS))
"""Length of :func:`widow_features`' rows: per strain, the mean tricks and the share of widows giving 7, 8, 9, 10."""
_WIDOW_SEED = 20_261_205
_SUIT_OF = np.arange(52)[:, None] // 13 == np.arange(4)[None, :]  # [card, suit]: the card's suit, one-hot
_SERIAL_ROWS = 4096


@lru_cache(maxsize=8)
def _widow_draws(samples: int) -> np.ndarray:
    """``int64[samples, 13]``: fixed draws of 13 of the 39 cards a player does not hold (positions in sorted order)."""
    rng = np.random.default_rng(_WIDOW_SEED)
    return np.stack([np.sort(rng.permutation(39)[:13]) for _ in range(samples)]).astype(np.int64)


def widow_features(hands: np.ndarray, samples: int) -> np.ndarray:
    """``float32[n, WIDOW_FEATURES]``: the trick estimator's view of each hand (``bool[n, 52]``) with ``samples`` widows.

    The widows are fixed draws of the 39 cards the hand does not hold (the same positions in the
    sorted unseen cards for every hand, so a hand always gets the same features). Per strain (C D H
    S NT): the mean of the estimator's tricks / 13, then the share of widows whose whole tricks reach
    7, 8, 9 and 10.
    """
    hands = np.asarray(hands, dtype=bool)
    if len(hands) == 0:
        return np.zeros((0, WIDOW_FEATURES), dtype=np.float32)
    keys = np.packbits(hands, axis=1)
    if len(hands) == 1:
        return _distinct_widow_features(keys, samples)
    distinct, inverse = np.unique(keys, axis=0, return_inverse=True)
    return _distinct_widow_features(distinct, samples)[np.ravel(inverse)]


def _distinct_widow_features(distinct: np.ndarray, samples: int) -> np.ndarray:
    """:func:`widow_features` of hands given as packed bits (``uint8[m, 7]``, each hand once)."""
    from numba import get_num_threads, set_num_threads

    from tribridge.estimators.tricks import default_model, whole_tricks

    held = np.unpackbits(distinct, axis=1, count=52).astype(bool)
    m = len(held)
    unseen = np.argsort(held, axis=1, kind="stable")[:, :39]  # the cards not held, in order
    cards = unseen[:, _widow_draws(samples)].reshape(m * samples, 13)  # each widow's cards
    bits = np.int64(1) << np.arange(13, dtype=np.int64)
    own = (held.reshape(m, 4, 13) * bits).sum(axis=2)
    partner = (_SUIT_OF[cards] * bits[cards % 13][:, :, None]).sum(axis=1)  # [m * samples, suit]
    threads = get_num_threads()
    if m * samples < _SERIAL_ROWS:
        set_num_threads(1)  # a few rows: the parallel kernel's threads cost more than they save
    try:
        tricks = default_model().predict_masks(np.repeat(own, samples, axis=0), partner, (0, 1, 2, 3, 4))
    finally:
        set_num_threads(threads)
    tricks = tricks.reshape(m, samples, 1, 5)
    reach = (whole_tricks(tricks) >= _WIDOW_LEVELS).mean(axis=1).reshape(m, len(WIDOW_LEVELS) * 5)  # level-major
    return np.concatenate([tricks.mean(axis=1)[:, 0] / 13.0, reach], axis=1).astype(np.float32)


def n_features(widow_samples: int = 0) -> int:
    """Length of the network's input rows: ``N_FEATURES``, and ``WIDOW_FEATURES`` more with widow samples."""
    return N_FEATURES + (WIDOW_FEATURES if widow_samples > 0 else 0)


def policy_features(obs: np.ndarray, widow_samples: int = 0, widow: np.ndarray | None = None) -> np.ndarray:
    """``float32[n, n_features(widow_samples)]``: bidding observations (``float32[n, BIDDING_SIZE]``) and what is read off them.

    After the observation: the four suit lengths / 13, the high-card points per suit / 10 and in all
    / 40, the highest bid one-hot (35 bids, then "none"), the calling offset of its bidder, and its
    doubling (none, doubled, redoubled). The highest bid is the highest-numbered bid made, which is
    the last bid under the default (contract) ranking. With ``widow_samples`` > 0, then
    :func:`widow_features` of the hand (``widow``, when given, is those rows already computed).
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
    if widow_samples > 0 and widow is None:
        widow = widow_features(obs[:, BLOCKS["hand"]] > 0, widow_samples)
    tail = [widow] if widow_samples > 0 else []
    return np.concatenate([obs, *extra, top_bid, holder, doubling, *tail], axis=1).astype(np.float32)


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
    widow_samples: int = 0

    @classmethod
    def initial(
        cls, hidden: int = 128, seed: int = 0, temperature: float = 0.1, widow_samples: int = 0
    ) -> PolicyNetwork:
        """He-initialised weights for ``hidden`` units per layer (the output layer small, biases 0)."""
        if hidden < 1:
            raise InvalidInput("hidden", f"expected at least one hidden unit, got {hidden}")
        if not temperature > 0:
            raise InvalidInput("temperature", f"expected a positive temperature, got {temperature}")
        if widow_samples < 0:
            raise InvalidInput("widow_samples", f"expected a number of widows 0 or more, got {widow_samples}")
        rng = np.random.default_rng(seed)

        def layer(n_in: int, n_out: int, gain: float) -> np.ndarray:
            return (rng.standard_normal((n_in, n_out)) * gain * np.sqrt(2.0 / n_in)).astype(np.float32)

        return cls(
            W1=layer(n_features(widow_samples), hidden, 1.0),
            b1=np.zeros(hidden, np.float32),
            W2=layer(hidden, hidden, 1.0),
            b2=np.zeros(hidden, np.float32),
            W3=layer(hidden, N_CALLS, 0.01),
            b3=np.zeros(N_CALLS, np.float32),
            temperature=float(temperature),
            widow_samples=int(widow_samples),
        )

    @classmethod
    def array_names(cls) -> tuple[str, ...]:
        """Names of the weight arrays, in order."""
        return tuple(f.name for f in fields(cls) if f.name not in ("info", "temperature", "widow_samples"))

    def arrays(self) -> list[np.ndarray]:
        """The weight arrays in :meth:`array_names` order."""
        return [getattr(self, name) for name in self.array_names()]

    def copy(self, temperature: float | None = None) -> PolicyNetwork:
        """A copy of the weights (with another ``temperature`` if given)."""
        arrays = {name: a.copy() for name, a in zip(self.array_names(), self.arrays())}
        chosen = self.temperature if temperature is None else float(temperature)
        return PolicyNetwork(**arrays, temperature=chosen, info=dict(self.info), widow_samples=self.widow_samples)

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

    def features(self, obs: np.ndarray, widow: np.ndarray | None = None) -> np.ndarray:
        """The network's input rows for bidding observations ``obs`` (``policy_features`` with its widow samples)."""
        return policy_features(obs, self.widow_samples, widow)

    def probabilities(self, obs: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """``float[n, N_CALLS]``: the policy over the considered calls of ``legal`` for bidding observations ``obs``."""
        return self.probabilities_of(self.features(obs), considered_calls(legal))

    # --- files ----------------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the weights (float32) and ``info`` to an ``.npz`` file."""
        arrays: dict[str, np.ndarray] = {
            name: np.asarray(a, np.float32) for name, a in zip(self.array_names(), self.arrays())
        }
        arrays["n_features"] = np.array(n_features(self.widow_samples))
        arrays["widow_samples"] = np.array(self.widow_samples)
        arrays["temperature"] = np.array(self.temperature)
        arrays["info_keys"] = np.array(list(self.info.keys()), dtype=str)
        arrays["info_values"] = np.array([str(v) for v in self.info.values()], dtype=str)
        np.savez_compressed(path, allow_pickle=False, **arrays)

    @classmethod
    def load(cls, path: str | Path) -> PolicyNetwork:
        """Read weights written by :meth:`save`; their input size must be this version's for their widow samples."""
        with np.load(path) as data:
            widow_samples = int(data["widow_samples"]) if "widow_samples" in data else 0
            expected = n_features(widow_samples)
            if int(data["n_features"]) != expected:
                raise InvalidInput("weights", f"{path}: built for {int(data['n_features'])} features, not {expected}")
            arrays = {name: np.asarray(data[name], np.float32) for name in cls.array_names()}
            data_temperature = float(data["temperature"])
            info = dict(zip((str(k) for k in data["info_keys"]), (str(v) for v in data["info_values"])))
        return cls(**arrays, temperature=float(data_temperature), info=info, widow_samples=widow_samples)


@lru_cache(maxsize=4)  # one entry per shipped file: learned and learned-sim at one table load each once
def default_policy(resource: str = WEIGHTS_RESOURCE) -> PolicyNetwork:
    """Shipped weights: ``tribridge/data/<resource>``, by default the learned bidder's (``learned_bidder.npz``)."""
    ref = resources.files("tribridge").joinpath("data", resource)
    with resources.as_file(ref) as path:
        return PolicyNetwork.load(path)


class LearnedBidder:
    """Calls with the policy network: the considered call of highest value (candidates: each call's probability).

    ``weights`` is an ``.npz`` file of ``tribridge train-bidder`` (default: the shipped weights) or a
    ``PolicyNetwork``. The bidder remembers the widow inputs of the last ``HANDS_REMEMBERED`` hands it
    called with (a player calls several times with one hand; the inputs depend on the hand alone).
    """

    name = "learned"
    HANDS_REMEMBERED = 256

    def __init__(self, weights: str | Path | PolicyNetwork | None = None) -> None:
        if weights is None:
            self.policy = default_policy()
        elif isinstance(weights, PolicyNetwork):
            self.policy = weights
        else:
            self.policy = PolicyNetwork.load(weights)
        self._widows: dict[bytes, np.ndarray] = {}

    def _widow_inputs(self, obs: np.ndarray) -> np.ndarray | None:
        """The widow inputs ``float32[1, WIDOW_FEATURES]`` of the hand of one observation (None without them)."""
        if self.policy.widow_samples == 0:
            return None
        hand = obs[:, BLOCKS["hand"]] > 0
        key = np.packbits(hand).tobytes()
        widow = self._widows.get(key)
        if widow is None:
            if len(self._widows) >= self.HANDS_REMEMBERED:
                self._widows.pop(next(iter(self._widows)))  # the oldest
            widow = self._widows[key] = widow_features(hand, self.policy.widow_samples)
        return widow

    def _inputs(self, view: SeatView) -> tuple[np.ndarray, np.ndarray]:
        """(the network's input row ``float32[1, n]``, the considered calls ``bool[1, N_CALLS]``) for a view."""
        legal = view.legal_calls()
        if not legal:
            raise InvalidInput("view", f"it is not {view.player}'s turn to call")
        mask = action_mask(legal, N_CALLS)[None, :].astype(bool)
        obs = encode_view(view, bidding_only=True)[None, :]
        return self.policy.features(obs, self._widow_inputs(obs)), considered_calls(mask)

    def probabilities(self, view: SeatView) -> np.ndarray:
        """``float[N_CALLS]``: the policy's probability of each call number (0 for those not considered)."""
        return self.policy.probabilities_of(*self._inputs(view))[0]

    def candidates(self, view: SeatView) -> list[tuple[Call, float]]:
        """Every considered call with its probability, most probable first (ties: lower call number first)."""
        features, considered = self._inputs(view)
        probs = self.policy.probabilities_of(features, considered)[0]
        order = sorted(np.flatnonzero(considered[0]).tolist(), key=lambda a: (-probs[a], a))
        return [(call_of(a), float(probs[a])) for a in order]

    def values(self, view: SeatView) -> list[tuple[Call, float]]:
        """Every considered call with the network's value of it in points, most valuable first (ties: lower call number)."""
        features, considered = self._inputs(view)
        scale = float(self.policy.info.get("reward_scale", POINTS_PER_UNIT))
        points = self.policy.forward(features)[0].astype(np.float64) * scale
        order = sorted(np.flatnonzero(considered[0]).tolist(), key=lambda a: (-points[a], a))
        return [(call_of(a), float(points[a])) for a in order]

    def bid(self, view: SeatView) -> Call:
        """The considered call of highest value (the most probable; ties: the lower call number)."""
        features, considered = self._inputs(view)
        values = np.where(considered[0], self.policy.forward(features)[0], -np.inf)
        return call_of(int(np.argmax(values)))

    __call__ = bid
