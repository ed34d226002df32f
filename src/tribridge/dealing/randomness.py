"""How random are dealt hands after riffle shuffles: exact and first-order total variation, Monte Carlo, best patterns.

Notation (ALGORITHMS.md §4, docs/shuffling.md): a shuffle ``pi`` moves the card at
position i to ``pi[i]``; ``des(pi)`` counts its descents; an a-shuffle gives
``P_a(pi) = C(a + n - 1 - des(pi), n) / a^n`` (Bayer–Diaconis).  A deal by pattern
``L`` gives the card that started at position i to player ``h_i = L[pi[i]]``; the
outcome ``omega`` is the table ``c[v, p]`` of how many cards of value v player p holds.

First order (derived in docs/shuffling.md): expanding the binomial,
``P_a(pi) = (1/n!)(1 + n((n-1)/2 - des(pi))/a + O(a^-2))``, so
``P_a(omega) = Pi(omega)(1 + c1(omega)/a + ...)`` with
``c1(omega) = n((n-1)/2 - E[des | omega])``.  Given the owner word h, pi is uniform
among the maps that respect L, so ``E[1/2 - 1{pi(i) > pi(i+1)} | h] = Z_L(h_i, h_{i+1})``
with ``Z_L(x, y) = (N_L(x, y) - N_L(y, x)) / (2 s_x s_y)``; averaging over the owner
words that give omega,
``c1(omega) = n * sum_{v != w} W_D(v, w) * c_v^T Z_L c_w / (m_v m_w)``
(W_D: digraphs of the source deck, m_v: multiplicities).  We write it
``c1 = n/(2 s^2) * <G(omega), M_L>`` with ``M_L = N_L - N_L^T`` (integers) and
``G(omega) = sum W_D(v,w) c_v c_w^T / (m_v m_w)``; the first-order constant
``lim a*TV = (1/2) E_Pi |c1|`` then splits into a deck part (the law of G) and a
pattern part (M_L).  For distinct cards G is the digraph table of the owner word, and
for the three classic patterns ``M_L = beta * sign(y - x)`` (beta = s^2, s, s mod 2),
so ``c1 = n beta/(2 s^2) * (asc - des)(h)`` and the constant is exact from the law of
ascents-minus-descents of a random word, computed by a dynamic programme.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Iterable, Iterator, Sequence

import numba
import numpy as np

from tribridge.dealing.shuffles import (
    check_pattern,
    deck_values,
    dealing_pattern,
    descents,
    digits_to_positions,
    hand_counts,
    k_riffle_shuffles,
    owner_words,
)
from tribridge.errors import InvalidInput

PUBLISHED_BAYER_DIACONIS_52 = {
    1: 1.000, 2: 1.000, 3: 1.000, 4: 1.000, 5: 0.924,
    6: 0.614, 7: 0.334, 8: 0.167, 9: 0.085, 10: 0.043,
}
MAX_EXACT_CARDS = 9


# ---------------------------------------------------------------------------
# Bayer–Diaconis: distinct cards, the whole order of the deck


@lru_cache(maxsize=None)
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

    values: np.ndarray          # int16[n]: source deck values, top first
    pattern: np.ndarray         # int8[n]: dealing pattern
    outcomes: np.ndarray        # int16[m, K, k]: count tables c[value, player]
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


def _players(pattern: np.ndarray) -> int:
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
    tables = hand_counts(owners, values, _players(pattern))
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
    tables = hand_counts(owner_words(pi, pattern), values, _players(pattern)).astype(np.int16)
    out: dict[bytes, int] = {}
    for t in tables:
        key = t.tobytes()
        out[key] = out.get(key, 0) + 1
    return out


# ---------------------------------------------------------------------------
# First-order coefficient (Conger–Howald / Balázs–Szabó)


def precedence_counts(word: Sequence[int] | np.ndarray) -> np.ndarray:
    """``N[x, y] = #{p < q: word[p] = x, word[q] = y}`` as an int64 matrix."""
    word = np.asarray(word, dtype=np.int64)
    k = int(word.max()) + 1
    onehot = np.eye(k, dtype=np.int64)[word]
    before = np.cumsum(onehot, axis=0) - onehot
    return before.T @ onehot


def pattern_antisymmetry(pattern: np.ndarray) -> np.ndarray:
    """``M_L = N_L - N_L^T`` (integer matrix); ``Z_L = M_L / (2 s_x s_y)``."""
    prec = precedence_counts(pattern)
    return prec - prec.T


