"""The game store's interface: tables, seat tokens (hashed), the ordered action log, and what processes share.

A table's truth is its configuration plus its actions in ``seq`` order; every accepted action is
committed before the caller acknowledges it, so a table replays to exactly the acknowledged state
after a crash. The log's primary key ``(table_id, seq)`` decides a race: the second writer of a
``seq`` gets ``SeqTaken``. Beside the log the store keeps what several server processes on one
database share. The interface is split by concern, composed into ``Store``: ``TableLog`` (tables,
seat tokens, the action log, each table's creator and last activity), ``Coordination`` (leases:
"exactly one process takes this bot turn", commit notices in ``NOTICE_GROUPS`` groups of tables,
socket counts per process with a heartbeat) and ``Documents`` (each deal's post-deal analysis, the events).

``open_store(url_or_path)`` picks the backend: a file path or ``sqlite:///path`` opens SQLite
(``store.sqlite``, the default); ``postgresql://USER@HOST[:PORT]/DB`` opens PostgreSQL
(``store.postgres``). Both run their numbered schema migrations at start-up (``schema_version``).
Times are wall-clock seconds (``time.time()``), so processes on one database must share a clock.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol
from urllib.parse import urlsplit, urlunsplit

from tribridge.errors import InvalidInput
from tribridge.server.store.accounts import Accounts
from tribridge.server.store.ratings import Ratings
from tribridge.server.tables.wire import JsonObject, TableAction, TableConfig

__all__ = [
    "Coordination",
    "Documents",
    "LoggedAction",
    "LoopLog",
    "Seats",
    "SeqTaken",
    "Store",
    "StoreTooNew",
    "StoreUnavailable",
    "StoredTable",
    "TableActivity",
    "TableLog",
    "is_postgres_url",
    "log_problems",
    "open_store",
    "sqlite_path",
    "store_label",
    "stored_table",
    "token_hash",
]

POSTGRES_SCHEMES = ("postgresql", "postgres")


def token_hash(token: str) -> str:
    """SHA-256 of a seat token (only hashes are stored)."""
    return hashlib.sha256(token.encode()).hexdigest()


class SeqTaken(Exception):
    """``append_action`` lost the race: action ``seq`` of the table is already in the log."""

    def __init__(self, table_id: str, seq: int) -> None:
        super().__init__(f"table {table_id}: action {seq} is already in the log")
        self.table_id = table_id
        self.seq = seq


class StoreUnavailable(Exception):
    """The store could not be reached, or lost its connection, in a transaction (HTTP 503: retry shortly).

    ``outcome_unknown``: the connection failed while committing, so the write may or may not have been
    committed (the log is the judge: read it again).
    """

    def __init__(self, message: str, outcome_unknown: bool = False) -> None:
        super().__init__(message)
        self.outcome_unknown = outcome_unknown


class StoreTooNew(Exception):
    """The store's schema is newer than this program knows (it was migrated by a later version)."""


class LoggedAction(NamedTuple):
    """One entry of a table's action log: its number, the acting chair (None: the table), the JSON action as read
    back (``wire.parse_action`` types it when the table installs it)."""

    seq: int
    chair: int | None
    action: JsonObject

    @classmethod
    def from_row(cls, seq: Any, chair: Any, action: str) -> LoggedAction:
        """The entry of a stored row: the number, the chair (NULL: the table) and the action's JSON text."""
        return cls(int(seq), None if chair is None else int(chair), json.loads(action))


@dataclass
class StoredTable:
    """A table's configuration, seat-token hashes and action log as read from the store."""

    table_id: str
    config: TableConfig
    token_hashes: dict[int, str]
    actions: list[LoggedAction]
    names: dict[int, str] = field(default_factory=dict)  # names given by the players who took chairs
    created: float = 0.0
    creator: str | None = None  # the client that created it (None in stores from before creators)


@dataclass(frozen=True)
class Seats:
    """A table's taken chairs: each one's token hash, and the names their players gave."""

    token_hashes: dict[int, str]
    names: dict[int, str]


@dataclass(frozen=True)
class TableActivity:
    """When a table was created, by which client, and when something last happened at it (wall-clock seconds;
    an action moves ``last_active`` only once it is ``store.sql.ACTIVITY_STEP_SECONDS`` old)."""

    table_id: str
    creator: str | None
    created: float
    last_active: float


class LoopLog(Protocol):
    """A backend's table-log appends and catch-up reads sent from the event loop itself (PostgreSQL's asynchronous
    driver), which ``AsyncStore`` uses instead of its threads where a backend has them (``TableLog.loop_log``)."""

    def usable(self) -> bool:
        """Whether an append or a read may be sent from the running loop now."""

    async def append_action(
        self,
        table_id: str,
        seq: int,
        chair: int | None,
        action: TableAction,
        on_threads: Callable[..., Awaitable[None]],
    ) -> None:
        """``TableLog.append_action`` from the loop; what it cannot decide there it finishes through ``on_threads``
        (``AsyncStore.call``)."""

    async def actions_since(
        self, table_id: str, seq: int, on_threads: Callable[..., Awaitable[list[LoggedAction]]]
    ) -> list[LoggedAction]:
        """``TableLog.actions_since`` from the loop (through ``on_threads`` when it fails there)."""

    async def actions_after(
        self, since: dict[str, int], on_threads: Callable[..., Awaitable[dict[str, list[LoggedAction]]]]
    ) -> dict[str, list[LoggedAction]]:
        """``TableLog.actions_after`` from the loop (through ``on_threads`` when it fails there)."""

    async def close(self) -> None:
        """Close its connections (on the loop they serve)."""


