"""An event as the store keeps it (one JSON document), the request that creates one, and the events' limits.

The document holds the boards (the deals: never sent to a client before the event is over for it), the
entries (each entrant's name and its table), when the event closes and, once it has closed, the number of
boards each table had finished when the results were frozen.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any, NotRequired, TypedDict, cast

from tribridge.errors import InvalidInput
from tribridge.events.boards import Board, BoardJson, count_pbn_boards, pbn_boards, seeded_boards
from tribridge.events.event import Form
from tribridge.events.movement import MAX_PLAYERS, MIN_PLAYERS
from tribridge.events.run import default_rounds
from tribridge.rules.scoring import scheme_names
from tribridge.server.tables.bots import check_bot_name
from tribridge.server.tables.limits import check_name
from tribridge.server.tables.wire import JsonObject

__all__ = [
    "MAX_TEAMS",
    "MatchJson",
    "TeamJson",
    "DEFAULT_HOURS",
    "EVENT_FORMS",
    "EntryJson",
    "EventDocument",
    "EventLimits",
    "EventRequest",
    "FILLER_BOT",
    "event_request",
    "new_document",
]

EVENT_FORMS: tuple[Form, ...] = ("daily", "individual", "teams")
"""The forms the server runs."""
MAX_TEAMS = 9
FILLER_BOT = "paper+random"
DEFAULT_HOURS = 24.0
MAX_HOURS = 24.0 * 14
MAX_PBN_CHARS = 200_000
DEFAULT_START_MINUTES = 10.0


@dataclass(frozen=True)
class EventLimits:
    """How many events may be open (per creating client and in all), created per minute, boards and entries;
    how long a person's chair may keep its table waiting."""

    open_events: int = 200
    open_events_per_client: int = 10
    creations_per_minute: int = 30
    creations_per_minute_per_client: int = 5
    max_boards: int = 36
    max_entries: int = 200
    leave_seconds: float = 120.0  # individual: a chair waiting this long, no socket open, gets a stand-in bot


class EntryJson(TypedDict):
    """One entrant: its name, its table (daily; "" in the individual form), when it joined, and (individual)
    the hash of its own token (a daily entrant's token is its table's)."""

    name: str
    table_id: str
    joined: float
    token_hash: str | None
    identity: NotRequired[str]  # who entered (``identity.entrant_identity``): one entry each
    guest: NotRequired[bool]  # entered as a guest (by its client address): marked in the standings
    account_id: NotRequired[str]  # entered as this account (logged in): its username is the name, and it is rated
    final_percent: NotRequired[float]  # an account's percentage in the final standings (kept once settled)


class TeamJson(TypedDict):
    """A team of the teams form: its name and its members (entry numbers, in the order they entered)."""

    name: str
    members: list[int]


class MatchJson(TypedDict):
    """A match of the knockout: its stage and number, its teams (team numbers; -1 the filler team), the table
    ids of each round started (three a round), and the winner once its last round is over."""

    stage: int
    index: int
    teams: list[int]
    round_tables: list[list[str]]
    winner: int | None


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
    players: int  # individual: the places of the movement (0 for daily)
    rounds: int
    starts_at: float  # individual: round 1 starts then, or once every place is taken
    round_tables: list[list[str]]  # individual: each started round's table ids by movement table ("" unplayed)
    seed: int | None  # teams: the secret seed of the boards, drawn stage by stage (never sent)
    stage_boards: int  # teams: boards a stage
    max_teams: int
    teams: list[TeamJson]
    stages: list[list[int]]  # teams: the teams alive at the start of each stage begun
    matches: list[MatchJson]
    chair_secret: NotRequired[str]  # the secret of the entrants' chair tokens (never sent)
    invite_hash: NotRequired[str]  # a private event's (boards from the creator's PBN): its invitation's hash
    house: NotRequired[bool]  # the house's daily event, opened by the server itself (``daily``)
    settled: NotRequired[bool]  # closed, and its games rated and its accounts' percentages kept (``settle``)


@dataclass(frozen=True)
class EventRequest:
    """A checked ``POST /api/events`` body."""

    form: Form
    name: str
    scheme: str
    filler: str
    boards: tuple[Board, ...]
    hours: float
    players: int = 0
    rounds: int = 1
    start_minutes: float = 0.0
    max_teams: int = 0
    seed: int | None = None


