"""A finished event as data: its form, scheme, entrants, travellers, standings and (teams) matches.

``EventResult.to_json()`` is one JSON object (``standings`` and ``travellers`` first; the figures in
it can be recomputed from the travellers, ``events.scoring``) and ``EventResult.from_json`` reads it
back, so an event can be kept in any store that keeps JSON.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypedDict

from tribridge.errors import InvalidInput
from tribridge.events.results import (
    Entrant,
    EntrantJson,
    Standing,
    StandingJson,
    TeamMatch,
    TeamMatchJson,
    TeamStanding,
    TeamStandingJson,
    Traveller,
    TravellerJson,
    reading,
)

__all__ = ["FORMS", "EventJson", "EventResult", "Form"]

Form = Literal["daily", "individual", "teams"]
FORMS: tuple[Form, ...] = ("daily", "individual", "teams")


class EventJson(TypedDict):
    """``EventResult.to_json``: ``standings`` are team standings in the teams form."""

    form: Form
    scheme: str
    seed: int | None
    filler: str
    rounds: int
    entrants: list[EntrantJson]
    standings: list[StandingJson] | list[TeamStandingJson]
    travellers: list[TravellerJson]
    matches: list[TeamMatchJson]


@dataclass(frozen=True)
class EventResult:
    """A finished event: every traveller (scored), the standings and, for teams, the matches.

    ``standings`` rank the individual entrants (daily, individual); ``team_standings`` the teams.
    ``seed`` is None when the boards came from a file; ``filler`` is the bot that filled empty chairs.
    """

    form: Form
    scheme: str
    seed: int | None
    filler: str
    rounds: int
    entrants: tuple[Entrant, ...]
    travellers: tuple[Traveller, ...]
    standings: tuple[Standing, ...] = ()
    team_standings: tuple[TeamStanding, ...] = ()
    matches: tuple[TeamMatch, ...] = ()

    def to_json(self) -> EventJson:
        """One JSON-ready object: form, scheme, seed, entrants, standings, travellers, matches."""
        standings: list[StandingJson] | list[TeamStandingJson]
        if self.form == "teams":
            standings = [s.to_json() for s in self.team_standings]
        else:
            standings = [s.to_json() for s in self.standings]
        return {
            "form": self.form,
            "scheme": self.scheme,
            "seed": self.seed,
            "filler": self.filler,
            "rounds": self.rounds,
            "entrants": [e.to_json() for e in self.entrants],
            "standings": standings,
            "travellers": [t.to_json() for t in self.travellers],
            "matches": [m.to_json() for m in self.matches],
        }

    @classmethod
    def from_json(cls, data: EventJson) -> EventResult:
        """Inverse of ``to_json``."""
        with reading("event"):
            form = data["form"]
            if form not in FORMS:
                raise InvalidInput("event.form", f"expected one of {', '.join(FORMS)}, got {form!r}")
            seed = data["seed"]
            common = (
                form,
                str(data["scheme"]),
                None if seed is None else int(seed),
                str(data["filler"]),
                int(data["rounds"]),
                tuple(Entrant.from_json(e) for e in data["entrants"]),
                tuple(Traveller.from_json(t) for t in data["travellers"]),
            )
            matches = tuple(TeamMatch.from_json(m) for m in data["matches"])
            if form == "teams":
                teams = tuple(TeamStanding.from_json(s) for s in data["standings"])  # type: ignore[arg-type]
                return cls(*common, team_standings=teams, matches=matches)
            singles = tuple(Standing.from_json(s) for s in data["standings"])  # type: ignore[arg-type]
            return cls(*common, standings=singles, matches=matches)
