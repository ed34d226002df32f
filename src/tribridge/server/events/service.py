"""``EventService``: events in the game store, entries as tables of the ``TableManager``, what each asker may see.

An entrant is known by the token of its table's chair 0 (the same tokens as every table). While the event is
open an entrant sees the travellers of the boards it has finished, and nobody else sees any; once the event
has closed (``closes_at`` passed) its results are frozen at the first look (each table counts the boards it had
finished then) and everything is public. Changes to an event's document are made under a store lease, so
several server processes on one PostgreSQL add entries without losing any.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from tribridge.errors import InvalidInput
from tribridge.events.boards import Board
from tribridge.events.event import EventResult
from tribridge.events.results import Entrant, Standing, Traveller
from tribridge.events.scoring import individual_standings
from tribridge.server.errors import Conflict, NotFound, TooMany
from tribridge.server.events.documents import EntryJson, EventDocument, EventLimits, event_request
from tribridge.server.events.travellers import PERSON, finished_boards, running_standings, travellers_of
from tribridge.server.tables.config import event_table_config
from tribridge.server.tables.limits import RateWindow, check_name
from tribridge.server.tables.manager import TableManager
from tribridge.server.tables.peers import process_owner
from tribridge.server.tables.store import Store, token_hash

__all__ = ["EventService", "EventState", "entrant_chair"]

LEASE_SECONDS = 10.0
LEASE_WAIT_SECONDS = 0.02


def entrant_chair(board: Board) -> int:
    """The event chair every entrant of a daily event holds on ``board``: (number - 1) mod 3."""
    return (board.number - 1) % 3


@dataclass(frozen=True)
class EventState:
    """An event as one asker sees it now: the document, closed or not, the asker's entry, results that count."""

    document: EventDocument
    closed: bool
    me: int | None  # the asker's entry (index), None for a stranger
    boards: tuple[Board, ...]
    entrants: tuple[Entrant, ...]
    travellers: tuple[Traveller, ...]  # every board, with every result that counts
    played: tuple[int, ...]  # boards each entry has finished (that count)

    def visible(self) -> list[Traveller]:
        """The travellers the asker may see: all once closed, else those of the boards it has finished."""
        if self.closed:
            return list(self.travellers)
        done = 0 if self.me is None else self.played[self.me]
        return list(self.travellers[:done])

    def standings(self) -> list[Standing]:
        """Final standings once closed (an unplayed board counting the set fraction), else the running ones."""
        if self.closed:
            return individual_standings(self.travellers, self.entrants)
        return running_standings(self.travellers, self.entrants)

    def result(self) -> EventResult:
        """The event as ``events.event.EventResult`` over the visible travellers (for the exports)."""
        doc = self.document
        shown = self.visible()
        standings = individual_standings(shown, self.entrants) if self.closed else self.standings()
        return EventResult(
            doc["form"], doc["scheme"], None, doc["filler"], 1, self.entrants, tuple(shown), tuple(standings)
        )


