"""The learned belief model: the probability that each unseen card lies in each hidden hand.

For a player's view (from the auction's end on) the model scores card ``c`` in hidden hand ``s``:

    logit[c, s] = log(needs[s]) + hand[s] @ W @ card[c] + pair[s, c] @ V @ rank[c]

over the hands ``s`` that may hold ``c`` (``allowed``, certain knowledge: unseen, hidden, still
short of cards, not void in the suit); ``P(c in s)`` is the softmax of the logits over those
hands, and 0 elsewhere. With ``W = V = 0`` it is the uniform prior (each hand in proportion to the
cards it still holds). The features are in :mod:`tribridge.bots.belief_features`.

PIMC uses the model through *potentials* ``logit - log(needs)``: a consistent layout drawn
uniformly (hand sizes and voids respected by the sampler) gets the importance weight
``exp(sum of its cards' potentials)``; :func:`importance_resample` resamples the layouts by weight.
The shipped weights are ``tribridge/data/belief_model.npz`` (``tribridge train-belief``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from tribridge.bots.belief_features import (
    CARD_FEATURES,
    HAND_FEATURES,
    PAIR_FEATURES,
    RANK_FEATURES,
    ViewFeatures,
    view_features,
)
from tribridge.errors import InvalidInput
from tribridge.rules.view import SeatView

__all__ = [
    "MODEL_RESOURCE",
    "BeliefModel",
    "default_belief_model",
    "importance_resample",
    "layout_log_weights",
    "reference_probabilities",
]

MODEL_RESOURCE = "belief_model.npz"


@dataclass
class BeliefModel:
    """Weights of the bilinear model: ``W`` [hand features x card features], ``V`` [pair x rank features]."""

    W: np.ndarray
    V: np.ndarray
    info: dict | None = None

    def __post_init__(self) -> None:
        self.W = np.asarray(self.W, dtype=np.float64)
        self.V = np.asarray(self.V, dtype=np.float64)
        if self.W.shape != (len(HAND_FEATURES), len(CARD_FEATURES)):
            raise InvalidInput("W", f"expected shape {(len(HAND_FEATURES), len(CARD_FEATURES))}, got {self.W.shape}")
        if self.V.shape != (len(PAIR_FEATURES), len(RANK_FEATURES)):
            raise InvalidInput("V", f"expected shape {(len(PAIR_FEATURES), len(RANK_FEATURES))}, got {self.V.shape}")

    @classmethod
    def uniform(cls) -> BeliefModel:
        """The model with zero weights: each hand in proportion to the unseen cards it holds."""
        return cls(
            np.zeros((len(HAND_FEATURES), len(CARD_FEATURES))), np.zeros((len(PAIR_FEATURES), len(RANK_FEATURES)))
        )

    @property
    def n_params(self) -> int:
        """Number of weights."""
        return self.W.size + self.V.size

    def flat(self) -> np.ndarray:
        """The weights as one vector (W then V, row-major)."""
        return np.concatenate([self.W.ravel(), self.V.ravel()])

    @classmethod
    def from_flat(cls, theta: np.ndarray, info: dict | None = None) -> BeliefModel:
        """The model of a weight vector laid out as :meth:`flat`."""
        n = len(HAND_FEATURES) * len(CARD_FEATURES)
        return cls(
            theta[:n].reshape(len(HAND_FEATURES), len(CARD_FEATURES)),
            theta[n:].reshape(len(PAIR_FEATURES), len(RANK_FEATURES)),
            info,
        )

    # --- inference ------------------------------------------------------------------------------
    def potentials(self, features: ViewFeatures) -> np.ndarray:
        """``float[52, 4]``: ``logit - log(needs)`` where allowed, ``-inf`` elsewhere."""
        hand_w = features.hand @ self.W  # [4, C]
        scores = hand_w @ features.card.T  # [4, 52]
        pair_v = features.pair @ self.V  # [4, 52, R]
        scores = scores + np.einsum("scr,cr->sc", pair_v, features.rank)
        out = np.where(features.allowed, scores.T, -np.inf)
        return out

    def logits(self, features: ViewFeatures) -> np.ndarray:
        """``float[52, 4]``: the full logits (prior included), ``-inf`` where not allowed."""
        with np.errstate(divide="ignore"):
            prior = np.log(np.maximum(features.needs, 0).astype(np.float64))
        return self.potentials(features) + prior[None, :]

    def probabilities(self, features: ViewFeatures) -> np.ndarray:
        """``float[52, 4]``: P(card in seat); rows of seen cards are 0, the others sum to 1."""
        logits = self.logits(features)
        out = np.zeros((52, 4))
        rows = features.allowed.any(axis=1)
        z = logits[rows]
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        out[rows] = e / e.sum(axis=1, keepdims=True)
        return out

    def view_probabilities(self, view: SeatView) -> np.ndarray:
        """``float[52, 4]`` P(card in play seat) for a player's view."""
        return self.probabilities(view_features(view))

    # --- files ----------------------------------------------------------------------------------
    def save(self, path: str | Path) -> None:
        """Write the weights (and the feature names they belong to) to an ``.npz`` file."""
        info = self.info or {}
        np.savez_compressed(
            path,
            W=self.W,
            V=self.V,
            hand_features=np.array(HAND_FEATURES),
            card_features=np.array(CARD_FEATURES),
            pair_features=np.array(PAIR_FEATURES),
            rank_features=np.array(RANK_FEATURES),
            info_keys=np.array(list(info.keys()), dtype=str),
            info_values=np.array([str(v) for v in info.values()], dtype=str),
        )

    @classmethod
    def load(cls, path: str | Path) -> BeliefModel:
        """Read weights written by :meth:`save`; the feature names must match this version's."""
        with np.load(path) as data:
            for key, names in (
                ("hand_features", HAND_FEATURES),
                ("card_features", CARD_FEATURES),
                ("pair_features", PAIR_FEATURES),
                ("rank_features", RANK_FEATURES),
            ):
                if tuple(str(x) for x in data[key]) != names:
                    raise InvalidInput("model", f"{path}: its {key} do not match this version's features")
            info = dict(zip((str(k) for k in data["info_keys"]), (str(v) for v in data["info_values"])))
            return cls(data["W"], data["V"], info)


