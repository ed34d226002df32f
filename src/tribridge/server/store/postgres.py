"""The PostgreSQL game store: psycopg 3 over a ``psycopg_pool`` connection pool, for several server processes.

Each method is one transaction on a pooled connection (committed before it returns); the statements of
every action (its log row, and the other processes' catch-up reads) are single statements sent in
autocommit, one round trip each instead of three (``BEGIN``, the statement, ``COMMIT``). A change
other processes must hear of also sends ``NOTIFY tribridge_<group>, '<table_id>:<what>'`` (an action's
number with the action as logged, ``action_notice``, so that the processes following the table need not
read it back; ``seat``; ``analysis:<deal>``; never a view, a hand or a token: whoever may connect to the
database may listen, docs/deploy.md) on the channel of the table's notice group (``notice_group``), ``new``
on the channel ``tribridge``, which PostgreSQL delivers to the processes listening there (``listen``) when
it commits: a process listens to the groups of the tables it follows, so it does not wake for the others'
tables. Migrations run under an advisory lock, so processes starting
together migrate once. The schema is SQLite's with PostgreSQL's types (``DOUBLE PRECISION`` times).

When the database drops a connection (a restart, a failover, ``pg_terminate_backend``): a transaction
whose first statement finds its pooled connection dead moves to a fresh one (nothing had run in it);
any other failure raises ``StoreUnavailable`` (HTTP 503), ``ConnectionLost`` when the connection broke.
The writes whose retry could otherwise answer wrongly (an action, a seat, a new table) are tried once
more after a lost connection; when it broke during ``COMMIT`` the row they wrote decides first whether
the commit happened (``_write_once_more``). The listener reconnects and then says ``*``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import select
import time
from collections.abc import AsyncIterator, Callable, Collection, Iterator, Sequence
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

import psycopg
import psycopg_pool

from tribridge.errors import InvalidInput
from tribridge.server.store import (
    NOTICE_GROUPS,
    LoggedAction,
    SeqTaken,
    StoreUnavailable,
    action_notice,
    notice_group,
    store_label,
    token_hash,
)
from tribridge.server.store.postgres_loop import LoopConnections, Read, psycopg_sql
from tribridge.server.store.sql import (
    ACTIVITY_STEP_SECONDS,
    VERSION_TABLE,
    Cursor,
    Migration,
    SqlStore,
    Tx,
    action_json,
    migrations,
)
from tribridge.server.tables.wire import TableAction, TableConfig

__all__ = ["MIGRATIONS", "NOTIFY_CHANNEL", "ConnectionLost", "PostgresStore"]

log = logging.getLogger("tribridge.server.tables")

NOTIFY_CHANNEL = "tribridge"  # new tables; a group's notices go to NOTIFY_CHANNEL_<group> (``notice_channel``)
GROUP_CHECK_SECONDS = 0.2  # how often the listener asks which groups to hear
LISTEN_RETRY_SECONDS = 1.0
POOL_WAIT_SECONDS = 3.0  # how long a transaction waits for a pooled connection before StoreUnavailable
UNREACHABLE_WAIT_SECONDS = 0.05  # the wait instead, after one waited in vain, until a connection is had again
RECONNECT_SECONDS = 3.0  # the pool retries a lost connection with backoff this long; then anew at the next request
MIGRATION_LOCK = 0x7472_6962  # the advisory lock key held while migrating ("trib")

TIME = "DOUBLE PRECISION"  # the time columns (seconds since the epoch; REAL would be 4 bytes here)


MIGRATIONS: list[Migration] = migrations(TIME)

T = TypeVar("T")


class ConnectionLost(StoreUnavailable):
    """The database connection broke in a transaction (``outcome_unknown``: while committing)."""


class _PgTx:
    """A transaction on one pooled connection; ``?`` placeholders become psycopg's ``%s``.

    Until its first statement has run the transaction has done nothing, so a connection that the first
    statement finds broken (dropped by the database while it sat in the pool) goes back to the pool, which
    discards it, and the statement runs on the next one.
    """

    def __init__(self, pool: psycopg_pool.ConnectionPool[Any], wait: float, single: bool = False) -> None:
        self.pool = pool
        self.wait = wait
        self.conn = pool.getconn(wait)
        self.held = True
        self.started = False
        self.committing = False
        self.single = single and not _waiting_input(self.conn)  # (else a transaction: a dropped one is retried)
        if self.single:
            self.conn.autocommit = True

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        """Run one statement (in ``single`` mode it commits as it returns: a lost connection leaves it unknown)."""
        query, args = psycopg_sql(sql), tuple(params)
        if self.single:
            self.committing = True
        spares = 0 if self.started or self.single else self.pool.max_size  # every pooled one may have been dropped
        while True:
            try:
                cursor = self.conn.execute(query, args)  # type: ignore[call-overload]
            except psycopg.OperationalError:
                if spares == 0 or not self.conn.broken:
                    raise
                spares -= 1
                self.pool.putconn(self.conn)
                self.held = False
                self.conn = self.pool.getconn(self.wait)
                self.held = True
                continue
            self.started = True
            return cursor  # type: ignore[no-any-return]

    def commit(self) -> None:
        """Commit (from here on a lost connection leaves the outcome unknown)."""
        self.committing = True
        if not self.single:
            self.conn.commit()

    def release(self) -> None:
        """Roll back what did not commit and hand the connection back (the pool discards a broken one)."""
        if not self.held:
            return
        if not self.conn.broken:
            with suppress(psycopg.Error):
                if self.single:
                    self.conn.autocommit = False
                else:
                    self.conn.rollback()
        self.pool.putconn(self.conn)
        self.held = False


def _waiting_input(conn: psycopg.Connection[Any]) -> bool:
    """Whether the idle pooled connection has something to read: a connection the database dropped has its last
    message or the end of the stream there (a live idle one has, but for a rare notice, nothing)."""
    poller = select.poll()
    poller.register(conn.fileno(), select.POLLIN)
    return bool(poller.poll(0))


def _unavailable(exc: psycopg.OperationalError, tx: _PgTx | None) -> StoreUnavailable:
    """The ``StoreUnavailable`` a driver error in a transaction becomes (what a client is told: retry)."""
    if isinstance(exc, psycopg_pool.PoolTimeout):
        return StoreUnavailable("the database cannot be reached; retry shortly")
    if tx is not None and tx.conn.broken:
        return ConnectionLost("the database connection was lost; retry shortly", outcome_unknown=tx.committing)
    return StoreUnavailable(f"the database refused the transaction ({type(exc).__name__}); retry shortly")


class PostgresStore(SqlStore):
    """The PostgreSQL game store at ``url`` (``postgresql://USER@HOST[:PORT]/DB``); ``pool_size`` connections at most,
    a transaction waiting ``wait_timeout`` seconds at most for one (after one waited in vain, the next ones wait
    only ``UNREACHABLE_WAIT_SECONDS`` until a connection is had again: an unreachable database answers at once)."""

    shared = True

    def __init__(
        self, url: str, pool_size: int = 8, connect_timeout: float = 10.0, wait_timeout: float = POOL_WAIT_SECONDS
    ) -> None:
        self.url = url
        self.wait_timeout = wait_timeout
        self.unreachable = False  # a transaction waited for a connection in vain: the next ones wait briefly
        self._pool: psycopg_pool.ConnectionPool[Any] = psycopg_pool.ConnectionPool(
            url,
            min_size=1,
            max_size=pool_size,
            open=False,
            name="tribridge-store",
            timeout=wait_timeout,
            reconnect_timeout=RECONNECT_SECONDS,
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
    def transaction(self, single: bool = False) -> Iterator[Tx]:
        """A pooled connection in a transaction (committed when the block ends cleanly); ``StoreUnavailable``
        when the database cannot be reached or drops the connection. ``single``: the block runs one statement,
        sent in autocommit (committed when it returns)."""
        try:
            tx = _PgTx(self._pool, UNREACHABLE_WAIT_SECONDS if self.unreachable else self._pool.timeout, single)
        except psycopg.OperationalError as exc:  # PoolTimeout: no connection could be had
            self.unreachable = True
            raise _unavailable(exc, None) from exc
        self.unreachable = False
        try:
            yield tx
            tx.commit()
        except psycopg.OperationalError as exc:
            self.unreachable = isinstance(exc, psycopg_pool.PoolTimeout)  # a dead connection's replacement
            raise _unavailable(exc, tx) from exc
        finally:
            tx.release()

    def append_action(self, table_id: str, seq: int, chair: int | None, action: TableAction) -> None:
        """Commit one action as number ``seq`` of the table's log (``SeqTaken`` if that number exists); once more
        after a lost connection, unless the row shows that the lost commit went through."""
        self._write_action(table_id, seq, chair, action, time.time())

    def append_action_again(self, table_id: str, seq: int, chair: int | None, action: TableAction, now: float) -> None:
        """After a try elsewhere whose outcome is unknown (the event loop's, ``postgres_loop``): nothing if its row
        (time ``now``) is in the log, else ``append_action``'s write of it (``SeqTaken`` if another's is there)."""
        if not self.has_action(table_id, seq, chair, action, now):
            self._write_action(table_id, seq, chair, action, now)

    def _write_action(self, table_id: str, seq: int, chair: int | None, action: TableAction, now: float) -> None:
        """Log the action with the row time ``now``; once more after a lost connection, unless its row is there."""
        self._write_once_more(
            lambda: self.log_action(table_id, seq, chair, action, now),
            lambda: self.has_action(table_id, seq, chair, action, now),
            None,
        )

    def has_action(self, table_id: str, seq: int, chair: int | None, action: TableAction, now: float) -> bool:
        """Whether action ``seq`` of the table's log is this one, written at ``now`` (a write's own row)."""
        with self.transaction() as tx:
            row = tx.execute(
                "SELECT chair, action, created FROM actions WHERE table_id = ? AND seq = ?", (table_id, seq)
            ).fetchone()
        return row is not None and (row[0], json.loads(row[1]), float(row[2])) == (chair, action, now)

    def log_action(self, table_id: str, seq: int, chair: int | None, action: TableAction, now: float) -> None:
        """SQLite's three statements as one (``action_statement``): one round trip, in autocommit."""
        try:
            with self.transaction(single=True) as tx:
                tx.execute(*self.action_statement(table_id, seq, chair, action, now))
        except Exception as exc:
            if self.is_duplicate(exc):
                raise SeqTaken(table_id, seq) from None
            raise

    @staticmethod
    def action_statement(
        table_id: str, seq: int, chair: int | None, action: TableAction, now: float
    ) -> tuple[str, tuple[Any, ...]]:
        """The one statement that logs an action: its row, the table's last activity, the notice carrying the action
        (``action_notice``; ``?`` placeholders)."""
        text = action_json(action)
        return (
            "WITH logged AS (INSERT INTO actions (table_id, seq, chair, action, created) VALUES (?, ?, ?, ?, ?)),"
            " touched AS (UPDATE game_tables SET last_active = ? WHERE table_id = ? AND last_active < ?)"
            " SELECT pg_notify(?, ?)",
            (
                table_id,
                seq,
                chair,
                text,
                now,
                now,
                table_id,
                now - ACTIVITY_STEP_SECONDS,
                notice_channel(table_id, str(seq)),
                action_notice(table_id, seq, chair, text),
            ),
        )

    def loop_log(self) -> LoopConnections:
        """The appends and log reads tried on the event loop itself first (``postgres_loop.LoopConnections``)."""
        return LoopConnections(self, reconnect_seconds=RECONNECT_SECONDS)

    def _read(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        """The rows of one read, sent in autocommit; after a lost connection once more, in a transaction."""
        try:
            with self.transaction(single=True) as tx:
                return list(tx.execute(sql, params).fetchall())
        except ConnectionLost:
            with self.transaction() as tx:
                return list(tx.execute(sql, params).fetchall())

    def actions_since(self, table_id: str, seq: int) -> list[LoggedAction]:
        """The table's logged actions numbered above ``seq``, in order (one statement in autocommit; after a lost
        connection once more, in a transaction)."""
        read = self.actions_since_read(table_id, seq)
        return read.parse(self._read(read.sql, read.params))

    @staticmethod
    def actions_since_read(table_id: str, seq: int) -> Read[list[LoggedAction]]:
        """The statement of ``actions_since`` (sent from the event loop, too: ``postgres_loop``)."""
        return Read(
            "SELECT seq, chair, action FROM actions WHERE table_id = ? AND seq > ? ORDER BY seq",
            (table_id, seq),
            lambda rows: [LoggedAction.from_row(*r) for r in rows],
        )

    def actions_after(self, since: dict[str, int]) -> dict[str, list[LoggedAction]]:
        """Each table's logged actions numbered above ``since[table_id]``, in order (one statement in autocommit;
        after a lost connection once more, in a transaction)."""
        read = self.actions_after_read(since)
        return read.parse(self._read(read.sql, read.params))

    @staticmethod
    def actions_after_read(since: dict[str, int]) -> Read[dict[str, list[LoggedAction]]]:
        """The statement of ``actions_after`` (sent from the event loop, too: ``postgres_loop``): an index scan per
        table, whatever the size of the log."""
        ids = sorted(since)
        return Read(
            "SELECT news.table_id, a.seq, a.chair, a.action"
            " FROM unnest(?::text[], ?::integer[]) AS news(table_id, seq) CROSS JOIN LATERAL"
            " (SELECT seq, chair, action FROM actions WHERE table_id = news.table_id AND seq > news.seq"
            " ORDER BY seq) AS a",
            (ids, [since[t] for t in ids]),
            _logged_by_table,
        )

    def set_token(self, table_id: str, chair: int, token: str, name: str | None = None) -> bool:
        """Store a chair's token hash (False if the chair was taken); once more after a lost connection, unless the
        chair's row shows that the lost commit went through."""

        def committed() -> bool:
            with self.transaction() as tx:
                row = tx.execute(
                    "SELECT token_hash FROM seat_tokens WHERE table_id = ? AND chair = ?", (table_id, chair)
                ).fetchone()
            return row is not None and row[0] == token_hash(token)

        return self._write_once_more(lambda: SqlStore.set_token(self, table_id, chair, token, name), committed, True)

    def create_table(self, table_id: str, config: TableConfig, creator: str | None = None) -> None:
        """Record a new table; once more after a lost connection, unless its row shows the lost commit went through."""

        def committed() -> bool:
            with self.transaction() as tx:
                return tx.execute("SELECT 1 FROM game_tables WHERE table_id = ?", (table_id,)).fetchone() is not None

        self._write_once_more(lambda: SqlStore.create_table(self, table_id, config, creator), committed, None)

    def _write_once_more(self, write: Callable[[], T], committed: Callable[[], bool], result_if_committed: T) -> T:
        """``write()``; after a lost connection ``write()`` once more, unless ``committed()`` finds that the commit
        the connection was lost in went through (then ``result_if_committed``)."""
        try:
            return write()
        except ConnectionLost as lost:
            if lost.outcome_unknown:
                try:
                    if committed():
                        return result_if_committed
                except StoreUnavailable:
                    raise lost from None  # still unknown
            log.warning("a store write lost its connection; trying once more", extra={"event": "store_retry"})
            return write()

    def is_duplicate(self, exc: Exception) -> bool:
        """A primary-key clash."""
        return isinstance(exc, psycopg.errors.UniqueViolation)

    def lock_for_migration(self, tx: Tx) -> None:
        """Hold the migration advisory lock until this transaction ends."""
        tx.execute("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))

    def announce(self, tx: Tx, table_id: str, what: str) -> None:
        """``NOTIFY`` the table's channel (``notice_channel``) with ``'<table_id>:<what>'``, sent at commit."""
        tx.execute("SELECT pg_notify(?, ?)", (notice_channel(table_id, what), f"{table_id}:{what}"))

    async def listen(self, groups: Callable[[], Collection[int]] | None = None) -> AsyncIterator[str]:
        """``LISTEN`` on a connection of its own to ``tribridge`` and the channels of the groups ``groups()`` names
        (every group when None), asked again every ``GROUP_CHECK_SECONDS``; ``*`` once listening (and after each
        reconnection), ``*:<group>`` once a group is added (its notices before it are lost: its tables re-read)."""
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
                async with conn:
                    await conn.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    listening = await _listen_to(conn, set(), _wanted(groups))
                    yield "*"  # notifications sent before LISTEN took effect are lost: re-read everything
                    while True:
                        async for note in conn.notifies(timeout=GROUP_CHECK_SECONDS):
                            yield note.payload
                        wanted = _wanted(groups)
                        if wanted != listening:
                            added = wanted - listening
                            listening = await _listen_to(conn, listening, wanted)
                            for group in sorted(added):
                                yield f"*:{group}"
            except psycopg.OperationalError as exc:
                log.warning("store listener lost its connection: %s; reconnecting", exc)
                await asyncio.sleep(LISTEN_RETRY_SECONDS)

    def close(self) -> None:
        """Close every pooled connection."""
        self._pool.close()


def _logged_by_table(rows: list[tuple[Any, ...]]) -> dict[str, list[LoggedAction]]:
    """``actions_after``'s rows (table id, number, chair, action) by table, in order."""
    logged: dict[str, list[LoggedAction]] = {}
    for t, s, c, a in rows:
        logged.setdefault(str(t), []).append(LoggedAction.from_row(s, c, a))
    return logged


def notice_channel(table_id: str, what: str) -> str:
    """The channel of a notice: ``tribridge`` for a new table, else its notice group's ``tribridge_<group>``."""
    return NOTIFY_CHANNEL if what == "new" else f"{NOTIFY_CHANNEL}_{notice_group(table_id)}"


def _wanted(groups: Callable[[], Collection[int]] | None) -> set[int]:
    """The groups to hear now: ``groups()`` (those in range), or every group."""
    if groups is None:
        return set(range(NOTICE_GROUPS))
    return {g for g in groups() if 0 <= g < NOTICE_GROUPS}


async def _listen_to(conn: psycopg.AsyncConnection[Any], listening: set[int], wanted: set[int]) -> set[int]:
    """``LISTEN`` to the groups of ``wanted`` not heard yet, ``UNLISTEN`` those no longer wanted; the groups heard now."""
    for group in sorted(wanted - listening):
        await conn.execute(f"LISTEN {NOTIFY_CHANNEL}_{group}")
    for group in sorted(listening - wanted):
        await conn.execute(f"UNLISTEN {NOTIFY_CHANNEL}_{group}")
    return set(wanted)
