"""The No-Trump call algorithm of the seed paper (docs/algorithms.md §1): the readable reference (kernels: nt_call_kernels).

Input: the held cards as four 13-bit suit masks (♣ ♦ ♥ ♠; bit r = rank r, bit 0 = Ace) — one
13-card hand, or the union of two hands for the paper's "with partner" test — and a level 1..7
(P = level + 6 tricks to win, K = 13 − P losers allowed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

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


def check_level(level: int) -> int:
    """``level`` as an int, or ``InvalidInput`` unless it is a level 1..7."""
    if isinstance(level, bool) or not hasattr(level, "__index__") or not 1 <= int(level) <= 7:
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
    level = check_level(level)
    values = _check_masks(masks)
    tricks_needed = level + 6
    losers_allowed = 13 - tricks_needed
    ones = [[rank for rank in range(13) if (m >> rank) & 1] for m in values]
    counts = tuple(len(row) for row in ones)
    leads = tuple(row[0] if row else 13 for row in ones)
    delta = sum(leads)

    def result(verdict: str, count_of_one: int | None, remaining: int | None, steps: list[NtStep]) -> NtCallResult:
        trace = NtTrace(
            level,
            tricks_needed,
            losers_allowed,
            leads,  # type: ignore[arg-type]
            counts,  # type: ignore[arg-type]
            delta,
            count_of_one,
            remaining,
            tuple(steps),
        )
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


# The compiled batch kernels live in ``nt_call_kernels`` so that the single-hand reference above
# starts without loading numba; their names are still importable from this module.
_KERNEL_NAMES = frozenset(
    {"nt_call_batch", "nt_call_detail_batch", "highest_nt_level_batch", "verdict_counts", "classify_hand_kernel"}
)


def __getattr__(name: str):
    """Load a batch kernel from ``nt_call_kernels`` on first use (PEP 562)."""
    if name in _KERNEL_NAMES:
        from tribridge.estimators import nt_call_kernels  # imported here: start-up time (numba)

        return getattr(nt_call_kernels, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
