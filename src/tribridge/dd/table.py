"""Double-dummy tables and single declarer cells, for any number of deals, cached and parallel.

DDS takes at most 40 deals a call with all five strains (200 with NT only, 200 boards for single
cells), so batches are chunked; with more than one worker the chunks run on the solver pool
(:mod:`tribridge.dd.pool`) in its ``BATCH`` class. A batch of tables is ``uint8[n, 4, 5]``
indexed [declarer seat N E S W, strain C D H S NT]; 255 marks a cell not computed.
"""

from __future__ import annotations

import warnings
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import numpy as np

from tribridge.cards import SEAT_CHARS, Deal, Seat
from tribridge.dd.cache import deal_keys, resolve_cache
from tribridge.dd.convert import as_owners
from tribridge.dd.dds import (
    MAX_BOARDS,
    MAX_FULL_TABLES,
    MAX_NT_TABLES,
    NT,
    STRAIN_NAMES,
    UNKNOWN,
    dds_strain,
    fill_remain_cards,
    require_dds,
)
from tribridge.dd.pool import DDS_LOCK, Priority, default_workers, routed_priority, shutdown_pool, solver_pool
from tribridge.errors import InvalidInput

__all__ = ["dd_declarer_tricks", "dd_nt_tricks", "dd_table", "dd_tables_array", "table_to_dict"]


def _tables_chunk(owners: np.ndarray, nt_only: bool) -> np.ndarray:
    """DDS tables ``uint8[n, 4, 5]`` for at most 40 (all strains) / 200 (NT only) deals."""
    dds = require_dds()
    n = len(owners)
    limit = MAX_NT_TABLES if nt_only else MAX_FULL_TABLES
    if n > limit:
        raise ValueError(f"at most {limit} deals per DDS call, got {n}")
    out = np.full((n, 4, 5), UNKNOWN, dtype=np.uint8)
    if n == 0:
        return out
    table_deals = dds.ddTableDeals()
    table_deals.noOfTables = n
    for i in range(n):
        fill_remain_cards(table_deals.ddTableDeal[i].cards, owners[i])
    trump_filter = [True, True, True, True, False] if nt_only else [False] * 5
    results = dds.ddTablesRes()
    par = dds.allParResults()
    with DDS_LOCK:
        dds.CalcAllTables(table_deals, -1, trump_filter, results, par)
    strains = [NT] if nt_only else range(5)
    for i in range(n):
        res = results.results[i].resTable
        for strain in strains:
            row = res[dds_strain(strain)]
            for seat in range(4):
                out[i, seat, strain] = row[seat]
    return out


def _declarer_chunk(owners: np.ndarray, declarers: np.ndarray, strains: np.ndarray) -> np.ndarray:
    """DD tricks ``uint8[n]`` of each deal's declarer in its strain: one DDS solve with the declarer's LHO on lead."""
    dds = require_dds()
    n = len(owners)
    if n > MAX_BOARDS:
        raise ValueError(f"at most {MAX_BOARDS} boards per DDS call, got {n}")
    out = np.zeros(n, dtype=np.uint8)
    if n == 0:
        return out
    boards = dds.boards()
    boards.noOfBoards = n
    for i in range(n):
        deal = boards.deals[i]
        fill_remain_cards(deal.remainCards, owners[i])
        deal.trump = dds_strain(int(strains[i]))
        deal.first = (int(declarers[i]) + 1) % 4
        for k in range(3):
            deal.currentTrickSuit[k] = 0
            deal.currentTrickRank[k] = 0
        boards.target[i] = -1
        boards.solutions[i] = 1
        boards.mode[i] = 1
    solved = dds.solvedBoards()
    with DDS_LOCK:
        dds.SolveAllBoardsBin(boards, solved)
    for i in range(n):
        out[i] = 13 - int(solved.solvedBoard[i].score[0])
    return out


