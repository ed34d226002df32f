"""The house's daily event: one always open, opened by the server itself each day at a set time (UTC); and the daily
form's chairs (``entrant_chair``).

Each day's event opens at ``DailySettings.at`` (minutes after midnight UTC) and closes 24 hours later, when the
next day's opens. Its id is ``daily-YYYYMMDD`` (the day it opened), so every server process on one store names
the same event, and the one holding the store's lease for that id creates it (``EventService.ensure_daily``).
Set by environment variables: ``TRIBRIDGE_DAILY`` (``on``, the default, or ``off``), ``TRIBRIDGE_DAILY_AT``
(``HH:MM`` UTC, default ``00:00``), ``TRIBRIDGE_DAILY_BOARDS`` (default 6).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass

from tribridge.errors import InvalidInput
from tribridge.events.boards import Board

__all__ = ["DAILY_CREATOR", "DailyPeriod", "DailySettings", "daily_period", "entrant_chair"]

DAY_SECONDS = 24 * 3600
DAILY_CREATOR = "server"  # the ``creator`` of the house's daily events (no client's limits count them)
ENABLED_ENV, AT_ENV, BOARDS_ENV = "TRIBRIDGE_DAILY", "TRIBRIDGE_DAILY_AT", "TRIBRIDGE_DAILY_BOARDS"
MAX_DAILY_BOARDS = 36


@dataclass(frozen=True)
class DailySettings:
    """Whether the server opens a daily event itself, at which minute of the UTC day, with how many boards."""

    enabled: bool = True
    at_minutes: int = 0
    boards: int = 6
    scheme: str = "classic"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> DailySettings:
        """The settings the environment gives (``TRIBRIDGE_DAILY``, ``_AT``, ``_BOARDS``); a bad value names its variable."""
        env = os.environ if env is None else env
        enabled_text = env.get(ENABLED_ENV, "on").strip().lower()
        if enabled_text not in ("on", "off", "1", "0", "true", "false", "yes", "no"):
            raise InvalidInput(ENABLED_ENV, f"expected on or off, got {enabled_text[:20]!r}")
        at_text = env.get(AT_ENV, "00:00").strip()
        match = re.fullmatch(r"([01]?\d|2[0-3]):([0-5]\d)", at_text)
        if match is None:
            raise InvalidInput(AT_ENV, f"expected a UTC time HH:MM, got {at_text[:20]!r}")
        boards_text = env.get(BOARDS_ENV, "6").strip()
        if not boards_text.isdigit() or not 1 <= int(boards_text) <= MAX_DAILY_BOARDS:
            raise InvalidInput(BOARDS_ENV, f"expected 1 to {MAX_DAILY_BOARDS} boards, got {boards_text[:20]!r}")
        return cls(
            enabled=enabled_text in ("on", "1", "true", "yes"),
            at_minutes=int(match[1]) * 60 + int(match[2]),
            boards=int(boards_text),
        )


@dataclass(frozen=True)
class DailyPeriod:
    """One day's daily event: its id, its name, when it opens and when it closes (wall-clock seconds)."""

    event_id: str
    name: str
    opens: float
    closes: float


def daily_period(now: float, at_minutes: int) -> DailyPeriod:
    """The daily event open at ``now``: the one that opened at the last ``at_minutes`` past midnight UTC."""
    offset = at_minutes * 60
    opens = (now - offset) // DAY_SECONDS * DAY_SECONDS + offset
    day = time.gmtime(opens)
    return DailyPeriod(
        f"daily-{time.strftime('%Y%m%d', day)}",
        f"Daily {time.strftime('%Y-%m-%d', day)}",
        float(opens),
        float(opens + DAY_SECONDS),
    )


def entrant_chair(board: Board) -> int:
    """The event chair every entrant of a daily event holds on ``board``: (number - 1) mod 3."""
    return (board.number - 1) % 3
