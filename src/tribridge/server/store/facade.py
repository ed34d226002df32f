"""``AsyncStore``: the one way async code reaches the game store (its calls run on the store's threads).

The backends are synchronous (sqlite3, psycopg's pool); a call made on the event loop would stop every
table of the process while it waits for the disk or the database. ``AsyncStore`` runs each ``Store``
method on a small pool of threads of its own and is awaited. The exceptions are the most frequent calls,
an action's append, and the catch-up reads of the log: where the backend sends them from the loop itself
(``TableLog.loop_log``: PostgreSQL's asynchronous driver, ``postgres_loop``) they are awaited there,
without a thread. It waits for a lease without sleeping: ``wait_for_lease`` polls with ``asyncio.sleep``
until a deadline. Code that runs on a thread already (the post-deal analysis) uses the synchronous store,
``AsyncStore.sync``.
"""

from __future__ import annotations

import asyncio
import functools
import time
from collections.abc import AsyncIterator, Callable, Collection
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from tribridge.server.store.interface import (
    LoggedAction,
    LoopLog,
    Seats,
    Store,
    StoredTable,
    TableActivity,
    open_store,
)
from tribridge.server.tables.wire import TableAction, TableConfig

__all__ = ["STORE_THREADS", "AsyncStore", "open_async_store"]

T = TypeVar("T")

STORE_THREADS = 4  # threads that wait for the store's commits and reads (SQLite's lock lets one in at a time)


async def open_async_store(url_or_path: str | Path, threads: int = STORE_THREADS) -> AsyncStore:
    """Open (creating and migrating as needed) a store, on a thread, behind an ``AsyncStore``."""
    return AsyncStore(await asyncio.to_thread(open_store, url_or_path), threads)