def _run_chunks(
    fn: Callable[..., np.ndarray],
    arrays: tuple[np.ndarray, ...],
    extra: tuple[Any, ...],
    limit: int,
    pool_chunk: int,
    workers: int | None,
    on_progress: Callable[[int], None] | None,
) -> np.ndarray:
    """Apply a DDS chunk function over row-aligned arrays, in this process or on the solver pool.

    The pool is used with more than one worker (class BATCH) or inside a ``solving_at`` block (its class).
    """
    n = len(arrays[0])
    workers = default_workers() if workers is None else max(1, int(workers))
    priority = routed_priority()
    parts: list[np.ndarray] = []

    def collect(part: np.ndarray) -> None:
        parts.append(part)
        if on_progress:
            on_progress(len(part))

    if priority is None and (workers == 1 or n < 2 * workers):
        for i in range(0, n, limit):
            collect(fn(*(a[i : i + limit] for a in arrays), *extra))
        return np.concatenate(parts)
    try:
        pool = solver_pool(workers if priority is None else None)
        # small chunks balance the processes; at most the DDS limit per call; a window of chunks in flight
        size = max(1, min(limit, pool_chunk, -(-n // (pool.workers * 2))))
        pending: deque[Future[np.ndarray]] = deque()
        for i in range(0, n, size):
            if len(pending) >= 2 * pool.workers:
                collect(pending.popleft().result())
            pending.append(
                pool.submit(
                    fn,
                    *(a[i : i + size] for a in arrays),
                    *extra,
                    priority=Priority.BATCH if priority is None else priority,
                    block=priority is None,
                )
            )
        while pending:
            collect(pending.popleft().result())
    except BrokenProcessPool:
        # e.g. a script without the ``if __name__ == "__main__":`` guard that spawn needs
        shutdown_pool()
        warnings.warn(
            "double-dummy worker processes failed to start; solving in this process", RuntimeWarning, stacklevel=2
        )
        return _run_chunks(fn, arrays, extra, limit, pool_chunk, 1, on_progress)
    return np.concatenate(parts)


def _compute_tables(
    owners: np.ndarray,
    nt_only: bool,
    workers: int | None,
    on_progress: Callable[[int], None] | None,
) -> np.ndarray:
    """Solve the tables of ``owners`` in this process or on the solver pool."""
    if len(owners) == 0:
        return np.zeros((0, 4, 5), dtype=np.uint8)
    limit = MAX_NT_TABLES if nt_only else MAX_FULL_TABLES
    return _run_chunks(_tables_chunk, (owners,), (nt_only,), limit, 25 if nt_only else 10, workers, on_progress)


def dd_tables_array(
    deals: Any,
    nt_only: bool = False,
    cache: Any = True,
    workers: int | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Double-dummy tables ``uint8[n, 4, 5]`` [declarer seat, strain C D H S NT] (NT only: 255 elsewhere)."""
    require_dds()  # a cached answer never hides a missing solver
    owners = as_owners(deals)
    store = resolve_cache(cache)
    tables = store.get(owners) if store is not None else np.full((len(owners), 4, 5), UNKNOWN, np.uint8)
    needed = (tables[:, :, NT] == UNKNOWN).any(axis=1) if nt_only else (tables == UNKNOWN).any(axis=(1, 2))
    if on_progress and (~needed).any():
        on_progress(int((~needed).sum()))
    todo = np.flatnonzero(needed)
    if len(todo):
        # solve each distinct deal once
        keys = deal_keys(owners[todo])
        first_of: dict[bytes, int] = {}
        for j, k in enumerate(keys):
            first_of.setdefault(k, j)
        distinct = np.array(sorted(first_of.values()), dtype=np.int64)
        solved = _compute_tables(owners[todo[distinct]], nt_only, workers, on_progress)
        if store is not None:
            store.put(owners[todo[distinct]], solved)
        by_key = {keys[j]: solved[i] for i, j in enumerate(distinct)}
        for j, row in enumerate(todo):
            fresh = by_key[keys[j]]
            tables[row] = np.where(fresh == UNKNOWN, tables[row], fresh)
        if on_progress and len(todo) > len(distinct):
            on_progress(len(todo) - len(distinct))
    return tables


def table_to_dict(table: np.ndarray) -> dict[str, dict[str, int]]:
    """``{"N": {"C": 9, ..., "NT": 8}, ...}`` from one ``uint8[4, 5]`` table (omits 255 entries)."""
    return {
        SEAT_CHARS[seat]: {STRAIN_NAMES[s]: int(table[seat, s]) for s in range(5) if table[seat, s] != UNKNOWN}
        for seat in range(4)
    }


def dd_table(
    deals: Deal | Sequence[Deal] | np.ndarray,
    cache: Any = True,
    workers: int | None = None,
) -> list[dict[str, dict[str, int]]]:
    """Full double-dummy tables: per deal ``{"N": {"C": 9, "D": .., "H": .., "S": .., "NT": 8}, "E": ...}``."""
    tables = dd_tables_array(deals, nt_only=False, cache=cache, workers=workers)
    return [table_to_dict(t) for t in tables]


def dd_nt_tricks(
    deals: Deal | Sequence[Deal] | np.ndarray,
    declarers: int | Sequence[int] | np.ndarray = Seat.N,
    cache: Any = True,
    workers: int | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Double-dummy NT tricks ``int64[n]`` for the declarer of each deal (one seat or one per deal).

    Only the asked declarer is solved (one DDS search with the declarer's LHO on lead, about a third of
    an NT table's cost); the cache stores that one cell and answers from any table holding it.
    """
    return dd_declarer_tricks(deals, declarers, NT, cache=cache, workers=workers, on_progress=on_progress)


def _per_deal(values: Any, n: int, field: str, top: int, what: str, out_of_range: str) -> np.ndarray:
    """``values`` (one or one per deal) as ``int64[n]`` in 0..top, or InvalidInput naming ``field``."""
    try:
        out = np.broadcast_to(np.asarray(values, dtype=np.int64), (n,)).copy()
    except (ValueError, TypeError) as exc:
        raise InvalidInput(field, f"expected one {what} or one per deal ({n}), got {np.shape(values)}") from exc
    if out.size and (out.min() < 0 or out.max() > top):
        raise InvalidInput(field, out_of_range)
    return out


def dd_declarer_tricks(
    deals: Deal | Sequence[Deal] | np.ndarray,
    declarers: int | Sequence[int] | np.ndarray = Seat.N,
    strains: int | Sequence[int] | np.ndarray = NT,
    cache: Any = True,
    workers: int | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Double-dummy tricks ``int64[n]`` of each deal's declarer in its strain (0..3 C D H S, 4 NT).

    ``declarers`` and ``strains`` are one value or one per deal. Only the asked cell is solved (one DDS
    search with the declarer's LHO on lead); the cache stores that cell and answers from any table holding it.
    """
    require_dds()  # a cached answer never hides a missing solver
    owners = as_owners(deals)
    n = len(owners)
    decl = _per_deal(declarers, n, "declarers", 3, "seat", "declarer seats must be 0..3")
    strain = _per_deal(strains, n, "strains", 4, "strain", "strains must be 0..4 (C D H S NT)")
    store = resolve_cache(cache)
    tables = store.get(owners) if store is not None else np.full((n, 4, 5), UNKNOWN, np.uint8)
    tricks = tables[np.arange(n), decl, strain].copy()
    todo = np.flatnonzero(tricks == UNKNOWN)
    if on_progress and n - len(todo):
        on_progress(n - len(todo))
    if len(todo):
        solved = _run_chunks(
            _declarer_chunk, (owners[todo], decl[todo], strain[todo]), (), MAX_BOARDS, 25, workers, on_progress
        )
        tricks[todo] = solved
        if store is not None:
            fresh = np.full((len(todo), 4, 5), UNKNOWN, np.uint8)
            fresh[np.arange(len(todo)), decl[todo], strain[todo]] = solved
            store.put(owners[todo], fresh)
    return tricks.astype(np.int64)
