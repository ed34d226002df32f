"""Limits on the work one client (or everyone together) can make the table server do, and input checks for names.

A table is *live* while something happened at it (created, an action, a subscriber) in the last
``idle_seconds``. Creating a table is refused with 429 when the client already has
``tables_per_client`` live tables, when ``live_tables`` tables are live in all, or when the
client (``creations_per_minute_per_client``) or everyone (``creations_per_minute``) created that
many tables in the last minute. A table takes at most ``sockets_per_table`` WebSocket subscribers.
A player makes at most ``claims_per_deal`` claims in one deal (400 past it); a table plays at most
``deals_per_table`` deals (400 on the ``next`` past it); a client exports at most
``exports_per_minute_per_client`` game records a minute (429).
"""

from __future__ import annotations

import argparse
import re
import time
import unicodedata
from collections import deque
from dataclasses import dataclass, fields, replace
from typing import Any

from tribridge.errors import InvalidInput

__all__ = [
    "BIDI_CONTROLS",
    "LIMIT_FLAGS",
    "MAX_COMBINING_MARKS",
    "MAX_NAME_LENGTH",
    "RateWindow",
    "TableLimits",
    "TooMany",
    "add_limit_flags",
    "check_creation_counts",
    "check_marks",
    "check_name",
    "limits_from_args",
]

MAX_NAME_LENGTH = 40
MAX_COMBINING_MARKS = 4  # combining marks on one character (Vietnamese needs 2; "Zalgo" text has dozens)
BIDI_CONTROLS = frozenset(chr(c) for c in (*range(0x202A, 0x202F), *range(0x2066, 0x206A)))
"""The bidirectional embeddings, overrides and isolates: they reorder the text shown after them."""


@dataclass(frozen=True)
class TableLimits:
    """The table server's limits (see the module docstring); ``tribridge serve`` flags change them."""

    live_tables: int = 500
    tables_per_client: int = 20
    creations_per_minute: int = 300
    creations_per_minute_per_client: int = 30
    sockets_per_table: int = 12
    idle_seconds: float = 3600.0
    analysis_queue: int = 32
    send_timeout: float = 5.0
    claims_per_deal: int = 3
    deals_per_table: int = 1000
    exports_per_minute_per_client: int = 20


LIMIT_FLAGS = {  # ``tribridge serve`` flag -> TableLimits field
    "--max-live-tables": "live_tables",
    "--max-tables-per-client": "tables_per_client",
    "--max-creations-per-minute": "creations_per_minute",
    "--max-client-creations-per-minute": "creations_per_minute_per_client",
    "--max-sockets-per-table": "sockets_per_table",
    "--analysis-queue": "analysis_queue",
    "--max-claims-per-deal": "claims_per_deal",
    "--max-deals-per-table": "deals_per_table",
    "--max-client-exports-per-minute": "exports_per_minute_per_client",
}


def add_limit_flags(parser: argparse.ArgumentParser) -> None:
    """Add the table limits' flags (``LIMIT_FLAGS``) to a command's parser."""
    defaults = TableLimits()
    for flag, name in LIMIT_FLAGS.items():
        parser.add_argument(
            flag,
            type=int,
            default=getattr(defaults, name),
            dest=name,
            help=f"table limit: {name.replace('_', ' ')} (default {getattr(defaults, name)})",
        )


def limits_from_args(args: argparse.Namespace) -> TableLimits:
    """The ``TableLimits`` a parsed command line asks for; each must be at least 1."""
    chosen = {name: getattr(args, name) for name in LIMIT_FLAGS.values() if hasattr(args, name)}
    for flag, name in LIMIT_FLAGS.items():
        if name in chosen and chosen[name] < 1:
            raise InvalidInput(flag, f"expected a whole number >= 1, got {chosen[name]}")
    known = {f.name for f in fields(TableLimits)}
    return replace(TableLimits(), **{k: v for k, v in chosen.items() if k in known})


class RateWindow:
    """Counts events in a sliding window of ``seconds`` (one deque of times per key)."""

    def __init__(self, seconds: float = 60.0) -> None:
        self.seconds = float(seconds)
        self._events: dict[str, deque[float]] = {}

    def __len__(self) -> int:
        """How many keys are remembered (those with events in the window, as last counted)."""
        return len(self._events)

    def count(self, key: str, now: float | None = None) -> int:
        """Events for ``key`` inside the window ending now."""
        now = time.monotonic() if now is None else now
        events = self._events.get(key)
        if events is None:
            return 0
        while events and events[0] <= now - self.seconds:
            events.popleft()
        if not events:
            del self._events[key]
            return 0
        return len(events)

    def add(self, key: str, now: float | None = None) -> None:
        """Record one event for ``key`` (keys whose events all left the window are forgotten now and then)."""
        now = time.monotonic() if now is None else now
        if len(self._events) >= 4096:
            for old in list(self._events):
                self.count(old, now)
        self._events.setdefault(key, deque()).append(now)

    def retry_after(self, key: str, now: float | None = None) -> int:
        """Whole seconds until the oldest event for ``key`` leaves the window."""
        now = time.monotonic() if now is None else now
        events = self._events.get(key)
        if not events:
            return 0
        return max(1, int(events[0] + self.seconds - now + 0.999))


