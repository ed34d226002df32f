"""Seeds become random streams here, and only here.

A seed (a non-negative int, a ``SeedSequence``, or None for fresh entropy) and optional integer
keys (a run, a block of deals, a deal, a position hash) name one stream: the ``SeedSequence``
child at spawn key ``keys`` under the seed's root. So ``stream(seed, r, b)`` is
``SeedSequence(seed).spawn(..)[r].spawn(..)[b]``, and a stream never depends on how work is split.
"""

from __future__ import annotations

import numpy as np

from tribridge.errors import InvalidInput

__all__ = ["random_stream", "seed_sequence", "seed_stream"]

Seed = int | np.integer | np.random.SeedSequence | None


def seed_sequence(seed: Seed) -> np.random.SeedSequence:
    """The root ``SeedSequence`` of a seed (fresh entropy for ``None``)."""
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if seed is None:
        return np.random.SeedSequence()
    if isinstance(seed, (bool, float)) or not isinstance(seed, (int, np.integer)) or int(seed) < 0:
        raise InvalidInput("seed", f"expected a non-negative integer, got {seed!r}")
    return np.random.SeedSequence(int(seed))


def seed_stream(seed: Seed, *keys: int) -> np.random.SeedSequence:
    """The ``SeedSequence`` of the stream named by ``seed`` and ``keys`` (the root itself without keys)."""
    root = seed_sequence(seed)
    if not keys:
        return root
    return np.random.SeedSequence(
        root.entropy, spawn_key=tuple(root.spawn_key) + tuple(int(k) for k in keys), pool_size=root.pool_size
    )


def random_stream(seed: Seed, *keys: int) -> np.random.Generator:
    """A numpy ``Generator`` on the stream named by ``seed`` and ``keys``."""
    return np.random.default_rng(seed_stream(seed, *keys))
