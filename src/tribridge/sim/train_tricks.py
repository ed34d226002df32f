"""Training of the fast trick estimator: seeded deals, double-dummy labels via the facade, least-squares fit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tribridge import dd
from tribridge.cards import owners_to_masks
from tribridge.estimators.tricks import N_FEATURES, TrickModel, trick_features

TRAIN_STREAM = 0
HOLDOUT_STREAM = 1


def seeded_deals(n: int, seed: int, stream: int = TRAIN_STREAM) -> np.ndarray:
    """``uint8[n, 52]`` random deals for ``(seed, stream)``; a longer run extends a shorter one."""
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), int(stream)]))
    base = np.repeat(np.arange(4, dtype=np.uint8), 13)
    out = np.empty((n, 52), dtype=np.uint8)
    for i in range(n):  # one permutation per deal keeps prefixes stable across n
        out[i] = rng.permutation(base)
    return out


def label_tables(
    owners: np.ndarray,
    nt_only: bool,
    cache: Any = True,
    workers: int | None = None,
    on_progress: Callable[[int], None] | None = None,
    chunk: int = 400,
) -> np.ndarray:
    """Double-dummy tables for training deals, chunk by chunk so an interrupted run keeps its cache."""
    parts = []
    for start in range(0, len(owners), chunk):
        parts.append(
            dd.dd_tables_array(
                owners[start : start + chunk], nt_only=nt_only, cache=cache, workers=workers, on_progress=on_progress
            )
        )
    return np.concatenate(parts) if parts else np.zeros((0, 4, 5), dtype=np.uint8)


PARTNERSHIPS = ((0, 2), (2, 0), (1, 3), (3, 1))  # (declarer, partner)


def training_rows(
    owners: np.ndarray, tables: np.ndarray, strains: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Rows (declarer masks, partner masks, strain, DD tricks) for every partnership and strain given."""
    masks = np.stack([owners_to_masks(o) for o in owners]) if len(owners) else np.zeros((0, 4, 4), np.int64)
    decl, part, strain, label = [], [], [], []
    for s in strains:
        for d, p in PARTNERSHIPS:
            known = tables[:, d, s] != dd.UNKNOWN
            decl.append(masks[known, d])
            part.append(masks[known, p])
            strain.append(np.full(int(known.sum()), s, dtype=np.int64))
            label.append(tables[known, d, s].astype(np.float32))
    return np.concatenate(decl), np.concatenate(part), np.concatenate(strain), np.concatenate(label)


def row_features(decl: np.ndarray, part: np.ndarray, strain: np.ndarray) -> np.ndarray:
    """``float32[n, N_FEATURES]`` features of each row for its own strain."""
    out = np.empty((len(decl), N_FEATURES), dtype=np.float32)
    for s in range(5):
        idx = np.flatnonzero(strain == s)
        if len(idx):
            out[idx] = trick_features(decl[idx], part[idx], strains=(s,))[:, 0]
    return out