def pair_statistic(word: Sequence[int] | np.ndarray) -> dict[tuple[int, int], Fraction]:
    """``Z_D(x, y) = (N_D(x, y) - N_D(y, x)) / (2 m_x m_y)`` for every ordered pair of distinct values."""
    word = np.asarray(word, dtype=np.int64)
    prec = precedence_counts(word)
    mult = np.bincount(word)
    k = len(mult)
    return {(x, y): Fraction(int(prec[x, y] - prec[y, x]), 2 * int(mult[x]) * int(mult[y]))
            for x in range(k) for y in range(k) if x != y}


def digraph_counts(word: Sequence[int] | np.ndarray) -> dict[tuple[int, int], int]:
    """``W_D(x, y) = #{i: D_i = x, D_{i+1} = y}`` for x != y."""
    out: dict[tuple[int, int], int] = {}
    for x, y in zip(word[:-1], word[1:]):
        if x != y:
            out[(int(x), int(y))] = out.get((int(x), int(y)), 0) + 1
    return out


def deck_first_order_coefficient(source: Sequence[int], target: Sequence[int]) -> Fraction:
    """``c1(D, D') = n * sum_{x != y} W_D(x, y) Z_{D'}(x, y)`` for deck-to-deck transitions."""
    if sorted(source) != sorted(target):
        raise InvalidInput("target", "the target deck must be a rearrangement of the source deck")
    z = pair_statistic(target)
    return len(source) * sum((w * z[xy] for xy, w in digraph_counts(source).items()), Fraction(0))


def hand_first_order_coefficient(values: np.ndarray, pattern: np.ndarray, table: np.ndarray) -> Fraction:
    """``c1(omega)`` of one outcome table from the formula (digraphs of the deck, pair statistic of the pattern)."""
    values = np.asarray(values)
    n = len(values)
    mult = np.bincount(values)
    z = pair_statistic(pattern)
    table = np.asarray(table, dtype=np.int64)
    k = table.shape[1]
    total = Fraction(0)
    for (v, w), count in digraph_counts(values).items():
        inner = sum((int(table[v, x]) * int(table[w, y]) * z[(x, y)] for x in range(k) for y in range(k) if x != y),
                    Fraction(0))
        total += count * inner / (int(mult[v]) * int(mult[w]))
    return n * total


