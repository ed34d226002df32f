"""Exact laws of riffle shuffles: Bayer–Diaconis for the whole deck, and the law of dealt hands for small decks (see ``randomness``)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache, lru_cache

import numpy as np

from tribridge.dealing.shuffles import (
    descents,
    digits_to_positions,
    hand_counts,
    owner_words,
)
from tribridge.errors import InvalidInput

PUBLISHED_BAYER_DIACONIS_52 = {
    1: 1.000,
    2: 1.000,
    3: 1.000,
    4: 1.000,
    5: 0.924,
    6: 0.614,
    7: 0.334,
    8: 0.167,
    9: 0.085,
    10: 0.043,
}
MAX_EXACT_CARDS = 9


# ---------------------------------------------------------------------------
# Bayer–Diaconis: distinct cards, the whole order of the deck


@cache
def eulerian_numbers(n: int) -> tuple[int, ...]:
    """Eulerian numbers ``A(n, d)``: permutations of n with d descents, d = 0..n-1."""
    if n < 1:
        raise InvalidInput("n", f"expected n >= 1, got {n}")
    row = [1]
    for m in range(2, n + 1):
        row = [(d + 1) * (row[d] if d < len(row) else 0) + (m - d) * (row[d - 1] if d >= 1 else 0) for d in range(m)]
    return tuple(row)


def a_shuffle_weight(n: int, a: int, des: int) -> int:
    """``a^n * P_a(pi)`` for a permutation with ``des`` descents: ``C(a + n - 1 - des, n)``."""
    return math.comb(a + n - 1 - des, n) if a + n - 1 - des >= n else 0


def bayer_diaconis_tv(n: int, a: int) -> Fraction:
    """Exact total variation from uniform of the whole deck order after one a-shuffle of n distinct cards."""
    if a < 1:
        raise InvalidInput("a", f"expected a >= 1, got {a}")
    nf, an = math.factorial(n), a**n
    total = sum(count * abs(a_shuffle_weight(n, a, d) * nf - an) for d, count in enumerate(eulerian_numbers(n)))
    return Fraction(total, 2 * an * nf)


def bayer_diaconis_table(n: int, shuffles: Iterable[int]) -> dict[int, Fraction]:
    """Exact TV after k GSR riffle shuffles (= one 2^k-shuffle) for each k in ``shuffles``."""
    return {k: bayer_diaconis_tv(n, 2**k) for k in shuffles}


# ---------------------------------------------------------------------------
# Exact law of dealt hands for small decks, by enumerating S_n


@dataclass(frozen=True)
class DealLaw:
    """Exact law of dealt hands: for each outcome table, how many permutations have each descent count."""

    values: np.ndarray  # int16[n]: source deck values, top first
    pattern: np.ndarray  # int8[n]: dealing pattern
    outcomes: np.ndarray  # int16[m, K, k]: count tables c[value, player]
    descent_counts: np.ndarray  # int64[m, n]: permutations giving outcome m with d descents

    @property
    def n(self) -> int:
        """Number of cards."""
        return len(self.values)

    def weights(self, a: int) -> list[int]:
        """``a^n * P_a(outcome)`` for each outcome (exact integers)."""
        w = [a_shuffle_weight(self.n, a, d) for d in range(self.n)]
        return [sum(int(h) * wd for h, wd in zip(row, w) if h) for row in self.descent_counts]

    def probabilities(self, a: int) -> list[Fraction]:
        """Exact ``P_a(outcome)`` for each outcome."""
        an = a**self.n
        return [Fraction(x, an) for x in self.weights(a)]

    def uniform(self) -> list[Fraction]:
        """The limit law (uniform shuffle) of each outcome."""
        nf = math.factorial(self.n)
        return [Fraction(int(row.sum()), nf) for row in self.descent_counts]

    def tv(self, a: int) -> Fraction:
        """Exact total variation between the hands after an a-shuffle and perfectly random hands."""
        an, nf = a**self.n, math.factorial(self.n)
        uni = [int(row.sum()) for row in self.descent_counts]
        total = sum(abs(x * nf - u * an) for x, u in zip(self.weights(a), uni))
        return Fraction(total, 2 * an * nf)

    def first_order_coefficients(self) -> list[Fraction]:
        """``c1(outcome) = n((n-1)/2 - E[des | outcome])`` from the descent histograms."""
        n = self.n
        d = np.arange(n)
        out = []
        for row in self.descent_counts:
            mean_des = Fraction(int((row * d).sum()), int(row.sum()))
            out.append(n * (Fraction(n - 1, 2) - mean_des))
        return out

    def first_order_constant(self) -> Fraction:
        """``lim_{a->inf} a * TV = (1/2) sum Pi(outcome) |c1(outcome)|``, exact."""
        return Fraction(1, 2) * sum(u * abs(c) for u, c in zip(self.uniform(), self.first_order_coefficients()))


@lru_cache(maxsize=4)
def all_permutations(n: int) -> np.ndarray:
    """All n! permutations of 0..n-1 as ``int8[n!, n]`` (lexicographic)."""
    if n > MAX_EXACT_CARDS:
        raise InvalidInput("cards", f"exact enumeration is limited to {MAX_EXACT_CARDS} cards, got {n}")
    perms = np.fromiter(itertools.chain.from_iterable(itertools.permutations(range(n))), dtype=np.int8)
    return perms.reshape(-1, n)


def players_of(pattern: np.ndarray) -> int:
    """Number of players a dealing pattern deals to."""
    return int(np.asarray(pattern).max()) + 1


def exact_deal_law(values: np.ndarray, pattern: np.ndarray) -> DealLaw:
    """Exact law of the hands for every a at once: enumerate S_n, tally descents per outcome (n <= 9)."""
    values = np.asarray(values, dtype=np.int16)
    pattern = np.asarray(pattern, dtype=np.int8)
    n = len(values)
    if len(pattern) != n:
        raise InvalidInput("pattern", f"pattern has {len(pattern)} letters for a deck of {n}")
    perms = all_permutations(n)
    des = descents(perms)
    owners = owner_words(perms, pattern)
    tables = hand_counts(owners, values, players_of(pattern))
    flat = tables.reshape(len(tables), -1).astype(np.int64)
    mult = np.bincount(values.astype(np.int64))
    sizes = np.bincount(pattern.astype(np.int64))
    radix = (np.minimum.outer(mult, sizes) + 1).ravel()
    if float(np.prod(radix.astype(np.float64))) < 2.0**62:
        weights = np.cumprod(np.concatenate([[1], radix[:-1]])).astype(np.int64)
        keys = flat @ weights
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        uniq = flat[first]
    else:
        uniq, inverse = np.unique(flat, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    hist = np.bincount(inverse * n + des, minlength=len(uniq) * n).reshape(len(uniq), n).astype(np.int64)
    return DealLaw(values, pattern, uniq.reshape(len(uniq), *tables.shape[1:]), hist)


def forward_sampler_weights(values: np.ndarray, pattern: np.ndarray, a: int) -> dict[bytes, int]:
    """Brute force: run the forward a-shuffle on all a^n digit strings; count each outcome table (keyed by bytes)."""
    values = np.asarray(values, dtype=np.int16)
    n = len(values)
    if a**n > 2_000_000:
        raise InvalidInput("a", f"a^n = {a**n} digit strings is too many to enumerate")
    digits = np.asarray(list(itertools.product(range(a), repeat=n)), dtype=np.int64).reshape(-1, n)
    pi = digits_to_positions(digits)
    tables = hand_counts(owner_words(pi, pattern), values, players_of(pattern)).astype(np.int16)
    out: dict[bytes, int] = {}
    for t in tables:
        key = t.tobytes()
        out[key] = out.get(key, 0) + 1
    return out
