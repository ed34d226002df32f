"""The first-order constant of the total variation of dealt hands after a-shuffles (see ``randomness`` for the derivation)."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numba
import numpy as np

from tribridge.dealing.exact_law import players_of
from tribridge.dealing.shuffles import (
    check_pattern,
    hand_counts,
)
from tribridge.errors import InvalidInput

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
    return {
        (x, y): Fraction(int(prec[x, y] - prec[y, x]), 2 * int(mult[x]) * int(mult[y]))
        for x in range(k)
        for y in range(k)
        if x != y
    }


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
        inner = sum(
            (int(table[v, x]) * int(table[w, y]) * z[(x, y)] for x in range(k) for y in range(k) if x != y), Fraction(0)
        )
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
        rest_cap = sum(caps[i + 1 :])
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

    g: np.ndarray  # int64[m, k, k]
    weights: list[int]  # exact weights (not normalised)
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


def exact_outcome_statistics(
    values: np.ndarray, players: int, hand_size: int, max_outcomes: int = 200_000
) -> OutcomeStatistics:
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


def sampled_outcome_statistics(
    values: np.ndarray, players: int, hand_size: int, samples: int, rng: np.random.Generator
) -> OutcomeStatistics:
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
def _pair_statistic_dp(
    radix: np.ndarray, strides: np.ndarray, steps: np.ndarray, span: int, modulus: np.uint64
) -> np.ndarray:
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


def clear_pair_statistic_cache() -> None:
    """Forget the cached laws of ``pair_statistic_law`` (for timing it cold)."""
    _pair_statistic_cached.cache_clear()


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
            start = [0] * k
            start[x] = 1
            layer[(tuple(start), x)] = {0: 1}
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


def first_order_constant(
    values: np.ndarray,
    pattern: np.ndarray,
    hand_size: int,
    method: str = "auto",
    samples: int = 200_000,
    rng: np.random.Generator | None = None,
    max_outcomes: int = 200_000,
) -> FirstOrderConstant:
    """First-order TV constant: DP (distinct cards), outcome enumeration (small), or Monte Carlo."""
    values = np.asarray(values, dtype=np.int64)
    pattern = np.asarray(pattern, dtype=np.int8)
    players = players_of(pattern)
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
    return FirstOrderConstant(
        float(factor * c1_abs.mean()), None, "monte-carlo", float(factor * c1_abs.std(ddof=1) / math.sqrt(samples))
    )
