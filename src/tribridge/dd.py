"""Double-dummy facade over endplay/DDS: tables, NT tricks and position solves, cached and parallel.

Everything that talks to DDS lives here:

* conversion of our :class:`tribridge.cards.Deal` to endplay's ``Deal`` and back (one place);
* double-dummy tables for any number of deals (chunked to DDS's limits: 40 deals with all five
  strains, 200 with NT only), parallel across worker *processes* (DDS keeps per-thread global
  state, so inside one process every DDS call is serialised by a lock);
* an on-disk SQLite cache keyed by the deal, so repeated studies cost nothing;
* one-position solves (tricks for every legal card of the side on turn) for the PIMC bots.

Array conventions: a batch of deals is ``uint8[n, 52]`` (owner seat of each card), a batch of
tables is ``uint8[n, 4, 5]`` indexed [declarer seat N E S W, strain C D H S NT].
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import sqlite3
import threading
import warnings
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from tribridge.cards import SEAT_CHARS, Card, Deal, Seat
from tribridge.errors import InvalidInput

STRAIN_NAMES = ("C", "D", "H", "S", "NT")
NT = 4
MAX_FULL_TABLES = 40  # DDS: deals per CalcAllTables call with all five strains
MAX_NT_TABLES = 200  # DDS: deals per call with one strain
MAX_BOARDS = 200  # DDS: boards per SolveAllBoards call
UNKNOWN = 255  # cache marker for a strain not computed yet

_DDS_LOCK = threading.Lock()  # never two DDS calls at once from threads of one process
# our rank r (0 = Ace) -> DDS rank bit (Ace = 1 << 14, two = 1 << 2)
_DDS_RANK_BIT = [1 << (14 - r) for r in range(13)]


# --------------------------------------------------------------------------- conversion


def _as_owners(deals: Any, field: str = "deals") -> np.ndarray:
    """A ``uint8[n, 52]`` owner batch from a Deal, a list of Deals or an owner array."""
    if isinstance(deals, Deal):
        return deals.to_owners()[None, :]
    if isinstance(deals, np.ndarray):
        arr = deals
    else:
        items = list(deals)
        if not items:
            return np.zeros((0, 52), dtype=np.uint8)
        if all(isinstance(d, Deal) for d in items):
            return np.stack([d.to_owners() for d in items])
        arr = np.asarray(items)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != 52:
        raise InvalidInput(field, f"expected deals as uint8[n, 52] owners, got shape {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() > 3):
        raise InvalidInput(field, "owner seats must be 0..3")
    arr = arr.astype(np.uint8, copy=False)
    if arr.size and not np.all((arr[:, :, None] == np.arange(4, dtype=np.uint8)).sum(axis=1) == 13):
        raise InvalidInput(field, "every deal must give 13 cards to each seat")
    return arr


def _fill_remain_cards(remain: Any, owners: np.ndarray) -> None:
    """Write an owner row (values > 3 = card gone) into a DDS ``remainCards[4][4]`` array."""
    for seat in range(4):
        for dds_suit in range(4):
            remain[seat][dds_suit] = 0
    for c in range(52):
        seat = int(owners[c])
        if seat < 4:
            remain[seat][3 - c // 13] |= _DDS_RANK_BIT[c % 13]


def _owners_from_remain_cards(remain: Any) -> np.ndarray:
    """The owner row (255 where nobody holds the card) of a DDS ``remainCards`` array."""
    owners = np.full(52, UNKNOWN, dtype=np.uint8)
    for seat in range(4):
        for dds_suit in range(4):
            bits = int(remain[seat][dds_suit])
            for r in range(13):
                if bits & _DDS_RANK_BIT[r]:
                    owners[(3 - dds_suit) * 13 + r] = seat
    return owners


def to_endplay(deal: Deal, first: int = Seat.N, trump: int | None = None) -> Any:
    """endplay ``Deal`` with the same hands; ``first`` on lead, ``trump`` 0..3 (C..S) or None for NT."""
    from endplay.types import Deal as EpDeal

    ep = EpDeal()
    _fill_remain_cards(ep._data.remainCards, deal.to_owners())
    ep._data.first = int(first)
    ep._data.trump = _dds_strain(NT if trump is None else int(trump))
    return ep


def from_endplay(ep_deal: Any) -> Deal:
    """Our :class:`Deal` from a full (13 cards a hand) endplay ``Deal``."""
    owners = _owners_from_remain_cards(ep_deal._data.remainCards)
    if np.any(owners == UNKNOWN):
        raise InvalidInput("deal", "the endplay deal does not hold all 52 cards")
    return Deal.from_owners(owners)


def from_card(ep_card: Any) -> int:
    """Our card index of an endplay ``Card``."""
    suit = 3 - int(ep_card.suit)  # endplay: S=0 H=1 D=2 C=3
    rank_bit = int(ep_card.rank)  # endplay: two = 0x4 ... Ace = 0x4000
    return suit * 13 + (14 - rank_bit.bit_length() + 1)


def _dds_strain(strain: int) -> int:
    """DDS strain code (S=0 H=1 D=2 C=3 NT=4) of our strain (C=0 D=1 H=2 S=3 NT=4)."""
    return NT if strain == NT else 3 - strain


# --------------------------------------------------------------------------- DDS kernels (run in-process or in a worker)


def _tables_chunk(owners: np.ndarray, nt_only: bool) -> np.ndarray:
    """DDS tables ``uint8[n, 4, 5]`` for at most 40 (all strains) / 200 (NT only) deals."""
    import endplay._dds as _dds

    n = len(owners)
    limit = MAX_NT_TABLES if nt_only else MAX_FULL_TABLES
    if n > limit:
        raise ValueError(f"at most {limit} deals per DDS call, got {n}")
    out = np.full((n, 4, 5), UNKNOWN, dtype=np.uint8)
    if n == 0:
        return out
    table_deals = _dds.ddTableDeals()
    table_deals.noOfTables = n
    for i in range(n):
        _fill_remain_cards(table_deals.ddTableDeal[i].cards, owners[i])
    trump_filter = [True, True, True, True, False] if nt_only else [False] * 5
    results = _dds.ddTablesRes()
    par = _dds.allParResults()
    with _DDS_LOCK:
        _dds.CalcAllTables(table_deals, -1, trump_filter, results, par)
    strains = [NT] if nt_only else range(5)
    for i in range(n):
        res = results.results[i].resTable
        for strain in strains:
            row = res[_dds_strain(strain)]
            for seat in range(4):
                out[i, seat, strain] = row[seat]
    return out


def _tables_batch(owners: np.ndarray, nt_only: bool) -> np.ndarray:
    """DDS tables for any number of deals, in chunks, in this process."""
    limit = MAX_NT_TABLES if nt_only else MAX_FULL_TABLES
    parts = [_tables_chunk(owners[i : i + limit], nt_only) for i in range(0, len(owners), limit)]
    return np.concatenate(parts) if parts else np.zeros((0, 4, 5), dtype=np.uint8)


def _declarer_chunk(owners: np.ndarray, declarers: np.ndarray, strains: np.ndarray) -> np.ndarray:
    """DD tricks ``uint8[n]`` of each deal's declarer in its strain: one DDS solve with the declarer's LHO on lead."""
    import endplay._dds as _dds

    n = len(owners)
    if n > MAX_BOARDS:
        raise ValueError(f"at most {MAX_BOARDS} boards per DDS call, got {n}")
    out = np.zeros(n, dtype=np.uint8)
    if n == 0:
        return out
    boards = _dds.boards()
    boards.noOfBoards = n
    for i in range(n):
        deal = boards.deals[i]
        _fill_remain_cards(deal.remainCards, owners[i])
        deal.trump = _dds_strain(int(strains[i]))
        deal.first = (int(declarers[i]) + 1) % 4
        for k in range(3):
            deal.currentTrickSuit[k] = 0
            deal.currentTrickRank[k] = 0
        boards.target[i] = -1
        boards.solutions[i] = 1
        boards.mode[i] = 1
    solved = _dds.solvedBoards()
    with _DDS_LOCK:
        _dds.SolveAllBoardsBin(boards, solved)
    for i in range(n):
        out[i] = 13 - int(solved.solvedBoard[i].score[0])
    return out


def _worker_init() -> None:
    """Pool worker start: one DDS thread per worker process (processes give the parallelism)."""
    import endplay._dds as _dds

    _dds.SetMaxThreads(1)


# --------------------------------------------------------------------------- process pool

_POOL: ProcessPoolExecutor | None = None
_POOL_SIZE = 0


def default_workers() -> int:
    """Worker processes to use: ``TRIBRIDGE_DD_WORKERS`` or the CPU count (1 inside a daemon process)."""
    env = os.environ.get("TRIBRIDGE_DD_WORKERS")
    if env:
        try:
            return max(1, int(env))
        except ValueError as exc:
            raise InvalidInput("TRIBRIDGE_DD_WORKERS", f"expected an integer, got {env!r}") from exc
    if multiprocessing.current_process().daemon:
        return 1  # a pool worker may not start children
    return max(1, os.cpu_count() or 1)


def _pool(workers: int) -> ProcessPoolExecutor:
    """The module's process pool (spawn context, so it is safe whatever threads DDS started)."""
    global _POOL, _POOL_SIZE
    if _POOL is None or _POOL_SIZE != workers:
        shutdown_pool()
        _POOL = ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_init
        )
        _POOL_SIZE = workers
    return _POOL