# letters and symbols that render as nothing (Hangul fillers, the blank Braille pattern, ...)
BLANK_LOOKING = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u17b4\u17b5")
# the names the server gives chairs itself: "Bot (pimc)", "Player 2"
RESERVED_NAME = re.compile(r"^\s*(bot\s*[(\[{<]|bot$|player\s*\d)", re.IGNORECASE)


def check_name(value: Any, field: str) -> str:
    """A player's name: 1..40 characters, trimmed, something visible in it; no control, format, blank-looking or
    separator characters but the plain space; not one the server gives chairs itself ("Bot (...)", "Player N")."""
    if not isinstance(value, str):
        raise InvalidInput(field, f"expected a name (text), got {type(value).__name__}")
    name = value.strip()
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInput(field, "a name must be valid Unicode text (it holds a lone surrogate)") from None
    if not 1 <= len(name) <= MAX_NAME_LENGTH:
        raise InvalidInput(field, f"expected 1 to {MAX_NAME_LENGTH} characters (code points), got {len(name)}")
    categories = [unicodedata.category(ch) for ch in name]
    if any(cat in ("Cc", "Cf", "Cs", "Co", "Cn") for cat in categories):
        raise InvalidInput(field, "a name may not hold control, format or unassigned characters")
    if any(cat in ("Zl", "Zp") or (cat == "Zs" and ch != " ") for ch, cat in zip(name, categories)):
        raise InvalidInput(field, "a name may not hold line or paragraph separators, or spaces other than ' '")
    if any(ch in BLANK_LOOKING for ch in name):
        raise InvalidInput(field, "a name may not hold characters that show as blank (such as U+3164, U+2800)")
    if not any(cat[0] in "LNPS" for cat in categories):
        raise InvalidInput(field, "a name must hold a visible letter, digit or sign")
    check_marks(name, field)
    if RESERVED_NAME.match(unicodedata.normalize("NFKC", name)):
        raise InvalidInput(field, "a name may not look like the server's own ('Bot (...)', 'Player N')")
    return name


def check_marks(text: str, field: str) -> None:
    """Refuse (400, naming ``field``) bidirectional overrides and isolates, and more than ``MAX_COMBINING_MARKS``
    combining marks on one character."""
    if any(ch in BIDI_CONTROLS for ch in text):
        raise InvalidInput(field, "bidirectional overrides and isolates (U+202A-U+202E, U+2066-U+2069) are not allowed")
    run = 0
    for ch in text:
        run = run + 1 if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me") else 0
        if run > MAX_COMBINING_MARKS:
            raise InvalidInput(field, f"at most {MAX_COMBINING_MARKS} combining marks on one character")


class TooMany(Exception):
    """A limit was reached (HTTP 429 with ``Retry-After``, ``server.errors``)."""

    def __init__(self, message: str, retry_after: int = 60) -> None:
        super().__init__(message)
        self.retry_after = int(retry_after)


def check_creation_counts(lim: TableLimits, live_mine: int, live_all: int, recent: tuple[int, int, int, int]) -> None:
    """Raise ``TooMany`` past a creation limit: the client's and everyone's live tables, and ``recent`` creations
    (the client's and everyone's in the last minute, with the seconds until each count drops)."""
    if live_mine >= lim.tables_per_client:
        raise TooMany(
            f"too many live tables for this client (limit {lim.tables_per_client}); finish or leave one first",
            int(lim.idle_seconds),
        )
    if live_all >= lim.live_tables:
        raise TooMany(f"too many live tables on this server (limit {lim.live_tables}); try again later", 60)
    mine, every, retry_mine, retry_every = recent
    if mine >= lim.creations_per_minute_per_client:
        raise TooMany(
            f"too many tables created by this client in the last minute (limit {lim.creations_per_minute_per_client})",
            retry_mine,
        )
    if every >= lim.creations_per_minute:
        raise TooMany(f"too many tables created in the last minute (limit {lim.creations_per_minute})", retry_every)
