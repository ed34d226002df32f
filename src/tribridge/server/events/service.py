"""``EventService``: events in the game store, entries as tables of the ``TableManager``, what each asker may see.

A daily entrant is known by the token of its table's chair 0 (the same tokens as every table); an entrant of
the individual form by a token of its own, from which its chair's token at each round's table is derived
(``individual``); an entrant who entered as its account also by the account, on any device. While the event is
open an entrant sees the travellers of the boards it has finished, and nobody else sees any; once the event
has closed (``closes_at`` passed) its results are frozen at the first look (each table counts the boards it had
finished then) and everything is public, and its duplicate games are rated (``settle``). Changes to an event's document are made under a store lease, so
several server processes on one PostgreSQL add entries without losing any; the lease is awaited (with a
deadline, never slept for on the event loop), and every store call goes through ``store.AsyncStore``.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace

from tribridge.errors import InvalidInput
from tribridge.events.boards import Board
from tribridge.events.results import Entrant
from tribridge.server.accounts.rating_service import apply_many
from tribridge.server.errors import Conflict, Forbidden, NotFound, TooMany
from tribridge.server.events import individual, settle, teams
from tribridge.server.events.daily import DAILY_CREATOR, DailySettings, daily_period, entrant_chair
from tribridge.server.events.documents import (
    EntryJson,
    EventDocument,
    EventLimits,
    EventRequest,
    event_request,
    new_document,
)
from tribridge.server.events.entries import (
    check_entry,
    check_invite,
    entrant_name,
    forget_account,
    team_of,
    withdraw,
)
from tribridge.server.events.identity import entrant_identity, entrant_kind
from tribridge.server.events.seeding import team_seed_values
from tribridge.server.events.series import BEST, SeriesLine, period_days, series_lines
from tribridge.server.events.standins import StandIns
from tribridge.server.events.state import EventState
from tribridge.server.events.travellers import PlayedTable, boards_played, travellers_of
from tribridge.server.store import AsyncStore, token_hash
from tribridge.server.store.accounts import NEUTRAL_NAME, Account
from tribridge.server.tables.chat import SIDE_TYPES
from tribridge.server.tables.config import bot_label, event_table_config
from tribridge.server.tables.follow import rename_held
from tribridge.server.tables.limits import RateWindow
from tribridge.server.tables.manager import TableManager
from tribridge.server.tables.peers import process_owner
from tribridge.server.tables.table import Table
from tribridge.server.tables.wire import ChairConfig, TableAction

__all__ = ["EventService"]

LEASE_SECONDS = 10.0
LEASE_WAIT_SECONDS = 0.02
DAILY_CHECK_SECONDS = 60.0
log = logging.getLogger("tribridge.server")


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
        document = new_document(secrets.token_urlsafe(6), request, client, self.clock())
        invite = None
        if isinstance(body, dict) and body.get("pbn") is not None:  # the creator chose the boards: invitees only
            invite = secrets.token_urlsafe(12)
            document["invite_hash"] = token_hash(invite)
        await self._save(document)
        self.creations.add(client)
        self.creations.add("*")
        return document, invite

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
                document = new_document(period.event_id, request, DAILY_CREATOR, self.clock())
                document["closes_at"], document["house"] = period.closes, True
                await self._save(document)
        finally:
            await self.store.release_lease(key, self.owner)
        return period.event_id

    async def series(self, period: object, date_text: object) -> tuple[list[dt.date], list[SeriesLine]]:
        """The daily series of the ``week`` or ``month`` holding ``date_text`` (``series``): its days, and its lines
        over the house's daily events of those days (a closed one settled first if it was not yet)."""
        today = dt.datetime.fromtimestamp(self.clock(), dt.UTC).date()
        days = period_days(period, date_text, today)
        documents = []
        for day in days:
            text = await self.store.load_event(f"daily-{day:%Y%m%d}")
            document: EventDocument | None = None if text is None else json.loads(text)
            if document is None or not self.is_house(document):
                continue
            if not self.is_open(document) and not document.get("settled"):
                await self.state(document["event_id"], None)
                document = await self.load(document["event_id"])
            documents.append(document)
        return days, series_lines(documents, BEST[str(period)])

    async def settle_closed(self) -> None:
        """Freeze and settle every closed event not settled yet (the daily check does it, so no look is needed)."""
        for document in await self.documents():
            if self.is_open(document) or document.get("settled"):
                continue
            if any(e.get("account_id") for e in document["entries"]):
                await self.state(document["event_id"], None)
            else:  # nobody to rate or to keep in the series: its tables need not be loaded
                async with self._locked(document["event_id"]):
                    document = await self.load(document["event_id"])
                    settle.mark_settled(document, {})
                    await self._save(document)

    def open_daily(self) -> None:
        """Keep the house's daily event open and the closed events settled: check now and every
        ``DAILY_CHECK_SECONDS`` (a task the manager cancels when it stops); nothing when the setting is off."""
        if not self.daily.enabled:
            return

        async def keep_open() -> None:
            while True:
                try:
                    await self.ensure_daily()
                    await self.settle_closed()
                except Exception:  # a store outage: try again at the next check
                    log.exception("could not open the daily event or settle the closed ones")
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

    async def join(
        self, event_id: str, body: object, client: str, account: Account | None = None
    ) -> tuple[EventDocument, EntryJson, str]:
        """Enter an open event as ``account`` (logged in) or as a guest: (event, entry, token); daily: a table of the
        entrant's own with two filler bots (its chair held by the account, so any of its devices takes it back)."""
        if not isinstance(body, dict):
            raise InvalidInput("body", "expected a JSON object with a 'name'")
        name = entrant_name(body, account)
        identity = entrant_identity(client, None if account is None else account.account_id)
        async with self._locked(event_id):
            document = await self.load(event_id)
            check_invite(document, body.get("invite"))
            check_entry(document, name, identity, self.clock(), self.limits)
            if document["form"] == "teams":
                teams.join_team(document, len(document["entries"]), team_of(body))
            if document["form"] == "daily":
                table_id, token = await self._daily_table(document, name, client)
                hashed = None
                if account is not None:
                    await self.store.call(self.store.sync.hold_seat, account.account_id, table_id, 0)
            else:
                table_id, token = "", secrets.token_urlsafe(24)
                hashed = token_hash(token)
            entry: EntryJson = {"name": name, "table_id": table_id, "joined": self.clock(), "token_hash": hashed}
            entry["identity"], entry["guest"] = identity.key, identity.guest
            if account is not None:
                entry["account_id"] = account.account_id
            document["entries"].append(entry)
            await self._advance(document)
            await self._save(document)
        self.watch()
        return document, entry, token

    async def forget_account(self, account_id: str) -> None:
        """A deleted account leaves the events: its entries become a neutral name's (``entries.forget_account``), and
        its chairs at the events' tables ``NEUTRAL_NAME`` (in the store and in memory)."""
        for found in await self.documents():
            if any(e.get("account_id") == account_id for e in found["entries"]):
                async with self._locked(found["event_id"]):
                    document = await self.load(found["event_id"])
                    names = {e["name"] for e in document["entries"] if e.get("account_id") == account_id}
                    tables = await self._tables(document)
                    chairs = [(t.table.table_id, c) for t in tables for c, n in enumerate(t.people) if n in names]
                    await self.store.call(self.store.sync.forget_chair_names, chairs)
                    rename_held(self.manager.tables, chairs, NEUTRAL_NAME, self.manager.notify)
                    forget_account(document, account_id)
                    await self._save(document)

    async def withdraw(self, event_id: str, token: str | None, account_id: str | None) -> None:
        """Take the asker's entry out of an individual event before its start (``entries.withdraw``; 404 without
        an entry)."""
        async with self._locked(event_id):
            document = await self.load(event_id)
            person = self._entrant_of(document, [], None if token is None else token_hash(token), account_id)
            if person is None:
                raise NotFound("you have no entry in this event")
            withdraw(document, person, self.clock())
            await self._save(document)

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

    async def state(self, event_id: str, token: str | None, account_id: str | None = None) -> EventState:
        """The event as the holder of ``token`` (an entrant's, or None) or the logged-in ``account_id`` may see it now
        (starting a due round; rating a closed event's games once: ``settle``)."""
        self.watch()
        document = await self._frozen_if_closed(await self._advanced(await self.load(event_id)))
        tables = await self._tables(document)
        hashed = None if token is None else token_hash(token)
        me = self._entrant_of(document, tables, hashed, account_id)
        boards = tuple(Board.from_json(b) for b in document["boards"])
        travellers = tuple(travellers_of(boards, tables))
        entrants = tuple(Entrant(e["name"], entrant_kind(e)) for e in document["entries"])
        played = tuple(boards_played(travellers, e.name) for e in entrants)
        my_table = None
        if me is not None and document["form"] != "daily":
            my_table = await self._seat_person(document, me)
        closed = document["frozen"] is not None
        state = EventState(document, closed, me, my_table, boards, entrants, travellers, played)
        if closed and not document.get("settled"):
            await self._settle(state)
        if document["form"] != "teams":
            return state
        matches = teams.match_results(document, state.visible())  # a board's IMPs only where its traveller shows
        ranked = tuple(teams.final_standings(document, matches))
        return replace(state, matches=tuple(matches), team_standings=ranked)

    async def _settle(self, state: EventState) -> None:
        """Rate a closed event's duplicate games (each once: the store's keys) and keep its accounts' final
        percentages (``settle``), then mark it settled."""
        for games in settle.rated_games(state):
            await apply_many(self.store, games)
        percents = settle.final_percents(state)
        async with self._locked(state.document["event_id"]):
            document = await self.load(state.document["event_id"])
            settle.mark_settled(document, percents)
            await self._save(document)

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
            chairs = table.config["chairs"]  # named as the table names them (a daily table has no stand-ins)
            people = (entry["name"], bot_label(chairs, 1), bot_label(chairs, 2))
            out.append(PlayedTable(1, number, people, every, table, done))
        return out

    def _entrant_of(
        self, document: EventDocument, tables: list[PlayedTable], hashed: str | None, account_id: str | None
    ) -> int | None:
        """The entry whose token hashes to ``hashed`` (a daily entrant's table token, or its own), else the entry of
        the logged-in ``account_id``."""
        for i, entry in enumerate(document["entries"]):
            if hashed is not None and entry["token_hash"] is not None:
                if secrets.compare_digest(entry["token_hash"], hashed):
                    return i
        if hashed is not None and document["form"] == "daily":
            for i, table in enumerate(tables):
                if secrets.compare_digest(table.table.token_hashes.get(0, ""), hashed):
                    return i
        if account_id is not None:
            return next((i for i, e in enumerate(document["entries"]) if e.get("account_id") == account_id), None)
        return None

    async def _seat_person(self, document: EventDocument, person: int) -> tuple[str, str] | None:
        """(table id, token) of a person at its table of the current round (its chair was taken for it), given back
        to it from a stand-in; the token derives from the entry's own token's hash, so any device of the person
        (its token, or its account logged in) gets the same."""
        find = individual.person_table if document["form"] == "individual" else teams.person_table
        seat = find(document, person)
        secret = document.get("chair_secret")
        person_hash = document["entries"][person]["token_hash"]
        if seat is None or not seat[0] or secret is None or person_hash is None:
            return None
        table_id, chair = seat
        derived = individual.table_token(secret, person_hash, table_id, chair)
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
            if teams.knockout_due(document, self.clock()):  # seeded by rating as it starts
                ratings = await self.store.call(self.store.sync.ratings)
                teams.seed_teams(document, team_seed_values(document, ratings))
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