def shutdown_pool() -> None:
    """Stop the worker processes (they restart on the next parallel call)."""
    global _POOL, _POOL_SIZE
    if _POOL is not None:
        _POOL.shutdown(wait=True, cancel_futures=True)
    _POOL, _POOL_SIZE = None, 0


atexit.register(shutdown_pool)


def _run_chunks(
    fn: Callable[..., np.ndarray],
    arrays: tuple[np.ndarray, ...],
    extra: tuple[Any, ...],
    limit: int,
    pool_chunk: int,
    workers: int | None,
    on_progress: Callable[[int], None] | None,
) -> np.ndarray:
    """Apply a DDS chunk function over row-aligned arrays, in this process or across the worker pool."""
    n = len(arrays[0])
    workers = default_workers() if workers is None else max(1, int(workers))
    parts: list[np.ndarray] = []
    if workers == 1 or n < 2 * workers:
        for i in range(0, n, limit):
            parts.append(fn(*(a[i : i + limit] for a in arrays), *extra))
            if on_progress:
                on_progress(len(parts[-1]))
        return np.concatenate(parts)
    # small chunks balance the workers; at most the DDS limit per call
    size = max(1, min(limit, pool_chunk, -(-n // (workers * 2))))
    try:
        pool = _pool(workers)
        futures = [pool.submit(fn, *(a[i : i + size] for a in arrays), *extra) for i in range(0, n, size)]
        for fut in futures:
            parts.append(fut.result())
            if on_progress:
                on_progress(len(parts[-1]))
    except BrokenProcessPool:
        # e.g. a script without the ``if __name__ == "__main__":`` guard that spawn needs
        shutdown_pool()
        warnings.warn("double-dummy worker processes failed to start; solving in this process", RuntimeWarning)
        return _run_chunks(fn, arrays, extra, limit, pool_chunk, 1, on_progress)
    return np.concatenate(parts)


def _compute_tables(
    owners: np.ndarray,
    nt_only: bool,
    workers: int | None,
    on_progress: Callable[[int], None] | None,
) -> np.ndarray:
    """Solve the tables of ``owners`` in this process or across the worker pool."""
    if len(owners) == 0:
        return np.zeros((0, 4, 5), dtype=np.uint8)
    limit = MAX_NT_TABLES if nt_only else MAX_FULL_TABLES
    return _run_chunks(_tables_chunk, (owners,), (nt_only,), limit, 25 if nt_only else 10, workers, on_progress)


# --------------------------------------------------------------------------- cache


def default_cache_path() -> Path:
    """``$TRIBRIDGE_DD_CACHE`` or ``<user cache dir>/tribridge/dd.sqlite``."""
    env = os.environ.get("TRIBRIDGE_DD_CACHE")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tribridge" / "dd.sqlite"


def deal_keys(owners: np.ndarray) -> list[bytes]:
    """13-byte cache keys: the owner seats packed four cards to a byte."""
    o = np.asarray(owners, dtype=np.uint8).reshape(-1, 13, 4)
    packed = (o[..., 0] | (o[..., 1] << 2) | (o[..., 2] << 4) | (o[..., 3] << 6)).astype(np.uint8)
    return [row.tobytes() for row in packed]


class DDCache:
    """SQLite store of double-dummy tables keyed by the deal (20 bytes a deal; 255 = not computed)."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("CREATE TABLE IF NOT EXISTS dd (deal BLOB PRIMARY KEY, tricks BLOB NOT NULL)")
        self._conn.commit()
        self._lock = threading.Lock()

    def get(self, owners: np.ndarray) -> np.ndarray:
        """Stored tables ``uint8[n, 4, 5]`` (255 where nothing is stored)."""
        keys = deal_keys(owners)
        out = np.full((len(keys), 4, 5), UNKNOWN, dtype=np.uint8)
        if not keys:
            return out
        index: dict[bytes, list[int]] = {}
        for i, k in enumerate(keys):
            index.setdefault(k, []).append(i)
        unique = list(index)
        with self._lock:
            for start in range(0, len(unique), 500):
                part = unique[start : start + 500]
                rows = self._conn.execute(
                    f"SELECT deal, tricks FROM dd WHERE deal IN ({','.join('?' * len(part))})", part
                ).fetchall()
                for key, tricks in rows:
                    table = np.frombuffer(tricks, dtype=np.uint8).reshape(4, 5)
                    for i in index[key]:
                        out[i] = table
        return out

    def put(self, owners: np.ndarray, tables: np.ndarray) -> None:
        """Store tables, merging with what is stored (known entries win over 255)."""
        if len(owners) == 0:
            return
        stored = self.get(owners)
        merged = np.where(tables == UNKNOWN, stored, tables).astype(np.uint8)
        keys = deal_keys(owners)
        with self._lock:
            self._conn.executemany(
                "INSERT OR REPLACE INTO dd (deal, tricks) VALUES (?, ?)",
                [(k, merged[i].tobytes()) for i, k in enumerate(keys)],
            )
            self._conn.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM dd").fetchone()[0])

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._conn.close()


_CACHES: dict[Path, DDCache] = {}


def _resolve_cache(cache: Any) -> DDCache | None:
    """``True``/None: the default cache; ``False``: none; a path or a DDCache: that one."""
    if cache is False:
        return None
    if isinstance(cache, DDCache):
        return cache
    path = default_cache_path() if cache is None or cache is True else Path(cache)
    path = path.expanduser().resolve()
    if path not in _CACHES:
        _CACHES[path] = DDCache(path)
    return _CACHES[path]


# --------------------------------------------------------------------------- tables


def dd_tables_array(
    deals: Any,
    nt_only: bool = False,
    cache: Any = True,
    workers: int | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Double-dummy tables ``uint8[n, 4, 5]`` [declarer seat, strain C D H S NT] (NT only: 255 elsewhere)."""
    owners = _as_owners(deals)
    store = _resolve_cache(cache)
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
    owners = _as_owners(deals)
    n = len(owners)
    try:
        decl = np.broadcast_to(np.asarray(declarers, dtype=np.int64), (n,)).copy()
    except ValueError as exc:
        raise InvalidInput("declarers", f"expected one seat or one per deal ({n}), got {np.shape(declarers)}") from exc
    if decl.size and (decl.min() < 0 or decl.max() > 3):
        raise InvalidInput("declarers", "declarer seats must be 0..3")
    try:
        strain = np.broadcast_to(np.asarray(strains, dtype=np.int64), (n,)).copy()
    except (ValueError, TypeError) as exc:
        raise InvalidInput("strains", f"expected one strain or one per deal ({n}), got {np.shape(strains)}") from exc
    if strain.size and (strain.min() < 0 or strain.max() > 4):
        raise InvalidInput("strains", "strains must be 0..4 (C D H S NT)")
    store = _resolve_cache(cache)
    tables = store.get(owners) if store is not None else np.full((n, 4, 5), UNKNOWN, np.uint8)
    rows = np.arange(n)
    tricks = tables[rows, decl, strain].copy()
    todo = np.flatnonzero(tricks == UNKNOWN)
    if on_progress and n - len(todo):
        on_progress(n - len(todo))
    if len(todo):
        solved = _run_chunks(_declarer_chunk, (owners[todo], decl[todo], strain[todo]), (), MAX_BOARDS, 25, workers,
                             on_progress)
        tricks[todo] = solved
        if store is not None:
            fresh = np.full((len(todo), 4, 5), UNKNOWN, np.uint8)
            fresh[np.arange(len(todo)), decl[todo], strain[todo]] = solved
            store.put(owners[todo], fresh)
    return tricks.astype(np.int64)


# --------------------------------------------------------------------------- positions (partial play)


@dataclass(frozen=True)
class Position:
    """A position in the play: cards still held, trump, who led the current trick and its cards.

    ``hands``: the cards each seat N E S W still holds (cards already on the current trick are not
    in any hand); ``trump``: suit 0..3 (C D H S) or None for NT; ``leader``: the seat that led
    (or will lead) the current trick; ``trick``: card indices played to it so far, in order (0..3).
    """

    hands: tuple[frozenset[int], frozenset[int], frozenset[int], frozenset[int]]
    trump: int | None
    leader: int
    trick: tuple[int, ...] = ()

    @property
    def turn(self) -> int:
        """The seat whose card is next."""
        return (self.leader + len(self.trick)) % 4

    def validate(self) -> None:
        """Raise InvalidInput unless the position is consistent (hand sizes, no repeats, follow suit)."""
        if len(self.hands) != 4:
            raise InvalidInput("position.hands", "expected 4 hands")
        if not 0 <= int(self.leader) <= 3:
            raise InvalidInput("position.leader", f"expected a seat 0..3, got {self.leader}")
        if self.trump is not None and not 0 <= int(self.trump) <= 4:
            raise InvalidInput("position.trump", f"expected a suit 0..3 or None, got {self.trump}")
        if len(self.trick) > 3:
            raise InvalidInput("position.trick", "at most 3 cards can be on an unfinished trick")
        seen: set[int] = set()
        for cards in list(self.hands) + [frozenset(self.trick)]:
            if seen & set(cards):
                raise InvalidInput("position", f"card {Card(min(seen & set(cards)))} appears twice")
            seen |= set(cards)
        if len(set(self.trick)) != len(self.trick):
            raise InvalidInput("position.trick", "a card appears twice on the trick")
        size = len(self.hands[self.leader]) + (1 if self.trick else 0)
        for k in range(4):
            seat = (self.leader + k) % 4
            expect = size - 1 if k < len(self.trick) else size
            if len(self.hands[seat]) != expect:
                raise InvalidInput(
                    "position.hands",
                    f"{SEAT_CHARS[seat]} holds {len(self.hands[seat])} cards, expected {expect}",
                )
        if size == 0:
            raise InvalidInput("position", "no cards left to play")


def position_after(deal: Deal, trump: int | None, opening_leader: int, played: Sequence[int | Card]) -> Position:
    """The position after ``played`` (card indices in play order from the opening lead), rules checked."""
    hands = [set(h.cards) for h in deal.hands]
    leader = int(opening_leader)
    trick: list[int] = []
    trump_suit = None if trump is None or int(trump) == NT else int(trump)
    for k, card in enumerate(played):
        c = card.index if isinstance(card, Card) else int(card)
        seat = (leader + len(trick)) % 4
        if c not in hands[seat]:
            raise InvalidInput(f"played[{k}]", f"{SEAT_CHARS[seat]} does not hold {Card(c)}")
        if trick and c // 13 != trick[0] // 13 and any(x // 13 == trick[0] // 13 for x in hands[seat]):
            raise InvalidInput(f"played[{k}]", f"{SEAT_CHARS[seat]} must follow suit, not play {Card(c)}")
        hands[seat].discard(c)
        trick.append(c)
        if len(trick) == 4:
            leader = (leader + _winning_index(trick, trump_suit)) % 4
            trick = []
    return Position(tuple(frozenset(h) for h in hands), trump_suit, leader, tuple(trick))  # type: ignore[arg-type]


def _winning_index(trick: Sequence[int], trump: int | None) -> int:
    """Index in ``trick`` of the winning card (lower rank index = higher card)."""
    led = trick[0] // 13
    best = 0
    for i, c in enumerate(trick[1:], start=1):
        b = trick[best]
        if c // 13 == b // 13:
            if c % 13 < b % 13:
                best = i
        elif trump is not None and c // 13 == trump and b // 13 != trump:
            best = i
        elif c // 13 == led and b // 13 not in (led, trump):
            best = i
    return best


def position_from_play_state(state: Any) -> Position:
    """A Position from a ``rules.play.PlayState`` (read by duck typing: deal, contract, played)."""
    contract = state.contract
    denom = int(contract.denom)
    declarer = int(contract.declarer)
    return position_after(state.deal, None if denom == NT else denom, (declarer + 1) % 4, list(state.played))


def _fill_dds_deal(target: Any, pos: Position) -> None:
    """Write a Position into a DDS ``deal`` struct."""
    owners = np.full(52, UNKNOWN, dtype=np.uint8)
    for seat, cards in enumerate(pos.hands):
        for c in cards:
            owners[c] = seat
    _fill_remain_cards(target.remainCards, owners)
    target.trump = _dds_strain(NT if pos.trump is None else int(pos.trump))
    target.first = int(pos.leader)
    for i in range(3):
        if i < len(pos.trick):
            c = pos.trick[i]
            target.currentTrickSuit[i] = 3 - c // 13
            target.currentTrickRank[i] = 14 - c % 13  # DDS rank 2..14
        else:
            target.currentTrickSuit[i] = 0
            target.currentTrickRank[i] = 0


def _read_future_tricks(fut: Any) -> dict[int, int]:
    """``{card index: tricks}`` from a DDS ``futureTricks`` (expanding equivalent cards)."""
    out: dict[int, int] = {}
    for i in range(fut.cards):
        score = int(fut.score[i])
        if score < 0:
            continue
        suit = 3 - int(fut.suit[i])
        holding = (1 << int(fut.rank[i])) | int(fut.equals[i])
        for r in range(13):
            if holding & _DDS_RANK_BIT[r]:
                out[suit * 13 + r] = score
    return out


def _as_position(item: Any) -> Position:
    if isinstance(item, Position):
        return item
    if hasattr(item, "played") and hasattr(item, "contract"):
        return position_from_play_state(item)
    raise InvalidInput("position", f"expected a Position or a PlayState, got {type(item).__name__}")


def solve_position(position: Any) -> dict[int, int]:
    """Tricks the side on turn takes from the current trick on, for each legal card: ``{card index: tricks}``.

    ``position``: a :class:`Position` (see :func:`position_after`) or a ``PlayState``.
    """
    return solve_positions([position])[0]


def solve_positions(positions: Iterable[Any], best_only: bool = False) -> list[dict[int, int]]:
    """:func:`solve_position` for many positions (e.g. PIMC layouts), batched through DDS SolveAllBoards.

    With ``best_only`` each answer holds only the cards that reach the best score (DDS solutions=2,
    cheaper than scoring every card).
    """
    import endplay._dds as _dds

    items = [_as_position(p) for p in positions]
    for p in items:
        p.validate()
    results: list[dict[int, int]] = []
    for start in range(0, len(items), MAX_BOARDS):
        chunk = items[start : start + MAX_BOARDS]
        boards = _dds.boards()
        boards.noOfBoards = len(chunk)
        for i, pos in enumerate(chunk):
            _fill_dds_deal(boards.deals[i], pos)
            boards.target[i] = -1
            boards.solutions[i] = 2 if best_only else 3
            boards.mode[i] = 1
        solved = _dds.solvedBoards()
        with _DDS_LOCK:
            _dds.SolveAllBoardsBin(boards, solved)
        results.extend(_read_future_tricks(solved.solvedBoard[i]) for i in range(len(chunk)))
    return results


__all__ = [
    "STRAIN_NAMES",
    "DDCache",
    "Position",
    "dd_declarer_tricks",
    "dd_nt_tricks",
    "dd_table",
    "dd_tables_array",
    "deal_keys",
    "default_cache_path",
    "from_card",
    "from_endplay",
    "position_after",
    "position_from_play_state",
    "shutdown_pool",
    "solve_position",
    "solve_positions",
    "table_to_dict",
    "to_endplay",
]
