"""Accounts over the game store: sign up, log in and out, sessions, password change, deletion, export.

Every store call goes through the table manager's ``AsyncStore`` (never on the event loop), every hash
through a ``HashPool``. A session is a random secret (``secrets.token_urlsafe``); the store keeps its
SHA-256 only, and each login makes a new one (a secret planted before login is never promoted). Wrong
passwords are counted in the store per username and per client over ``FAILURE_WINDOW`` seconds; past
``ACCOUNT_FAILURES`` (or ``CLIENT_FAILURES``) an attempt gets 429 with ``Retry-After`` before any hash is
computed. An unknown username is answered exactly as a wrong password: the same status and message, a hash of
the same cost, and the same count of failures.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import time
from dataclasses import dataclass
from typing import Any

from starlette.exceptions import HTTPException

from tribridge.errors import InvalidInput, shorten
from tribridge.server.accounts.deals import my_deals, selected_records, selection_text
from tribridge.server.accounts.passwords import MAX_LENGTH, HashPool, check_new_password, normalise
from tribridge.server.store import AsyncStore, token_hash
from tribridge.server.store.accounts import NEUTRAL_NAME, Account, AccountSession
from tribridge.server.tables.follow import rename_held
from tribridge.server.tables.limits import TooMany
from tribridge.server.tables.manager import TableManager
from tribridge.server.tables.wire import JsonObject

__all__ = [
    "ACCOUNT_FAILURES",
    "CLIENT_FAILURES",
    "FAILURE_WINDOW",
    "SESSION_SECONDS",
    "AccountService",
    "LoggedIn",
    "check_username",
    "username_key",
]

ACCOUNT_FAILURES = 10  # wrong passwords for one username in the window; the next attempt gets 429
CLIENT_FAILURES = 30  # wrong passwords from one client address in the window (many people share an address)
FAILURE_WINDOW = 15 * 60.0
SESSION_SECONDS = 30 * 24 * 3600.0
SESSIONS_KEPT = 20  # sessions of one account at most; a new login ends the oldest beyond
SIGN_UPS_PER_CLIENT = 20  # new accounts from one client address per ``SIGN_UP_WINDOW``
SIGN_UP_WINDOW = 3600.0
PRUNE_SECONDS = 60.0  # how often the counted attempts past every window are forgotten
AGENT_CHARS = 120
WRONG = "wrong username or password"
_USERNAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{2,23}")


@dataclass(frozen=True)
class LoggedIn:
    """A request's account and its session (``secret_hash``: the store's key of the session's secret)."""

    account: Account
    session: AccountSession
    secret_hash: str


def check_username(value: Any) -> str:
    """A username: 3 to 24 letters, digits, ``_ . -`` (a letter or digit first), else ``InvalidInput``."""
    if not isinstance(value, str) or not _USERNAME.fullmatch(value):
        raise InvalidInput("username", "3 to 24 letters, digits, '_', '.' or '-', starting with a letter or digit")
    return value


def username_key(username: str) -> str:
    """The username as compared (case does not make another person)."""
    return username.casefold()


def _password_field(body: JsonObject, field: str) -> str:
    value = body.get(field)
    if not isinstance(value, str) or not value or len(value) > MAX_LENGTH:
        raise InvalidInput(field, f"expected the password (1 to {MAX_LENGTH} characters)")
    return value


def _object(body: Any) -> JsonObject:
    if not isinstance(body, dict):
        raise InvalidInput("body", "expected a JSON object")
    return body


