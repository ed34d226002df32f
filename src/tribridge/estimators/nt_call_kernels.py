"""The No-Trump call algorithm's compiled batch kernels (the readable reference is ``estimators/nt_call.py``).

Importing this module loads numba; ``tribridge.estimators.nt_call`` forwards these names on first use.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from tribridge.errors import InvalidInput
from tribridge.estimators.nt_call import FAIL_A, FAIL_B, NO, VERDICTS, YES, check_level

__all__ = ["highest_nt_level_batch", "nt_call_batch", "nt_call_detail_batch", "verdict_counts"]


def _trailing_zeros_table() -> np.ndarray:
    table = np.full(1 << 13, 13, dtype=np.int64)
    for m in range(1, 1 << 13):
        table[m] = (m & -m).bit_length() - 1
    return table


_LEAD = _trailing_zeros_table()
_COUNT = np.array([bin(m).count("1") for m in range(1 << 13)], dtype=np.int64)


@njit(inline="always", cache=True)
def classify_hand_kernel(m0, m1, m2, m3, level):
    """(code, count_of_one, remaining) of one hand; count/remaining are -1 on a failed condition."""
    losers_allowed = 7 - level
    delta = _LEAD[m0] + _LEAD[m1] + _LEAD[m2] + _LEAD[m3]
    if delta > losers_allowed:
        return FAIL_A, -1, -1
    if _COUNT[m0] <= _LEAD[m0] or _COUNT[m1] <= _LEAD[m1] or _COUNT[m2] <= _LEAD[m2] or _COUNT[m3] <= _LEAD[m3]:
        return FAIL_B, -1, -1
    count = 4
    remaining = losers_allowed - delta
    for m in (m0, m1, m2, m3):
        a = _LEAD[m]
        m &= m - 1
        while m:
            b = _LEAD[m]
            between = b - a - 1
            if between <= remaining:
                count += 1
                remaining -= between
            a = b
            m &= m - 1
    return (YES if count >= level + 6 else NO), count, remaining


@njit(parallel=True, cache=True)
def _nt_kernel(masks, level, codes, counts, remainings):
    for i in prange(masks.shape[0]):
        code, count, remaining = classify_hand_kernel(masks[i, 0], masks[i, 1], masks[i, 2], masks[i, 3], level)
        codes[i] = code
        counts[i] = count
        remainings[i] = remaining


@njit(parallel=True, cache=True)
def _nt_codes_kernel(masks, level, codes):
    for i in prange(masks.shape[0]):
        code, _, _ = classify_hand_kernel(masks[i, 0], masks[i, 1], masks[i, 2], masks[i, 3], level)
        codes[i] = code


@njit(parallel=True, cache=True)
def _highest_kernel(masks, out):
    for i in prange(masks.shape[0]):
        best = 0
        for level in range(1, 8):
            code, _, _ = classify_hand_kernel(masks[i, 0], masks[i, 1], masks[i, 2], masks[i, 3], level)
            if code == YES:
                best = level
        out[i] = best


def _as_mask_array(masks: np.ndarray) -> np.ndarray:
    arr = np.asarray(masks)
    if arr.ndim != 2 or arr.shape[1] != 4:
        raise InvalidInput("masks", f"expected an int64[n, 4] array of suit masks, got shape {arr.shape}")
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    if arr.size and (arr.min() < 0 or arr.max() >= 1 << 13):
        raise InvalidInput("masks", "suit masks must be 0..8191")
    return arr


def nt_call_batch(masks: np.ndarray, level: int) -> np.ndarray:
    """Verdict codes ``int8[n]`` (0 no, 1 yes, 2 fail_a, 3 fail_b) for ``int64[n, 4]`` suit masks."""
    arr = _as_mask_array(masks)
    codes = np.empty(arr.shape[0], dtype=np.int8)
    _nt_codes_kernel(arr, np.int64(check_level(level)), codes)
    return codes


def nt_call_detail_batch(masks: np.ndarray, level: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Codes, final count_of_one and final remaining zeros (−1 where a condition failed)."""
    arr = _as_mask_array(masks)
    n = arr.shape[0]
    codes = np.empty(n, dtype=np.int8)
    counts = np.empty(n, dtype=np.int8)
    remainings = np.empty(n, dtype=np.int8)
    _nt_kernel(arr, np.int64(check_level(level)), codes, counts, remainings)
    return codes, counts, remainings


def highest_nt_level_batch(masks: np.ndarray) -> np.ndarray:
    """``int8[n]``: the highest level 1..7 whose verdict is yes (0 when none is).

    Every level is tested: the verdict is not monotone in the level in general, since a smaller
    budget can skip a large gap early and pay for several small ones later.
    """
    arr = _as_mask_array(masks)
    out = np.empty(arr.shape[0], dtype=np.int8)
    _highest_kernel(arr, out)
    return out


def verdict_counts(codes: np.ndarray) -> dict[str, int]:
    """Counts of each verdict in a code array."""
    counts = np.bincount(np.asarray(codes, dtype=np.int64), minlength=4)
    return {name: int(counts[code]) for code, name in enumerate(VERDICTS)}
