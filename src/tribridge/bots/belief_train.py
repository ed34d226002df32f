"""Training and scoring the belief model on positions cut from recorded games.

A :class:`BeliefData` holds one row per (position, unseen card that more than one hidden hand may
hold): the model's features for each of the four seats (``float32[n, 4, d]``, the flattened outer
products ``hand x card`` and ``pair x rank``), the log prior ``log(needs)`` (``-inf`` where the
card cannot be), the true seat, and the number of tricks completed. The model is a multinomial
logistic regression in those features, so :func:`fit_belief` minimises the mean negative log
likelihood plus an L2 penalty by Newton's method (the problem is convex and small: a few hundred
weights). Cards only one hand can hold are certain and carry no information; they are left out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from tribridge.bots.belief_features import ViewFeatures, view_features
from tribridge.bots.belief_games import SNAPSHOTS, GameRecord, game_views
from tribridge.bots.belief_model import BeliefModel
from tribridge.errors import InvalidInput

__all__ = [
    "BeliefData",
    "build_data",
    "calibration_table",
    "feature_rows",
    "fit_belief",
    "log_likelihoods",
    "mean_loss",
]


@dataclass
class BeliefData:
    """Rows for training or scoring (see the module docstring)."""

    x: np.ndarray  # float32[n, 4, d]
    prior: np.ndarray  # float64[n, 4]: log(needs), -inf where the card cannot be
    y: np.ndarray  # int64[n]: the true play seat
    trick: np.ndarray  # int64[n]: tricks completed at the position
    position: np.ndarray  # int64[n]: index of the position the row came from

    def __len__(self) -> int:
        return len(self.y)

    def subset(self, rows: np.ndarray) -> BeliefData:
        """The given rows."""
        return BeliefData(self.x[rows], self.prior[rows], self.y[rows], self.trick[rows], self.position[rows])


def feature_rows(features: ViewFeatures) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cards, x float32[k, 4, d], prior float64[k, 4]) for the unseen cards more than one hand may hold."""
    cards = np.flatnonzero(features.allowed.sum(axis=1) >= 2)
    hand_card = features.hand[:, None, :, None] * features.card[cards][None, :, None, :]  # [4, k, H, C]
    pair_rank = features.pair[:, cards, :, None] * features.rank[cards][None, :, None, :]  # [4, k, P, R]
    k = len(cards)
    hc = features.hand.shape[1] * features.card.shape[1]
    pr = features.pair.shape[2] * features.rank.shape[1]
    x = np.concatenate([hand_card.reshape(4, k, hc), pair_rank.reshape(4, k, pr)], axis=2)
    with np.errstate(divide="ignore"):
        prior = np.where(features.allowed[cards], np.log(np.maximum(features.needs, 1))[None, :], -np.inf)
    return cards, np.ascontiguousarray(x.transpose(1, 0, 2), dtype=np.float32), prior


