"""The iterative capture estimator (docs/algorithms.md §2): readable reference (any n suits × m ranks) and batch kernels.

State matrix D (rows = suits ♣ ♦ ♥ ♠, columns A..2): 1 = declarer's card, 2 = partner's card,
0 = an opponent's card, 3 = an opponent's card marked played by the replacement step.
Reading options where the paper's summary is silent: ``limit`` (max|min|none), ``gap``
(static|live), ``replacements`` (1|2).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numba import njit, prange

from tribridge.errors import InvalidInput

LIMITS = ("max", "min", "none")
GAPS = ("static", "live")
REPLACEMENTS = (1, 2)
STATUSES = ("qualified", "fail_a", "fail_b")  # index = the batch kernel's status code
QUALIFIED, FAIL_A, FAIL_B = 0, 1, 2


@dataclass(frozen=True)
class CaptureReading:
    """One reading of the estimator (the options the summary leaves open)."""

    limit: str = "max"
    gap: str = "static"
    replacements: int = 1

    def __post_init__(self) -> None:
        check_reading(self.limit, self.gap, self.replacements)

    @property
    def label(self) -> str:
        """Short name such as ``max/static/1``."""
        return f"{self.limit}/{self.gap}/{self.replacements}"


def check_reading(limit: str, gap: str, replacements: int) -> None:
    """Raise ``InvalidInput`` unless the three options are valid."""
    if limit not in LIMITS:
        raise InvalidInput("limit", f"expected one of {', '.join(LIMITS)}, got {limit!r}")
    if gap not in GAPS:
        raise InvalidInput("gap", f"expected one of {', '.join(GAPS)}, got {gap!r}")
    if isinstance(replacements, bool) or replacements not in REPLACEMENTS:
        raise InvalidInput("replacements", f"expected 1 or 2, got {replacements!r}")


ALL_READINGS = tuple(CaptureReading(limit, gap, repl) for limit in LIMITS for gap in GAPS for repl in REPLACEMENTS)


@dataclass(frozen=True)
class CaptureStep:
    """One capture: a free one (``first``/``second`` are None) or one paid from the zero budget."""

    suit: int
    first: int | None
    second: int | None
    raw_gap: int
    effective_gap: int
    budget_left: int  # Z after the step
    captures: int  # T after the step


@dataclass(frozen=True)
class CaptureResult:
    """Total captures T, status, final zero budget Z, final state matrix and the steps taken."""

    captures: int
    status: str
    budget_left: int  # for fail_a / fail_b: zero_budget − Δ (negative on fail_a)
    delta: int
    state: tuple[tuple[int, ...], ...]
    steps: tuple[CaptureStep, ...] = field(default=())
    stop_reason: str | None = None  # stop_count | no_suit | budget (None on a failed condition)

    def to_dict(self) -> dict:
        """JSON-ready dictionary."""
        return {
            "captures": self.captures,
            "status": self.status,
            "budget_left": self.budget_left,
            "delta": self.delta,
            "stop_reason": self.stop_reason,
            "steps": [step.__dict__ for step in self.steps],
            "state": [list(row) for row in self.state],
        }


def state_from_owners(owners: np.ndarray, declarer: int, partner: int | None = None) -> np.ndarray:
    """``int8[4, 13]`` state of ``declarer``'s cards (1) and ``partner``'s (2; default ``declarer ^ 2``)."""
    arr = np.asarray(owners)
    if arr.shape != (52,):
        raise InvalidInput("owners", f"expected 52 owner seats, got shape {arr.shape}")
    declarer = _check_seat(declarer)
    partner = declarer ^ 2 if partner is None else _check_seat(partner)
    if partner == declarer:
        raise InvalidInput("partner", "the partner must be another seat than the declarer")
    state = np.zeros(52, dtype=np.int8)
    state[arr == declarer] = 1
    state[arr == partner] = 2
    return state.reshape(4, 13)


def _check_seat(seat: int) -> int:
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= int(seat) <= 3:
        raise InvalidInput("declarer", f"expected a seat 0..3, got {seat!r}")
    return int(seat)


def capture(
    state: np.ndarray,
    limit: str = "max",
    gap: str = "static",
    replacements: int = 1,
    zero_budget: int = 6,
    stop_count: int = 13,
) -> CaptureResult:
    """Run the capture estimator on an n×m state matrix of 0/1/2 (default: the 4×13 deck)."""
    check_reading(limit, gap, replacements)
    grid = np.asarray(state)
    if grid.ndim != 2 or grid.shape[0] < 1 or grid.shape[1] < 1:
        raise InvalidInput("state", f"expected a 2-D matrix suits × ranks, got shape {grid.shape}")
    if not np.isin(grid, (0, 1, 2)).all():
        raise InvalidInput("state", "entries must be 0 (opponents), 1 (declarer) or 2 (partner)")
    D = [[int(v) for v in row] for row in grid]
    n_suits, n_ranks = grid.shape

    owned = [[c for c in range(n_ranks) if row[c] in (1, 2)] for row in D]
    lead = [o[0] if o else n_ranks for o in owned]
    c1 = [row.count(1) for row in D]
    c2 = [row.count(2) for row in D]
    row_zeros = [row.count(0) for row in D]  # Zs(s)
    if limit == "max":
        cap = [max(a, b) for a, b in zip(c1, c2)]
    elif limit == "min":
        cap = [min(a, b) for a, b in zip(c1, c2)]
    else:
        cap = [n_ranks] * n_suits
    delta = sum(lead)

    def snapshot() -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(row) for row in D)

    if delta > zero_budget:  # Condition A
        return CaptureResult(0, "fail_a", zero_budget - delta, delta, snapshot())
    if any(c1[s] <= lead[s] or c2[s] <= lead[s] for s in range(n_suits)):  # Condition B
        return CaptureResult(0, "fail_b", zero_budget - delta, delta, snapshot())

    budget = zero_budget - delta  # Z
    total = 0  # T
    steps: list[CaptureStep] = []

    def replace(s: int) -> None:
        # the opponents follow with their lowest card: the rightmost 0 of the row is marked played
        for _ in range(replacements):
            if row_zeros[s] > 0:
                col = max(c for c in range(n_ranks) if D[s][c] == 0)
                D[s][col] = 3
                row_zeros[s] -= 1

    captured = [1] * n_suits  # κ
    position = [0] * n_suits  # π
    for s in range(n_suits):  # one free capture per suit
        total += 1
        replace(s)
        steps.append(CaptureStep(s, None, None, 0, 0, budget, total))

    while True:
        if total >= stop_count:
            reason = "stop_count"
            break
        candidates = []
        for s in range(n_suits):
            if captured[s] < cap[s] and position[s] + 1 < len(owned[s]):
                a, b = owned[s][position[s]], owned[s][position[s] + 1]
                if gap == "static":
                    raw = b - a - 1
                else:
                    raw = sum(1 for c in range(a + 1, b) if D[s][c] == 0)
                effective = 0 if row_zeros[s] == 0 else raw
                candidates.append((effective, raw, s))
        if not candidates:
            reason = "no_suit"
            break
        effective, raw, s = min(candidates)  # smallest effective gap, then raw gap, then suit
        if effective > budget and row_zeros[s] > 0:
            reason = "budget"
            break
        a, b = owned[s][position[s]], owned[s][position[s] + 1]
        position[s] += 1
        captured[s] += 1
        total += 1
        if row_zeros[s] > 0:
            budget -= effective
        replace(s)
        steps.append(CaptureStep(s, a, b, raw, effective, budget, total))
    return CaptureResult(total, "qualified", budget, delta, snapshot(), tuple(steps), reason)


# ----------------------------------------------------------------------------- batch kernels (4 × 13)


def _table(fn) -> np.ndarray:
    return np.array([fn(m) for m in range(1 << 13)], dtype=np.int64)


_LOWEST = _table(lambda m: (m & -m).bit_length() - 1 if m else 13)  # index of the lowest set bit
_HIGHEST = _table(lambda m: m.bit_length() - 1)  # index of the highest set bit (-1 for 0)
_COUNT = _table(lambda m: bin(m).count("1"))
_FULL = np.int64((1 << 13) - 1)


@njit(cache=True)
def capture_pair_kernel(dm, pm, limit_code, live_gap, replacements):
    """(captures, status, budget_left) of one partnership from per-suit masks of declarer and partner."""
    lead = np.empty(4, dtype=np.int64)
    cap = np.empty(4, dtype=np.int64)
    live0 = np.empty(4, dtype=np.int64)  # opponents' cards not yet marked played
    cur = np.empty(4, dtype=np.int64)  # O(s)[π(s)]
    rest = np.empty(4, dtype=np.int64)  # owned positions after cur
    captured = np.ones(4, dtype=np.int64)
    delta = 0
    fail_b = False
    for s in range(4):
        own = dm[s] | pm[s]
        lead[s] = _LOWEST[own]
        delta += lead[s]
        c1 = _COUNT[dm[s]]
        c2 = _COUNT[pm[s]]
        if c1 <= lead[s] or c2 <= lead[s]:
            fail_b = True
        if limit_code == 0:
            cap[s] = max(c1, c2)
        elif limit_code == 1:
            cap[s] = min(c1, c2)
        else:
            cap[s] = 13
        live0[s] = _FULL & ~own
        cur[s] = lead[s]
        rest[s] = own & ~((np.int64(2) << lead[s]) - 1) if own else 0
    if delta > 6:
        return 0, FAIL_A, 6 - delta
    if fail_b:
        return 0, FAIL_B, 6 - delta
    budget = 6 - delta
    total = 0
    for s in range(4):
        total += 1
        for _ in range(replacements):
            if live0[s]:
                live0[s] &= ~(np.int64(1) << _HIGHEST[live0[s]])
    while total < 13:
        best = -1
        best_eff = 0
        best_raw = 0
        for s in range(4):
            if captured[s] < cap[s] and rest[s] != 0:
                a = cur[s]
                b = _LOWEST[rest[s]]
                if live_gap:
                    between = ((np.int64(1) << b) - 1) & ~((np.int64(2) << a) - 1)
                    raw = _COUNT[live0[s] & between]
                else:
                    raw = b - a - 1
                eff = raw if live0[s] != 0 else 0
                if best < 0 or eff < best_eff or (eff == best_eff and raw < best_raw):
                    best, best_eff, best_raw = s, eff, raw
        if best < 0:
            break
        if best_eff > budget and live0[best] != 0:
            break
        cur[best] = _LOWEST[rest[best]]
        rest[best] &= rest[best] - 1
        captured[best] += 1
        total += 1
        if live0[best] != 0:
            budget -= best_eff
        for _ in range(replacements):
            if live0[best]:
                live0[best] &= ~(np.int64(1) << _HIGHEST[live0[best]])
    return total, QUALIFIED, budget


@njit(parallel=True, cache=True)
def _capture_masks_kernel(dmasks, pmasks, limit_code, live_gap, replacements, captures, status, budget):
    for i in prange(dmasks.shape[0]):
        t, st, z = capture_pair_kernel(dmasks[i], pmasks[i], limit_code, live_gap, replacements)
        captures[i] = t
        status[i] = st
        budget[i] = z


@njit(parallel=True, cache=True)
def _owners_kernel(owners, declarer, dmasks, pmasks):
    partner = declarer ^ 2
    for i in prange(owners.shape[0]):
        for s in range(4):
            dmasks[i, s] = 0
            pmasks[i, s] = 0
        for c in range(52):
            o = owners[i, c]
            if o == declarer:
                dmasks[i, c // 13] |= np.int64(1) << (c % 13)
            elif o == partner:
                pmasks[i, c // 13] |= np.int64(1) << (c % 13)


class CaptureBatch(NamedTuple):
    """Batch results: ``int8[n]`` arrays (status codes index ``STATUSES``)."""

    captures: np.ndarray
    status: np.ndarray
    budget_left: np.ndarray


def capture_masks_batch(
    declarer_masks: np.ndarray,
    partner_masks: np.ndarray,
    limit: str = "max",
    gap: str = "static",
    replacements: int = 1,
) -> CaptureBatch:
    """The estimator on ``int64[n, 4]`` suit masks of declarer (the 1s) and partner (the 2s)."""
    check_reading(limit, gap, replacements)
    dm = np.ascontiguousarray(declarer_masks, dtype=np.int64)
    pm = np.ascontiguousarray(partner_masks, dtype=np.int64)
    if dm.ndim != 2 or dm.shape[1] != 4 or dm.shape != pm.shape:
        raise InvalidInput("masks", f"expected two int64[n, 4] mask arrays, got {dm.shape} and {pm.shape}")
    if dm.size and (min(dm.min(), pm.min()) < 0 or max(dm.max(), pm.max()) >= 1 << 13 or (dm & pm).any()):
        raise InvalidInput("masks", "masks must be 0..8191 and the two hands disjoint")
    n = dm.shape[0]
    out = CaptureBatch(np.empty(n, np.int8), np.empty(n, np.int8), np.empty(n, np.int8))
    _capture_masks_kernel(dm, pm, np.int64(LIMITS.index(limit)), gap == "live", np.int64(replacements), *out)
    return out


def capture_batch(
    owners: np.ndarray, declarer: int, limit: str = "max", gap: str = "static", replacements: int = 1
) -> CaptureBatch:
    """The estimator on ``uint8[n, 52]`` owner arrays for the partnership of ``declarer`` and ``declarer ^ 2``."""
    arr = np.asarray(owners)
    if arr.ndim != 2 or arr.shape[1] != 52:
        raise InvalidInput("owners", f"expected shape (n, 52), got {arr.shape}")
    declarer = _check_seat(declarer)
    n = arr.shape[0]
    dm = np.empty((n, 4), np.int64)
    pm = np.empty((n, 4), np.int64)
    _owners_kernel(np.ascontiguousarray(arr, dtype=np.uint8), np.int64(declarer), dm, pm)
    return capture_masks_batch(dm, pm, limit, gap, replacements)
