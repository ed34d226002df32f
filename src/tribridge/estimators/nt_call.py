"""The No-Trump call algorithm of the seed paper (docs/algorithms.md §1): readable reference and compiled batch kernel.

Input: the held cards as four 13-bit suit masks (♣ ♦ ♥ ♠; bit r = rank r, bit 0 = Ace) — one
13-card hand, or the union of two hands for the paper's "with partner" test — and a level 1..7
(P = level + 6 tricks to win, K = 13 − P losers allowed).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np
from numba import njit, prange

from tribridge.errors import InvalidInput

VERDICTS = ("no", "yes", "fail_a", "fail_b")  # index = the batch kernel's code
NO, YES, FAIL_A, FAIL_B = 0, 1, 2, 3
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")


@dataclass(frozen=True)
class NtStep:
    """One pair of consecutive held ranks (a, b) in a suit, and whether its gap was paid for."""

    suit: int
    first: int
    second: int
    between: int
    taken: bool
    remaining: int  # remaining zeros after this step


@dataclass(frozen=True)
class NtTrace:
    """Everything the algorithm computed on the way to its verdict."""

    level: int
    tricks_needed: int  # P
    losers_allowed: int  # K
    leads: tuple[int, int, int, int]  # zeros before the first 1, per suit (13 if void)
    counts: tuple[int, int, int, int]  # number of 1s per suit
    delta: int
    count_of_one: int | None  # None when a condition failed before the count
    remaining: int | None
    steps: tuple[NtStep, ...]


@dataclass(frozen=True)
class NtCallResult:
    """Verdict (``yes``, ``no``, ``fail_a``, ``fail_b``) and trace."""

    verdict: str
    trace: NtTrace

    def to_dict(self) -> dict:
        """JSON-ready dictionary."""
        return {"verdict": self.verdict, **asdict(self.trace)}


def _check_level(level: int) -> int:
    if isinstance(level, bool) or not isinstance(level, (int, np.integer)) or not 1 <= int(level) <= 7:
        raise InvalidInput("level", f"expected a level 1..7, got {level!r}")
    return int(level)


def _check_masks(masks: Sequence[int]) -> list[int]:
    values = [int(m) for m in masks]
    if len(values) != 4:
        raise InvalidInput("masks", f"expected 4 suit masks (clubs, diamonds, hearts, spades), got {len(values)}")
    for suit, m in enumerate(values):
        if not 0 <= m < 1 << 13:
            raise InvalidInput("masks", f"{SUIT_NAMES[suit]} mask must be 0..8191, got {m}")
    return values


def nt_call(masks: Sequence[int], level: int) -> NtCallResult:
    """Run the NT call algorithm on the held cards (4 suit masks) at ``level``; verdict and trace."""
    level = _check_level(level)
    values = _check_masks(masks)
    tricks_needed = level + 6
    losers_allowed = 13 - tricks_needed
    ones = [[rank for rank in range(13) if (m >> rank) & 1] for m in values]
    counts = tuple(len(row) for row in ones)
    leads = tuple(row[0] if row else 13 for row in ones)
    delta = sum(leads)

    def result(verdict: str, count_of_one: int | None, remaining: int | None, steps: list[NtStep]) -> NtCallResult:
        trace = NtTrace(level, tricks_needed, losers_allowed, leads, counts, delta,  # type: ignore[arg-type]
                        count_of_one, remaining, tuple(steps))
        return NtCallResult(verdict, trace)

    if delta > losers_allowed:
        return result("fail_a", None, None, [])
    if any(counts[s] <= leads[s] for s in range(4)):
        return result("fail_b", None, None, [])
    count_of_one = 4
    remaining = losers_allowed - delta
    steps: list[NtStep] = []
    for suit in range(4):  # fixed order ♣ ♦ ♥ ♠
        row = ones[suit]
        for a, b in zip(row, row[1:]):
            between = b - a - 1
            taken = between <= remaining
            if taken:
                count_of_one += 1
                remaining -= between
            steps.append(NtStep(suit, a, b, between, taken, remaining))
    verdict = "yes" if count_of_one >= tricks_needed else "no"
    return result(verdict, count_of_one, remaining, steps)


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
    if (_COUNT[m0] <= _LEAD[m0] or _COUNT[m1] <= _LEAD[m1]
            or _COUNT[m2] <= _LEAD[m2] or _COUNT[m3] <= _LEAD[m3]):
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
    _nt_codes_kernel(arr, np.int64(_check_level(level)), codes)
    return codes


def nt_call_detail_batch(masks: np.ndarray, level: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Codes, final count_of_one and final remaining zeros (−1 where a condition failed)."""
    arr = _as_mask_array(masks)
    n = arr.shape[0]
    codes = np.empty(n, dtype=np.int8)
    counts = np.empty(n, dtype=np.int8)
    remainings = np.empty(n, dtype=np.int8)
    _nt_kernel(arr, np.int64(_check_level(level)), codes, counts, remainings)
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