class TableLog(Protocol):
    """The tables and their ordered action logs: configuration, seat tokens, actions, activity."""

    def loop_log(self) -> LoopLog | None:
        """The appends and log reads this backend sends from the event loop itself, or None (``AsyncStore`` runs
        them on its threads)."""

    def create_table(self, table_id: str, config: TableConfig, creator: str | None = None) -> None:
        """Record a new table with its configuration (chairs, scheme, deal source) and the client creating it."""

    def set_token(self, table_id: str, chair: int, token: str, name: str | None = None) -> bool:
        """Store a chair's token hash (and its player's name); False if the chair was already taken."""

    def append_action(self, table_id: str, seq: int, chair: int | None, action: TableAction) -> None:
        """Commit one action as number ``seq`` of the table's log; ``SeqTaken`` if that number exists."""

    def actions_since(self, table_id: str, seq: int) -> list[LoggedAction]:
        """The table's logged actions numbered above ``seq``, in order."""

    def actions_after(self, since: dict[str, int]) -> dict[str, list[LoggedAction]]:
        """Each table's logged actions numbered above ``since[table_id]``, in order (tables without any left out)."""

    def table_ids(self) -> list[str]:
        """Every stored table id, oldest first."""

    def load(self, table_id: str) -> StoredTable | None:
        """A table's configuration, token hashes, names and actions, or None if unknown."""

    def seats(self, table_id: str) -> Seats:
        """A table's taken chairs (token hashes and names), as committed."""

    def import_table(self, stored: StoredTable) -> None:
        """Write a whole table as ``load`` returns it (copying between stores), in one transaction."""

    def action_counts(self) -> dict[str, int]:
        """Number of logged actions per table."""

    def check_log(self, table_id: str) -> list[str]:
        """Problems in a table's log: gaps or repeats in ``seq`` (empty list when sound)."""

    def touch(self, table_id: str) -> None:
        """Record activity at a table now (its ``last_active``)."""

    def recent_tables(self, since: float) -> list[TableActivity]:
        """Tables created or active at or after ``since`` (for the creation and live-table limits)."""


NOTICE_GROUPS = 64
"""A table's commit notices go to one of this many groups (by its id), so a process hears only the groups of the
tables it follows (``Coordination.listen``)."""


def notice_group(table_id: str) -> int:
    """The notice group of the table ``table_id`` (a hash of its id, ``0 <= group < NOTICE_GROUPS``)."""
    return zlib.crc32(table_id.encode("utf-8")) % NOTICE_GROUPS


ACTION_NOTICE_BYTES = 4000
"""An action's commit notice carries the logged action when its JSON is at most this many bytes (PostgreSQL caps a
payload at 8000); a longer one carries only its number, and the action is read from the log."""


def action_notice(table_id: str, seq: int, chair: int | None, action_text: str) -> str:
    """The commit notice of action ``seq``: ``<table_id>:<seq>:<chair>:<action JSON>`` (the chair empty for the
    table's own), or ``<table_id>:<seq>`` when the JSON is longer than ``ACTION_NOTICE_BYTES``."""
    if len(action_text.encode("utf-8")) > ACTION_NOTICE_BYTES:
        return f"{table_id}:{seq}"
    return f"{table_id}:{seq}:{'' if chair is None else chair}:{action_text}"


def parse_action_notice(notice: str) -> tuple[str, int, LoggedAction | None] | None:
    """The table id, the number and (when carried) the logged action of an action's commit notice; None for any
    other notice (``seat``, ``new``, ``analysis:<deal>``, and ``*:<group>``, whose number is a notice group's)."""
    table_id, _, what = notice.partition(":")
    seq_text, _, carried = what.partition(":")
    if table_id == "*" or not seq_text.isdigit():
        return None
    if not carried:
        return table_id, int(seq_text), None
    chair_text, _, action_text = carried.partition(":")
    return table_id, int(seq_text), LoggedAction.from_row(seq_text, chair_text or None, action_text)


