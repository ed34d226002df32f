"""Tests of the fast trick estimator: kernel vs reference twin, invariances, accuracy against DD labels."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge import dd
from tribridge.cards import Deal, random_deal
from tribridge.errors import InvalidInput
from tribridge.estimators.tricks import (
    N_FEATURES,
    default_model,
    estimate_nt_tricks,
    estimate_tricks,
    trick_features,
)
from tribridge.estimators.tricks_reference import trick_features_reference
from tribridge.sim.train_tricks import HOLDOUT_STREAM, fit_mlp, seeded_deals


def _pair(seed: int) -> tuple[np.ndarray, np.ndarray]:
    m = random_deal(np.random.default_rng(seed)).masks()
    return m[0], m[2]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_feature_kernel_matches_reference(seed: int) -> None:
    d, p = _pair(seed)
    fast = trick_features(d, p)[0]
    for strain in range(5):
        ref = trick_features_reference(tuple(int(x) for x in d), tuple(int(x) for x in p), strain)
        assert len(ref) == N_FEATURES
        assert np.allclose(fast[strain], np.array(ref, dtype=np.float32))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.permutations(range(4)))
def test_nt_estimate_ignores_which_suit_is_which(seed: int, perm: list[int]) -> None:
    d, p = _pair(seed)
    base = estimate_tricks(d, p)[0]
    dp, pp = d[list(perm)], p[list(perm)]
    moved = estimate_tricks(dp, pp)[0]
    assert moved[4] == pytest.approx(base[4], abs=1e-4)
    for new_pos, old_suit in enumerate(perm):  # a suit contract follows its suit
        assert moved[new_pos] == pytest.approx(base[old_suit], abs=1e-4)


def test_fused_kernel_matches_numpy_model() -> None:
    rng = np.random.default_rng(5)
    deals = [random_deal(rng).masks() for _ in range(300)]
    d = np.array([m[0] for m in deals])
    p = np.array([m[2] for m in deals])
    model = default_model()
    slow = model.predict_features(trick_features(d, p))
    assert np.allclose(estimate_tricks(d, p), slow, atol=1e-4)
    assert np.allclose(estimate_nt_tricks(d, p), slow[:, 4], atol=1e-4)
    assert slow.min() >= 0 and slow.max() <= 13


def test_extremes_are_sensible() -> None:
    # North-South hold every top card (DD: 13 tricks in every strain); East-West nothing that wins (DD: 0)
    deal = Deal.from_pbn("N:AKQJ.AKQ.AKQ.AKQ 765.8765.876.765 T98.JT9.JT9.JT98 432.432.5432.432")
    m = deal.masks()
    strong = estimate_tricks(np.stack([m[0], m[2]]), np.stack([m[2], m[0]]))
    weak = estimate_tricks(np.stack([m[1], m[3]]), np.stack([m[3], m[1]]))
    assert strong[:, 4].min() > 12
    assert weak[:, 4].max() < 1.5


def test_bad_masks_are_refused() -> None:
    with pytest.raises(InvalidInput):
        estimate_tricks(np.array([[1, 0, 0, 0]]), np.array([[1, 0, 0, 0]]))
    with pytest.raises(InvalidInput):
        estimate_tricks(np.zeros((2, 3), np.int64), np.zeros((2, 3), np.int64))


def test_accuracy_on_held_out_deals_beats_hcp_fit() -> None:
    # 40 held-out deals (a stream never used in training), DD NT tricks for declarers N and E
    owners = seeded_deals(40, 2024, HOLDOUT_STREAM)
    tables = dd.dd_tables_array(owners, nt_only=True, cache=False, workers=1)
    masks = np.stack([dd_masks for dd_masks in (random_masks(o) for o in owners)])
    decl = np.concatenate([masks[:, 0], masks[:, 1]])
    part = np.concatenate([masks[:, 2], masks[:, 3]])
    actual = np.concatenate([tables[:, 0, 4], tables[:, 1, 4]]).astype(float)
    est_mae = np.abs(estimate_nt_tricks(decl, part) - actual).mean()
    # threshold from the same labels: a linear HCP fit fitted *in-sample* on them (flattering the baseline)
    hcp = np.array(
        [
            sum(4 - r for s in range(4) for r in range(4) if ((int(a[s]) | int(b[s])) >> r) & 1)
            for a, b in zip(decl, part)
        ],
        dtype=float,
    )
    coef = np.polyfit(hcp, actual, 1)
    hcp_mae = np.abs(np.polyval(coef, hcp) - actual).mean()
    const_mae = np.abs(np.median(actual) - actual).mean()
    assert est_mae < hcp_mae < const_mae


def random_masks(owners: np.ndarray) -> np.ndarray:
    from tribridge.cards import owners_to_masks

    return owners_to_masks(owners)


def test_fit_mlp_learns_a_known_function() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2000, 3)).astype(np.float32)
    y = (2 * np.maximum(x[:, 0], 0) + x[:, 1] + 5).astype(np.float32)
    model = fit_mlp(x, y, hidden=(16,), epochs=40, learning_rate=5e-3, weight_decay=0.0)
    pred = model.predict_features(x)
    design = np.c_[np.ones(len(x)), x]
    linear = design @ np.linalg.lstsq(design, y, rcond=None)[0]
    # the hidden layer must model the kink a linear fit cannot
    assert np.abs(pred - y).mean() < 0.5 * np.abs(linear - y).mean()


def test_whole_tricks_rounds_halves_up_and_stays_on_the_board() -> None:
    from tribridge.estimators.tricks import whole_tricks

    assert whole_tricks([8.49, 8.5, 8.51, -0.4, 13.6, 0.0]).tolist() == [8, 9, 9, 0, 13, 0]
    assert whole_tricks(np.array([[6.5, 7.2]])).shape == (1, 2)
    with pytest.raises(InvalidInput, match="expected"):
        whole_tricks([np.nan])