@lru_cache(maxsize=1)
def default_belief_model() -> BeliefModel:
    """The shipped model (``tribridge/data/belief_model.npz``)."""
    ref = resources.files("tribridge").joinpath("data", MODEL_RESOURCE)
    with resources.as_file(ref) as path:
        return BeliefModel.load(path)


def reference_probabilities(model: BeliefModel, features: ViewFeatures) -> np.ndarray:
    """Readable reference of :meth:`BeliefModel.probabilities`: loops over cards, seats and features."""
    out = np.zeros((52, 4))
    for c in range(52):
        logits: dict[int, float] = {}
        for s in range(4):
            if not features.allowed[c, s]:
                continue
            total = float(np.log(features.needs[s]))
            for i in range(len(HAND_FEATURES)):
                for j in range(len(CARD_FEATURES)):
                    total += features.hand[s, i] * model.W[i, j] * features.card[c, j]
            for k in range(len(PAIR_FEATURES)):
                for r in range(len(RANK_FEATURES)):
                    total += features.pair[s, c, k] * model.V[k, r] * features.rank[c, r]
            logits[s] = total
        if not logits:
            continue
        top = max(logits.values())
        norm = sum(np.exp(v - top) for v in logits.values())
        for s, v in logits.items():
            out[c, s] = np.exp(v - top) / norm
    return out


def layout_log_weights(layouts: np.ndarray, potentials: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """Per layout, the sum over ``cards`` of the potential of the seat the layout puts each card in."""
    layouts = np.asarray(layouts)
    if len(layouts) == 0:
        return np.zeros(0)
    cards = np.asarray(cards, dtype=np.int64)
    picked = potentials[cards[None, :], layouts[:, cards].astype(np.int64)]
    if not np.isfinite(picked).all():
        raise InvalidInput("layouts", "a layout puts a card where the model says it cannot be")
    return picked.sum(axis=1)


def importance_resample(log_weights: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` indices drawn by systematic resampling with probabilities ``softmax(log_weights)``."""
    log_weights = np.asarray(log_weights, dtype=np.float64)
    if count < 1 or len(log_weights) == 0:
        return np.zeros(0, dtype=np.int64)
    w = np.exp(log_weights - log_weights.max())
    cumulative = np.cumsum(w / w.sum())
    cumulative[-1] = 1.0
    points = (rng.random() + np.arange(count)) / count
    return np.searchsorted(cumulative, points, side="right").astype(np.int64)
