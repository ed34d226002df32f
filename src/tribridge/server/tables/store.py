"""Durable game store on SQLite: tables, seat tokens (hashed) and the ordered action log of every table.

Every accepted action is committed (WAL journal, ``synchronous=FULL``) before the caller
acknowledges it, so a table replays to exactly the acknowledged state after a crash. The log is
the source of truth: a table's state is its configuration plus its actions in ``seq`` order.
The file is created readable by its owner only (0600): it holds the tables' deal secrets.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS game_tables (
    table_id TEXT PRIMARY KEY,
    created REAL NOT NULL,
    config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seat_tokens (
    table_id TEXT NOT NULL REFERENCES game_tables(table_id),
    chair INTEGER NOT NULL,
    token_hash TEXT NOT NULL,
    created REAL NOT NULL,
    name TEXT,
    PRIMARY KEY (table_id, chair)
);
CREATE TABLE IF NOT EXISTS actions (
    table_id TEXT NOT NULL REFERENCES game_tables(table_id),
    seq INTEGER NOT NULL,
    chair INTEGER,
    action TEXT NOT NULL,
    created REAL NOT NULL,
    PRIMARY KEY (table_id, seq)
);
CREATE TABLE IF NOT EXISTS health (
    id INTEGER PRIMARY KEY,
    checked REAL NOT NULL
);
"""
BUSY_MS = 5000  # how long a write waits for another writer before it fails
HEALTH_BUSY_MS = 250  # how long the health probe waits for another writer


def token_hash(token: str) -> str:
    """SHA-256 of a seat token (only hashes are stored)."""
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass
class StoredTable:
    """A table's configuration, seat-token hashes and action log as read from the store."""

    table_id: str
    config: dict[str, Any]
    token_hashes: dict[int, str]
    actions: list[tuple[int, int | None, dict[str, Any]]]  # (seq, chair, action)
    names: dict[int, str] = field(default_factory=dict)  # names given by the players who took chairs


class Store:
    """The SQLite game store; safe to call from several threads (one connection behind a lock)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            _create_private(self.path)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=BUSY_MS / 1000)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.execute("PRAGMA foreign_keys=ON")
        self._conn.executescript(SCHEMA)
        columns = {row[1] for row in self._conn.execute("PRAGMA table_info(seat_tokens)")}
        if "name" not in columns:  # a store from before chair names
            self._conn.execute("ALTER TABLE seat_tokens ADD COLUMN name TEXT")

    def close(self) -> None:
        """Checkpoint the WAL and close the connection."""
        with self._lock:
            try:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                self._conn.close()

    def create_table(self, table_id: str, config: dict[str, Any]) -> None:
        """Record a new table with its configuration (chairs, scheme, seed)."""
        with self._lock:
            self._conn.execute(
                "INSERT INTO game_tables (table_id, created, config) VALUES (?, ?, ?)",
                (table_id, time.time(), json.dumps(config, sort_keys=True)),
            )

    def set_token(self, table_id: str, chair: int, token: str, name: str | None = None) -> bool:
        """Store a chair's token hash (and its player's name); False if the chair was already taken."""
        with self._lock:
            try:
                self._conn.execute(
                    "INSERT INTO seat_tokens (table_id, chair, token_hash, created, name) VALUES (?, ?, ?, ?, ?)",
                    (table_id, chair, token_hash(token), time.time(), name),
                )
            except sqlite3.IntegrityError:
                return False
            return True

    def append_action(self, table_id: str, seq: int, chair: int | None, action: dict[str, Any]) -> None:
        """Commit one action as number ``seq`` of the table's log (raises if ``seq`` is taken)."""
        with self._lock:
            self._conn.execute(
                "INSERT INTO actions (table_id, seq, chair, action, created) VALUES (?, ?, ?, ?, ?)",
                (table_id, seq, chair, json.dumps(action, sort_keys=True), time.time()),
            )

    def can_commit(self) -> str | None:
        """None when a write commits right now, else why not (the probe waits at most ``HEALTH_BUSY_MS``)."""
        with self._lock:
            try:
                self._conn.execute(f"PRAGMA busy_timeout={HEALTH_BUSY_MS}")
                self._conn.execute("INSERT OR REPLACE INTO health (id, checked) VALUES (1, ?)", (time.time(),))
            except sqlite3.Error as exc:
                return f"the store cannot commit: {exc}"
            finally:
                self._conn.execute(f"PRAGMA busy_timeout={BUSY_MS}")
        return None

    def table_ids(self) -> list[str]:
        """Every stored table id, oldest first."""
        with self._lock:
            rows = self._conn.execute("SELECT table_id FROM game_tables ORDER BY created, table_id").fetchall()
        return [r[0] for r in rows]

    def load(self, table_id: str) -> StoredTable | None:
        """A table's configuration, token hashes and actions, or None if unknown."""
        with self._lock:
            row = self._conn.execute("SELECT config FROM game_tables WHERE table_id = ?", (table_id,)).fetchone()
            if row is None:
                return None
            tokens = self._conn.execute(
                "SELECT chair, token_hash, name FROM seat_tokens WHERE table_id = ?", (table_id,)
            ).fetchall()
            acts = self._conn.execute(
                "SELECT seq, chair, action FROM actions WHERE table_id = ? ORDER BY seq", (table_id,)
            ).fetchall()
        return StoredTable(
            table_id,
            json.loads(row[0]),
            {int(c): h for c, h, _n in tokens},
            [(int(s), c if c is None else int(c), json.loads(a)) for s, c, a in acts],
            {int(c): n for c, _h, n in tokens if n},
        )

    def action_counts(self) -> dict[str, int]:
        """Number of logged actions per table."""
        with self._lock:
            rows = self._conn.execute("SELECT table_id, COUNT(*) FROM actions GROUP BY table_id").fetchall()
        return {t: int(n) for t, n in rows}

    def check_log(self, table_id: str) -> list[str]:
        """Problems in a table's log: gaps or repeats in ``seq`` (empty list when sound)."""
        with self._lock:
            seqs = [
                r[0]
                for r in self._conn.execute(
                    "SELECT seq FROM actions WHERE table_id = ? ORDER BY seq", (table_id,)
                ).fetchall()
            ]
        problems = []
        for expected, seq in enumerate(seqs, start=1):
            if seq != expected:
                problems.append(f"{table_id}: action {expected} missing or out of order (found seq {seq})")
                break
        return problems


def _create_private(path: str) -> None:
    """Create the database file readable and writable by its owner only (SQLite gives its WAL files the same mode)."""
    fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o600)
    os.close(fd)
    os.chmod(path, 0o600)
