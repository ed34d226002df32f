"""The PostgreSQL game store: psycopg 3 over a ``psycopg_pool`` connection pool, for several server processes.

Each method is one transaction on a pooled connection (committed before it returns). An action's
transaction also sends ``NOTIFY tribridge, '<table_id>:<seq>'``, which PostgreSQL delivers to the
listening processes when it commits. Migrations run under an advisory lock, so processes starting
together migrate once. The schema is SQLite's with PostgreSQL's types (``DOUBLE PRECISION`` times).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import psycopg
import psycopg_pool

from tribridge.errors import InvalidInput
from tribridge.server.tables.store import store_label
from tribridge.server.tables.store_sql import (
    SCHEMA_V1,
    SCHEMA_V2,
    VERSION_TABLE,
    Cursor,
    Migration,
    SqlStore,
    Tx,
    script_step,
)

__all__ = ["MIGRATIONS", "NOTIFY_CHANNEL", "PostgresStore"]

log = logging.getLogger("tribridge.server.tables")

NOTIFY_CHANNEL = "tribridge"
LISTEN_RETRY_SECONDS = 1.0
MIGRATION_LOCK = 0x7472_6962  # the advisory lock key held while migrating ("trib")

TIME = "DOUBLE PRECISION"  # the time columns (seconds since the epoch; REAL would be 4 bytes here)


MIGRATIONS: list[Migration] = [script_step(SCHEMA_V1.format(time=TIME)), script_step(SCHEMA_V2.format(time=TIME))]


class _PgTx:
    """A transaction on one pooled connection; ``?`` placeholders become psycopg's ``%s``."""

    def __init__(self, conn: psycopg.Connection[Any]) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        """Run one statement."""
        return self.conn.execute(sql.replace("?", "%s"), tuple(params))  # type: ignore[arg-type]


class PostgresStore(SqlStore):
    """The PostgreSQL game store at ``url`` (``postgresql://USER@HOST[:PORT]/DB``); ``pool_size`` connections at most."""

    shared = True

    def __init__(self, url: str, pool_size: int = 8, connect_timeout: float = 10.0) -> None:
        self.url = url
        self._pool: psycopg_pool.ConnectionPool[Any] = psycopg_pool.ConnectionPool(
            url, min_size=1, max_size=pool_size, open=False, name="tribridge-store"
        )
        try:
            self._pool.open(wait=True, timeout=connect_timeout)
        except psycopg_pool.PoolTimeout:
            self._pool.close()
            raise InvalidInput("db", f"cannot connect to {store_label(url)} within {connect_timeout:g} s") from None
        try:
            self.migrate(MIGRATIONS, VERSION_TABLE.format(time=TIME))
        except BaseException:
            self._pool.close()
            raise

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        """A pooled connection in a transaction (committed when the block ends cleanly)."""
        with self._pool.connection() as conn:
            yield _PgTx(conn)

    def is_duplicate(self, exc: Exception) -> bool:
        """A primary-key clash."""
        return isinstance(exc, psycopg.errors.UniqueViolation)

    def lock_for_migration(self, tx: Tx) -> None:
        """Hold the migration advisory lock until this transaction ends."""
        tx.execute("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))

    def announce(self, tx: Tx, table_id: str, what: str) -> None:
        """``NOTIFY tribridge, '<table_id>:<what>'`` (an action's number, ``seat``, ``new``), sent at commit."""
        tx.execute("SELECT pg_notify(?, ?)", (NOTIFY_CHANNEL, f"{table_id}:{what}"))

    async def listen(self) -> AsyncIterator[str]:
        """``LISTEN tribridge`` on a connection of its own; ``*`` once listening (and after each reconnection)."""
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
                async with conn:
                    await conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    yield "*"  # notifications sent before LISTEN took effect are lost: re-read everything
                    async for note in conn.notifies():
                        yield note.payload
            except psycopg.OperationalError as exc:
                log.warning("store listener lost its connection: %s; reconnecting", exc)
                await asyncio.sleep(LISTEN_RETRY_SECONDS)

    def close(self) -> None:
        """Close every pooled connection."""
        self._pool.close()
