"""The table log's appends and catch-up reads sent from the event loop itself: PostgreSQL through psycopg's
asynchronous pool.

An action's append is the server's most frequent store call (one a card); a catch-up read of the log comes
with most actions when a table's sockets are spread over processes. Run on a store thread, each one
hands the interpreter's lock to that thread and back; under a CPU quota the thread often waits for its turn
while the loop, with nothing else to do, waits for it (a quarter of a core: the loop idle 12 % of the time it
had, ``docs/deploy.md``). Sent from the loop, the append is one more socket the loop waits on among the
others (a read likewise). Only the first try is made here: when the connection is lost, or the database refuses for any
reason but the number being taken, the store's threads take the append over (``append_action_again``),
where ``PostgresStore`` decides from the row whether the lost commit went through and tries once more; a
read that fails here is made again there.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

import psycopg
import psycopg_pool

from tribridge.server.store.interface import LoggedAction, SeqTaken
from tribridge.server.tables.wire import TableAction

__all__ = ["LOOP_CONNECTIONS", "LoopConnections", "OnThreads", "Read", "psycopg_sql"]

log = logging.getLogger("tribridge.server.tables")

LOOP_CONNECTIONS = 4  # the loop's own connections at most (beside the store threads' pool and the listener's)

OnThreads = Callable[..., Awaitable[Any]]  # ``AsyncStore.call``: a synchronous store call run on the store's threads

T = TypeVar("T")


def psycopg_sql(sql: str) -> str:
    """A statement written with the store's ``?`` placeholders in psycopg's (``%s``)."""
    return sql.replace("?", "%s")


@dataclass(frozen=True)
class Read(Generic[T]):
    """One read statement (``?`` placeholders) and what its rows become."""

    sql: str
    params: tuple[Any, ...]
    parse: Callable[[list[tuple[Any, ...]]], T]


class _Backend(Protocol):
    """What the appends and reads need of ``PostgresStore`` (which makes them: ``PostgresStore.loop_log``)."""

    url: str
    wait_timeout: float
    unreachable: bool

    def action_statement(
        self, table_id: str, seq: int, chair: int | None, action: TableAction, now: float
    ) -> tuple[str, tuple[Any, ...]]:
        """The statement that logs an action (``?`` placeholders)."""

    def append_action_again(self, table_id: str, seq: int, chair: int | None, action: TableAction, now: float) -> None:
        """The append decided and finished on a store thread after a try whose outcome is unknown."""

    def actions_since(self, table_id: str, seq: int) -> list[LoggedAction]:
        """The read of a table's log on a store thread."""

    def actions_since_read(self, table_id: str, seq: int) -> Read[list[LoggedAction]]:
        """The statement of ``actions_since``."""

    def actions_after(self, since: dict[str, int]) -> dict[str, list[LoggedAction]]:
        """The read of several tables' logs on a store thread."""

    def actions_after_read(self, since: dict[str, int]) -> Read[dict[str, list[LoggedAction]]]:
        """The statement of ``actions_after``."""


class LoopConnections:
    """A ``PostgresStore``'s appends and log reads tried once on the running event loop, on a pool of its own
    opened on first use (the loop it was opened on is the only one it serves)."""

    def __init__(self, store: _Backend, reconnect_seconds: float, connections: int = LOOP_CONNECTIONS) -> None:
        self.store = store
        self.reconnect_seconds = reconnect_seconds
        self.connections = connections
        self._pool: psycopg_pool.AsyncConnectionPool[Any] | None = None
        self._opening: asyncio.Task[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def usable(self) -> bool:
        """Whether an append or a read may be tried here now: on the loop the pool belongs to (or before it is
        opened), and not while the store's own pool finds the database unreachable (its short wait answers sooner)."""
        return not self.store.unreachable and self._loop in (None, asyncio.get_running_loop())

    async def append_action(
        self, table_id: str, seq: int, chair: int | None, action: TableAction, on_threads: OnThreads
    ) -> None:
        """Commit action ``seq`` of the table's log (``SeqTaken`` if that number exists): tried here once, finished
        by ``on_threads`` when that try's outcome is unknown."""
        now = time.time()
        if not await self._try(table_id, seq, chair, action, now):
            await on_threads(self.store.append_action_again, table_id, seq, chair, action, now)

    async def _try(self, table_id: str, seq: int, chair: int | None, action: TableAction, now: float) -> bool:
        """Commit action ``seq`` with the row time ``now``: True once committed, ``SeqTaken`` if the number is taken,
        False when it may or may not have committed."""
        sql, params = self.store.action_statement(table_id, seq, chair, action, now)
        try:
            pool = await self._opened()
            async with pool.connection() as conn:
                await conn.execute(psycopg_sql(sql), params)  # (autocommit: committed as it returns)
        except psycopg.errors.UniqueViolation:
            raise SeqTaken(table_id, seq) from None
        except psycopg.Error as exc:  # a lost connection, a pool without one to give: the threads' path decides
            log.warning("an append on the event loop failed (%s); on the store's threads", type(exc).__name__)
            return False
        return True

    async def actions_since(self, table_id: str, seq: int, on_threads: OnThreads) -> list[LoggedAction]:
        """The table's logged actions numbered above ``seq``, in order (read again by ``on_threads`` if it fails)."""
        read = await self._read(self.store.actions_since_read(table_id, seq))
        return read if read is not None else await on_threads(self.store.actions_since, table_id, seq)

    async def actions_after(self, since: dict[str, int], on_threads: OnThreads) -> dict[str, list[LoggedAction]]:
        """Each table's logged actions numbered above ``since[table_id]`` (read again by ``on_threads`` if it fails)."""
        read = await self._read(self.store.actions_after_read(since))
        return read if read is not None else await on_threads(self.store.actions_after, since)

    async def _read(self, read: Read[T]) -> T | None:
        """What one read's rows become, or None when it failed (a lost connection, no connection to be had)."""
        try:
            pool = await self._opened()
            async with pool.connection() as conn:
                rows = await (await conn.execute(psycopg_sql(read.sql), read.params)).fetchall()
        except psycopg.Error as exc:
            log.warning("a read on the event loop failed (%s); on the store's threads", type(exc).__name__)
            return None
        return read.parse(rows)

    async def _opened(self) -> psycopg_pool.AsyncConnectionPool[Any]:
        """The pool, made and opened on the running loop at the first call (its connections come as needed)."""
        if self._pool is None:
            self._loop = asyncio.get_running_loop()
            self._pool = psycopg_pool.AsyncConnectionPool(
                self.store.url,
                min_size=1,
                max_size=self.connections,
                open=False,
                name="tribridge-loop-log",
                timeout=self.store.wait_timeout,
                reconnect_timeout=self.reconnect_seconds,
                kwargs={"autocommit": True},
            )
            self._opening = self._loop.create_task(self._pool.open(wait=False))
        if self._opening is not None and not self._opening.done():
            await asyncio.shield(self._opening)
        return self._pool

    async def close(self) -> None:
        """Close the pool (if it was opened, on the loop it serves)."""
        if self._pool is not None and self._loop is asyncio.get_running_loop():
            await self._pool.close()
        self._pool, self._opening, self._loop = None, None, None