class EventService:
    """Creates events, adds entries (each a table of the manager), and answers what an asker may see."""

    def __init__(
        self, manager: TableManager, limits: EventLimits | None = None, clock: Callable[[], float] = time.time
    ) -> None:
        self.manager = manager
        self.limits = limits or EventLimits()
        self.clock = clock
        self.owner = f"events:{process_owner()}"
        self.creations = RateWindow(60.0)

    @property
    def store(self) -> Store:
        """The manager's open store."""
        if self.manager.store is None:
            raise RuntimeError("the store is not open")
        return self.manager.store

    # --- documents --------------------------------------------------------------------------------
    def load(self, event_id: str) -> EventDocument:
        """An event's document (404 if unknown)."""
        text = self.store.load_event(event_id[:64])
        if text is None:
            raise NotFound(f"no event {event_id[:40]!r}")
        document: EventDocument = json.loads(text)
        return document

    def _save(self, document: EventDocument) -> None:
        self.store.put_event(document["event_id"], json.dumps(document))

    @contextmanager
    def _locked(self, event_id: str) -> Iterator[None]:
        """Hold the event's lease (one writer of its document at a time, over every process)."""
        key = f"event:{event_id}"
        deadline = time.monotonic() + LEASE_SECONDS
        while not self.store.acquire_lease(key, self.owner, LEASE_SECONDS):
            if time.monotonic() > deadline:
                raise Conflict("the event is busy; try again")
            time.sleep(LEASE_WAIT_SECONDS)
        try:
            yield
        finally:
            self.store.release_lease(key, self.owner)

    def documents(self) -> list[EventDocument]:
        """Every stored event's document, oldest first."""
        out = []
        for event_id in self.store.event_ids():
            text = self.store.load_event(event_id)
            if text is not None:
                out.append(json.loads(text))
        return out

    def is_open(self, document: EventDocument) -> bool:
        """Whether the event still takes entries and keeps its results hidden."""
        return self.clock() < document["closes_at"]

    # --- creating and joining ---------------------------------------------------------------------
    def create(self, body: object, client: str) -> EventDocument:
        """A new event from a ``POST /api/events`` body, within the limits (429 past them)."""
        request = event_request(body, self.limits)
        self._check_creation_limits(client)
        now = self.clock()
        document: EventDocument = {
            "event_id": secrets.token_urlsafe(6),
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
        }
        self._save(document)
        self.creations.add(client)
        self.creations.add("*")
        return document

    def _check_creation_limits(self, client: str) -> None:
        lim = self.limits
        open_events = [d for d in self.documents() if self.is_open(d)]
        if sum(1 for d in open_events if d["creator"] == client) >= lim.open_events_per_client:
            raise TooMany(f"too many open events created by this client (limit {lim.open_events_per_client})", 3600)
        if len(open_events) >= lim.open_events:
            raise TooMany(f"too many open events on this server (limit {lim.open_events})", 3600)
        if self.creations.count(client) >= lim.creations_per_minute_per_client:
            raise TooMany(
                f"too many events created by this client in the last minute (limit "
                f"{lim.creations_per_minute_per_client})",
                self.creations.retry_after(client),
            )
        if self.creations.count("*") >= lim.creations_per_minute:
            raise TooMany(
                f"too many events created in the last minute (limit {lim.creations_per_minute})",
                self.creations.retry_after("*"),
            )

    def join(self, event_id: str, body: object, client: str) -> tuple[EventDocument, EntryJson, str]:
        """Enter an open event: a table of the entrant's own with two filler bots; (event, entry, token)."""
        if not isinstance(body, dict):
            raise InvalidInput("body", "expected a JSON object with a 'name'")
        name = check_name(body.get("name"), "name")
        if name.lower().startswith("filler"):
            raise InvalidInput("name", "names starting with 'filler' belong to the bots")
        with self._locked(event_id):
            document = self.load(event_id)
            if not self.is_open(document):
                raise Conflict("the event has closed")
            if any(e["name"].lower() == name.lower() for e in document["entries"]):
                raise Conflict(f"an entrant called {name!r} is already in this event")
            if len(document["entries"]) >= self.limits.max_entries:
                raise TooMany(f"the event is full ({self.limits.max_entries} entries)", 3600)
            boards = [Board.from_json(b) for b in document["boards"]]
            filler = {"kind": "bot", "bot": document["filler"]}
            chairs = [{"kind": "human", "name": name}, dict(filler), dict(filler)]
            config = event_table_config(
                event_id, boards, [entrant_chair(b) for b in boards], chairs, document["scheme"]
            )
            table, token = self.manager.create_configured(config, 0, client, name)
            assert token is not None
            entry: EntryJson = {"name": name, "table_id": table.table_id, "joined": self.clock()}
            document["entries"].append(entry)
            self._save(document)
        return document, entry, token

    # --- what an asker sees -----------------------------------------------------------------------
    def state(self, event_id: str, token: str | None) -> EventState:
        """The event as the holder of ``token`` (an entrant's, or None) may see it now."""
        document = self._frozen_if_closed(self.load(event_id))
        frozen = document["frozen"]
        tables = [self.manager.get(e["table_id"]) for e in document["entries"]]
        counted = [finished_boards(t, None if frozen is None else frozen.get(t.table_id, 0)) for t in tables]
        hashed = None if token is None else token_hash(token)
        me = next((i for i, t in enumerate(tables) if hashed is not None and t.token_hashes.get(0) == hashed), None)
        boards = tuple(Board.from_json(b) for b in document["boards"])
        names = [e["name"] for e in document["entries"]]
        travellers = travellers_of(boards, list(zip(names, tables, counted)))
        entrants = tuple(Entrant(n, PERSON) for n in names)
        return EventState(document, frozen is not None, me, boards, entrants, tuple(travellers), tuple(counted))

    def _frozen_if_closed(self, document: EventDocument) -> EventDocument:
        """A closed event's document with its results frozen (done once, at the first look after the close)."""
        if self.is_open(document) or document["frozen"] is not None:
            return document
        with self._locked(document["event_id"]):
            document = self.load(document["event_id"])
            if document["frozen"] is None:
                tables = [self.manager.get(e["table_id"]) for e in document["entries"]]
                document["frozen"] = {t.table_id: finished_boards(t) for t in tables}
                self._save(document)
        return document
