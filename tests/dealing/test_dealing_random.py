"""Tests of seeded batch dealing: validity, chunk invariance, prefix property, uniformity."""

from itertools import permutations
from math import comb

import numpy as np
import pytest

from tribridge.dealing.random import (
    BLOCK_SIZE,
    block_seed_sequence,
    chunk_seeds,
    deal_batch,
    deal_hand_masks,
    owners_to_mask_batch,
)
from tribridge.errors import InvalidInput


def test_every_deal_is_four_hands_of_thirteen():
    deals = deal_batch(5000, 11)
    assert deals.shape == (5000, 52) and deals.dtype == np.uint8
    counts = np.stack([(deals == s).sum(axis=1) for s in range(4)], axis=1)
    assert (counts == 13).all()


def test_same_seed_same_deals_and_different_seed_different_deals():
    assert (deal_batch(100, 5) == deal_batch(100, 5)).all()
    assert (deal_batch(100, 5) == deal_batch(100, np.random.SeedSequence(5))).all()
    assert (deal_batch(100, 5) != deal_batch(100, 6)).any(axis=1).all()


@pytest.mark.parametrize("chunk_size, n", [(1, 300), (7, 9000), (1000, 9000), (4096, 9000)])
def test_chunking_does_not_change_the_deals(chunk_size, n):
    whole = deal_batch(n, 42)
    parts = np.concatenate([chunk.deals() for chunk in chunk_seeds(42, n, chunk_size)])
    assert (parts == whole).all()


def test_start_offsets_across_a_block_boundary():
    start = BLOCK_SIZE - 50
    window = deal_batch(100, 3, start=start)
    assert (window[:50] == deal_batch(50, 3, start=start)).all()
    assert (window[50:] == deal_batch(50, 3, start=BLOCK_SIZE)).all()
    # block b is keyed by its own SeedSequence child
    a = block_seed_sequence(3, 0).generate_state(1, np.uint64)[0]
    b = block_seed_sequence(3, 1).generate_state(1, np.uint64)[0]
    assert a != b


@pytest.mark.parametrize("n_hands", [1, 2, 3, 4])
def test_partial_dealing_is_a_prefix_of_the_full_deal(n_hands):
    full = owners_to_mask_batch(deal_batch(3000, 8, start=123))
    partial = deal_hand_masks(3000, 8, n_hands, start=123)
    assert (partial == full[:, :n_hands]).all()


def test_bad_arguments_raise_invalid_input():
    with pytest.raises(InvalidInput, match="n"):
        deal_batch(-1, 1)
    with pytest.raises(InvalidInput, match="seed"):
        deal_batch(3, -4)
    with pytest.raises(InvalidInput, match="n_hands"):
        deal_hand_masks(3, 1, 5)


def _within(statistic: float, dof: int, sigmas: float = 5.0) -> bool:
    return abs(statistic - dof) < sigmas * (2 * dof) ** 0.5


def test_each_card_lands_in_each_seat_equally_often_chi_square():
    n = 200_000
    deals = deal_batch(n, 2024)
    observed = np.stack([(deals == s).sum(axis=0) for s in range(4)], axis=1)  # [card, seat]
    expected = n / 4
    chi2 = float(((observed - expected) ** 2 / expected).sum())
    # 52 cards x 3 free seats, minus the 3 seat totals fixed at 13 n
    assert _within(chi2, 52 * 3 - 3), chi2


def _pattern_probabilities() -> dict[tuple[int, ...], float]:
    total = comb(52, 13)
    probs: dict[tuple[int, ...], float] = {}
    for a in range(14):
        for b in range(a + 1):
            for c in range(b + 1):
                d = 13 - a - b - c
                if 0 <= d <= c:
                    pattern = (a, b, c, d)
                    ways = len(set(permutations(pattern)))
                    probs[pattern] = ways * comb(13, a) * comb(13, b) * comb(13, c) * comb(13, d) / total
    return probs