class AsyncStore:
    """A ``Store`` whose every method is awaited: it runs on the store's threads (an append or a log read, where
    the backend can, on the loop's own connections), never blocking the event loop."""

    def __init__(self, store: Store, threads: int = STORE_THREADS) -> None:
        self.sync = store
        self.shared = store.shared
        self._threads = ThreadPoolExecutor(threads, thread_name_prefix="tribridge-store")
        self._loop_log = store.loop_log()

    async def call(self, method: Callable[..., T], *args: Any) -> T:
        """Run one synchronous store call on the store's threads and await its result."""
        return await asyncio.get_running_loop().run_in_executor(self._threads, functools.partial(method, *args))

    def _on_loop(self) -> LoopLog | None:
        """The backend's appends and log reads from the event loop, when it has them and they may be sent now."""
        return self._loop_log if self._loop_log is not None and self._loop_log.usable() else None

    async def close(self) -> None:
        """Let the calls under way finish, then close the store (on a thread)."""
        if self._loop_log is not None:
            await self._loop_log.close()
        await asyncio.to_thread(self._threads.shutdown, True)
        await asyncio.to_thread(self.sync.close)

    def listen(self, groups: Callable[[], Collection[int]] | None = None) -> AsyncIterator[str]:
        """Every process's commits as they happen, of the notice groups ``groups()`` (``Coordination.listen``;
        asynchronous already)."""
        return self.sync.listen(groups)

    async def can_commit(self) -> str | None:
        """None when a write commits right now, else why not (``/healthz``)."""
        return await self.call(self.sync.can_commit)

    # --- table log ------------------------------------------------------------------------------
    async def create_table(self, table_id: str, config: TableConfig, creator: str | None = None) -> None:
        """Record a new table (``TableLog.create_table``)."""
        await self.call(self.sync.create_table, table_id, config, creator)

    async def set_token(self, table_id: str, chair: int, token: str, name: str | None = None) -> bool:
        """Store a chair's token hash; False if the chair was taken (``TableLog.set_token``)."""
        return await self.call(self.sync.set_token, table_id, chair, token, name)

    async def append_action(self, table_id: str, seq: int, chair: int | None, action: TableAction) -> None:
        """Commit action ``seq`` of a table's log; ``SeqTaken`` if that number exists (from the loop where the
        backend can, ``TableLog.loop_log``)."""
        if (on_loop := self._on_loop()) is not None:
            await on_loop.append_action(table_id, seq, chair, action, self.call)
            return
        await self.call(self.sync.append_action, table_id, seq, chair, action)

    async def actions_since(self, table_id: str, seq: int) -> list[LoggedAction]:
        """A table's logged actions numbered above ``seq``, in order (from the loop where the backend can)."""
        if (on_loop := self._on_loop()) is not None:
            return await on_loop.actions_since(table_id, seq, self.call)
        return await self.call(self.sync.actions_since, table_id, seq)

    async def actions_after(self, since: dict[str, int]) -> dict[str, list[LoggedAction]]:
        """Each table's logged actions numbered above ``since[table_id]``, in order (from the loop where the backend
        can)."""
        if (on_loop := self._on_loop()) is not None:
            return await on_loop.actions_after(since, self.call)
        return await self.call(self.sync.actions_after, since)

    async def table_ids(self) -> list[str]:
        """Every stored table id, oldest first."""
        return await self.call(self.sync.table_ids)

    async def load(self, table_id: str) -> StoredTable | None:
        """A table's configuration, token hashes, names and actions, or None if unknown."""
        return await self.call(self.sync.load, table_id)

    async def seats(self, table_id: str) -> Seats:
        """A table's taken chairs, as committed."""
        return await self.call(self.sync.seats, table_id)

    async def touch(self, table_id: str) -> None:
        """Record activity at a table now."""
        await self.call(self.sync.touch, table_id)

    async def recent_tables(self, since: float) -> list[TableActivity]:
        """Tables created or active at or after ``since``."""
        return await self.call(self.sync.recent_tables, since)

    # --- coordination ---------------------------------------------------------------------------
    async def acquire_lease(self, key: str, owner: str, seconds: float) -> bool:
        """Take (or renew) the lease ``key`` for ``seconds``; False while another owner holds it."""
        return await self.call(self.sync.acquire_lease, key, owner, seconds)

    async def wait_for_lease(self, key: str, owner: str, seconds: float, deadline: float, poll: float) -> bool:
        """Take the lease ``key``, trying every ``poll`` seconds (awaited, never slept) until the ``time.monotonic``
        ``deadline``; False if it was not had by then."""
        while not await self.acquire_lease(key, owner, seconds):
            if time.monotonic() + poll > deadline:
                return False
            await asyncio.sleep(poll)
        return True

    async def release_lease(self, key: str, owner: str) -> None:
        """Give up the lease ``key`` if ``owner`` holds it."""
        await self.call(self.sync.release_lease, key, owner)

    async def report_sockets(self, owner: str, counts: dict[str, int]) -> None:
        """Replace process ``owner``'s socket counts per table (and its heartbeat)."""
        await self.call(self.sync.report_sockets, owner, counts)

    async def socket_count(self, table_id: str, fresh_seconds: float, other_than: str | None = None) -> int:
        """Sockets on a table summed over the processes with a fresh heartbeat (but ``other_than``)."""
        return await self.call(self.sync.socket_count, table_id, fresh_seconds, other_than)

    # --- documents ------------------------------------------------------------------------------
    async def put_analysis(self, table_id: str, deal_no: int, document: str) -> None:
        """Store (or replace) the JSON text of a deal's post-deal analysis."""
        await self.call(self.sync.put_analysis, table_id, deal_no, document)

    async def get_analysis(self, table_id: str, deal_no: int) -> str | None:
        """The JSON text of a deal's stored analysis, or None."""
        return await self.call(self.sync.get_analysis, table_id, deal_no)

    async def put_event(self, event_id: str, document: str) -> None:
        """Store (or replace) an event's JSON document."""
        await self.call(self.sync.put_event, event_id, document)

    async def load_event(self, event_id: str) -> str | None:
        """An event's JSON document, or None if unknown."""
        return await self.call(self.sync.load_event, event_id)

    async def event_ids(self) -> list[str]:
        """Every stored event id, oldest first."""
        return await self.call(self.sync.event_ids)
