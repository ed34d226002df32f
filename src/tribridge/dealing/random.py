"""Fast seeded batch dealing (numba): whole deals as owner arrays, or only the hands a study needs as suit masks.

Stream scheme (the same numbers for a seed whatever the chunking or worker count):

* The root is ``SeedSequence(seed)`` (an int, a ``SeedSequence``, or ``None`` for fresh entropy).
* Deals are numbered 0, 1, 2, … . Deal ``j`` lies in block ``b = j // BLOCK_SIZE``; block ``b`` has the
  64-bit key ``SeedSequence(entropy, spawn_key=root.spawn_key + (DEALING_STREAM, b)).generate_state(1, uint64)``.
* Deal ``j`` gets its own xoshiro256** generator, seeded through SplitMix64 from
  ``mix64(block_key + (j % BLOCK_SIZE + 1) * GOLDEN_GAMMA)`` (a bijection, so deal seeds in a block are
  distinct). Its cards are a Fisher–Yates shuffle drawn from that generator: position ``i`` (0..51)
  receives ``deck[i + uniform(52 - i)]`` (Lemire's exact bounded draw on the top 32 bits); seat ``i // 13``
  holds position ``i``.
* So deal ``j`` depends only on ``(seed, j)``: ``deal_batch(n, seed, start)`` returns deals
  ``start .. start+n-1`` for any ``start``, and the partial variant ``deal_hand_masks(n, seed, k, start)``
  returns exactly the first ``k`` hands of the same deals (a prefix of the same shuffle).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from tribridge.dealing.streams import seed_sequence, seed_stream
from tribridge.errors import InvalidInput

BLOCK_SIZE = 1 << 16
DEALING_STREAM = 0xDEA1  # first spawn-key element of the dealing subtree of a study's SeedSequence
GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)

_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_U5 = np.uint64(5)
_U9 = np.uint64(9)
_U1 = np.uint64(1)
_LOW32 = np.uint64(0xFFFFFFFF)
_TWO32 = np.uint64(1 << 32)


@njit(inline="always", cache=True)
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@njit(inline="always", cache=True)
def _mix64(z):
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _deal_state(block_key, index_in_block):
    """xoshiro256** state of one deal, seeded through SplitMix64 from the deal's 64-bit seed."""
    seed = _mix64(block_key + (np.uint64(index_in_block) + _U1) * GOLDEN_GAMMA)
    s0 = _mix64(seed + GOLDEN_GAMMA)
    s1 = _mix64(seed + np.uint64(2) * GOLDEN_GAMMA)
    s2 = _mix64(seed + np.uint64(3) * GOLDEN_GAMMA)
    s3 = _mix64(seed + np.uint64(4) * GOLDEN_GAMMA)
    if (s0 | s1 | s2 | s3) == np.uint64(0):  # pragma: no cover - probability 2**-256
        s0 = _U1
    return s0, s1, s2, s3


@njit(inline="always", cache=True)
def _next(s0, s1, s2, s3):
    result = _rotl(s1 * _U5, 7) * _U9
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    return result, s0, s1, s2, s3


@njit(inline="always", cache=True)
def _shuffle_prefix(deck, n_positions, block_key, index_in_block):
    """Fill deck[0:n_positions] with the deal's first positions (deck must start as 0..51).

    Each 64-bit output gives two 32-bit words (high half first); position i takes
    ``i + floor(word * (52 - i) / 2**32)``, rejecting the few words that would bias it (Lemire).
    """
    s0, s1, s2, s3 = _deal_state(block_key, index_in_block)
    spare = np.uint64(0)
    have_spare = False
    for i in range(n_positions):
        if i == 51:
            break
        bound = np.uint64(52 - i)
        while True:
            if have_spare:
                word = spare
                have_spare = False
            else:
                r, s0, s1, s2, s3 = _next(s0, s1, s2, s3)
                word = r >> np.uint64(32)
                spare = r & _LOW32
                have_spare = True
            m = word * bound
            low = m & _LOW32
            if low >= bound or low >= (_TWO32 - bound) % bound:
                break
        k = i + np.int64(m >> np.uint64(32))
        tmp = deck[i]
        deck[i] = deck[k]
        deck[k] = tmp


_GRAIN = 1024  # deals per parallel work item


