"""Accounts in the game store: the schema step that adds them, the ``Accounts`` interface, and its SQL.

An account is a username with an Argon2id password hash (``server.accounts.passwords``); a session is a
random secret whose SHA-256 only is stored (``session_hash``), with a public ``session_id`` by which its
owner lists and revokes it; ``login_failures`` keeps the times of counted attempts per limit key (wrong
passwords by ``account:<username>`` and ``client:<address>``, new accounts by ``signup:<address>``), so every
server process on one store counts the same attempts; ``account_seats`` ties chairs of tables to the account
that holds them. Deleting an account removes its rows from every one of
these tables, and its chairs' names (in the tables' configurations and seats) become ``NEUTRAL_NAME``. This module imports nothing of the store package (``sql`` and ``interface`` import it).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = [
    "NEUTRAL_NAME",
    "SCHEMA_V3",
    "Account",
    "AccountCopy",
    "AccountSeat",
    "AccountSession",
    "Accounts",
    "AccountsSql",
    "rename_chair_in",
]

# Migration 3: accounts, their sessions, the login failures, the seats they hold.
SCHEMA_V3 = """
CREATE TABLE accounts (
    account_id TEXT PRIMARY KEY,
    username TEXT NOT NULL,
    username_key TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created {time} NOT NULL,
    disabled INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE account_sessions (
    session_hash TEXT PRIMARY KEY,
    session_id TEXT NOT NULL UNIQUE,
    account_id TEXT NOT NULL REFERENCES accounts(account_id),
    created {time} NOT NULL,
    expires {time} NOT NULL,
    client TEXT NOT NULL,
    agent TEXT NOT NULL
);
CREATE INDEX account_sessions_account ON account_sessions (account_id);
CREATE TABLE login_failures (limit_key TEXT NOT NULL, at {time} NOT NULL);
CREATE INDEX login_failures_key ON login_failures (limit_key, at);
CREATE INDEX login_failures_at ON login_failures (at);
CREATE TABLE account_seats (
    account_id TEXT NOT NULL REFERENCES accounts(account_id),
    table_id TEXT NOT NULL REFERENCES game_tables(table_id),
    chair INTEGER NOT NULL,
    created {time} NOT NULL,
    PRIMARY KEY (account_id, table_id, chair)
);
"""

# every table holding an account's rows, children first (``delete_account`` and the tests read it)
NEUTRAL_NAME = "former player"  # a deleted account's name at the tables it sat at
ACCOUNT_TABLES = ("account_seats", "account_sessions", "accounts")


def rename_chair_in(document: Any, chair: int, name: str) -> None:
    """Name ``chair`` ``name`` throughout a JSON document (a post-deal analysis: each ``{"chair" or
    "declarer_chair", "name"}``)."""
    if isinstance(document, list):
        for item in document:
            rename_chair_in(item, chair, name)
    elif isinstance(document, dict):
        if "name" in document and chair in (document.get("chair"), document.get("declarer_chair")):
            document["name"] = name
        for value in document.values():
            rename_chair_in(value, chair, name)


@dataclass(frozen=True)
class Account:
    """An account as stored: id, username as given, its password hash, creation time, whether disabled."""

    account_id: str
    username: str
    password_hash: str
    created: float
    disabled: bool


@dataclass(frozen=True)
class AccountSession:
    """One logged-in session of an account (its secret's hash is never read back)."""

    session_id: str
    account_id: str
    created: float
    expires: float
    client: str
    agent: str


@dataclass(frozen=True)
class AccountSeat:
    """A chair of a table that an account holds."""

    table_id: str
    chair: int
    created: float


@dataclass(frozen=True)
class AccountCopy:
    """An account as ``store copy`` takes it: its row with the folded username, its sessions (each under the hash of
    its secret, so they go on working) and the chairs it holds. Login failures are not part of it."""

    account: Account
    username_key: str
    sessions: tuple[tuple[str, AccountSession], ...]
    seats: tuple[AccountSeat, ...]


class _Cursor(Protocol):
    def fetchone(self) -> Any: ...
    def fetchall(self) -> Any: ...


class _Tx(Protocol):
    def execute(self, sql: str, params: Sequence[Any] = ()) -> _Cursor: ...


class Accounts(Protocol):
    """Accounts, sessions, login failures and held seats (``AccountsSql`` for both backends)."""

    def create_account(self, account_id: str, username: str, username_key: str, password_hash: str) -> bool:
        """Store a new account; False if ``username_key`` (the folded username) is taken."""

    def account_by_key(self, username_key: str) -> Account | None:
        """The account of a folded username, or None."""

    def account_by_id(self, account_id: str) -> Account | None:
        """An account by its id, or None."""

    def list_accounts(self) -> list[Account]:
        """Every account, oldest first."""

    def set_password_hash(self, account_id: str, password_hash: str) -> None:
        """Replace an account's password hash."""

    def set_disabled(self, account_id: str, disabled: bool) -> None:
        """Disable (or enable) an account; disabling also ends its sessions."""

    def delete_account(self, account_id: str, username_key: str) -> None:
        """Remove the account and every row of it: sessions, seats, login failures, the account; the chairs it held
        take ``NEUTRAL_NAME`` (``forget_chair_names``)."""

    def forget_chair_names(self, chairs: Sequence[tuple[str, int]]) -> None:
        """Name each chair ``(table_id, chair)`` ``NEUTRAL_NAME`` wherever the store names it (the table's
        configuration, the seat), telling the other processes with a ``seat`` notice: a deleted account's chairs."""

    def create_session(self, session: AccountSession, session_hash: str, keep: int = 1000) -> None:
        """Store a session under the hash of its secret; the account's expired sessions end, and its oldest beyond
        the newest ``keep``."""

    def session_by_hash(self, session_hash: str, now: float) -> AccountSession | None:
        """The unexpired session of a secret's hash, or None."""

    def sessions_of(self, account_id: str) -> list[AccountSession]:
        """An account's sessions, oldest first."""

    def delete_session(self, account_id: str, session_id: str) -> bool:
        """End one session of the account; False if it has no such session."""

    def delete_sessions(self, account_id: str, keep_hash: str | None = None) -> int:
        """End every session of the account but the one of ``keep_hash``; how many ended."""

    def record_login_failure(self, keys: Sequence[str], now: float) -> None:
        """Note a wrong password under each limit key."""

    def login_failures(self, key: str, since: float) -> list[float]:
        """The times of the key's wrong passwords at or after ``since``, oldest first."""

    def clear_login_failures(self, key: str) -> None:
        """Forget the key's failures (a right password for the account)."""

    def prune_login_failures(self, before: float) -> None:
        """Forget every failure older than ``before`` (past every limit's window)."""

    def hold_seat(self, account_id: str, table_id: str, chair: int) -> None:
        """Record that the account holds a chair of a table (again: no change)."""

    def seats_of(self, account_id: str) -> list[AccountSeat]:
        """The chairs the account holds, oldest first."""

    def replace_seat_token(self, account_id: str, table_id: str, chair: int, digest: str) -> bool:
        """Give a chair the account holds a new token hash (the seat taken back on another device); False if the
        account holds no such chair."""

    def holders_of(self, table_id: str) -> list[tuple[str, int]]:
        """The accounts holding chairs of a table: (account id, chair)."""

    def export_account(self, account_id: str) -> AccountCopy | None:
        """An account with its sessions and seats, as ``import_account`` writes it (None if unknown)."""

    def import_account(self, copy: AccountCopy) -> bool:
        """Write an account with its sessions and seats in one transaction (copying between stores); False if its
        folded username belongs to another account here."""


def _account(row: Any) -> Account:
    return Account(str(row[0]), str(row[1]), str(row[2]), float(row[3]), bool(row[4]))


def _session(row: Any) -> AccountSession:
    return AccountSession(str(row[0]), str(row[1]), float(row[2]), float(row[3]), str(row[4]), str(row[5]))


ACCOUNT_COLUMNS = "account_id, username, password_hash, created, disabled"
SESSION_COLUMNS = "session_id, account_id, created, expires, client, agent"


class AccountsSql:
    """``Accounts`` as SQL over the backend's ``transaction`` and ``is_duplicate`` (mixed into ``SqlStore``)."""

    def transaction(self) -> AbstractContextManager[_Tx]:
        """The backend's transaction."""
        raise NotImplementedError

    def is_duplicate(self, exc: Exception) -> bool:
        """Whether ``exc`` is a unique violation."""
        raise NotImplementedError

    def announce(self, tx: _Tx, table_id: str, what: str) -> None:
        """Tell the other processes, at commit, that ``what`` changed at a table (the backend's)."""

    def rename_chairs(self, tx: _Tx, chairs: Sequence[tuple[str, int]], name: str) -> None:
        """Inside ``tx``: name the chairs ``name`` in their tables' configurations and seats (the backend's)."""
        raise NotImplementedError

    def create_account(self, account_id: str, username: str, username_key: str, password_hash: str) -> bool:
        """Store a new account; False if ``username_key`` (the folded username) is taken."""
        try:
            with self.transaction() as tx:
                tx.execute(
                    "INSERT INTO accounts (account_id, username, username_key, password_hash, created, disabled) "
                    "VALUES (?, ?, ?, ?, ?, 0)",
                    (account_id, username, username_key, password_hash, time.time()),
                )
        except Exception as exc:
            if self.is_duplicate(exc):
                return False
            raise
        return True

    def account_by_key(self, username_key: str) -> Account | None:
        """The account of a folded username, or None."""
        with self.transaction() as tx:
            row = tx.execute(f"SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE username_key = ?", (username_key,))
            found = row.fetchone()
        return None if found is None else _account(found)

    def account_by_id(self, account_id: str) -> Account | None:
        """An account by its id, or None."""
        with self.transaction() as tx:
            found = tx.execute(f"SELECT {ACCOUNT_COLUMNS} FROM accounts WHERE account_id = ?", (account_id,)).fetchone()
        return None if found is None else _account(found)

    def list_accounts(self) -> list[Account]:
        """Every account, oldest first."""
        with self.transaction() as tx:
            rows = tx.execute(f"SELECT {ACCOUNT_COLUMNS} FROM accounts ORDER BY created, account_id").fetchall()
        return [_account(r) for r in rows]

    def set_password_hash(self, account_id: str, password_hash: str) -> None:
        """Replace an account's password hash."""
        with self.transaction() as tx:
            tx.execute("UPDATE accounts SET password_hash = ? WHERE account_id = ?", (password_hash, account_id))

    def set_disabled(self, account_id: str, disabled: bool) -> None:
        """Disable (or enable) an account; disabling also ends its sessions."""
        with self.transaction() as tx:
            tx.execute("UPDATE accounts SET disabled = ? WHERE account_id = ?", (int(disabled), account_id))
            if disabled:
                tx.execute("DELETE FROM account_sessions WHERE account_id = ?", (account_id,))

    def delete_account(self, account_id: str, username_key: str) -> None:
        """Remove the account and every row of it: sessions, seats, login failures, the account; the chairs it held
        take ``NEUTRAL_NAME`` (``forget_chair_names``)."""
        with self.transaction() as tx:
            held = tx.execute(
                "SELECT table_id, chair FROM account_seats WHERE account_id = ? ORDER BY table_id, chair", (account_id,)
            ).fetchall()
            self.rename_chairs(tx, [(str(t), int(c)) for t, c in held], NEUTRAL_NAME)  # the results stay, unnamed
            for table in ACCOUNT_TABLES:
                tx.execute(f"DELETE FROM {table} WHERE account_id = ?", (account_id,))
            tx.execute("DELETE FROM login_failures WHERE limit_key = ?", (f"account:{username_key}",))

    def forget_chair_names(self, chairs: Sequence[tuple[str, int]]) -> None:
        """Name each chair ``(table_id, chair)`` ``NEUTRAL_NAME`` wherever the store names it (the table's
        configuration, the seat), telling the other processes with a ``seat`` notice: a deleted account's chairs."""
        with self.transaction() as tx:
            self.rename_chairs(tx, chairs, NEUTRAL_NAME)

    def create_session(self, session: AccountSession, session_hash: str, keep: int = 1000) -> None:
        """Store a session under the hash of its secret; the account's expired sessions end, and its oldest beyond
        the newest ``keep``."""
        s = session
        with self.transaction() as tx:
            tx.execute(
                f"INSERT INTO account_sessions (session_hash, {SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (session_hash, s.session_id, s.account_id, s.created, s.expires, s.client, s.agent),
            )
            tx.execute("DELETE FROM account_sessions WHERE account_id = ? AND expires <= ?", (s.account_id, s.created))
            tx.execute(
                "DELETE FROM account_sessions WHERE account_id = ? AND session_hash NOT IN (SELECT session_hash FROM "
                "account_sessions WHERE account_id = ? ORDER BY created DESC, session_id LIMIT ?)",
                (s.account_id, s.account_id, keep),
            )

    def session_by_hash(self, session_hash: str, now: float) -> AccountSession | None:
        """The unexpired session of a secret's hash, or None."""
        with self.transaction() as tx:
            found = tx.execute(
                f"SELECT {SESSION_COLUMNS} FROM account_sessions WHERE session_hash = ? AND expires > ?",
                (session_hash, now),
            ).fetchone()
        return None if found is None else _session(found)

    def sessions_of(self, account_id: str) -> list[AccountSession]:
        """An account's sessions, oldest first."""
        with self.transaction() as tx:
            rows = tx.execute(
                f"SELECT {SESSION_COLUMNS} FROM account_sessions WHERE account_id = ? ORDER BY created, session_id",
                (account_id,),
            ).fetchall()
        return [_session(r) for r in rows]

    def delete_session(self, account_id: str, session_id: str) -> bool:
        """End one session of the account; False if it has no such session."""
        with self.transaction() as tx:
            gone = tx.execute(
                "DELETE FROM account_sessions WHERE account_id = ? AND session_id = ? RETURNING session_id",
                (account_id, session_id),
            ).fetchall()
        return bool(gone)

    def delete_sessions(self, account_id: str, keep_hash: str | None = None) -> int:
        """End every session of the account but the one of ``keep_hash``; how many ended."""
        with self.transaction() as tx:
            gone = tx.execute(
                "DELETE FROM account_sessions WHERE account_id = ? AND session_hash <> ? RETURNING session_id",
                (account_id, keep_hash or ""),
            ).fetchall()
        return len(gone)

    def record_login_failure(self, keys: Sequence[str], now: float) -> None:
        """Note a wrong password under each limit key."""
        with self.transaction() as tx:
            for key in keys:
                tx.execute("INSERT INTO login_failures (limit_key, at) VALUES (?, ?)", (key, now))

    def login_failures(self, key: str, since: float) -> list[float]:
        """The times of the key's wrong passwords at or after ``since``, oldest first."""
        with self.transaction() as tx:
            rows = tx.execute(
                "SELECT at FROM login_failures WHERE limit_key = ? AND at >= ? ORDER BY at", (key, since)
            ).fetchall()
        return [float(r[0]) for r in rows]

    def clear_login_failures(self, key: str) -> None:
        """Forget the key's failures (a right password for the account)."""
        with self.transaction() as tx:
            tx.execute("DELETE FROM login_failures WHERE limit_key = ?", (key,))

    def prune_login_failures(self, before: float) -> None:
        """Forget every failure older than ``before`` (past every limit's window)."""
        with self.transaction() as tx:
            tx.execute("DELETE FROM login_failures WHERE at < ?", (before,))

    def hold_seat(self, account_id: str, table_id: str, chair: int) -> None:
        """Record that the account holds a chair of a table (again: no change)."""
        with self.transaction() as tx:
            tx.execute(
                "INSERT INTO account_seats (account_id, table_id, chair, created) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (account_id, table_id, chair) DO NOTHING",
                (account_id, table_id, chair, time.time()),
            )

    def seats_of(self, account_id: str) -> list[AccountSeat]:
        """The chairs the account holds, oldest first."""
        with self.transaction() as tx:
            rows = tx.execute(
                "SELECT table_id, chair, created FROM account_seats WHERE account_id = ? ORDER BY created, table_id",
                (account_id,),
            ).fetchall()
        return [AccountSeat(str(t), int(c), float(m)) for t, c, m in rows]

    def replace_seat_token(self, account_id: str, table_id: str, chair: int, digest: str) -> bool:
        """Give a chair the account holds a new token hash (the seat taken back on another device); False if the
        account holds no such chair."""
        with self.transaction() as tx:
            done = tx.execute(
                "UPDATE seat_tokens SET token_hash = ? WHERE table_id = ? AND chair = ? AND EXISTS "
                "(SELECT 1 FROM account_seats a WHERE a.account_id = ? AND a.table_id = ? AND a.chair = ?) "
                "RETURNING chair",
                (digest, table_id, chair, account_id, table_id, chair),
            ).fetchall()
            if done:
                self.announce(tx, table_id, "seat")
        return bool(done)

    def holders_of(self, table_id: str) -> list[tuple[str, int]]:
        """The accounts holding chairs of a table: (account id, chair)."""
        with self.transaction() as tx:
            rows = tx.execute(
                "SELECT account_id, chair FROM account_seats WHERE table_id = ? ORDER BY chair, account_id", (table_id,)
            ).fetchall()
        return [(str(a), int(c)) for a, c in rows]

    def export_account(self, account_id: str) -> AccountCopy | None:
        """An account with its sessions and seats, as ``import_account`` writes it (None if unknown)."""
        with self.transaction() as tx:
            found = tx.execute(
                f"SELECT {ACCOUNT_COLUMNS}, username_key FROM accounts WHERE account_id = ?", (account_id,)
            ).fetchone()
            if found is None:
                return None
            sessions = tx.execute(
                f"SELECT session_hash, {SESSION_COLUMNS} FROM account_sessions WHERE account_id = ? "
                "ORDER BY created, session_id",
                (account_id,),
            ).fetchall()
            seats = tx.execute(
                "SELECT table_id, chair, created FROM account_seats WHERE account_id = ? ORDER BY created, table_id, "
                "chair",
                (account_id,),
            ).fetchall()
        return AccountCopy(
            _account(found),
            str(found[5]),
            tuple((str(r[0]), _session(r[1:])) for r in sessions),
            tuple(AccountSeat(str(t), int(c), float(m)) for t, c, m in seats),
        )

    def import_account(self, copy: AccountCopy) -> bool:
        """Write an account with its sessions and seats in one transaction (copying between stores); False if its
        folded username belongs to another account here."""
        a = copy.account
        try:
            with self.transaction() as tx:
                tx.execute(
                    "INSERT INTO accounts (account_id, username, username_key, password_hash, created, disabled) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (a.account_id, a.username, copy.username_key, a.password_hash, a.created, int(a.disabled)),
                )
                for digest, s in copy.sessions:
                    tx.execute(
                        f"INSERT INTO account_sessions (session_hash, {SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (digest, s.session_id, s.account_id, s.created, s.expires, s.client, s.agent),
                    )
                for seat in copy.seats:
                    tx.execute(
                        "INSERT INTO account_seats (account_id, table_id, chair, created) VALUES (?, ?, ?, ?)",
                        (a.account_id, seat.table_id, seat.chair, seat.created),
                    )
        except Exception as exc:
            if self.is_duplicate(exc):
                return False
            raise
        return True