def fit_mlp(
    x: np.ndarray,
    y: np.ndarray,
    hidden: tuple[int, ...] = (64, 32),
    epochs: int = 40,
    batch: int = 256,
    learning_rate: float = 2e-3,
    seed: int = 0,
    weight_decay: float = 1e-5,
    on_epoch: Callable[[int, float], None] | None = None,
) -> Any:
    """Fit a ReLU MLP by Adam on mean squared error; returns a ``TrickModel``."""
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0).astype(np.float32)
    scale = x.std(axis=0).astype(np.float32)
    scale[scale < 1e-6] = 1.0
    xs = ((x - mean) / scale).astype(np.float32)
    sizes = (x.shape[1], *hidden, 1)
    weights = [(rng.standard_normal((a, b)) * np.sqrt(2.0 / a)).astype(np.float32) for a, b in zip(sizes, sizes[1:])]
    biases = [np.zeros(b, dtype=np.float32) for b in sizes[1:]]
    biases[-1][:] = float(y.mean())
    params = weights + biases
    m1 = [np.zeros_like(p) for p in params]
    m2 = [np.zeros_like(p) for p in params]
    step = 0
    n = len(xs)
    for epoch in range(epochs):
        lr = learning_rate * (0.5 * (1 + np.cos(np.pi * epoch / epochs)))  # cosine decay
        order = rng.permutation(n)
        total = 0.0
        for start in range(0, n, batch):
            idx = order[start : start + batch]
            acts = [xs[idx]]
            for k, (w, b) in enumerate(zip(weights, biases)):
                z = acts[-1] @ w + b
                acts.append(np.maximum(z, 0.0) if k < len(weights) - 1 else z)
            err = acts[-1][:, 0] - y[idx]
            total += float((err**2).sum())
            grad = (2.0 / len(idx)) * err[:, None].astype(np.float32)
            grads_w: list[np.ndarray] = [None] * len(weights)  # type: ignore[list-item]
            grads_b: list[np.ndarray] = [None] * len(weights)  # type: ignore[list-item]
            for k in range(len(weights) - 1, -1, -1):
                grads_w[k] = acts[k].T @ grad + weight_decay * weights[k]
                grads_b[k] = grad.sum(axis=0)
                if k:
                    grad = (grad @ weights[k].T) * (acts[k] > 0)
            step += 1
            for p, g, a, v in zip(params, grads_w + grads_b, m1, m2):
                a *= 0.9
                a += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                p -= lr * (a / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
        if on_epoch:
            on_epoch(epoch, total / n)
    return TrickModel(mean, scale, tuple(weights), tuple(biases), {"hidden": list(hidden), "epochs": epochs})


def train_estimator(
    deals: int,
    seed: int,
    full_deals: int = 0,
    hidden: tuple[int, ...] = (32,),
    epochs: int = 30,
    weight_decay: float = 1e-3,
    validation: float = 0.1,
    cache: Any = True,
    workers: int | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> tuple[Any, dict[str, Any]]:
    """Label ``deals`` seeded deals (NT; all strains for the first ``full_deals``) and fit the estimator.

    The last ``validation`` share of the deals, and of the fully labelled deals, is held out of the fit
    and reported (MAE in NT and in the suits).
    Returns the model and a report dict. The same arguments give the same model.
    """
    owners = seeded_deals(deals, seed)
    nt_tables = label_tables(owners, nt_only=True, cache=cache, workers=workers, on_progress=on_progress)
    full_deals = min(full_deals, deals)
    tables = nt_tables.copy()
    if full_deals:
        full = label_tables(owners[:full_deals], nt_only=False, cache=cache, workers=workers, on_progress=on_progress)
        tables[:full_deals] = full
    # held out: the last share of the NT-labelled deals and the last share of the fully labelled ones
    held = np.zeros(deals, dtype=bool)
    held[int(round(deals * (1 - validation))) :] = True
    held[int(round(full_deals * (1 - validation))) : full_deals] = True
    fit_rows = training_rows(owners[~held], tables[~held], (0, 1, 2, 3, 4))
    val_rows = training_rows(owners[held], tables[held], (0, 1, 2, 3, 4))
    x_fit = row_features(*fit_rows[:3])
    model = fit_mlp(x_fit, fit_rows[3], hidden=hidden, epochs=epochs, seed=seed, weight_decay=weight_decay)
    report: dict[str, Any] = {
        "deals": deals,
        "full_deals": full_deals,
        "seed": seed,
        "hidden": list(hidden),
        "epochs": epochs,
        "weight_decay": weight_decay,
        "fit_rows": int(len(fit_rows[3])),
        "validation_rows": int(len(val_rows[3])),
    }
    if len(val_rows[3]):
        pred = model.predict_features(row_features(*val_rows[:3]))
        err = np.abs(pred - val_rows[3])
        nt = val_rows[2] == 4
        report["validation_mae_nt"] = float(err[nt].mean()) if nt.any() else None
        report["validation_mae_suits"] = float(err[~nt].mean()) if (~nt).any() else None
    meta = dict(model.meta)
    meta.update(report)
    model = type(model)(model.mean, model.scale, model.weights, model.biases, meta)
    return model, report
