"""A tiny study for checking the engine itself: one die roll per deal slot, drawn from the block streams."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from tribridge.sim.engine import ChunkOutput, ChunkSpec

__all__ = ["engine_check_chunk"]


def engine_check_chunk(chunk: ChunkSpec, params: Mapping[str, Any]) -> ChunkOutput:
    """A tiny study for checking the engine: a histogram of one die roll per deal slot, from the block streams."""
    sides = int(params.get("sides", 6))
    if params.get("sleep"):
        time.sleep(float(params["sleep"]))  # lets tests interrupt a run part-way
    rolls = []
    for block, lo, hi, seed_seq in chunk.blocks():
        rng = np.random.default_rng(seed_seq)
        offset = lo - block * chunk.block_size
        rolls.append(rng.integers(0, sides, size=offset + (hi - lo))[offset:])
    values = np.concatenate(rolls)
    partial = {
        "deals": int(values.size),
        "histogram": np.bincount(values, minlength=sides).astype(np.int64),
        "total": int(values.sum()),
    }
    rows = {"roll": values.astype(np.int8)} if params.get("rows") else None
    return ChunkOutput(partial, rows)