class AccountService:
    """The accounts of one server (see the module doc); ``manager`` supplies the store once it has started."""

    def __init__(self, manager: TableManager, hashes: HashPool | None = None) -> None:
        self.manager = manager
        self.hashes = hashes or HashPool()
        self._pruned = 0.0

    @property
    def store(self) -> AsyncStore:
        """The open store (the manager's)."""
        if self.manager.store is None:
            raise RuntimeError("the store is not open")
        return self.manager.store

    async def sign_up(self, body: Any, client: str, agent: str) -> tuple[Account, str]:
        """A new account from ``{"username", "password"}``, logged in: the account and its session's secret."""
        body = _object(body)
        username = check_username(body.get("username"))
        password = check_new_password(body.get("password"), username)
        await self._check_sign_ups(client)
        digest = await self.hashes.hash(password)
        account_id = secrets.token_urlsafe(12)
        if not await self.store.call(
            self.store.sync.create_account, account_id, username, username_key(username), digest
        ):
            raise InvalidInput("username", "this username is taken; choose another")
        await self.store.call(self.store.sync.record_login_failure, [f"signup:{client}"], time.time())
        account = await self.store.call(self.store.sync.account_by_id, account_id)
        assert account is not None
        return account, await self._new_session(account, client, agent)

    async def log_in(self, body: Any, client: str, agent: str) -> tuple[Account, str]:
        """Log in with ``{"username", "password"}``: the account and a new session's secret (401 when wrong)."""
        body = _object(body)
        name = body.get("username")
        if not isinstance(name, str) or not 1 <= len(name) <= 64:
            raise InvalidInput("username", "expected the username")
        password = _password_field(body, "password")
        keys = [f"account:{username_key(name)}", f"client:{client}"]
        await self._check_failures(keys)
        account = await self.store.call(self.store.sync.account_by_key, username_key(name))
        if not await self.hashes.verify(None if account is None else account.password_hash, password):
            await self.store.call(self.store.sync.record_login_failure, keys, time.time())
            raise HTTPException(401, WRONG)
        assert account is not None
        if account.disabled:
            raise HTTPException(403, "this account is disabled; ask the site's operator")
        await self.store.call(self.store.sync.clear_login_failures, keys[0])
        if self.hashes.needs_rehash(account.password_hash):
            digest = await self.hashes.hash(normalise(password))
            await self.store.call(self.store.sync.set_password_hash, account.account_id, digest)
        return account, await self._new_session(account, client, agent)

    async def _check_sign_ups(self, client: str) -> None:
        now = time.time()
        times = await self.store.call(self.store.sync.login_failures, f"signup:{client}", now - SIGN_UP_WINDOW)
        if len(times) >= SIGN_UPS_PER_CLIENT:
            retry = max(1, int(times[len(times) - SIGN_UPS_PER_CLIENT] + SIGN_UP_WINDOW - now) + 1)
            raise TooMany(f"too many new accounts from this address: try again in {retry} s", retry_after=retry)

    async def _prune(self) -> None:
        now = time.time()
        if now - self._pruned >= PRUNE_SECONDS:
            self._pruned = now
            await self.store.call(self.store.sync.prune_login_failures, now - max(FAILURE_WINDOW, SIGN_UP_WINDOW))

    async def _check_failures(self, keys: list[str]) -> None:
        await self._prune()
        now = time.time()
        since = now - FAILURE_WINDOW
        for key, allowed in zip(keys, (ACCOUNT_FAILURES, CLIENT_FAILURES)):
            times = await self.store.call(self.store.sync.login_failures, key, since)
            if len(times) >= allowed:
                retry = max(1, int(times[len(times) - allowed] + FAILURE_WINDOW - now) + 1)
                raise TooMany(f"too many wrong passwords: try again in {retry} s", retry_after=retry)

    async def _new_session(self, account: Account, client: str, agent: str) -> str:
        secret = secrets.token_urlsafe(32)
        now = time.time()
        session = AccountSession(
            secrets.token_urlsafe(9),
            account.account_id,
            now,
            now + SESSION_SECONDS,
            client,
            shorten(agent, AGENT_CHARS),
        )
        await self.store.call(self.store.sync.create_session, session, token_hash(secret), SESSIONS_KEPT)
        return secret

    async def logged_in(self, secret: str | None) -> LoggedIn | None:
        """The account and session of a session secret, or None (unknown, expired, or a disabled account)."""
        if not secret or len(secret) > 128:
            return None
        digest = token_hash(secret)
        session = await self.store.call(self.store.sync.session_by_hash, digest, time.time())
        if session is None:
            return None
        account = await self.store.call(self.store.sync.account_by_id, session.account_id)
        if account is None or account.disabled:
            return None
        return LoggedIn(account, session, digest)

    async def log_out(self, who: LoggedIn) -> None:
        """End this session."""
        await self.store.call(self.store.sync.delete_session, who.account.account_id, who.session.session_id)

    async def sessions(self, who: LoggedIn) -> list[AccountSession]:
        """The account's sessions, oldest first."""
        return await self.store.call(self.store.sync.sessions_of, who.account.account_id)

    async def revoke(self, who: LoggedIn, session_id: str) -> None:
        """End one of the account's sessions (404 if it has none of that id)."""
        if not await self.store.call(self.store.sync.delete_session, who.account.account_id, session_id):
            raise HTTPException(404, "no such session")

    async def log_out_everywhere(self, who: LoggedIn, keep_this: bool) -> int:
        """End every session of the account (but this one, with ``keep_this``); how many ended."""
        keep = who.secret_hash if keep_this else None
        return await self.store.call(self.store.sync.delete_sessions, who.account.account_id, keep)

    async def _confirm(self, who: LoggedIn, body: JsonObject, field: str) -> None:
        if not await self.hashes.verify(who.account.password_hash, _password_field(body, field)):
            raise InvalidInput(field, "this is not the account's password")

    async def change_password(self, who: LoggedIn, body: Any) -> None:
        """``{"current", "new"}``: a new password; every other session of the account ends."""
        body = _object(body)
        await self._confirm(who, body, "current")
        new = check_new_password(body.get("new"), who.account.username, "new")
        digest = await self.hashes.hash(new)
        await self.store.call(self.store.sync.set_password_hash, who.account.account_id, digest)
        await self.store.call(self.store.sync.delete_sessions, who.account.account_id, who.secret_hash)

    async def delete(self, who: LoggedIn, body: Any) -> None:
        """``{"password"}``: remove the account and every row of it from the store; the chairs it held are named
        ``NEUTRAL_NAME`` in the store and in the tables in memory."""
        await self._confirm(who, _object(body), "password")
        account = who.account
        neutral = f"former:{secrets.token_urlsafe(9)}"  # its games stay in the others' ratings, under no name
        await self.store.call(self.store.sync.forget_entity, f"acct:{account.account_id}", neutral)
        held = await self.store.call(self.store.sync.seats_of, account.account_id)
        await self.store.call(self.store.sync.delete_account, account.account_id, username_key(account.username))
        chairs = [(seat.table_id, seat.chair) for seat in held]
        rename_held(self.manager.tables, chairs, NEUTRAL_NAME, self.manager.notify)  # (the others: the notice)

    async def export(self, who: LoggedIn) -> dict[str, Any]:
        """The account's own data as JSON: the account, its sessions, the chairs it holds, and every finished deal
        at them (the list, and all of them as PBN)."""
        account = who.account
        seats = await self.store.call(self.store.sync.seats_of, account.account_id)
        rows = await my_deals(self.manager, account.account_id)
        grouped = await selected_records(self.manager, account.account_id, [(r.table_id, r.deal_no) for r in rows])
        return {
            "account": {"username": account.username, "created": account.created},
            "sessions": [session_json(s, who) for s in await self.sessions(who)],
            "seats": [{"table_id": s.table_id, "chair": s.chair, "since": s.created} for s in seats],
            "deals": [r.to_json() for r in rows],
            "deals_pbn": await asyncio.to_thread(selection_text, grouped, "pbn"),
        }


def session_json(session: AccountSession, who: LoggedIn) -> dict[str, Any]:
    """A session as its owner sees it (``current``: the one asking)."""
    return {
        "session_id": session.session_id,
        "created": session.created,
        "expires": session.expires,
        "client": session.client,
        "agent": session.agent,
        "current": session.session_id == who.session.session_id,
    }
