"""Fast trick estimator: expected double-dummy tricks of a partnership from its 26 cards, per strain.

The model is a small multilayer perceptron over hand-made features, trained on double-dummy labels
the project generates itself (``tribridge train-estimator``; training code in ``tribridge.sim.train_tricks``).
Inference is plain numpy plus one numba feature kernel; the trained parameters ship as
``tribridge/data/trick_estimator.npz``.

Features, for one partnership (declarer + partner) and one strain. Each suit is described by a
*slot* of ``SLOT_FEATURES`` numbers: the two lengths, their minimum and maximum, which of
A K Q J T each hand holds, whether the side holds the 9 and the 8, the top sequence the side holds
(capped at the longer length) and the side's high-card points in the suit. Slot 0 is the trump
suit (all zero in NT); the other suits follow in slots 1..4 sorted by combined length then points
(so the NT estimate does not depend on which suit is which); a suit contract leaves slot 4 empty.
Then ``GLOBAL_FEATURES`` numbers: each hand's points, the side's points, an NT flag, and each hand's
shortest suit.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np
from numba import njit, prange

from tribridge.errors import InvalidInput

STRAINS = ("C", "D", "H", "S", "NT")
SLOT_FEATURES = 22
N_SLOTS = 5
GLOBAL_FEATURES = 10
N_FEATURES = SLOT_FEATURES * N_SLOTS + GLOBAL_FEATURES
PARAMS_RESOURCE = "trick_estimator.npz"


@njit(cache=True)
def _popcount13(m: int) -> int:
    c = 0
    while m:
        m &= m - 1
        c += 1
    return c


@njit(cache=True)
def _suit_slot(d: int, p: int, out: np.ndarray, base: int) -> None:
    """Write one suit's slot features (declarer mask ``d``, partner mask ``p``) at ``out[base:]``."""
    a = _popcount13(d)
    b = _popcount13(p)
    out[base + 0] = a / 4.0
    out[base + 1] = b / 4.0
    out[base + 2] = min(a, b) / 4.0
    out[base + 3] = max(a, b) / 4.0
    for r in range(5):
        out[base + 4 + r] = (d >> r) & 1
        out[base + 9 + r] = (p >> r) & 1
    both = d | p
    out[base + 14] = (both >> 5) & 1
    out[base + 15] = (both >> 6) & 1
    top = 0
    while top < 13 and (both >> top) & 1:
        top += 1
    out[base + 16] = min(top, max(a, b)) / 4.0
    hcp = 0
    for r in range(4):
        if (both >> r) & 1:
            hcp += 4 - r
    out[base + 17] = hcp / 4.0
    out[base + 18] = 1.0 if (_stopped(d, a) or _stopped(p, b)) else 0.0
    # length winners if the opponents' cards split evenly
    opp = 13 - a - b
    out[base + 19] = max(0, max(a, b) - (opp + 1) // 2) / 4.0
    out[base + 20] = opp / 4.0
    # honours in the short hand that block the long one (the short hand's top card count)
    out[base + 21] = 1.0 if (a > 0 and b > 0) else 0.0


@njit(cache=True)
def _stopped(m: int, length: int) -> bool:
    """A stopper in one hand: A, Kx, Qxx or Jxxx."""
    for r in range(4):
        if (m >> r) & 1 and length >= r + 1:
            return True
    return False


@njit(cache=True)
def _hcp(masks: np.ndarray) -> int:
    h = 0
    for s in range(4):
        for r in range(4):
            if (masks[s] >> r) & 1:
                h += 4 - r
    return h


@njit(cache=True)
def _features_row(d: np.ndarray, p: np.ndarray, strain: int, out: np.ndarray) -> None:
    """Feature vector of one partnership for one strain (0..3 a trump suit, 4 NT)."""
    for k in range(out.shape[0]):
        out[k] = 0.0
    # order the non-trump suits: combined length desc, then combined points desc, then suit index
    keys = np.empty(4, dtype=np.int64)
    for s in range(4):
        both = d[s] | p[s]
        hcp = 0
        for r in range(4):
            if (both >> r) & 1:
                hcp += 4 - r
        keys[s] = _popcount13(both) * 64 + hcp * 4 + (3 - s)
    if strain < 4:
        _suit_slot(d[strain], p[strain], out, 0)
        keys[strain] = -1
    order = np.argsort(-keys)
    slot = 1
    for k in range(4):
        s = order[k]
        if keys[s] < 0:
            continue
        _suit_slot(d[s], p[s], out, slot * SLOT_FEATURES)
        slot += 1
    g = N_SLOTS * SLOT_FEATURES
    hd = _hcp(d)
    hp = _hcp(p)
    out[g + 0] = hd / 10.0
    out[g + 1] = hp / 10.0
    out[g + 2] = (hd + hp) / 10.0
    out[g + 3] = 1.0 if strain == 4 else 0.0
    short_d = 13
    short_p = 13
    for s in range(4):
        short_d = min(short_d, _popcount13(d[s]))
        short_p = min(short_p, _popcount13(p[s]))
    out[g + 4] = short_d / 4.0
    out[g + 5] = short_p / 4.0
    total = hd + hp
    out[g + 6] = total * total / 400.0
    stopped = 0
    longest = 0
    for s in range(4):
        ld = _popcount13(d[s])
        lp = _popcount13(p[s])
        if _stopped(d[s], ld) or _stopped(p[s], lp):
            stopped += 1
        longest = max(longest, ld + lp)
    out[g + 7] = stopped
    out[g + 8] = longest / 4.0
    out[g + 9] = abs(hd - hp) / 10.0


@njit(cache=True, parallel=True)
def _features_kernel(decl: np.ndarray, part: np.ndarray, strains: np.ndarray, out: np.ndarray) -> None:
    """Features ``out[i, k, :]`` of row ``i`` for strain ``strains[k]``."""
    n = decl.shape[0]
    for i in prange(n):
        for k in range(strains.shape[0]):
            _features_row(decl[i], part[i], strains[k], out[i, k])


def _check_masks(masks: Any, field: str) -> np.ndarray:
    arr = np.asarray(masks)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != 4:
        raise InvalidInput(field, f"expected int64[n, 4] suit masks, got shape {arr.shape}")
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    if arr.size and (arr.min() < 0 or arr.max() >= 1 << 13):
        raise InvalidInput(field, "suit masks must be 0..8191")
    return arr


def trick_features(masks_declarer: Any, masks_partner: Any, strains: Any = (0, 1, 2, 3, 4)) -> np.ndarray:
    """``float32[n, len(strains), N_FEATURES]`` features of each partnership for each strain."""
    d = _check_masks(masks_declarer, "masks_declarer")
    p = _check_masks(masks_partner, "masks_partner")
    if d.shape != p.shape:
        raise InvalidInput("masks_partner", f"expected the shape of masks_declarer {d.shape}, got {p.shape}")
    if np.any(d & p):
        raise InvalidInput("masks_partner", "declarer and partner hold the same card")
    st = np.ascontiguousarray(np.atleast_1d(np.asarray(strains, dtype=np.int64)))
    if st.size and (st.min() < 0 or st.max() > 4):
        raise InvalidInput("strains", "strains must be 0..4 (C D H S NT)")
    out = np.empty((d.shape[0], st.shape[0], N_FEATURES), dtype=np.float32)
    if d.shape[0]:
        _features_kernel(d, p, st, out)
    return out


@dataclass(frozen=True)
class TrickModel:
    """MLP parameters: inputs are standardised with ``mean``/``scale``, ReLU hidden layers, one output."""

    mean: np.ndarray
    scale: np.ndarray
    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]
    meta: dict[str, Any]

    def predict_features(self, features: np.ndarray) -> np.ndarray:
        """Predicted tricks ``float32[...]`` for a feature array ``[..., N_FEATURES]``."""
        shape = features.shape[:-1]
        x = ((features.reshape(-1, features.shape[-1]) - self.mean) / self.scale).astype(np.float32)
        for k, (w, b) in enumerate(zip(self.weights, self.biases)):
            x = x @ w + b
            if k < len(self.weights) - 1:
                np.maximum(x, 0.0, out=x)
        return np.clip(x[:, 0], 0.0, 13.0).reshape(shape)

    def save(self, path: Any) -> None:
        """Write the parameters to an ``.npz`` file."""
        arrays = {"mean": self.mean, "scale": self.scale, "n_layers": np.array(len(self.weights))}
        for k, (w, b) in enumerate(zip(self.weights, self.biases)):
            arrays[f"w{k}"] = w.astype(np.float32)
            arrays[f"b{k}"] = b.astype(np.float32)
        import json

        arrays["meta"] = np.frombuffer(json.dumps(self.meta).encode(), dtype=np.uint8)
        np.savez_compressed(path, **arrays)

    @classmethod
    def load(cls, source: Any) -> "TrickModel":
        """Read parameters written by :meth:`save` (a path or an open binary file)."""
        import json

        with np.load(source) as z:
            n = int(z["n_layers"])
            meta = json.loads(bytes(z["meta"]).decode()) if "meta" in z else {}
            return cls(
                mean=z["mean"].astype(np.float32),
                scale=z["scale"].astype(np.float32),
                weights=tuple(z[f"w{k}"].astype(np.float32) for k in range(n)),
                biases=tuple(z[f"b{k}"].astype(np.float32) for k in range(n)),
                meta=meta,
            )