def event_request(body: Any, limits: EventLimits) -> EventRequest:
    """The request of ``{"form", "name", "boards": N | "pbn": text, "scheme", "filler"?, "closes_in_hours"?}``,
    with ``"players"``, ``"rounds"?`` and ``"starts_in_minutes"?`` for the individual form."""
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
    if form == "teams":
        return _teams(body, name, scheme, filler, float(hours), limits.max_boards)
    boards = _boards(body, limits.max_boards)
    if form == "daily":
        return EventRequest("daily", name, scheme, filler, boards, float(hours))
    players, rounds, minutes = _individual(body, len(boards))
    if minutes >= hours * 60:
        raise InvalidInput("starts_in_minutes", "the event must start before it closes")
    return EventRequest(cast(Form, form), name, scheme, filler, boards, float(hours), players, rounds, minutes)


def _teams(body: JsonObject, name: str, scheme: str, filler: str, hours: float, most: int) -> EventRequest:
    """A teams event's request: ``boards`` a stage (drawn from a secret seed, stage by stage), ``teams``."""
    if body.get("pbn") is not None:
        raise InvalidInput("pbn", 'the teams form draws its boards, stage by stage: give "boards": N a stage')
    count = body.get("boards")
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= most:
        raise InvalidInput("boards", f"expected a number of boards a stage from 1 to {most}")
    teams = body.get("teams")
    if not isinstance(teams, int) or isinstance(teams, bool) or not 2 <= teams <= MAX_TEAMS:
        raise InvalidInput("teams", f"expected 2 to {MAX_TEAMS} teams")
    minutes = _start_minutes(body)
    if minutes >= hours * 60:
        raise InvalidInput("starts_in_minutes", "the event must start before it closes")
    seed = secrets.randbits(63)
    first = tuple(seeded_boards(seed, count))
    return EventRequest("teams", name, scheme, filler, first, hours, 0, min(3, count), minutes, teams, seed)


def _start_minutes(body: dict[str, Any]) -> float:
    """Minutes until the event starts (individual, teams)."""
    minutes = body.get("starts_in_minutes", DEFAULT_START_MINUTES)
    if not isinstance(minutes, (int, float)) or isinstance(minutes, bool) or not 0 < minutes <= 24 * 60:
        raise InvalidInput("starts_in_minutes", "expected more than 0 and at most 1440 minutes")
    return float(minutes)


def _individual(body: JsonObject, boards: int) -> tuple[int, int, float]:
    """(players, rounds, minutes to the start) of an individual event's request."""
    players = body.get("players")
    if not isinstance(players, int) or isinstance(players, bool) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise InvalidInput("players", f"expected {MIN_PLAYERS} to {MAX_PLAYERS} players")
    rounds = body.get("rounds")
    if rounds is None:
        rounds = default_rounds(players, boards)
    if not isinstance(rounds, int) or isinstance(rounds, bool) or not 1 <= rounds <= boards:
        raise InvalidInput("rounds", f"expected 1 to {boards} rounds (one board a round at least)")
    return players, rounds, _start_minutes(body)


def _boards(body: JsonObject, most: int) -> tuple[Board, ...]:
    """The event's boards: ``boards`` seeded from a secret drawn here, or every board of the ``pbn`` text."""
    count, text = body.get("boards"), body.get("pbn")
    if (count is None) == (text is None):
        raise InvalidInput("boards", 'give either "boards": N or "pbn": the text of the boards')
    if text is not None:
        if not isinstance(text, str) or len(text) > MAX_PBN_CHARS:
            raise InvalidInput("pbn", f"expected the text of a PBN file of at most {MAX_PBN_CHARS} characters")
        if count_pbn_boards(text) > most:  # counted before any parsing
            raise InvalidInput("pbn", f"expected 1 to {most} boards, the file has {count_pbn_boards(text)}")
        boards = pbn_boards(text, "pbn")
        if not 1 <= len(boards) <= most:
            raise InvalidInput("pbn", f"expected 1 to {most} boards, the file has {len(boards)}")
        return tuple(boards)
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= most:
        raise InvalidInput("boards", f"expected a number of boards from 1 to {most}")
    return tuple(seeded_boards(secrets.randbits(63), count))


def new_document(event_id: str, request: EventRequest, client: str, now: float) -> EventDocument:
    """A new event's document from its checked request, created at ``now`` by ``client``."""
    return {
        "event_id": event_id,
        "form": request.form,
        "name": request.name,
        "scheme": request.scheme,
        "filler": request.filler,
        "created": now,
        "closes_at": now + request.hours * 3600.0,
        "creator": client,
        "boards": [b.to_json() for b in request.boards],
        "entries": [],
        "frozen": None,
        "players": request.players,
        "rounds": request.rounds,
        "starts_at": now + request.start_minutes * 60.0,
        "round_tables": [],
        "seed": request.seed,
        "stage_boards": len(request.boards),
        "max_teams": request.max_teams,
        "teams": [],
        "stages": [],
        "matches": [],
    }
