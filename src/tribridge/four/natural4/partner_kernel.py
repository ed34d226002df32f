"""The compiled half of drawing partner hands: from one batch of random keys, the first hands that fit what
partner showed (``tricks.reference_partner_hands`` is the readable numpy version it agrees with)."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["fitting_partner_hands"]


@njit(cache=True)
def _smallest_keys(keys: np.ndarray, unseen: np.ndarray, best: np.ndarray, cards: np.ndarray) -> None:
    """The 13 cards of ``unseen`` with the smallest ``keys`` into ``cards`` (``best`` is scratch for their keys)."""
    held = 0
    for j in range(keys.shape[0]):
        key = keys[j]
        if held == 13 and key >= best[12]:
            continue
        at = min(held, 12)  # insertion into the sorted 13 smallest so far
        while at > 0 and best[at - 1] > key:
            best[at] = best[at - 1]
            cards[at] = cards[at - 1]
            at -= 1
        best[at] = key
        cards[at] = unseen[j]
        held = min(held + 1, 13)


@njit(cache=True)
def _fits(cards: np.ndarray, lens: np.ndarray, ranges: np.ndarray, balanced: bool) -> bool:
    """Whether the 13 ``cards`` lie within ``ranges`` (HCP low, high, then the four suits' length low, high), and
    are balanced when ``balanced`` (``lens`` is scratch for the suit lengths)."""
    hcp = 0
    lens[:] = 0
    for card in cards:
        hcp += max(0, 4 - card % 13)
        lens[card // 13] += 1
    if not ranges[0] <= hcp <= ranges[1]:
        return False
    doubletons = 0
    for s in range(4):
        if not ranges[2 + 2 * s] <= lens[s] <= ranges[3 + 2 * s]:
            return False
        if balanced and not 2 <= lens[s] <= 5:
            return False
        doubletons += lens[s] == 2
    return not balanced or doubletons <= 1


@njit(cache=True)
def fitting_partner_hands(
    keys: np.ndarray, unseen: np.ndarray, ranges: np.ndarray, balanced: bool, wanted: int
) -> np.ndarray:
    """The first ``wanted`` (or fewer) hands ``int64[k, 13]``, cards sorted, in row order: row ``i`` is the 13
    unseen cards with the smallest ``keys[i]``, kept when it lies within ``ranges`` (HCP low, high, then each
    suit's length low, high) and is balanced when ``balanced``."""
    out = np.empty((min(wanted, keys.shape[0]), 13), dtype=np.int64)
    found = 0
    best = np.empty(13, dtype=np.float64)
    cards = np.empty(13, dtype=np.int64)
    lens = np.zeros(4, dtype=np.int64)
    for i in range(keys.shape[0]):
        if found == wanted:
            break
        _smallest_keys(keys[i], unseen, best, cards)
        if _fits(cards, lens, ranges, balanced):
            out[found] = np.sort(cards)
            found += 1
    return out[:found]
