"""A fixed pool of deals with their double-dummy trick tables, multiplied by permuting the suits.

Solving double dummy while training costs far more than the training (about 15 cells a deal at
7-15 ms a cell), so a pool of deals is solved once (``dd_trick_tables``, through the cache) and the
training draws from it. Renaming the suits (clubs to hearts, ...) gives another deal with the
same tables, the strains renamed alike: 24 deals for each one solved.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tribridge.dealing.random import deal_batch
from tribridge.errors import InvalidInput
from tribridge.selfplay.contracts import dd_trick_tables

__all__ = ["POOL_SEED", "SUIT_PERMUTATIONS", "DealPool", "permute_suits"]

POOL_SEED = 20_261_205
"""The seed of the pool's deals (one stream for every training run, so their tables are solved once)."""
SUIT_PERMUTATIONS = np.array(list(itertools.permutations(range(4))), dtype=np.int64)
"""``int64[24, 4]``: row ``p`` sends suit ``s`` (0..3 clubs .. spades) to suit ``SUIT_PERMUTATIONS[p, s]``."""


def permute_suits(owners: np.ndarray, tables: np.ndarray, permutations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The deals with their suits renamed by ``permutations`` (``int[n, 4]``), and their tables alike.

    ``owners`` is ``uint8[n, 52]`` (card ``13 * suit + rank``), ``tables`` ``uint8[n, 3, 5]``
    (strains C D H S NT); NT stays NT.
    """
    n = len(owners)
    perm = np.asarray(permutations, np.int64)
    rows = np.arange(n)[:, None]
    cards = (perm[:, :, None] * 13 + np.arange(13)[None, None, :]).reshape(n, 52)  # where each card goes
    moved = np.empty_like(owners)
    moved[rows, cards] = owners
    strains = np.concatenate([perm, np.full((n, 1), 4, np.int64)], axis=1)  # old strain -> new strain
    renamed = np.empty_like(tables)
    renamed[rows, :, strains] = tables.transpose(0, 2, 1)
    return moved, renamed


@dataclass
class DealPool:
    """``size`` deals of ``POOL_SEED``'s stream (deal ``i`` dealt by seat ``i % 4``) with their tables."""

    owners: np.ndarray  # uint8[size, 52]
    dealers: np.ndarray  # int64[size]
    tables: np.ndarray  # uint8[size, 3, 5]: dd_trick_tables

    @classmethod
    def solve(
        cls, size: int, cache: Any = True, workers: int | None = None, on_progress: Callable[[int], None] | None = None
    ) -> DealPool:
        """The pool of ``size`` deals, its tables solved (or read from the double-dummy cache)."""
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
            raise InvalidInput("pool", f"expected a positive number of deals, got {size!r}")
        owners = deal_batch(int(size), POOL_SEED)
        dealers = np.arange(int(size), dtype=np.int64) % 4
        tables = dd_trick_tables(owners, dealers, cache=cache, workers=workers, on_progress=on_progress)
        return cls(owners, dealers, tables)

    def draw(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(owners, dealers, tables) of ``n`` deals drawn with replacement, each with a random renaming of its suits."""
        picked = rng.integers(len(self.owners), size=n)
        perms = SUIT_PERMUTATIONS[rng.integers(len(SUIT_PERMUTATIONS), size=n)]
        owners, tables = permute_suits(self.owners[picked], self.tables[picked], perms)
        return owners, self.dealers[picked], tables
