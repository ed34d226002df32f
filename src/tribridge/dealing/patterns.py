"""Monte Carlo total variation on features of 52-card deals, and the search for the best dealing pattern."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from tribridge.dealing.exact_law import exact_deal_law
from tribridge.dealing.first_order import (
    ascent_descent_distribution,
    contingency_tables,
    exact_outcome_statistics,
    pair_statistic_law,
    pattern_antisymmetry,
    sampled_outcome_statistics,
)
from tribridge.dealing.shuffles import (
    check_pattern,
    dealing_pattern,
    deck_values,
    hand_counts,
    k_riffle_shuffles,
    owner_words,
)
from tribridge.errors import InvalidInput

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


def monte_carlo_feature_tv(
    feature: str,
    pattern: str | np.ndarray,
    shuffles: Sequence[int],
    samples: int,
    rng: np.random.Generator,
    players: int = 4,
    hand_size: int = 13,
    replicates: int = 20,
    chunk: int = 50_000,
    progress: Any = None,
) -> list[FeatureTV]:
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
    floor_tvs = [
        max(_plugin_tv(rng.multinomial(samples, probs), probs, samples) for _ in range(hands))
        for _ in range(replicates)
    ]
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


def exhaustive_best_patterns(
    values: np.ndarray, players: int, hand_size: int, top: int = 5, max_patterns: int = 300_000
) -> list[PatternScore]:
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


def local_search_pattern(
    values: np.ndarray,
    players: int,
    hand_size: int,
    rng: np.random.Generator,
    start: str | np.ndarray = "back-and-forth",
    samples: int = 20_000,
    sweeps: int = 3,
    restarts: int = 0,
) -> PatternScore:
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
