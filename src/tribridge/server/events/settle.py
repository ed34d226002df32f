"""What a closed event leaves behind: its duplicate games rated, and its accounts' final percentages kept.

Once an event has closed and its results are frozen, each board's results in the same chair from two accounts
are a rated game (``accounts.ratings.duplicate_games``: the better matchpoints win); guests and bots are not
rated here. Each game's key names the event, the board, its section, the chair and both results, so the store
applies it once however many processes settle the event at the same time. The accounts' final percentages are
kept in the event's document for the daily series (``series``); ``settled`` marks that both are done (a process
stopped halfway settles again at the next look, the games already applied being skipped).
"""

from __future__ import annotations

from tribridge.server.accounts.rating_service import account_entity
from tribridge.server.accounts.ratings import Game, duplicate_games
from tribridge.server.events.documents import EventDocument
from tribridge.server.events.state import EventState

__all__ = ["final_percents", "mark_settled", "rated_games"]


def rated_games(state: EventState) -> list[list[Game]]:
    """The rated games of a closed event, board by board (each list applied in one transaction)."""
    document = state.document
    entity = {e["name"]: account_entity(e["account_id"]) for e in document["entries"] if e.get("account_id")}
    prefix = f"event:{document['event_id']}"
    out = [duplicate_games(prefix, traveller, entity.get) for traveller in state.travellers]
    return [games for games in out if games]


def final_percents(state: EventState) -> dict[str, float]:
    """Each account entrant's percentage in the final standings, by name (none for a teams event)."""
    if state.document["form"] == "teams":
        return {}
    accounts = {e["name"] for e in state.document["entries"] if e.get("account_id")}
    return {s.name: s.percent for s in state.standings() if s.name in accounts}


def mark_settled(document: EventDocument, percents: dict[str, float]) -> None:
    """Keep the final percentages in the entries and mark the event settled."""
    for entry in document["entries"]:
        if entry["name"] in percents:
            entry["final_percent"] = percents[entry["name"]]
    document["settled"] = True