def _deck_digraph_terms(values: np.ndarray) -> tuple[list[tuple[int, int, int]], int]:
    """Digraph terms (v, w, integer coefficient) with a common denominator ``scale`` = lcm of m_v m_w."""
    mult = np.bincount(np.asarray(values, dtype=np.int64))
    dig = digraph_counts(values)
    scale = 1
    for v, w in dig:
        scale = math.lcm(scale, int(mult[v]) * int(mult[w]))
    return [(v, w, count * scale // (int(mult[v]) * int(mult[w]))) for (v, w), count in dig.items()], scale


def outcome_g(values: np.ndarray, tables: np.ndarray) -> tuple[np.ndarray, int]:
    """``scale * G(omega)`` as int64 ``[m, k, k]`` for a batch of outcome tables, and ``scale``."""
    terms, scale = _deck_digraph_terms(values)
    tables = np.asarray(tables, dtype=np.int64)
    g = np.zeros((tables.shape[0], tables.shape[2], tables.shape[2]), dtype=np.int64)
    for v, w, coef in terms:
        g += coef * tables[:, v, :, None] * tables[:, w, None, :]
    return g, scale


def contingency_tables(row_sums: Sequence[int], col_sums: Sequence[int], limit: int | None = None) -> Iterator[tuple]:
    """All non-negative integer tables with the given margins (row-major tuples); stops after ``limit``."""
    k = len(col_sums)
    produced = 0

    def compositions(total: int, caps: list[int], i: int) -> Iterator[list[int]]:
        if i == k - 1:
            if total <= caps[i]:
                yield [total]
            return
        rest_cap = sum(caps[i + 1:])
        for x in range(max(0, total - rest_cap), min(total, caps[i]) + 1):
            for tail in compositions(total - x, caps, i + 1):
                yield [x] + tail

    def rows(r: int, caps: list[int]) -> Iterator[list[int]]:
        if r == len(row_sums):
            yield []
            return
        for row in compositions(row_sums[r], caps, 0):
            new_caps = [c - x for c, x in zip(caps, row)]
            for rest in rows(r + 1, new_caps):
                yield row + rest

    if sum(row_sums) != sum(col_sums):
        raise InvalidInput("deck", "row and column sums differ")
    for t in rows(0, list(col_sums)):
        yield tuple(t)
        produced += 1
        if limit is not None and produced >= limit:
            return


def table_count_bound(row_sums: Sequence[int], col_sums: Sequence[int]) -> int:
    """Cheap upper bound on the number of tables with these margins (the last row/column is forced)."""
    def side(sums: Sequence[int], other: int) -> int:
        return math.prod(math.comb(m + other - 1, other - 1) for m in list(sums)[:-1])

    return min(side(row_sums, len(col_sums)), side(col_sums, len(row_sums)))


@dataclass(frozen=True)
class OutcomeStatistics:
    """The law of ``scale * G(omega)`` under perfectly random hands: distinct G matrices and integer weights."""

    g: np.ndarray          # int64[m, k, k]
    weights: list[int]     # exact weights (not normalised)
    scale: int
    n: int
    hand_size: int
    exact: bool

    def constant(self, pattern: np.ndarray) -> Fraction:
        """First-order constant ``(1/2) E|c1|`` of a pattern (exact when the statistics are)."""
        m = pattern_antisymmetry(pattern)
        inner = np.abs(np.einsum("mxy,xy->m", self.g, m))
        num = sum(int(w) * int(v) for w, v in zip(self.weights, inner))
        return Fraction(self.n * num, 4 * self.hand_size**2 * self.scale * sum(int(w) for w in self.weights))

    def constants(self, antisym: np.ndarray) -> np.ndarray:
        """Float constants for a batch of pattern matrices ``[P, k, k]`` (for ranking in searches)."""
        inner = np.abs(np.einsum("mxy,pxy->pm", self.g.astype(np.float64), antisym.astype(np.float64)))
        w = np.asarray([float(x) for x in self.weights])
        return self.n * (inner @ w) / (4 * self.hand_size**2 * self.scale * w.sum())


def exact_outcome_statistics(values: np.ndarray, players: int, hand_size: int,
                             max_outcomes: int = 200_000) -> OutcomeStatistics:
    """Enumerate every outcome table with its multivariate-hypergeometric weight (exact)."""
    values = np.asarray(values, dtype=np.int64)
    mult = np.bincount(values).tolist()
    if table_count_bound(mult, [hand_size] * players) > 50 * max_outcomes:
        raise InvalidInput("deck", f"far more than {max_outcomes} outcome tables; use Monte Carlo")
    tables_list = list(contingency_tables(mult, [hand_size] * players, limit=max_outcomes + 1))
    if len(tables_list) > max_outcomes:
        raise InvalidInput("deck", f"more than {max_outcomes} outcome tables; use Monte Carlo")
    tables = np.asarray(tables_list, dtype=np.int64).reshape(len(tables_list), len(mult), players)
    g, scale = outcome_g(values, tables)
    fact = [math.factorial(i) for i in range(max(mult + [hand_size]) + 1)]
    if all(m == 1 for m in mult):
        weights = [1] * len(tables)
    else:
        weights = []
        for t in tables_list:
            w = 1
            for v, mv in enumerate(mult):
                w *= fact[mv]
                for x in range(players):
                    w //= fact[t[v * players + x]]
            weights.append(w)
    uniq, inverse = np.unique(g.reshape(len(g), -1), axis=0, return_inverse=True)
    merged = [0] * len(uniq)
    for i, w in zip(inverse.ravel().tolist(), weights):
        merged[i] += w
    return OutcomeStatistics(uniq.reshape(-1, players, players), merged, scale, len(values), hand_size, True)


def sampled_outcome_statistics(values: np.ndarray, players: int, hand_size: int, samples: int,
                               rng: np.random.Generator) -> OutcomeStatistics:
    """Monte Carlo version: G of ``samples`` perfectly random deals (each weight 1)."""
    values = np.asarray(values, dtype=np.int64)
    base = np.repeat(np.arange(players, dtype=np.int8), hand_size)
    distinct = len(np.unique(values)) == len(values)
    parts, scale = [], 1
    for start in range(0, samples, 20_000):
        words = rng.permuted(np.tile(base, (min(20_000, samples - start), 1)), axis=1)
        if distinct:
            # G is the digraph table of the owner word (indexed by source position)
            ordered = words.astype(np.int64)
            pairs = ordered[:, :-1] * players + ordered[:, 1:]
            rows = np.arange(len(words))[:, None] * players * players
            g = np.bincount((rows + pairs).ravel(), minlength=len(words) * players * players)
            parts.append(g.reshape(len(words), players, players).astype(np.int64))
        else:
            g, scale = outcome_g(values, hand_counts(words, values, players))
            parts.append(g)
    g = np.concatenate(parts)
    return OutcomeStatistics(g, [1] * samples, scale, len(values), hand_size, False)


# ---------------------------------------------------------------------------
# Law of the pair statistic of random words (exact, by dynamic programme)


@numba.njit(cache=True)
def _pair_statistic_dp(radix: np.ndarray, strides: np.ndarray, steps: np.ndarray, span: int,
                       modulus: np.uint64) -> np.ndarray:
    """Counts of words by (last letter, statistic + span), modulo 2^64 (modulus 0) or ``modulus``.

    The statistic of a word h is ``sum_i steps[h_i, h_{i+1}]``; states are the letter
    counts used so far (mixed radix; appending a letter only increases the index, so
    one pass in index order is a valid order), the last letter and the statistic.
    """
    k = radix.shape[0]
    n_states = 1
    for x in range(k):
        n_states *= radix[x]
    width = 2 * span + 1
    dp = np.zeros((n_states, k, width), dtype=np.uint64)
    for x in range(k):
        if radix[x] > 1:
            dp[strides[x], x, span] = np.uint64(1)
    digits = np.zeros(k, dtype=np.int64)
    zero = np.uint64(0)
    for idx in range(n_states):
        rem = idx
        for x in range(k):
            digits[x] = rem % radix[x]
            rem //= radix[x]
        for last in range(k):
            for dv in range(width):
                c = dp[idx, last, dv]
                if c == zero:
                    continue
                for x in range(k):
                    if digits[x] + 1 < radix[x]:
                        j = idx + strides[x]
                        t = dv + steps[last, x]
                        if modulus == zero:
                            dp[j, x, t] += c
                        else:
                            dp[j, x, t] = (dp[j, x, t] + c) % modulus
    return dp[n_states - 1]


_MERSENNE_61 = (1 << 61) - 1
DP_MAX_CELLS = 40_000_000


def pair_statistic_dp_cells(counts: Sequence[int], steps: np.ndarray) -> int:
    """Table size the fast DP needs (letter-count states x last letter x statistic values)."""
    n = sum(counts)
    span = int(np.abs(steps).max(initial=0)) * max(n - 1, 0)
    return int(np.prod([c + 1 for c in counts])) * len(counts) * (2 * span + 1)


def pair_statistic_law(counts: Sequence[int], steps: np.ndarray) -> dict[int, int]:
    """Exact number of words with given letter counts for each value of ``sum_i steps[h_i, h_{i+1}]``.

    Fast twin of ``pair_statistic_distribution`` (numba, exact through residues modulo
    2^64 and 2^61 - 1 recombined by the Chinese remainder theorem).
    """
    steps = np.asarray(steps, dtype=np.int64)
    return dict(_pair_statistic_cached(tuple(int(c) for c in counts), steps.tobytes(), steps.shape[0]))


@lru_cache(maxsize=32)
def _pair_statistic_cached(counts: tuple[int, ...], steps_bytes: bytes, k: int) -> tuple[tuple[int, int], ...]:
    steps = np.frombuffer(steps_bytes, dtype=np.int64).reshape(k, k)
    keep = [x for x in range(k) if counts[x] > 0]
    counts_kept = [counts[x] for x in keep]
    steps = np.ascontiguousarray(steps[np.ix_(keep, keep)])
    n = sum(counts_kept)
    if n == 0:
        raise InvalidInput("counts", "need at least one letter")
    if n == 1:
        return ((0, 1),)
    if pair_statistic_dp_cells(counts_kept, steps) > DP_MAX_CELLS:
        raise InvalidInput("counts", "word too large for the exact dynamic programme")
    span = int(np.abs(steps).max(initial=0)) * (n - 1)
    radix = np.asarray([c + 1 for c in counts_kept], dtype=np.int64)
    strides = np.cumprod(np.concatenate([[1], radix[:-1]])).astype(np.int64)
    low = _pair_statistic_dp(radix, strides, steps, span, np.uint64(0)).sum(axis=0, dtype=np.uint64)
    high_rows = _pair_statistic_dp(radix, strides, steps, span, np.uint64(_MERSENNE_61))
    two64 = 1 << 64
    inv = pow(two64 % _MERSENNE_61, -1, _MERSENNE_61)
    out: dict[int, int] = {}
    for dv in range(2 * span + 1):
        r1 = int(low[dv])
        r2 = sum(int(high_rows[x, dv]) for x in range(len(counts_kept))) % _MERSENNE_61
        value = r1 + two64 * (((r2 - r1) * inv) % _MERSENNE_61)
        if value:
            out[dv - span] = value
    total = math.factorial(n)
    for c in counts_kept:
        total //= math.factorial(c)
    if sum(out.values()) != total:  # pragma: no cover - guards the modular reconstruction
        raise ArithmeticError("pair-statistic DP failed its total check")
    return tuple(sorted(out.items()))


def ascending_sign(k: int) -> np.ndarray:
    """``sign(y - x)`` as a k x k matrix: the steps of ascents minus descents."""
    idx = np.arange(k)
    return np.sign(idx[None, :] - idx[:, None]).astype(np.int64)


def ascent_descent_distribution(counts: Sequence[int]) -> dict[int, int]:
    """Exact number of words with the given letter counts for each value of ascents minus descents."""
    return pair_statistic_law(counts, ascending_sign(len(counts)))


def pair_statistic_distribution(counts: Sequence[int], antisym: np.ndarray) -> dict[int, int]:
    """Reference DP over dicts: law of ``sum_i M[h_i, h_{i+1}]`` for words h with given letter counts (small n)."""
    k = len(counts)
    layer: dict[tuple[tuple[int, ...], int], dict[int, int]] = {}
    for x in range(k):
        if counts[x]:
            c = [0] * k
            c[x] = 1
            layer[(tuple(c), x)] = {0: 1}
    for _ in range(sum(counts) - 1):
        nxt: dict[tuple[tuple[int, ...], int], dict[int, int]] = {}
        for (c, last), dist in layer.items():
            for x in range(k):
                if c[x] < counts[x]:
                    c2 = list(c)
                    c2[x] += 1
                    key = (tuple(c2), x)
                    step = int(antisym[last, x])
                    target = nxt.setdefault(key, {})
                    for t, cnt in dist.items():
                        target[t + step] = target.get(t + step, 0) + cnt
        layer = nxt
    out: dict[int, int] = {}
    for dist in layer.values():
        for t, cnt in dist.items():
            out[t] = out.get(t, 0) + cnt
    return out


def classic_factor(pattern: np.ndarray) -> int | None:
    """``beta`` when ``M_L = beta * sign(y - x)`` (ordered: s^2, cyclic: s, back-and-forth: s mod 2), else None."""
    m = pattern_antisymmetry(pattern)
    k = m.shape[0]
    if k < 2:
        return 0
    beta = int(m[0, 1])
    return beta if np.array_equal(m, beta * ascending_sign(k)) else None


def distinct_dp_constant(pattern: np.ndarray, hand_size: int) -> Fraction | None:
    """Exact first-order constant for distinct cards via the pair-statistic DP; None if the DP is too large.

    ``c1(h) = n/(2 s^2) * sum_i M_L[h_i, h_{i+1}]``; M_L is divided by the gcd of its
    entries first, so the classic patterns (M_L = beta * sign) all run the
    ascent-minus-descent DP.
    """
    pattern = np.asarray(pattern, dtype=np.int8)
    m = pattern_antisymmetry(pattern)
    k, n = m.shape[0], len(pattern)
    divisor = math.gcd(*[int(abs(v)) for v in m.ravel()]) if np.any(m) else 0
    if divisor == 0:
        return Fraction(0)
    steps = m // divisor
    if pair_statistic_dp_cells([hand_size] * k, steps) > DP_MAX_CELLS:
        return None
    dist = pair_statistic_law([hand_size] * k, steps)
    mean_abs = Fraction(sum(abs(v) * c for v, c in dist.items()), sum(dist.values()))
    return Fraction(n * divisor, 4 * hand_size**2) * mean_abs


@dataclass(frozen=True)
class FirstOrderConstant:
    """``lim a * TV`` for a deck and a dealing pattern; exact or a Monte Carlo estimate with its standard error."""

    value: float
    exact: Fraction | None
    method: str
    stderr: float = 0.0


def first_order_constant(values: np.ndarray, pattern: np.ndarray, hand_size: int, method: str = "auto",
                         samples: int = 200_000, rng: np.random.Generator | None = None,
                         max_outcomes: int = 200_000) -> FirstOrderConstant:
    """First-order TV constant: DP (distinct cards), outcome enumeration (small), or Monte Carlo."""
    values = np.asarray(values, dtype=np.int64)
    pattern = np.asarray(pattern, dtype=np.int8)
    players = _players(pattern)
    check_pattern(pattern, players, hand_size)
    distinct = len(np.unique(values)) == len(values)
    if method in ("auto", "dp") and distinct:
        exact = distinct_dp_constant(pattern, hand_size)
        if exact is not None:
            return FirstOrderConstant(float(exact), exact, "dp")
        if method == "dp":
            raise InvalidInput("method", "the pair-statistic DP is too large for this pattern")
    if method in ("auto", "enumerate"):
        try:
            stats = exact_outcome_statistics(values, players, hand_size, max_outcomes)
            exact = stats.constant(pattern)
            return FirstOrderConstant(float(exact), exact, "enumerate")
        except InvalidInput:
            if method == "enumerate":
                raise
    rng = rng if rng is not None else np.random.default_rng(0)
    stats = sampled_outcome_statistics(values, players, hand_size, samples, rng)
    c1_abs = np.abs(np.einsum("mxy,xy->m", stats.g, pattern_antisymmetry(pattern))).astype(np.float64)
    factor = len(values) / (4 * hand_size**2 * stats.scale)
    return FirstOrderConstant(float(factor * c1_abs.mean()), None, "monte-carlo",
                              float(factor * c1_abs.std(ddof=1) / math.sqrt(samples)))


# ---------------------------------------------------------------------------
# Monte Carlo total variation on features of 52-card deals


FEATURES = ("ascent-descent", "suits", "colors")


@dataclass(frozen=True)
class FeatureTV:
    """Plug-in TV of a feature's law after ``shuffles`` riffles, its bootstrap standard error and noise floor."""

    feature: str
    shuffles: int
    tv: float
    stderr: float
    floor: float
    samples: int


def _ascent_descent_values(owners: np.ndarray) -> np.ndarray:
    diff = np.sign(owners[:, 1:].astype(np.int16) - owners[:, :-1].astype(np.int16))
    return diff.sum(axis=1)


def feature_uniform_law(feature: str, players: int, hand_size: int) -> tuple[dict, int]:
    """Exact law of a feature under perfectly random hands: (category -> integer weight, total)."""
    n = players * hand_size
    if feature == "ascent-descent":
        dist = ascent_descent_distribution([hand_size] * players)
        return {(v,): c for v, c in dist.items()}, sum(dist.values())
    if feature == "suits":
        if n % 4:
            raise InvalidInput("feature", f"the suits feature needs a multiple of 4 cards, got {n}")
        per_suit = n // 4
        out = {}
        for t in contingency_tables([hand_size, n - hand_size], [per_suit] * 4):
            out[t[:4]] = math.prod(math.comb(per_suit, c) for c in t[:4])
        return out, math.comb(n, hand_size)
    if feature == "colors":
        half = n // 2
        out = {}
        for t in contingency_tables([half, n - half], [hand_size] * players):
            reds = t[players:]
            out[tuple(reds)] = math.prod(math.comb(hand_size, r) for r in reds)
        return out, math.comb(n, half)
    raise InvalidInput("feature", f"expected one of {', '.join(FEATURES)}, got {feature!r}")


def _feature_categories(feature: str, owners: np.ndarray, players: int, hand_size: int) -> list[np.ndarray]:
    """Feature values of each sampled deal, one int64 key array per reported hand (or one for the whole deal)."""
    n = owners.shape[1]
    if feature == "ascent-descent":
        return [_ascent_descent_values(owners)]
    if feature == "suits":
        tables = hand_counts(owners, deck_values("suits", n), players)  # [b, suit, player]
        base = hand_size + 1
        return [(tables[:, :, p].astype(np.int64) * base ** np.arange(3, -1, -1)).sum(axis=1) for p in range(players)]
    if feature == "colors":
        tables = hand_counts(owners, deck_values("colors", n), players)
        base = hand_size + 1
        return [(tables[:, 1, :].astype(np.int64) * base ** np.arange(players - 1, -1, -1)).sum(axis=1)]
    raise InvalidInput("feature", f"expected one of {', '.join(FEATURES)}, got {feature!r}")


def _encode_key(key: tuple, feature: str, hand_size: int) -> int:
    if feature == "ascent-descent":
        return int(key[0])
    base = hand_size + 1
    out = 0
    for c in key:
        out = out * base + int(c)
    return out


def _plugin_tv(counts: np.ndarray, probs: np.ndarray, samples: int, outside: float = 0.0) -> float:
    return 0.5 * (np.abs(counts / samples - probs).sum() + outside)


def monte_carlo_feature_tv(feature: str, pattern: str | np.ndarray, shuffles: Sequence[int], samples: int,
                           rng: np.random.Generator, players: int = 4, hand_size: int = 13,
                           replicates: int = 20, chunk: int = 50_000, progress: Any = None) -> list[FeatureTV]:
    """Plug-in TV of a feature of the deal after k riffles (forward sampler), with bootstrap SE and noise floor.

    The noise floor is the mean plug-in TV of ``samples`` draws from the exact limit
    law itself: estimates near it only say "at most about the floor".  For per-hand
    features (``suits``) the largest TV over the hands is reported.
    """
    word = dealing_pattern(pattern, players, hand_size) if isinstance(pattern, str) else np.asarray(pattern)
    check_pattern(word, players, hand_size)
    law, total = feature_uniform_law(feature, players, hand_size)
    keys = np.asarray(sorted(_encode_key(k, feature, hand_size) for k in law), dtype=np.int64)
    weights = {_encode_key(k, feature, hand_size): w for k, w in law.items()}
    probs = np.asarray([weights[int(k)] / total for k in keys])
    hands = players if feature == "suits" else 1
    floor_tvs = [max(_plugin_tv(rng.multinomial(samples, probs), probs, samples) for _ in range(hands))
                 for _ in range(replicates)]
    floor = float(np.mean(floor_tvs))
    out = []
    for k in shuffles:
        parts: list[list[np.ndarray]] = []
        done = 0
        while done < samples:
            size = min(chunk, samples - done)
            owners = owner_words(k_riffle_shuffles(players * hand_size, k, rng, size), word)
            parts.append(_feature_categories(feature, owners, players, hand_size))
            done += size
            if progress is not None:
                progress.advance(size)
        best_tv, best_se = -1.0, 0.0
        for h in range(len(parts[0])):
            values = np.concatenate([p[h] for p in parts])
            idx = np.searchsorted(keys, values)
            idx = np.clip(idx, 0, len(keys) - 1)
            if not np.all(keys[idx] == values):  # pragma: no cover - every feature value is a category
                raise ArithmeticError("feature value outside its law's support")
            counts = np.bincount(idx, minlength=len(keys))
            tv = _plugin_tv(counts, probs, samples)
            emp = counts / samples
            boots = [_plugin_tv(rng.multinomial(samples, emp), probs, samples) for _ in range(replicates)]
            if tv > best_tv:
                best_tv, best_se = tv, float(np.std(boots, ddof=1))
        out.append(FeatureTV(feature, int(k), float(best_tv), best_se, floor, samples))
    return out


# ---------------------------------------------------------------------------
# Best dealing pattern


@dataclass(frozen=True)
class PatternScore:
    """A dealing pattern and its first-order constant (exact when known)."""

    pattern: np.ndarray
    value: float
    exact: Fraction | None = None
    stderr: float = 0.0
    label: str = ""


def canonical_patterns(players: int, hand_size: int) -> np.ndarray:
    """All patterns with players numbered in order of first appearance (one per relabelling class)."""
    n = players * hand_size
    out: list[list[int]] = []
    word = [0] * n
    counts = [0] * players

    def rec(pos: int, used: int) -> None:
        if pos == n:
            out.append(list(word))
            return
        for x in range(min(used + 1, players)):
            if counts[x] < hand_size:
                counts[x] += 1
                word[pos] = x
                rec(pos + 1, max(used, x + 1))
                counts[x] -= 1

    rec(0, 0)
    return np.asarray(out, dtype=np.int8)


def _antisym_batch(patterns: np.ndarray, players: int) -> np.ndarray:
    onehot = np.eye(players, dtype=np.int64)[patterns.astype(np.int64)]  # [P, n, k]
    before = np.cumsum(onehot, axis=1) - onehot
    prec = np.einsum("pqy,pqx->pyx", before, onehot)
    return prec - np.transpose(prec, (0, 2, 1))


def exhaustive_best_patterns(values: np.ndarray, players: int, hand_size: int, top: int = 5,
                             max_patterns: int = 300_000) -> list[PatternScore]:
    """Exact first-order constant of every dealing pattern (up to relabelling), best first."""
    n = players * hand_size
    count = math.factorial(n) // (math.factorial(hand_size) ** players * math.factorial(players))
    if count > max_patterns:
        raise InvalidInput("cards", f"{count} patterns is too many for the exhaustive search; use local search")
    stats = exact_outcome_statistics(np.asarray(values), players, hand_size)
    patterns = canonical_patterns(players, hand_size)
    scores = stats.constants(_antisym_batch(patterns, players))
    order = np.argsort(scores, kind="stable")[:top]
    return [PatternScore(patterns[i], float(scores[i]), stats.constant(patterns[i])) for i in order]


def local_search_pattern(values: np.ndarray, players: int, hand_size: int, rng: np.random.Generator,
                         start: str | np.ndarray = "back-and-forth", samples: int = 20_000,
                         sweeps: int = 3, restarts: int = 0) -> PatternScore:
    """Swap-two-cards local search on the first-order constant, estimated on one common Monte Carlo sample.

    Every candidate is scored on the same sample of random deals (common random
    numbers), so comparisons are sharp; the winner's value should be re-estimated on a
    fresh sample (``first_order_constant``) before it is quoted.
    """
    values = np.asarray(values, dtype=np.int64)
    stats = sampled_outcome_statistics(values, players, hand_size, samples, rng)
    g = stats.g.reshape(samples, -1).astype(np.float64)
    factor = len(values) / (4 * hand_size**2 * stats.scale)

    def score(word: np.ndarray) -> float:
        m = pattern_antisymmetry(word).reshape(-1).astype(np.float64)
        return float(factor * np.abs(g @ m).mean())

    starts = [dealing_pattern(start, players, hand_size) if isinstance(start, str) else np.asarray(start, np.int8)]
    for _ in range(restarts):
        starts.append(rng.permutation(starts[0]))
    best_word, best = starts[0], score(starts[0])
    n = len(values)
    for word in starts:
        word = word.copy()
        current = score(word)
        for _ in range(sweeps):
            improved = False
            pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
            rng.shuffle(pairs)
            for i, j in pairs:
                if word[i] == word[j]:
                    continue
                word[i], word[j] = word[j], word[i]
                s = score(word)
                if s < current - 1e-12:
                    current, improved = s, True
                else:
                    word[i], word[j] = word[j], word[i]
            if not improved:
                break
        if current < best:
            best, best_word = current, word.copy()
    return PatternScore(best_word, best, None, 0.0, "local search")


def classic_patterns(players: int, hand_size: int) -> dict[str, np.ndarray]:
    """The three classic dealing patterns by name."""
    return {name: dealing_pattern(name, players, hand_size) for name in ("ordered", "cyclic", "back-and-forth")}


def tv_by_shuffles_exact(values: np.ndarray, pattern: np.ndarray, shuffles: Iterable[int]) -> dict[int, Fraction]:
    """Exact TV of the hands after k riffles for each k (small decks only)."""
    law = exact_deal_law(values, pattern)
    return {k: law.tv(2**k) for k in shuffles}


def shuffles_for_tv(constant: float, target: float) -> float:
    """Riffles needed for first-order TV ``constant / 2^k`` to reach ``target``: ``log2(constant/target)``."""
    if constant <= 0:
        return 0.0
    return max(0.0, math.log2(constant / target))


def tournament_constants(hand_size: int, players: int = 4) -> list[tuple[np.ndarray, Fraction]]:
    """Distinct cards, odd s: exact constant for every M_L with entries +-1 (the minimum), one per relabelling class.

    For odd s, ``N_L(x, y) + N_L(y, x) = s^2`` is odd, so ``|M_L(x, y)| >= 1``; the
    patterns reaching 1 everywhere (back-and-forth among them) differ only by the
    orientation of M_L, a tournament on the players.  Best first.
    """
    if players > 4:
        raise InvalidInput("players", "tournament enumeration is limited to 4 players")
    pairs = [(x, y) for x in range(players) for y in range(x + 1, players)]
    seen: dict[bytes, np.ndarray] = {}
    for signs in itertools.product((1, -1), repeat=len(pairs)):
        m = np.zeros((players, players), dtype=np.int64)
        for (x, y), sg in zip(pairs, signs):
            m[x, y], m[y, x] = sg, -sg
        canon = min(m[np.ix_(p, p)].tobytes() for p in itertools.permutations(range(players)))
        seen.setdefault(canon, m)
    n = players * hand_size
    out = []
    for m in seen.values():
        dist = pair_statistic_law([hand_size] * players, m)
        mean_abs = Fraction(sum(abs(v) * c for v, c in dist.items()), sum(dist.values()))
        out.append((m, Fraction(n, 4 * hand_size**2) * mean_abs))
    return sorted(out, key=lambda item: item[1])
