"""The store's queries, written once for both backends (``store.sqlite``, ``store.postgres``).

``SqlStore`` implements ``store.Store`` over one primitive a backend supplies: ``transaction()``,
a context manager giving a ``Tx`` whose ``execute(sql, params)`` takes ``?`` placeholders and
commits when the block ends without an exception. A backend also says which exception is a
primary-key clash (``is_duplicate``), may add work to an action's transaction (``after_append``),
and lists its numbered schema migrations (``migrate``).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Callable, Collection, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from tribridge.server.store import (
    LoggedAction,
    LoopLog,
    Seats,
    SeqTaken,
    StoredTable,
    StoreTooNew,
    TableActivity,
    log_problems,
    stored_table,
    token_hash,
)
from tribridge.server.store.accounts import SCHEMA_V3, AccountsSql, rename_chair_in
from tribridge.server.store.ratings import SCHEMA_V4, SCHEMA_V5, RatingsSql
from tribridge.server.tables.wire import TableAction, TableConfig

__all__ = [
    "ACTIVITY_STEP_SECONDS",
    "action_json",
    "SCHEMA_V1",
    "SCHEMA_V2",
    "SCHEMA_STEPS",
    "VERSION_TABLE",
    "Cursor",
    "Migration",
    "SqlStore",
    "Tx",
    "migrations",
    "script_step",
    "statements",
]


class Cursor(Protocol):
    """The part of a DB-API cursor the store reads."""

    def fetchone(self) -> Any:
        """The next row, or None."""

    def fetchall(self) -> Any:
        """Every remaining row."""


class Tx(Protocol):
    """One open transaction of a backend."""

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        """Run one statement with ``?`` placeholders."""


# The schema, one text for both backends; ``{time}`` is the backend's type of the time columns. Migration 1 is the
# schema of the stores written before versions (SQLite's, with ``REAL``); each later one only adds.
SCHEMA_V1 = """
CREATE TABLE IF NOT EXISTS game_tables (
    table_id TEXT PRIMARY KEY,
    created {time} NOT NULL,
    config TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS seat_tokens (
    table_id TEXT NOT NULL REFERENCES game_tables(table_id),
    chair INTEGER NOT NULL,
    token_hash TEXT NOT NULL,
    created {time} NOT NULL,
    name TEXT,
    PRIMARY KEY (table_id, chair)
);
CREATE TABLE IF NOT EXISTS actions (
    table_id TEXT NOT NULL REFERENCES game_tables(table_id),
    seq INTEGER NOT NULL,
    chair INTEGER,
    action TEXT NOT NULL,
    created {time} NOT NULL,
    PRIMARY KEY (table_id, seq)
);
"""

SCHEMA_V2 = """
ALTER TABLE game_tables ADD COLUMN creator TEXT;
ALTER TABLE game_tables ADD COLUMN last_active {time} NOT NULL DEFAULT 0;
UPDATE game_tables SET last_active = created;
CREATE INDEX game_tables_last_active ON game_tables (last_active);
CREATE INDEX game_tables_created ON game_tables (created);
CREATE TABLE analyses (
    table_id TEXT NOT NULL REFERENCES game_tables(table_id),
    deal_no INTEGER NOT NULL,
    document TEXT NOT NULL,
    created {time} NOT NULL,
    PRIMARY KEY (table_id, deal_no)
);
CREATE TABLE leases (lease_key TEXT PRIMARY KEY, owner TEXT NOT NULL, expires {time} NOT NULL);
CREATE TABLE heartbeats (owner TEXT PRIMARY KEY, beat {time} NOT NULL);
CREATE TABLE socket_counts (
    owner TEXT NOT NULL,
    table_id TEXT NOT NULL,
    sockets INTEGER NOT NULL,
    PRIMARY KEY (owner, table_id)
);
CREATE TABLE events (event_id TEXT PRIMARY KEY, created {time} NOT NULL, document TEXT NOT NULL);
"""

# The numbered schema steps, in order: a new migration appends its script here (both backends run it, formatted
# with their time type); a step never changes once released.
SCHEMA_STEPS: list[str] = [SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4, SCHEMA_V5]  # 3: accounts, 4-5: ratings (store.*)

VERSION_TABLE = "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, applied {time} NOT NULL)"

Migration = Callable[[Tx], None]  # one numbered schema step, run inside the migration's transaction

ACTIVITY_STEP_SECONDS = 30.0  # an action moves its table's ``last_active`` once it is this old (not every action)


def statements(script: str) -> list[str]:
    """The statements of a schema script (``;``-separated, no ``;`` inside them)."""
    return [s.strip() for s in script.split(";") if s.strip()]


def script_step(script: str) -> Migration:
    """A migration that runs each statement of ``script`` (already formatted for its backend)."""

    def step(tx: Tx) -> None:
        for sql in statements(script):
            tx.execute(sql)

    return step


def migrations(time_type: str, first: Migration | None = None) -> list[Migration]:
    """A backend's migrations: each of ``SCHEMA_STEPS`` formatted with its ``time_type`` (``first`` instead of
    step 1 where the backend has stores from before schema versions)."""
    steps = [script_step(script.format(time=time_type)) for script in SCHEMA_STEPS]
    return steps if first is None else [first, *steps[1:]]


def action_json(value: Any) -> str:
    """A logged action (or any stored document) as the store's JSON text."""
    return json.dumps(value, sort_keys=True)