def test_hand_pattern_frequencies_match_exact_probabilities():
    probs = _pattern_probabilities()
    assert abs(sum(probs.values()) - 1) < 1e-12
    assert abs(probs[(4, 4, 3, 2)] - 0.2155) < 1e-4  # textbook values
    assert abs(probs[(5, 3, 3, 2)] - 0.1552) < 1e-4
    assert abs(probs[(4, 3, 3, 3)] - 0.1054) < 1e-4
    n = 200_000
    masks = deal_hand_masks(n, 77, 4).reshape(-1, 4)  # all four hands: 800,000 hands
    lengths = np.zeros(masks.shape, dtype=np.int64)
    for s in range(4):
        m = masks[:, s].copy()
        while (m != 0).any():
            lengths[:, s] += m & 1
            m >>= 1
    patterns = -np.sort(-lengths, axis=1)
    keys = patterns @ np.array([14**3, 14**2, 14, 1])
    observed = dict(zip(*np.unique(keys, return_counts=True)))
    hands = masks.shape[0]
    chi2, dof = 0.0, -1
    for pattern, p in probs.items():
        key = pattern[0] * 14**3 + pattern[1] * 14**2 + pattern[2] * 14 + pattern[3]
        count = int(observed.get(key, 0))
        if p * hands >= 20:
            chi2 += (count - p * hands) ** 2 / (p * hands)
            dof += 1
        if pattern in [(4, 4, 3, 2), (5, 3, 3, 2), (4, 3, 3, 3), (5, 4, 2, 2), (5, 4, 3, 1), (6, 3, 2, 2)]:
            sd = (hands * p * (1 - p)) ** 0.5
            # hands of one deal are dependent; 5 sd of the independent case is still a tight check
            assert abs(count - p * hands) < 5 * sd * 1.5, (pattern, count, p * hands)
    assert _within(chi2, dof, sigmas=6.0), (chi2, dof)


# --- the generator exactly as docs/algorithms.md §5 states it, in plain Python -------------------
MASK64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15


def mix64(z: int) -> int:
    """SplitMix64's finaliser on a 64-bit integer."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def xoshiro256starstar(state: list[int]):
    """The xoshiro256** stream of 64-bit outputs from a four-word state."""
    s0, s1, s2, s3 = state
    while True:
        rot = (s1 * 5) & MASK64
        result = ((((rot << 7) | (rot >> 57)) & MASK64) * 9) & MASK64
        t = (s1 << 17) & MASK64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = ((s3 << 45) | (s3 >> 19)) & MASK64
        yield result


def documented_deal(seed: int, j: int) -> np.ndarray:
    """Owner seats of deal ``j`` of ``seed``, computed step by step from the documented recipe."""
    root = np.random.SeedSequence(seed)
    block, index = divmod(j, 65536)
    key = int(np.random.SeedSequence(root.entropy, spawn_key=(0xDEA1, block)).generate_state(1, np.uint64)[0])
    deal_seed = mix64((key + (index + 1) * GAMMA) & MASK64)
    outputs = xoshiro256starstar([mix64((deal_seed + k * GAMMA) & MASK64) for k in range(1, 5)])

    def words():
        for value in outputs:
            yield value >> 32
            yield value & 0xFFFFFFFF

    stream = words()
    deck = list(range(52))
    for p in range(51):
        bound = 52 - p
        while True:
            m = next(stream) * bound
            if m % (1 << 32) >= (1 << 32) % bound:
                break
        r = m >> 32
        deck[p], deck[p + r] = deck[p + r], deck[p]
    owners = np.empty(52, dtype=np.uint8)
    for position, card in enumerate(deck):
        owners[card] = position // 13
    return owners


@pytest.mark.parametrize(
    "seed,j", [(0, 0), (1, 1), (7, 12345), (2026, BLOCK_SIZE - 1), (2026, BLOCK_SIZE), (3, 3 * BLOCK_SIZE + 17)]
)
def test_deals_follow_the_documented_recipe(seed, j):
    assert np.array_equal(deal_batch(1, seed, start=j)[0], documented_deal(seed, j))