def build_data(
    records: Iterable[GameRecord],
    snapshots: Sequence[int] = SNAPSHOTS,
    on_progress: Callable[[int], None] | None = None,
) -> BeliefData:
    """Rows from every player's view at the snapshots of each played game."""
    xs, priors, ys, tricks, positions = [], [], [], [], []
    n_pos = 0
    for record in records:
        for view, owners in game_views(record, snapshots):
            cards, x, prior = feature_rows(view_features(view))
            if len(cards):
                xs.append(x)
                priors.append(prior)
                ys.append(owners[cards].astype(np.int64))
                tricks.append(np.full(len(cards), len(view.played) // 4, dtype=np.int64))
                positions.append(np.full(len(cards), n_pos, dtype=np.int64))
            n_pos += 1
        if on_progress:
            on_progress(1)
    if not xs:
        raise InvalidInput("games", "no position with an uncertain card: every game was passed out")
    return BeliefData(
        np.concatenate(xs),
        np.concatenate(priors),
        np.concatenate(ys),
        np.concatenate(tricks),
        np.concatenate(positions),
    )


def _probs(data: BeliefData, theta: np.ndarray, rows: slice | np.ndarray) -> np.ndarray:
    """Softmax probabilities float64[k, 4] of the given rows."""
    z = data.prior[rows] + data.x[rows].astype(np.float64) @ theta
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def log_likelihoods(data: BeliefData, model: BeliefModel, chunk: int = 50_000) -> np.ndarray:
    """Per row, the log probability the model gives the true seat."""
    theta = model.flat()
    out = np.empty(len(data))
    for start in range(0, len(data), chunk):
        rows = slice(start, start + chunk)
        p = _probs(data, theta, rows)
        out[rows] = np.log(np.maximum(p[np.arange(len(p)), data.y[rows]], 1e-300))
    return out


def mean_loss(data: BeliefData, theta: np.ndarray, l2: float, chunk: int = 50_000) -> float:
    """Mean negative log likelihood plus ``l2/2 * |theta|^2``."""
    model = BeliefModel.from_flat(theta)
    return float(-log_likelihoods(data, model, chunk).mean() + 0.5 * l2 * theta @ theta)


def _grad_hessian(data: BeliefData, theta: np.ndarray, l2: float, chunk: int) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and Hessian of :func:`mean_loss`."""
    d = data.x.shape[2]
    grad = np.zeros(d)
    hess = np.zeros((d, d))
    for start in range(0, len(data), chunk):
        rows = slice(start, start + chunk)
        x = data.x[rows].astype(np.float64)  # [k, 4, d]
        p = _probs(data, theta, rows)
        y = np.zeros_like(p)
        y[np.arange(len(p)), data.y[rows]] = 1.0
        grad += np.einsum("ks,ksd->d", p - y, x)
        mean_x = np.einsum("ks,ksd->kd", p, x)
        weighted = x * np.sqrt(p)[:, :, None]
        flat = weighted.reshape(-1, d)
        hess += flat.T @ flat - mean_x.T @ mean_x
    n = len(data)
    return grad / n + l2 * theta, hess / n + l2 * np.eye(d)


def fit_belief(
    data: BeliefData,
    l2: float = 1e-4,
    iterations: int = 12,
    chunk: int = 20_000,
    on_iteration: Callable[[int, float], None] | None = None,
) -> tuple[BeliefModel, list[float]]:
    """Newton's method from zero weights (the uniform prior); the model and the loss after each step."""
    if l2 < 0:
        raise InvalidInput("l2", f"expected a penalty >= 0, got {l2}")
    if iterations < 0:
        raise InvalidInput("iterations", f"expected >= 0 iterations, got {iterations}")
    theta = np.zeros(data.x.shape[2])
    loss = mean_loss(data, theta, l2)
    history = [loss]
    for it in range(iterations):
        grad, hess = _grad_hessian(data, theta, l2, chunk)
        step = np.linalg.solve(hess + 1e-9 * np.eye(len(theta)), grad)
        scale = 1.0
        while scale > 1e-4:
            trial = theta - scale * step
            trial_loss = mean_loss(data, trial, l2)
            if trial_loss <= loss:
                break
            scale /= 2
        else:
            break
        improved = loss - trial_loss
        theta, loss = trial, trial_loss
        history.append(loss)
        if on_iteration:
            on_iteration(it + 1, loss)
        if improved < 1e-7:
            break
    return BeliefModel.from_flat(theta), history


def calibration_table(probabilities: np.ndarray, outcomes: np.ndarray, bins: int = 10) -> list[dict[str, object]]:
    """Predicted against observed frequency in equal-width probability bins (pairs card x possible hand)."""
    probabilities = np.asarray(probabilities, dtype=np.float64).ravel()
    outcomes = np.asarray(outcomes, dtype=np.float64).ravel()
    which = np.minimum((probabilities * bins).astype(np.int64), bins - 1)
    table = []
    for b in range(bins):
        sel = which == b
        n = int(sel.sum())
        if n:
            table.append(
                {
                    "bin": f"{b / bins:.1f}-{(b + 1) / bins:.1f}",
                    "pairs": n,
                    "predicted": float(probabilities[sel].mean()),
                    "observed": float(outcomes[sel].mean()),
                }
            )
    return table
