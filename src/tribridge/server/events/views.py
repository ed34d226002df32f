"""The JSON answers of the events API: an event's summary, and the event as one asker sees it."""

from __future__ import annotations

from typing import TypedDict

from tribridge.events.results import StandingJson, TeamMatchJson, TeamStandingJson, TravellerJson
from tribridge.server.events.documents import EventDocument
from tribridge.server.events.state import EventState

__all__ = ["EntrantView", "EventSummary", "EventView", "MyEntry", "TeamView", "event_summary", "event_view"]


class EventSummary(TypedDict):
    """An event in the list of events: what it is, how many boards and entries, when it closes; for the
    individual form its places, rounds, when round 1 starts and how many rounds have started."""

    event_id: str
    form: str
    name: str
    scheme: str
    boards: int
    entries: int
    closes_at: float
    open: bool
    players: int
    rounds: int
    starts_at: float
    rounds_started: int
    teams: int
    stages_started: int
    private: bool  # the boards came from the creator's PBN file: only its invitees may enter
    boards_from: str  # "dealer" (the server's secret deal) or "pbn" (the creator's file)
    house: bool  # the house's daily event, opened by the server itself each day


class EntrantView(TypedDict):
    """An entrant as everyone sees it: its name, how many boards it has finished, whether it is an account."""

    name: str
    boards_played: int
    account: bool


class MyEntry(TypedDict):
    """The asker's own entry: its name, its table now (None between rounds) and how far it has played;
    ``table_token`` is its chair's token at that table in the individual form (a daily entrant holds it);
    ``account``: entered as an account (found by its session on any device)."""

    name: str
    table_id: str | None
    table_token: str | None
    boards_played: int
    account: bool


class TeamView(TypedDict):
    """A team of the teams form: its name and its members' names (in the order they entered)."""

    name: str
    members: list[str]


class EventView(TypedDict):
    """``GET /api/events/{id}``: the summary, the entrants, the asker's entry, the standings, visible travellers."""

    event: EventSummary
    filler: str
    closed: bool
    entrants: list[EntrantView]
    me: MyEntry | None
    standings: list[StandingJson]
    final: bool
    travellers: list[TravellerJson]
    teams: list[TeamView]
    matches: list[TeamMatchJson]
    team_standings: list[TeamStandingJson]


def event_summary(document: EventDocument, is_open: bool) -> EventSummary:
    """The list's line for an event."""
    return {
        "event_id": document["event_id"],
        "form": document["form"],
        "name": document["name"],
        "scheme": document["scheme"],
        "boards": len(document["boards"]),
        "entries": len(document["entries"]),
        "closes_at": document["closes_at"],
        "open": is_open,
        "players": document["players"],
        "rounds": document["rounds"],
        "starts_at": document["starts_at"],
        "rounds_started": len(document["round_tables"]),
        "teams": document["max_teams"],
        "stages_started": len(document["stages"]),
        "private": "invite_hash" in document,
        "boards_from": "pbn" if "invite_hash" in document else "dealer",
        "house": bool(document.get("house")),
    }


def event_view(state: EventState) -> EventView:
    """The event as ``state``'s asker may see it (travellers of the boards it finished, all once closed)."""
    document = state.document
    entries = document["entries"]
    me: MyEntry | None = None
    if state.me is not None:
        entry = entries[state.me]
        table_id, table_token = state.my_table if state.my_table is not None else (entry["table_id"] or None, None)
        me = {
            "name": entry["name"],
            "table_id": table_id,
            "table_token": table_token,
            "boards_played": state.played[state.me],
            "account": bool(entry.get("account_id")),
        }
    return {
        "event": event_summary(document, not state.closed),
        "filler": document["filler"],
        "closed": state.closed,
        "entrants": [
            {"name": e["name"], "boards_played": n, "account": bool(e.get("account_id"))}
            for e, n in zip(entries, state.played)
        ],
        "me": me,
        "standings": [s.to_json() for s in state.standings()],
        "final": state.closed,
        "travellers": [t.to_json() for t in state.visible()],
        "teams": [
            {"name": t["name"], "members": [entries[m]["name"] for m in t["members"]]} for t in document["teams"]
        ],
        "matches": [m.to_json() for m in state.matches],
        "team_standings": [s.to_json() for s in state.team_standings],
    }