class Coordination(Protocol):
    """What the server processes on one store share: leases, commit notices, socket counts with heartbeats."""

    def listen(self, groups: Callable[[], Collection[int]] | None = None) -> AsyncIterator[str]:
        """Every process's commits as they happen: ``<table_id>:<what>`` (an action's: ``action_notice``; ``*``:
        anything may have changed), only of
        the tables in the notice groups ``groups()`` names (asked again every moment; every group when None) and every
        new table (``<table_id>:new``); ``*:<group>`` once a group is heard (what came before is in the log)."""

    def acquire_lease(self, key: str, owner: str, seconds: float) -> bool:
        """Take (or renew) the lease ``key`` for ``seconds``; False while another owner holds it unexpired."""

    def release_lease(self, key: str, owner: str) -> None:
        """Give up the lease ``key`` if ``owner`` holds it."""

    def report_sockets(self, owner: str, counts: dict[str, int]) -> None:
        """Replace process ``owner``'s socket counts per table with ``counts``; also its heartbeat (now)."""

    def socket_count(self, table_id: str, fresh_seconds: float, other_than: str | None = None) -> int:
        """Sockets on a table summed over processes (but ``other_than``) whose heartbeat is at most ``fresh_seconds``
        old."""


class Documents(Protocol):
    """JSON documents kept beside the logs: each deal's post-deal analysis, and the events."""

    def put_analysis(self, table_id: str, deal_no: int, document: str) -> None:
        """Store (or replace) the JSON text of deal ``deal_no``'s post-deal analysis."""

    def get_analysis(self, table_id: str, deal_no: int) -> str | None:
        """The JSON text of a deal's stored analysis, or None."""

    def put_event(self, event_id: str, document: str) -> None:
        """Store (or replace) an event's JSON document."""

    def load_event(self, event_id: str) -> str | None:
        """An event's JSON document, or None if unknown."""

    def event_ids(self) -> list[str]:
        """Every stored event id, oldest first."""


class Store(TableLog, Coordination, Documents, Accounts, Ratings, Protocol):
    """What the server needs from a game store, by concern (``TableLog``, ``Coordination``, ``Documents``,
    ``Accounts``, ``Ratings``: ``store.accounts``, ``store.ratings``);
    ``SqliteStore`` and ``PostgresStore`` implement it."""

    shared: bool  # whether other server processes may write to this store (PostgreSQL) or not (SQLite)

    def close(self) -> None:
        """Release the connections (and checkpoint, where the backend has one)."""

    def can_commit(self) -> str | None:
        """None when a write commits right now, else why not (for ``/healthz``)."""


def stored_table(
    table_id: str,
    row: tuple[Any, ...],
    tokens: list[tuple[Any, ...]],
    actions: list[tuple[Any, ...]],
) -> StoredTable:
    """A ``StoredTable`` from the rows a backend read: (config, created, creator), (chair, hash, name), (seq, chair, action)."""
    config, created, creator = row
    return StoredTable(
        table_id,
        json.loads(config),
        {int(c): str(h) for c, h, _n in tokens},
        [LoggedAction.from_row(*r) for r in actions],
        {int(c): str(n) for c, _h, n in tokens if n},
        float(created),
        None if creator is None else str(creator),
    )


def log_problems(table_id: str, seqs: list[int]) -> list[str]:
    """Gaps or repeats in a table's ``seq`` numbers, which must run 1, 2, 3, ... (empty list when sound)."""
    for expected, seq in enumerate(seqs, start=1):
        if seq != expected:
            return [f"{table_id}: action {expected} missing or out of order (found seq {seq})"]
    return []


def is_postgres_url(url_or_path: str | Path) -> bool:
    """Whether a ``--db`` value names a PostgreSQL database (``postgresql://...``) rather than an SQLite file."""
    return isinstance(url_or_path, str) and urlsplit(url_or_path).scheme in POSTGRES_SCHEMES


def sqlite_path(url_or_path: str | Path) -> str | None:
    """The SQLite file a ``--db`` value names (a path or ``sqlite:///path``), or None for PostgreSQL."""
    if isinstance(url_or_path, Path):
        return str(url_or_path)
    if is_postgres_url(url_or_path):
        return None
    if url_or_path.startswith("sqlite://"):
        rest = url_or_path[len("sqlite://") :]
        if not rest.startswith("/"):
            raise InvalidInput("db", f"expected sqlite:///PATH (three slashes), got {url_or_path[:80]!r}")
        return rest[1:]  # sqlite:///games.sqlite is relative, sqlite:////srv/games.sqlite absolute
    if "://" in url_or_path:
        scheme = url_or_path.split("://", 1)[0]
        raise InvalidInput("db", f"unknown store {scheme[:20]!r}: expected a file path, sqlite:/// or postgresql://")
    return url_or_path


def store_label(url_or_path: str | Path) -> str:
    """The store for logs and messages: the path, or the PostgreSQL URL without its password."""
    text = str(url_or_path)
    if not is_postgres_url(text):
        return text
    parts = urlsplit(text)
    if parts.password is None:
        return text
    netloc = parts.netloc.rsplit("@", 1)[1]
    user = parts.username or ""
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc}"))


def open_store(url_or_path: str | Path) -> Store:
    """Open (creating and migrating as needed) the store a path, ``sqlite:///path`` or ``postgresql://`` URL names."""
    path = sqlite_path(url_or_path)
    if path is None:
        # imported here: each backend imports this module's types (and psycopg loads only when asked for)
        from tribridge.server.store.postgres import PostgresStore

        return PostgresStore(str(url_or_path))
    from tribridge.server.store.sqlite import SqliteStore  # see above

    return SqliteStore(path)