@njit(parallel=True, cache=True)
def _deal_owners_kernel(keys, first_block, start, out):
    n = out.shape[0]
    for item in prange((n + _GRAIN - 1) // _GRAIN):
        deck = np.empty(52, dtype=np.uint8)
        for i in range(item * _GRAIN, min(n, item * _GRAIN + _GRAIN)):
            for c in range(52):
                deck[c] = c
            g = start + i
            block = g // BLOCK_SIZE
            _shuffle_prefix(deck, 52, keys[block - first_block], g - block * BLOCK_SIZE)
            for pos in range(52):
                out[i, deck[pos]] = pos // 13


@njit(parallel=True, cache=True)
def _deal_masks_kernel(keys, first_block, start, n_hands, out):
    n = out.shape[0]
    for item in prange((n + _GRAIN - 1) // _GRAIN):
        deck = np.empty(52, dtype=np.uint8)
        for i in range(item * _GRAIN, min(n, item * _GRAIN + _GRAIN)):
            for c in range(52):
                deck[c] = c
            g = start + i
            block = g // BLOCK_SIZE
            _shuffle_prefix(deck, 13 * n_hands, keys[block - first_block], g - block * BLOCK_SIZE)
            for h in range(n_hands):
                for s in range(4):
                    out[i, h, s] = 0
                for pos in range(13 * h, 13 * h + 13):
                    card = np.int64(deck[pos])
                    out[i, h, card // 13] |= np.int64(1) << (card % 13)


def block_seed_sequence(seed: int | np.random.SeedSequence | None, block: int) -> np.random.SeedSequence:
    """The ``SeedSequence`` child that keys block ``block`` of the dealing stream."""
    return seed_stream(seed, DEALING_STREAM, block)


def block_keys(seed: int | np.random.SeedSequence | None, first_block: int, n_blocks: int) -> np.ndarray:
    """``uint64[n_blocks]`` keys of blocks ``first_block ..``."""
    root = seed_sequence(seed)
    return np.array(
        [
            block_seed_sequence(root, b).generate_state(1, np.uint64)[0]
            for b in range(first_block, first_block + n_blocks)
        ],
        dtype=np.uint64,
    )


def _check_range(n: int, start: int) -> None:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise InvalidInput("n", f"expected a non-negative number of deals, got {n!r}")
    if isinstance(start, bool) or not isinstance(start, (int, np.integer)) or start < 0:
        raise InvalidInput("start", f"expected a non-negative deal index, got {start!r}")


def _keys_for(seed: int | np.random.SeedSequence | None, n: int, start: int) -> tuple[np.ndarray, int]:
    first_block = start // BLOCK_SIZE
    last_block = (start + max(n, 1) - 1) // BLOCK_SIZE
    return block_keys(seed, first_block, last_block - first_block + 1), first_block


def deal_batch(n: int, seed: int | np.random.SeedSequence | None, start: int = 0) -> np.ndarray:
    """Deals ``start .. start+n-1`` of the seed's stream as ``uint8[n, 52]`` owner seats."""
    _check_range(n, start)
    root = seed_sequence(seed)
    out = np.empty((int(n), 52), dtype=np.uint8)
    if n:
        keys, first_block = _keys_for(root, int(n), int(start))
        _deal_owners_kernel(keys, np.int64(first_block), np.int64(start), out)
    return out


def deal_hand_masks(n: int, seed: int | np.random.SeedSequence | None, n_hands: int = 1, start: int = 0) -> np.ndarray:
    """Only the first ``n_hands`` hands (seats 0..n_hands-1) of the same deals, as ``int64[n, n_hands, 4]`` suit masks."""
    _check_range(n, start)
    if isinstance(n_hands, bool) or n_hands not in (1, 2, 3, 4):
        raise InvalidInput("n_hands", f"expected 1..4 hands, got {n_hands!r}")
    root = seed_sequence(seed)
    out = np.empty((int(n), int(n_hands), 4), dtype=np.int64)
    if n:
        keys, first_block = _keys_for(root, int(n), int(start))
        _deal_masks_kernel(keys, np.int64(first_block), np.int64(start), np.int64(n_hands), out)
    return out


@dataclass(frozen=True)
class DealChunk:
    """One chunk of a study: deals ``start .. start+count-1`` of the stream of ``seed``."""

    seed: np.random.SeedSequence
    start: int
    count: int

    def deals(self) -> np.ndarray:
        """This chunk's deals as ``uint8[count, 52]``."""
        return deal_batch(self.count, self.seed, self.start)

    def hand_masks(self, n_hands: int = 1) -> np.ndarray:
        """This chunk's first ``n_hands`` hands as ``int64[count, n_hands, 4]``."""
        return deal_hand_masks(self.count, self.seed, n_hands, self.start)


def chunk_ranges(n_items: int, chunk_size: int) -> list[tuple[int, int]]:
    """``(start, count)`` of consecutive chunks covering ``0 .. n_items-1``."""
    if chunk_size <= 0:
        raise InvalidInput("chunk_size", f"expected a positive chunk size, got {chunk_size}")
    return [(s, min(chunk_size, n_items - s)) for s in range(0, n_items, chunk_size)]


def chunk_seeds(seed: int | np.random.SeedSequence | None, n_items: int, chunk_size: int) -> list[DealChunk]:
    """Chunks of a study's deals; whatever ``chunk_size``, deal ``j`` is the same cards."""
    root = seed_sequence(seed)
    return [DealChunk(root, start, count) for start, count in chunk_ranges(n_items, chunk_size)]


def owners_to_mask_batch(owners: np.ndarray) -> np.ndarray:
    """``int64[n, 4, 4]`` suit masks ``[deal, seat, suit]`` from ``uint8[n, 52]`` owners."""
    arr = np.asarray(owners)
    if arr.ndim != 2 or arr.shape[1] != 52:
        raise InvalidInput("owners", f"expected shape (n, 52), got {arr.shape}")
    return _owners_to_masks_kernel(arr.astype(np.uint8, copy=False))


@njit(cache=True)
def _owners_to_masks_kernel(owners):
    n = owners.shape[0]
    out = np.zeros((n, 4, 4), dtype=np.int64)
    for i in range(n):
        for c in range(52):
            out[i, owners[i, c], c // 13] |= np.int64(1) << (c % 13)
    return out