@lru_cache(maxsize=1)
def default_model() -> TrickModel:
    """The trained parameters shipped in ``tribridge/data`` (read once)."""
    ref = resources.files("tribridge").joinpath("data", PARAMS_RESOURCE)
    if not ref.is_file():
        raise InvalidInput("trick_estimator", f"trained parameters data/{PARAMS_RESOURCE} are not installed")
    with ref.open("rb") as fh:
        return TrickModel.load(fh)


def estimate_tricks(
    masks_declarer: Any,
    masks_partner: Any,
    model: TrickModel | None = None,
    chunk: int = 65536,
) -> np.ndarray:
    """Expected double-dummy tricks ``float32[n, 5]`` (strains C D H S NT) for declarer + partner."""
    model = model or default_model()
    d = _check_masks(masks_declarer, "masks_declarer")
    p = _check_masks(masks_partner, "masks_partner")
    out = np.empty((d.shape[0], 5), dtype=np.float32)
    for start in range(0, d.shape[0], chunk):
        feats = trick_features(d[start : start + chunk], p[start : start + chunk])
        out[start : start + chunk] = model.predict_features(feats)
    return out


def estimate_nt_tricks(masks_declarer: Any, masks_partner: Any, model: TrickModel | None = None,
                       chunk: int = 65536) -> np.ndarray:
    """Expected double-dummy NT tricks ``float32[n]`` (the NT column of :func:`estimate_tricks`, 5x cheaper)."""
    model = model or default_model()
    d = _check_masks(masks_declarer, "masks_declarer")
    p = _check_masks(masks_partner, "masks_partner")
    out = np.empty(d.shape[0], dtype=np.float32)
    for start in range(0, d.shape[0], chunk):
        feats = trick_features(d[start : start + chunk], p[start : start + chunk], strains=(4,))
        out[start : start + chunk] = model.predict_features(feats)[:, 0]
    return out
