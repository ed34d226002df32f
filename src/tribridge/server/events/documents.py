"""An event as the store keeps it (one JSON document), the request that creates one, and the events' limits.

The document holds the boards (the deals: never sent to a client before the event is over for it), the
entries (each entrant's name and its table), when the event closes and, once it has closed, the number of
boards each table had finished when the results were frozen.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any, TypedDict, cast

from tribridge.errors import InvalidInput
from tribridge.events.boards import Board, BoardJson, pbn_boards, seeded_boards
from tribridge.events.event import Form
from tribridge.rules.scoring import scheme_names
from tribridge.server.tables.bots import check_bot_name
from tribridge.server.tables.limits import check_name

__all__ = [
    "DEFAULT_HOURS",
    "EVENT_FORMS",
    "EntryJson",
    "EventDocument",
    "EventLimits",
    "EventRequest",
    "FILLER_BOT",
    "event_request",
]

EVENT_FORMS: tuple[Form, ...] = ("daily",)
"""The forms the server runs (``individual`` and ``teams`` run with bots only: ``tribridge event run``)."""
FILLER_BOT = "paper+random"
DEFAULT_HOURS = 24.0
MAX_HOURS = 24.0 * 14
MAX_PBN_CHARS = 200_000


@dataclass(frozen=True)
class EventLimits:
    """How many events may be open (per creating client and in all), created per minute, boards and entries."""

    open_events: int = 200
    open_events_per_client: int = 10
    creations_per_minute: int = 30
    creations_per_minute_per_client: int = 5
    max_boards: int = 36
    max_entries: int = 200


class EntryJson(TypedDict):
    """One entrant: its name, its table and when it joined."""

    name: str
    table_id: str
    joined: float


class EventDocument(TypedDict):
    """The stored event: what was asked for, the boards, the entries, and the frozen results once closed."""

    event_id: str
    form: Form
    name: str
    scheme: str
    filler: str
    created: float
    closes_at: float
    creator: str
    boards: list[BoardJson]
    entries: list[EntryJson]
    frozen: dict[str, int] | None  # table id -> boards it had finished when the closed event's results froze


@dataclass(frozen=True)
class EventRequest:
    """A checked ``POST /api/events`` body."""

    form: Form
    name: str
    scheme: str
    filler: str
    boards: tuple[Board, ...]
    hours: float


def event_request(body: Any, limits: EventLimits) -> EventRequest:
    """The request of ``{"form", "name", "boards": N | "pbn": text, "scheme", "filler"?, "closes_in_hours"?}``."""
    if not isinstance(body, dict):
        raise InvalidInput("body", "expected a JSON object")
    form = body.get("form", "daily")
    if form not in EVENT_FORMS:
        raise InvalidInput("form", f"expected one of {', '.join(EVENT_FORMS)}, got {str(form)[:40]!r}")
    name = check_name(body.get("name"), "name")
    scheme = body.get("scheme") or "classic"
    if scheme not in scheme_names():
        raise InvalidInput(
            "scheme", f"unknown scheme {str(scheme)[:40]!r}: expected one of {', '.join(scheme_names())}"
        )
    filler = check_bot_name(body.get("filler") or FILLER_BOT, "filler")
    hours = body.get("closes_in_hours", DEFAULT_HOURS)
    if not isinstance(hours, (int, float)) or isinstance(hours, bool) or not 0 < hours <= MAX_HOURS:
        raise InvalidInput("closes_in_hours", f"expected a number of hours above 0, at most {MAX_HOURS:g}")
    return EventRequest(cast(Form, form), name, scheme, filler, _boards(body, limits.max_boards), float(hours))


def _boards(body: dict[str, Any], most: int) -> tuple[Board, ...]:
    """The event's boards: ``boards`` seeded from a secret drawn here, or every board of the ``pbn`` text."""
    count, text = body.get("boards"), body.get("pbn")
    if (count is None) == (text is None):
        raise InvalidInput("boards", 'give either "boards": N or "pbn": the text of the boards')
    if text is not None:
        if not isinstance(text, str) or len(text) > MAX_PBN_CHARS:
            raise InvalidInput("pbn", f"expected the text of a PBN file of at most {MAX_PBN_CHARS} characters")
        boards = pbn_boards(text, "pbn")
        if not 1 <= len(boards) <= most:
            raise InvalidInput("pbn", f"expected 1 to {most} boards, the file has {len(boards)}")
        return tuple(boards)
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= most:
        raise InvalidInput("boards", f"expected a number of boards from 1 to {most}")
    return tuple(seeded_boards(secrets.randbits(63), count))
