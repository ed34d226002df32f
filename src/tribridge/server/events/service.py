"""``EventService``: events in the game store, entries as tables of the ``TableManager``, what each asker may see.

A daily entrant is known by the token of its table's chair 0 (the same tokens as every table); an entrant of
the individual form by a token of its own, from which its chair's token at each round's table is derived
(``individual``). While the event is
open an entrant sees the travellers of the boards it has finished, and nobody else sees any; once the event
has closed (``closes_at`` passed) its results are frozen at the first look (each table counts the boards it had
finished then) and everything is public. Changes to an event's document are made under a store lease, so
several server processes on one PostgreSQL add entries without losing any; the lease is awaited (with a
deadline, never slept for on the event loop), and every store call goes through ``store.AsyncStore``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace

from tribridge.errors import InvalidInput
from tribridge.events.boards import Board
from tribridge.events.results import Entrant
from tribridge.server.errors import Conflict, Forbidden, NotFound, TooMany
from tribridge.server.events import individual, teams
from tribridge.server.events.daily import DAILY_CREATOR, DailySettings, daily_period
from tribridge.server.events.documents import EntryJson, EventDocument, EventLimits, EventRequest, event_request
from tribridge.server.events.identity import GUEST, EntrantIdentity, entrant_identity, name_skeleton
from tribridge.server.events.standins import StandIns
from tribridge.server.events.state import EventState
from tribridge.server.events.travellers import PERSON, PlayedTable, boards_played, travellers_of
from tribridge.server.store import AsyncStore, token_hash
from tribridge.server.tables.chat import SIDE_TYPES
from tribridge.server.tables.config import event_table_config
from tribridge.server.tables.limits import RateWindow, check_name
from tribridge.server.tables.manager import TableManager
from tribridge.server.tables.peers import process_owner
from tribridge.server.tables.table import Table
from tribridge.server.tables.wire import ChairConfig, TableAction

__all__ = ["EventService", "entrant_chair"]

LEASE_SECONDS = 10.0
LEASE_WAIT_SECONDS = 0.02
DAILY_CHECK_SECONDS = 60.0
BOT_LABEL = re.compile(r"\bbot(\s*\d+)?\s*$", re.IGNORECASE)  # how the table names a bot ("random bot 2")
log = logging.getLogger("tribridge.server")


def entrant_chair(board: Board) -> int:
    """The event chair every entrant of a daily event holds on ``board``: (number - 1) mod 3."""
    return (board.number - 1) % 3


class EventService:
    """Creates events, adds entries (each a table of the manager), and answers what an asker may see."""

    def __init__(
        self,
        manager: TableManager,
        limits: EventLimits | None = None,
        clock: Callable[[], float] = time.time,
        daily: DailySettings | None = None,
    ) -> None:
        self.manager = manager
        self.limits = limits or EventLimits()
        self.clock = clock
        self.owner = f"events:{process_owner()}"
        self.creations = RateWindow(60.0)
        self.standins = StandIns(manager, self.limits.leave_seconds)
        self.closes: dict[str, float] = {}  # event id -> its closes_at (never changes once created)
        self.daily = DailySettings.from_env() if daily is None else daily
        manager.gates.append(self.refuse_after_close)

    async def refuse_after_close(self, table: Table, action: TableAction) -> None:
        """Refuse (409) a game action at an event's table once the event has closed: a board finished after
        ``closes_at`` would not count, and ``next`` answers with the event's end."""
        event = table.config.get("event")
        if event is None or action["type"] in SIDE_TYPES:
            return
        event_id = event["event_id"]
        if event_id not in self.closes:
            self.closes[event_id] = (await self.load(event_id))["closes_at"]
        if self.clock() >= self.closes[event_id]:
            raise Conflict(f"event {event_id!r} has ended: its results are final, and no more boards are played")

    def watch(self) -> None:
        """Start watching the live individual and teams tables for chairs left waiting (once; see ``standins``)."""
        self.standins.leave_seconds = self.limits.leave_seconds

        async def live() -> list[tuple[str, str]]:
            out = []
            for d in await self.documents():
                if d["frozen"] is None and d["form"] == "individual" and d["round_tables"]:
                    out += [(t, d["filler"]) for t in d["round_tables"][-1] if t]
                elif d["frozen"] is None and d["form"] == "teams":
                    out += [(t, d["filler"]) for t in teams.current_tables(d)]
            return out

        self.standins.start(live)

    @property
    def store(self) -> AsyncStore:
        """The manager's open store."""
        if self.manager.store is None:
            raise RuntimeError("the store is not open")
        return self.manager.store

    # --- documents --------------------------------------------------------------------------------
    async def load(self, event_id: str) -> EventDocument:
        """An event's document (404 if unknown)."""
        text = await self.store.load_event(event_id[:64])
        if text is None:
            raise NotFound(f"no event {event_id[:40]!r}")
        document: EventDocument = json.loads(text)
        return document

    async def _save(self, document: EventDocument) -> None:
        await self.store.put_event(document["event_id"], json.dumps(document))

    @asynccontextmanager
    async def _locked(self, event_id: str) -> AsyncIterator[None]:
        """Hold the event's lease (one writer of its document at a time, over every process), awaited for
        ``LEASE_SECONDS`` at most (409 after that)."""
        key, deadline = f"event:{event_id}", time.monotonic() + LEASE_SECONDS
        if not await self.store.wait_for_lease(key, self.owner, LEASE_SECONDS, deadline, LEASE_WAIT_SECONDS):
            raise Conflict("the event is busy; try again")
        try:
            yield
        finally:
            await self.store.release_lease(key, self.owner)

    async def documents(self) -> list[EventDocument]:
        """Every stored event's document, oldest first."""
        out = []
        for event_id in await self.store.event_ids():
            text = await self.store.load_event(event_id)
            if text is not None:
                out.append(json.loads(text))
        return out

    def is_open(self, document: EventDocument) -> bool:
        """Whether the event still takes entries and keeps its results hidden."""
        return self.clock() < document["closes_at"]

    @staticmethod
    def is_house(document: EventDocument) -> bool:
        """Whether the event is the house's daily event (opened by the server itself: ``daily``)."""
        return bool(document.get("house"))

    # --- creating and joining ---------------------------------------------------------------------
    async def create(self, body: object, client: str) -> tuple[EventDocument, str | None]:
        """A new event from a ``POST /api/events`` body, within the limits (429 past them, checked before the body
        is read, which is read on a worker thread); with its invitation when private (boards from the creator's
        PBN: ``is_private``)."""
        await self._check_creation_limits(client)
        request: EventRequest = await asyncio.to_thread(event_request, body, self.limits)
        document = self._new_document(secrets.token_urlsafe(6), request, client)
        invite = None
        if isinstance(body, dict) and body.get("pbn") is not None:  # the creator chose the boards: invitees only
            invite = secrets.token_urlsafe(12)
            document["invite_hash"] = token_hash(invite)
        await self._save(document)
        self.creations.add(client)
        self.creations.add("*")
        return document, invite

    def _new_document(self, event_id: str, request: EventRequest, client: str) -> EventDocument:
        """A new event's document from its checked request, created now by ``client``."""
        now = self.clock()
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

    async def ensure_daily(self) -> str | None:
        """Open the house's daily event of now if it is not there yet (``daily``): created once over every process on
        the store (under its lease; a process that finds the lease held leaves it to its holder); its id, or None
        when the setting is off."""
        if not self.daily.enabled:
            return None
        period = daily_period(self.clock(), self.daily.at_minutes)
        if await self.store.load_event(period.event_id) is not None:
            return period.event_id
        key = f"event:{period.event_id}"
        if not await self.store.acquire_lease(key, self.owner, LEASE_SECONDS):
            return period.event_id  # another process is creating it
        try:
            if await self.store.load_event(period.event_id) is None:
                body = {"form": "daily", "name": period.name, "boards": self.daily.boards, "scheme": self.daily.scheme}
                body["closes_in_hours"] = max(period.closes - self.clock(), 60.0) / 3600.0
                request = await asyncio.to_thread(event_request, body, self.limits)
                document = self._new_document(period.event_id, request, DAILY_CREATOR)
                document["closes_at"], document["house"] = period.closes, True
                await self._save(document)
        finally:
            await self.store.release_lease(key, self.owner)
        return period.event_id

    def open_daily(self) -> None:
        """Keep the house's daily event open: check now and every ``DAILY_CHECK_SECONDS`` (a task the manager cancels
        when it stops); nothing when the setting is off."""
        if not self.daily.enabled:
            return

        async def keep_open() -> None:
            while True:
                try:
                    await self.ensure_daily()
                except Exception:  # a store outage: try again at the next check
                    log.exception("could not open the daily event")
                await asyncio.sleep(DAILY_CHECK_SECONDS)

        task = asyncio.get_running_loop().create_task(keep_open())
        self.manager.tasks.add(task)
        task.add_done_callback(self.manager.tasks.discard)

    @staticmethod
    def is_private(document: EventDocument) -> bool:
        """Whether only the creator's invitees may enter (an event whose boards came from the creator's PBN)."""
        return "invite_hash" in document

    async def _check_creation_limits(self, client: str) -> None:
        """Raise ``TooMany`` past the open events or the creations per minute (the client's or everyone's)."""
        lim = self.limits
        open_events = [d for d in await self.documents() if self.is_open(d)]
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

    async def join(self, event_id: str, body: object, client: str) -> tuple[EventDocument, EntryJson, str]:
        """Enter an open event: (event, entry, token); daily: a table of the entrant's own with two filler bots."""
        if not isinstance(body, dict):
            raise InvalidInput("body", "expected a JSON object with a 'name'")
        name = check_name(body.get("name"), "name")
        if name.lower().startswith("filler") or BOT_LABEL.search(name):
            raise InvalidInput(
                "name", "names starting with 'filler' or ending in 'bot' (and a number) belong to the bots"
            )
        identity = entrant_identity(client)
        async with self._locked(event_id):
            document = await self.load(event_id)
            self._check_invite(document, body.get("invite"))
            self._check_entry(document, name, identity)
            if document["form"] == "teams":
                teams.join_team(document, len(document["entries"]), _team_of(body))
            if document["form"] == "daily":
                table_id, token = await self._daily_table(document, name, client)
                hashed = None
            else:
                table_id, token = "", secrets.token_urlsafe(24)
                hashed = token_hash(token)
            entry: EntryJson = {"name": name, "table_id": table_id, "joined": self.clock(), "token_hash": hashed}
            entry["identity"], entry["guest"] = identity.key, identity.guest
            document["entries"].append(entry)
            await self._advance(document)
            await self._save(document)
        self.watch()
        return document, entry, token

    def _check_invite(self, document: EventDocument, invite: object) -> None:
        """Refuse (403) an entry to a private event without its invitation."""
        expected = document.get("invite_hash")
        if expected is None:
            return
        if not isinstance(invite, str) or not secrets.compare_digest(token_hash(invite[:64]), expected):
            raise Forbidden("a private event (its boards came from its creator's file): enter with its invitation")

    def _check_entry(self, document: EventDocument, name: str, identity: EntrantIdentity) -> None:
        """Raise unless ``name`` may enter now: the event open (and not started, individual), the name free (no
        look-alike: ``identity.name_skeleton``), and no entry yet of the same person (``identity.entrant_identity``)."""
        if not self.is_open(document):
            raise Conflict("the event has closed")
        started = document["round_tables"] or document["stages"] or self.clock() >= document["starts_at"]
        if document["form"] != "daily" and started:
            raise Conflict("the event has started: entries are closed")
        skeleton = name_skeleton(name)
        for entry in document["entries"]:
            if name_skeleton(entry["name"]) == skeleton:
                raise Conflict(f"an entrant called {entry['name']!r} is already in this event (too like {name!r})")
            if entry.get("identity") == identity.key:
                raise Conflict("one entry per person: this client address has entered this event already")
        most = {
            "daily": self.limits.max_entries,
            "individual": document["players"],
            "teams": 3 * document["max_teams"],
        }[document["form"]]
        if len(document["entries"]) >= most:
            raise Conflict(f"the event is full ({most} entries)")

    async def _daily_table(self, document: EventDocument, name: str, client: str) -> tuple[str, str]:
        """A daily entrant's table (chair 0 the entrant, two filler bots): its id and chair 0's token."""
        boards = [Board.from_json(b) for b in document["boards"]]
        filler: ChairConfig = {"kind": "bot", "bot": document["filler"]}
        chairs: list[ChairConfig] = [{"kind": "human", "name": name}, filler.copy(), filler.copy()]
        config = event_table_config(
            document["event_id"], boards, [entrant_chair(b) for b in boards], chairs, document["scheme"]
        )
        table, token = await self.manager.create_configured(config, 0, client, name)
        assert token is not None
        return table.table_id, token

    # --- what an asker sees -----------------------------------------------------------------------
    async def check_watch(self, table: Table, token: str | None, deal_no: int | None = None) -> None:
        """Refuse (403) a spectator at an event's table while the event is open, unless the holder of ``token`` (an
        entrant's) has finished the board the table is on (or deal ``deal_no``'s board) in this event (the
        travellers' rule)."""
        event = table.config.get("event")
        if event is None:
            return
        document = await self.load(event["event_id"])
        if not self.is_open(document):
            return
        boards = table.config["deals"]["boards"]
        number = table.deal_no if deal_no is None else deal_no
        board = boards[min(max(number, 1), len(boards)) - 1]["board"]
        if token is None or board not in (await self.state(document["event_id"], token)).my_boards():
            raise Forbidden(
                f"event {document['event_id']!r} is open: its tables can be watched once it closes, "
                "or on a board you have finished in it"
            )

    async def state(self, event_id: str, token: str | None) -> EventState:
        """The event as the holder of ``token`` (an entrant's, or None) may see it now (starting a due round)."""
        self.watch()
        document = await self._frozen_if_closed(await self._advanced(await self.load(event_id)))
        tables = await self._tables(document)
        hashed = None if token is None else token_hash(token)
        me = None if hashed is None else self._entrant_of(document, tables, hashed)
        boards = tuple(Board.from_json(b) for b in document["boards"])
        travellers = tuple(travellers_of(boards, tables))
        entrants = tuple(Entrant(e["name"], GUEST if e.get("guest") else PERSON) for e in document["entries"])
        played = tuple(boards_played(travellers, e.name) for e in entrants)
        my_table = None
        if me is not None and token is not None and document["form"] != "daily":
            my_table = await self._seat_person(document, me, token)
        closed = document["frozen"] is not None
        state = EventState(document, closed, me, my_table, boards, entrants, travellers, played)
        if document["form"] != "teams":
            return state
        matches = teams.match_results(document, state.visible())  # a board's IMPs only where its traveller shows
        ranked = tuple(teams.final_standings(document, matches))
        return replace(state, matches=tuple(matches), team_standings=ranked)

    async def _tables(self, document: EventDocument) -> list[PlayedTable]:
        """The event's tables with their people and boards, counting what the freeze allows."""
        if document["form"] == "individual":
            return await individual.tables_of(document, self.manager)
        if document["form"] == "teams":
            return await teams.tables_of(document, self.manager)
        frozen, out = document["frozen"], []
        every = tuple(range(len(document["boards"])))
        for number, entry in enumerate(document["entries"], 1):
            table = await self.manager.get(entry["table_id"])
            done = len(table.history) if frozen is None else min(len(table.history), frozen.get(table.table_id, 0))
            people = (entry["name"], *daily_bot_labels(document["filler"]))
            out.append(PlayedTable(1, number, people, every, table, done))
        return out

    def _entrant_of(self, document: EventDocument, tables: list[PlayedTable], hashed: str) -> int | None:
        """The entry whose token hashes to ``hashed`` (a daily entrant's table token, or its own)."""
        for i, entry in enumerate(document["entries"]):
            if entry["token_hash"] is not None and secrets.compare_digest(entry["token_hash"], hashed):
                return i
        if document["form"] == "daily":
            for i, table in enumerate(tables):
                if secrets.compare_digest(table.table.token_hashes.get(0, ""), hashed):
                    return i
        return None

    async def _seat_person(self, document: EventDocument, person: int, token: str) -> tuple[str, str] | None:
        """(table id, token) of a person at its table of the current round (its chair was taken for it), given back
        to it from a stand-in."""
        find = individual.person_table if document["form"] == "individual" else teams.person_table
        seat = find(document, person)
        secret = document.get("chair_secret")
        if seat is None or not seat[0] or secret is None:
            return None
        table_id, chair = seat
        derived = individual.table_token(secret, token_hash(token), table_id, chair)
        table = await self.manager.get(table_id)
        self.standins.give_back(table, chair)
        return table_id, derived

    async def _advanced(self, document: EventDocument) -> EventDocument:
        """The document after starting what is due: rounds (individual), rounds, results and stages (teams)."""
        if document["form"] == "daily" or document["frozen"] is not None:
            return document
        if document["form"] == "individual" and not await individual.round_due(document, self.manager, self.clock()):
            return document
        async with self._locked(document["event_id"]):
            document = await self.load(document["event_id"])
            if await self._advance(document):
                await self._save(document)
        return document

    async def _advance(self, document: EventDocument) -> bool:
        """Start everything due now (the caller holds the lease and saves); True if anything started."""
        changed = False
        if document["form"] == "individual":
            while await individual.round_due(document, self.manager, self.clock()):
                await individual.start_round(document, self.manager)
                changed = True
        elif document["form"] == "teams":
            while await teams.advance(document, self.manager, self.clock()):
                changed = True
        return changed

    async def _frozen_if_closed(self, document: EventDocument) -> EventDocument:
        """A closed event's document with its results frozen (done once, at the first look after the close)."""
        if self.is_open(document) or document["frozen"] is not None:
            return document
        async with self._locked(document["event_id"]):
            document = await self.load(document["event_id"])
            if document["frozen"] is None:
                tables = await self._tables(document)
                document["frozen"] = {t.table.table_id: len(t.table.history) for t in tables}
                await self._save(document)
        return document


def daily_bot_labels(bot: str) -> tuple[str, str]:
    """A daily table's two bots (chairs 1 and 2) named as its entrant's table page names them (``names.js``)."""
    return f"{bot} bot 2", f"{bot} bot 3"


def _team_of(body: dict[str, object]) -> str:
    """The team an entrant of the teams form names (it creates the team if new)."""
    team = check_name(body.get("team"), "team")
    if team.lower().startswith("filler"):
        raise InvalidInput("team", "names starting with 'filler' belong to the bots")
    return team
