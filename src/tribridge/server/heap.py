"""Short pauses of the garbage collector: the objects a server keeps for its whole life (modules, compiled
kernels, the bidder's tables) are frozen out of the collector's full passes (``gc.freeze``). In a warm server
process (about 140,000 objects once the robot bidder is loaded) one full pass took 50-130 ms on a 2-core
machine, during which the event loop answers nothing; with those objects frozen it takes about none."""

from __future__ import annotations

import gc

__all__ = ["freeze_heap", "freeze_heap_once"]

_frozen_for: set[str] = set()


def freeze_heap() -> None:
    """Collect what is garbage now, then freeze every object left (they are no longer scanned by full passes)."""
    gc.collect()
    gc.freeze()


def freeze_heap_once(reason: str) -> None:
    """:func:`freeze_heap` the first time it is called for ``reason`` in this process (e.g. after the first robot
    answer, which loads the bidder and its kernels); later calls cost nothing."""
    if reason not in _frozen_for:
        _frozen_for.add(reason)
        freeze_heap()