class SqlStore(AccountsSql, RatingsSql):
    """The ``Store`` methods as SQL; subclasses provide ``transaction``, ``is_duplicate`` and the migrations."""

    shared = False

    # --- what a backend provides ----------------------------------------------------------------
    def transaction(self) -> AbstractContextManager[Tx]:
        """A transaction (committed when the block ends cleanly, rolled back on an exception)."""
        raise NotImplementedError

    def is_duplicate(self, exc: Exception) -> bool:
        """Whether ``exc`` is a primary-key (unique) violation."""
        raise NotImplementedError

    def lock_for_migration(self, tx: Tx) -> None:
        """Keep other processes out of the schema while this transaction migrates it."""

    def announce(self, tx: Tx, table_id: str, what: str) -> None:
        """Tell the other processes, when ``tx`` commits, that ``what`` changed at a table (PostgreSQL's NOTIFY)."""

    async def listen(self, groups: Callable[[], Collection[int]] | None = None) -> AsyncIterator[str]:
        """Other processes' commits; a store only this process writes has none, so this waits forever."""
        await asyncio.Event().wait()
        yield "*"  # never reached

    def migrate(self, steps: Sequence[Migration], version_table_sql: str) -> int:
        """Apply the steps beyond the store's ``schema_version`` in one transaction; returns the version now."""
        with self.transaction() as tx:
            self.lock_for_migration(tx)
            tx.execute(version_table_sql)
            row = tx.execute("SELECT MAX(version) FROM schema_version").fetchone()
            current = 0 if row is None or row[0] is None else int(row[0])
            if current > len(steps):
                raise StoreTooNew(
                    f"the store is at schema version {current}; this tribridge knows versions up to {len(steps)}"
                )
            for number, step in enumerate(steps[current:], start=current + 1):
                step(tx)
                tx.execute("INSERT INTO schema_version (version, applied) VALUES (?, ?)", (number, time.time()))
        return max(current, len(steps))

    def schema_version(self) -> int:
        """The highest migration applied to this store."""
        with self.transaction() as tx:
            row = tx.execute("SELECT MAX(version) FROM schema_version").fetchone()
        return 0 if row is None or row[0] is None else int(row[0])

    # --- tables and their logs ------------------------------------------------------------------
    def create_table(self, table_id: str, config: TableConfig, creator: str | None = None) -> None:
        """Record a new table with its configuration (chairs, scheme, deal source) and the client creating it."""
        now = time.time()
        with self.transaction() as tx:
            tx.execute(
                "INSERT INTO game_tables (table_id, created, config, creator, last_active) VALUES (?, ?, ?, ?, ?)",
                (table_id, now, action_json(config), creator, now),
            )
            self.announce(tx, table_id, "new")

    def set_token(self, table_id: str, chair: int, token: str, name: str | None = None) -> bool:
        """Store a chair's token hash (and its player's name); False if the chair was already taken."""
        now = time.time()
        try:
            with self.transaction() as tx:
                tx.execute(
                    "INSERT INTO seat_tokens (table_id, chair, token_hash, created, name) VALUES (?, ?, ?, ?, ?)",
                    (table_id, chair, token_hash(token), now, name),
                )
                tx.execute("UPDATE game_tables SET last_active = ? WHERE table_id = ?", (now, table_id))
                self.announce(tx, table_id, "seat")
        except Exception as exc:
            if self.is_duplicate(exc):
                return False
            raise
        return True

    def loop_log(self) -> LoopLog | None:
        """None: the appends run on ``AsyncStore``'s threads (PostgreSQL sends them from the loop)."""
        return None

    def append_action(self, table_id: str, seq: int, chair: int | None, action: TableAction) -> None:
        """Commit one action as number ``seq`` of the table's log; ``SeqTaken`` if that number exists."""
        self.log_action(table_id, seq, chair, action, time.time())

    def log_action(self, table_id: str, seq: int, chair: int | None, action: TableAction, now: float) -> None:
        """``append_action`` with the row's time ``now`` given (by which a backend can recognise its own row)."""
        try:
            with self.transaction() as tx:
                tx.execute(
                    "INSERT INTO actions (table_id, seq, chair, action, created) VALUES (?, ?, ?, ?, ?)",
                    (table_id, seq, chair, action_json(action), now),
                )
                tx.execute(
                    "UPDATE game_tables SET last_active = ? WHERE table_id = ? AND last_active < ?",
                    (now, table_id, now - ACTIVITY_STEP_SECONDS),
                )
                self.announce(tx, table_id, str(seq))
        except Exception as exc:
            if self.is_duplicate(exc):
                raise SeqTaken(table_id, seq) from None
            raise

    def actions_since(self, table_id: str, seq: int) -> list[LoggedAction]:
        """The table's logged actions numbered above ``seq``, in order."""
        with self.transaction() as tx:
            rows = tx.execute(
                "SELECT seq, chair, action FROM actions WHERE table_id = ? AND seq > ? ORDER BY seq", (table_id, seq)
            ).fetchall()
        return [LoggedAction.from_row(*r) for r in rows]

    def actions_after(self, since: dict[str, int]) -> dict[str, list[LoggedAction]]:
        """Each table's logged actions numbered above ``since[table_id]``, in order (tables without any left out)."""
        logged: dict[str, list[LoggedAction]] = {}
        with self.transaction() as tx:
            for table_id, seq in sorted(since.items()):
                rows = tx.execute(
                    "SELECT seq, chair, action FROM actions WHERE table_id = ? AND seq > ? ORDER BY seq",
                    (table_id, seq),
                ).fetchall()
                if rows:
                    logged[table_id] = [LoggedAction.from_row(*r) for r in rows]
        return logged

    def table_ids(self) -> list[str]:
        """Every stored table id, oldest first."""
        with self.transaction() as tx:
            rows = tx.execute("SELECT table_id FROM game_tables ORDER BY created, table_id").fetchall()
        return [str(r[0]) for r in rows]

    def load(self, table_id: str) -> StoredTable | None:
        """A table's configuration, token hashes, names and actions, or None if unknown."""
        with self.transaction() as tx:
            row = tx.execute(
                "SELECT config, created, creator FROM game_tables WHERE table_id = ?", (table_id,)
            ).fetchone()
            if row is None:
                return None
            tokens = tx.execute(
                "SELECT chair, token_hash, name FROM seat_tokens WHERE table_id = ? ORDER BY chair", (table_id,)
            ).fetchall()
            acts = tx.execute(
                "SELECT seq, chair, action FROM actions WHERE table_id = ? ORDER BY seq", (table_id,)
            ).fetchall()
        return stored_table(table_id, tuple(row), list(tokens), list(acts))

    def seats(self, table_id: str) -> Seats:
        """A table's taken chairs (token hashes and names), as committed."""
        with self.transaction() as tx:
            rows = tx.execute(
                "SELECT chair, token_hash, name FROM seat_tokens WHERE table_id = ?", (table_id,)
            ).fetchall()
        return Seats({int(c): str(h) for c, h, _n in rows}, {int(c): str(n) for c, _h, n in rows if n})

    def import_table(self, stored: StoredTable) -> None:
        """Write a whole table as ``load`` returns it (copying between stores), in one transaction."""
        t = stored.table_id
        with self.transaction() as tx:
            tx.execute(
                "INSERT INTO game_tables (table_id, created, config, creator, last_active) VALUES (?, ?, ?, ?, ?)",
                (t, stored.created, action_json(stored.config), stored.creator, stored.created),
            )
            for chair, digest in sorted(stored.token_hashes.items()):
                tx.execute(
                    "INSERT INTO seat_tokens (table_id, chair, token_hash, created, name) VALUES (?, ?, ?, ?, ?)",
                    (t, chair, digest, stored.created, stored.names.get(chair)),
                )
            for seq, actor, action in stored.actions:
                tx.execute(
                    "INSERT INTO actions (table_id, seq, chair, action, created) VALUES (?, ?, ?, ?, ?)",
                    (t, seq, actor, action_json(action), stored.created),
                )

    def rename_chairs(self, tx: Tx, chairs: Sequence[tuple[str, int]], name: str) -> None:
        """Inside ``tx``: give each chair ``(table_id, chair)`` that is named (in its table's configuration or by its
        seat's player) the name ``name`` in both and in the table's stored analyses, with a ``seat`` notice for each
        table."""
        for table_id, chair in chairs:
            row = tx.execute("SELECT config FROM game_tables WHERE table_id = ?", (table_id,)).fetchone()
            if row is None:
                continue
            config = json.loads(row[0])
            spec = config["chairs"][chair]
            if spec.get("name") is not None:
                spec["name"] = name
                tx.execute("UPDATE game_tables SET config = ? WHERE table_id = ?", (action_json(config), table_id))
            named = "" if spec.get("name") is not None else " AND name IS NOT NULL"
            tx.execute(
                f"UPDATE seat_tokens SET name = ? WHERE table_id = ? AND chair = ?{named}", (name, table_id, chair)
            )
            analyses = tx.execute("SELECT deal_no, document FROM analyses WHERE table_id = ?", (table_id,)).fetchall()
            for deal_no, text in analyses:
                document = json.loads(text)
                rename_chair_in(document, chair, name)
                tx.execute(
                    "UPDATE analyses SET document = ? WHERE table_id = ? AND deal_no = ?",
                    (json.dumps(document), table_id, deal_no),
                )
            self.announce(tx, table_id, "seat")

    def action_counts(self) -> dict[str, int]:
        """Number of logged actions per table."""
        with self.transaction() as tx:
            rows = tx.execute("SELECT table_id, COUNT(*) FROM actions GROUP BY table_id").fetchall()
        return {str(t): int(n) for t, n in rows}

    def check_log(self, table_id: str) -> list[str]:
        """Problems in a table's log: gaps or repeats in ``seq`` (empty list when sound)."""
        with self.transaction() as tx:
            rows = tx.execute("SELECT seq FROM actions WHERE table_id = ? ORDER BY seq", (table_id,)).fetchall()
        return log_problems(table_id, [int(r[0]) for r in rows])

    # --- shared by processes ------------------------------------------------------------------
    def touch(self, table_id: str) -> None:
        """Record activity at a table now (its ``last_active``)."""
        with self.transaction() as tx:
            tx.execute("UPDATE game_tables SET last_active = ? WHERE table_id = ?", (time.time(), table_id))

    def recent_tables(self, since: float) -> list[TableActivity]:
        """Tables created or active at or after ``since`` (for the creation and live-table limits)."""
        with self.transaction() as tx:
            rows = tx.execute(
                "SELECT table_id, creator, created, last_active FROM game_tables "
                "WHERE last_active >= ? OR created >= ? ORDER BY created, table_id",
                (since, since),
            ).fetchall()
        return [TableActivity(str(t), None if c is None else str(c), float(m), float(a)) for t, c, m, a in rows]

    def report_sockets(self, owner: str, counts: dict[str, int]) -> None:
        """Replace process ``owner``'s socket counts per table with ``counts``; also its heartbeat (now)."""
        with self.transaction() as tx:  # upserts: two reports of one owner may overlap (each writes whole rows)
            tx.execute("DELETE FROM socket_counts WHERE owner = ?", (owner,))
            for table_id, count in sorted(counts.items()):
                if count > 0:
                    tx.execute(
                        "INSERT INTO socket_counts (owner, table_id, sockets) VALUES (?, ?, ?) "
                        "ON CONFLICT (owner, table_id) DO UPDATE SET sockets = excluded.sockets",
                        (owner, table_id, count),
                    )
            tx.execute(
                "INSERT INTO heartbeats (owner, beat) VALUES (?, ?) "
                "ON CONFLICT (owner) DO UPDATE SET beat = excluded.beat",
                (owner, time.time()),
            )

    def socket_count(self, table_id: str, fresh_seconds: float, other_than: str | None = None) -> int:
        """Sockets on a table summed over processes (but ``other_than``) whose heartbeat is at most ``fresh_seconds``
        old."""
        with self.transaction() as tx:
            row = tx.execute(
                "SELECT COALESCE(SUM(s.sockets), 0) FROM socket_counts s JOIN heartbeats h ON h.owner = s.owner "
                "WHERE s.table_id = ? AND h.beat >= ? AND s.owner <> ?",
                (table_id, time.time() - fresh_seconds, "" if other_than is None else other_than),
            ).fetchone()
        return int(row[0])

    def acquire_lease(self, key: str, owner: str, seconds: float) -> bool:
        """Take (or renew) the lease ``key`` for ``seconds``; False while another owner holds it unexpired."""
        now = time.time()
        with self.transaction() as tx:
            row = tx.execute(
                "INSERT INTO leases (lease_key, owner, expires) VALUES (?, ?, ?) "
                "ON CONFLICT (lease_key) DO UPDATE SET owner = excluded.owner, expires = excluded.expires "
                "WHERE leases.owner = excluded.owner OR leases.expires <= ? RETURNING owner",
                (key, owner, now + seconds, now),
            ).fetchone()
        return row is not None

    def release_lease(self, key: str, owner: str) -> None:
        """Give up the lease ``key`` if ``owner`` holds it."""
        with self.transaction() as tx:
            tx.execute("DELETE FROM leases WHERE lease_key = ? AND owner = ?", (key, owner))

    def can_commit(self) -> str | None:
        """None when a write commits right now (a lease row that expires at once), else why not."""
        try:
            self.acquire_lease("health-probe", "health-probe", 0.0)
        except Exception as exc:  # noqa: BLE001 - any driver's failure to commit is the answer
            return f"the store cannot commit: {exc}"[:200]
        return None

    def put_analysis(self, table_id: str, deal_no: int, document: str) -> None:
        """Store (or replace) the JSON text of deal ``deal_no``'s post-deal analysis."""
        with self.transaction() as tx:
            tx.execute(
                "INSERT INTO analyses (table_id, deal_no, document, created) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (table_id, deal_no) DO UPDATE SET document = excluded.document, created = excluded.created",
                (table_id, deal_no, document, time.time()),
            )
            self.announce(tx, table_id, f"analysis:{deal_no}")

    def get_analysis(self, table_id: str, deal_no: int) -> str | None:
        """The JSON text of a deal's stored analysis, or None."""
        with self.transaction() as tx:
            row = tx.execute(
                "SELECT document FROM analyses WHERE table_id = ? AND deal_no = ?", (table_id, deal_no)
            ).fetchone()
        return None if row is None else str(row[0])

    # --- events ---------------------------------------------------------------------------------
    def put_event(self, event_id: str, document: str) -> None:
        """Store (or replace) an event's JSON document."""
        with self.transaction() as tx:
            tx.execute(
                "INSERT INTO events (event_id, created, document) VALUES (?, ?, ?) "
                "ON CONFLICT (event_id) DO UPDATE SET document = excluded.document",
                (event_id, time.time(), document),
            )

    def load_event(self, event_id: str) -> str | None:
        """An event's JSON document, or None if unknown."""
        with self.transaction() as tx:
            row = tx.execute("SELECT document FROM events WHERE event_id = ?", (event_id,)).fetchone()
        return None if row is None else str(row[0])

    def event_ids(self) -> list[str]:
        """Every stored event id, oldest first."""
        with self.transaction() as tx:
            rows = tx.execute("SELECT event_id FROM events ORDER BY created, event_id").fetchall()
        return [str(r[0]) for r in rows]
