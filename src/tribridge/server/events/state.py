"""``EventState``: an event as one asker sees it now, and what of it that asker may see.

While the event is open an asker sees the travellers of the boards it has a result on (in every section of
them) and nothing else of the deals; once the event has closed, everything. ``visible`` is that rule, and
every figure of a board (the standings, a teams match's IMPs) is computed from what it lets through.
"""

from __future__ import annotations

from dataclasses import dataclass

from tribridge.events.boards import Board
from tribridge.events.event import EventResult
from tribridge.events.results import Entrant, Standing, TeamMatch, TeamStanding, Traveller
from tribridge.events.scoring import individual_standings
from tribridge.server.events.documents import EventDocument
from tribridge.server.events.travellers import running_standings

__all__ = ["EventState"]


@dataclass(frozen=True)
class EventState:
    """An event as one asker sees it now: the document, closed or not, the asker's entry, results that count.

    ``matches`` and ``team_standings`` are the teams form's (the matches so far; the standings once the
    knockout is over).
    """

    document: EventDocument
    closed: bool
    me: int | None  # the asker's entry (index), None for a stranger
    my_table: tuple[str, str] | None  # the asker's current table and its token there (individual, teams)
    boards: tuple[Board, ...]
    entrants: tuple[Entrant, ...]
    travellers: tuple[Traveller, ...]  # every board (by section), with every result that counts
    played: tuple[int, ...]  # boards each entry has finished (that count)
    matches: tuple[TeamMatch, ...] = ()
    team_standings: tuple[TeamStanding, ...] = ()

    def my_boards(self) -> set[int]:
        """The numbers of the boards the asker has a counted result on."""
        if self.me is None:
            return set()
        name = self.entrants[self.me].name
        return {t.board.number for t in self.travellers if any(name in r.players for r in t.results)}

    def visible(self) -> list[Traveller]:
        """The travellers the asker may see: all once closed, else those of the boards it has finished."""
        if self.closed:
            return list(self.travellers)
        mine = self.my_boards()
        return [t for t in self.travellers if t.board.number in mine]

    def standings(self) -> list[Standing]:
        """Final standings once closed (an unplayed board counting the set fraction), else the running ones over
        the boards whose travellers the asker may see (``visible``: a stranger sees no scores while it runs)."""
        if self.closed and self.document["form"] != "teams":
            return individual_standings(self.travellers, self.entrants)
        return running_standings(self.visible(), self.entrants)

    def result(self) -> EventResult:
        """The event as ``events.event.EventResult`` over the visible travellers (for the exports)."""
        doc = self.document
        shown = tuple(self.visible())
        common = (doc["form"], doc["scheme"], None, doc["filler"], doc["rounds"], self.entrants, shown)
        if doc["form"] == "teams":
            return EventResult(*common, team_standings=self.team_standings, matches=self.matches)
        standings = individual_standings(shown, self.entrants) if self.closed else self.standings()
        return EventResult(*common, standings=tuple(standings))
