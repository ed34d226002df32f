"""The SQLite game store (the default): one file, one connection behind a lock, safe to call from threads.

Every transaction commits with the WAL journal and ``synchronous=FULL``, so an acknowledged action
survives a crash. The file is created readable by its owner only (0600): it holds the tables' deal
secrets. Migration 1 is the schema of the stores written before schema versions, so such a store
opens with every game it holds.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tribridge.server.store.sql import (
    SCHEMA_V1,
    VERSION_TABLE,
    Cursor,
    Migration,
    SqlStore,
    Tx,
    migrations,
    statements,
)

__all__ = ["MIGRATIONS", "SqliteStore"]

TIME = "REAL"  # SQLite's type of the time columns (seconds since the epoch)


def _migration_1(tx: Tx) -> None:
    """The schema before versions (a store from before chair names gains the ``name`` column)."""
    for sql in statements(SCHEMA_V1.format(time=TIME)):
        tx.execute(sql)
    columns = {row[1] for row in tx.execute("PRAGMA table_info(seat_tokens)").fetchall()}
    if "name" not in columns:
        tx.execute("ALTER TABLE seat_tokens ADD COLUMN name TEXT")


MIGRATIONS: list[Migration] = migrations(TIME, first=_migration_1)


class _SqliteTx:
    """A transaction on the one connection (placeholders are already ``?``)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        """Run one statement."""
        return self.conn.execute(sql, tuple(params))


BUSY_MS = 5_000  # how long a write waits for another writer (another process on the file) before it fails
HEALTH_BUSY_MS = 250  # how long the health probe waits


class SqliteStore(SqlStore):
    """The SQLite game store at ``path`` (``:memory:`` for a store that lives as long as the object)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            _create_private(self.path)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.execute("PRAGMA foreign_keys=ON")
        self._conn.execute(f"PRAGMA busy_timeout={BUSY_MS}")
        try:
            self.migrate(MIGRATIONS, VERSION_TABLE.format(time=TIME))
        except BaseException:
            self._conn.close()
            raise

    @contextmanager
    def transaction(self) -> Iterator[Tx]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT`` under the lock (``ROLLBACK`` on an exception)."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield _SqliteTx(self._conn)
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def can_commit(self) -> str | None:
        """None when a write commits right now, else why not (waiting at most ``HEALTH_BUSY_MS`` for a writer)."""
        with self._lock:
            self._conn.execute(f"PRAGMA busy_timeout={HEALTH_BUSY_MS}")
        try:
            return super().can_commit()
        finally:
            with self._lock:
                self._conn.execute(f"PRAGMA busy_timeout={BUSY_MS}")

    def is_duplicate(self, exc: Exception) -> bool:
        """A primary-key clash (not another integrity error such as an unknown table)."""
        return isinstance(exc, sqlite3.IntegrityError) and "UNIQUE constraint failed" in str(exc)

    def close(self) -> None:
        """Checkpoint the WAL and close the connection."""
        with self._lock:
            try:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                self._conn.close()


def _create_private(path: str) -> None:
    """Create the database file readable and writable by its owner only (SQLite gives its WAL files the same mode)."""
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    os.close(fd)
    os.chmod(path, 0o600)
