"""``TableManager``: the tables in memory, the store, WebSocket subscribers, bot turns and post-deal analysis.

Each action is checked first, committed second, installed third: an invalid action changes
nothing, and nothing is acknowledged before it is on disk. Views are pushed by each subscriber's
own writer (``server.tables.push``), never on the path of an action. A table of three bots plays only
while someone watches it.

Every store call from this async code goes through ``store.AsyncStore`` (the store's threads), so the event loop
serves other tables while one waits for the disk or the database. On a shared store (PostgreSQL, several
processes) an action is judged on the table as this process knows it and logged as the next number: when another
process took that number first, the table catches up from the log and the action is judged again
(``follow.LogFollower``, one of its parts). Bot turns are ``turns.BotTurns`` (the other part); each part is given
what it needs of the manager when ``start`` makes it; the post-deal analysis runs on its own thread and solves in
the ``ANALYSIS`` class.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from tribridge.cards import Seat
from tribridge.dd import solver_pool
from tribridge.errors import InvalidInput
from tribridge.rules.deal import DealState
from tribridge.server.errors import Conflict, Forbidden, NotFound, TooMany
from tribridge.server.store import AsyncStore, SeqTaken, StoredTable, notice_group, open_async_store, token_hash
from tribridge.server.store.interface import parse_action_notice
from tribridge.server.tables.analysis_queue import AnalysisQueue, analyse_at_priority, analyse_once
from tribridge.server.tables.bots import warm_up
from tribridge.server.tables.config import table_config
from tribridge.server.tables.follow import LogFollower, install_logged, uncancelled
from tribridge.server.tables.limits import RateWindow, TableLimits, check_creation_counts
from tribridge.server.tables.meanings import MEANING_TYPE
from tribridge.server.tables.peers import Peers
from tribridge.server.tables.push import Subscriber, end_replaced
from tribridge.server.tables.table import Prepared, Table
from tribridge.server.tables.turns import BotTurns, waiting_for_friends
from tribridge.server.tables.views import view_text
from tribridge.server.tables.wire import SIDE_TYPES, TableAction, TableConfig, parse_action
from tribridge.server.tables.wire_view import AnalysisJson, RefusedViewJson, TableViewJson

__all__ = ["TableManager", "replay_table"]

log = logging.getLogger("tribridge.server.tables")

T = TypeVar("T")

ACT_ATTEMPTS = 8  # times an action is judged again after another process logged its number first


def replay_table(stored: StoredTable) -> Table:
    """A table rebuilt from the store: its configuration, chairs and every logged action in order."""
    table = Table(stored.table_id, stored.config, dict(stored.token_hashes), dict(stored.names), last_active=-1e18)
    table.begin()
    install_logged(table, stored.actions)
    return table


class TableManager:
    """Owns the store, the tables in memory, the WebSocket subscribers, the bot tasks and the analysis queue; its
    parts, made when it starts: the catch-up from the store's log (``follower``) and the bot turns (``turns``)."""

    def __init__(self, db_path: str | Path, bot_delay: float = 0.6, limits: TableLimits | None = None) -> None:
        self.db_path = str(db_path)
        self.bot_delay = float(bot_delay)
        self.limits = limits or TableLimits()
        self.store: AsyncStore | None = None
        self.tables: dict[str, Table] = {}
        self.creators: dict[str, str] = {}  # table id -> the client that created it (this run)
        self.subscribers: dict[str, set[Subscriber]] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.creations = RateWindow(60.0)
        self.analysis: AnalysisQueue | None = None
        self.stopping = False
        self.analysis_thread: ThreadPoolExecutor | None = None
        self.follower: LogFollower | None = None  # the parts, made by ``start``
        self.turns: BotTurns | None = None
        self.peers: Peers | None = None  # the other processes on a shared store (PostgreSQL)
        self.gates: list[Callable[[Table, TableAction], Awaitable[None]]] = []  # each may refuse one (an event's close)
        self.deal_listeners: list[Callable[[Table], None]] = []  # told of each finished deal (the ratings)

    # --- lifecycle -------------------------------------------------------------------------
    async def start(self) -> None:
        """Open the store, replay every table, start the analysis queue and the bots."""
        self.store = await open_async_store(self.db_path)
        self.stopping = False
        self.follower = LogFollower(self.store, self.tasks, self.is_stopping, self._changed)
        solver_pool().warm(warm_up)  # the solver processes start now, not at the first person's bot
        self.analysis_thread = ThreadPoolExecutor(1, thread_name_prefix="tribridge-analysis")
        shared = self.store.shared
        run = self._analyse_once if shared else analyse_at_priority
        self.analysis = AnalysisQueue(run, self.analysis_thread, self.notify, self.limits.analysis_queue, keyed=shared)
        self.analysis.start()
        for table_id in await self.store.table_ids():
            table = await self._replay(table_id)
            if table is not None:
                self.tables[table_id] = table
        if self.store.shared:
            self.peers = Peers(self.store, self.on_change, self.socket_counts, groups=self.followed_groups)
        self.turns = BotTurns(
            self.bot_delay,
            self.tasks,
            self.is_stopping,
            self.watchers,
            self.catch_up,
            self.act,
            self.peers,
            self.analysis,
        )
        if self.peers is not None:
            self.peers.start()
        for table in self.tables.values():
            if not shared:  # (on a shared store the process that made a call works out its words)
                self.bot_turns().meanings.request_due(table)
            self.schedule_work(table)

    def is_stopping(self) -> bool:
        """Whether the manager is stopping (its parts start no new work then)."""
        return self.stopping

    def log_follower(self) -> LogFollower:
        """The catch-up from the store's log (made by ``start``)."""
        if self.follower is None:
            raise RuntimeError("the table manager is not started")
        return self.follower

    def bot_turns(self) -> BotTurns:
        """The bot turns (made by ``start``)."""
        if self.turns is None:
            raise RuntimeError("the table manager is not started")
        return self.turns

    async def catch_up(self, table: Table, seats: bool = False) -> bool:
        """Catch a table up with what other processes committed (its log; its chairs if ``seats``); True if changed."""
        return False if self.follower is None else await self.follower.catch_up(table, seats)

    def schedule_work(self, table: Table) -> None:
        """Start the bot turn and the analysis that the table's state calls for, if any; a finished deal is told to
        the deal listeners (perhaps more than once)."""
        if self.stopping or table.state is None:
            return
        if table.current().phase == "done":
            for listener in self.deal_listeners:
                listener(table)
        if self.turns is not None:
            self.turns.schedule_work(table)

    def _changed(self, table: Table) -> None:
        """A read of the log installed something at ``table``: push its views, start what it calls for."""
        self.notify(table)
        self.schedule_work(table)

    async def stop(self) -> None:
        """Cancel bot tasks and the analysis queue, close sockets and the store."""
        self.stopping = True
        for task in list(self.tasks):
            task.cancel()
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)
        if self.analysis is not None:
            await self.analysis.stop()
        for subs in list(self.subscribers.values()):
            for sub in list(subs):
                await sub.close(1001, "the server is shutting down")
                await sub.stop()
        if self.analysis_thread is not None:
            self.analysis_thread.shutdown(wait=False, cancel_futures=True)
        if self.peers is not None:
            await self.peers.stop()
            self.peers = None
        if self.store is not None:
            await self.store.close()
            self.store = None

    def table_count(self) -> int:
        """Number of tables known."""
        return len(self.tables)

    async def _replay(self, table_id: str) -> Table | None:
        assert self.store is not None
        stored = await self.store.load(table_id)
        return None if stored is None else replay_table(stored)

    # --- other processes on a shared store ---------------------------------------------------
    def follows(self, table: Table) -> bool:
        """Whether this process reads ``table``'s log as other processes write it: while it holds a socket of the
        table or the table has bots (whose turns any process may take); any other table is caught up only when a
        request reaches it here, so with a proxy that keeps each table on one process the others do no work for it."""
        return bool(self.watchers(table.table_id)) or len(table.people) < 3

    def followed_groups(self) -> set[int]:
        """The notice groups of the tables this process follows (``follows``): the only ones it listens to."""
        return {notice_group(t.table_id) for t in self.tables.values() if self.follows(t)}

    async def find(self, table_id: str) -> Table | None:
        """The table in memory, else (on a shared store, where another process may have created it) from the store."""
        table = self.tables.get(table_id)
        if table is None and self.store is not None and self.store.shared:
            table = await self._replay(table_id)
            if table is not None:
                self.tables.setdefault(table_id, table)
                table = self.tables[table_id]
                self.schedule_work(table)
        return table

    async def on_change(self, notice: str) -> None:
        """A commit notice from any process (an action's: ``store.action_notice``; ``<table_id>:seat``, ``:new``,
        ``:analysis:<deal>``, ``*``, or ``*:<group>``: the tables of a notice group just listened to)."""
        assert self.store is not None
        action = parse_action_notice(notice)
        if action is not None:  # an action: installed from the notice (or the log) unless this process has it
            table_id, seq, logged = action
            table = self.tables.get(table_id)
            if table is not None and self.follows(table):
                self.log_follower().hear_action(table, seq, logged)
            return  # (a table this process does not follow is caught up when a request reaches it here: ``get``)
        table_id, _, what = notice.partition(":")
        group = int(what) if table_id == "*" and what.isdigit() else None
        if table_id == "*":  # everything, or the followed tables of a group just listened to
            grouped = (t for t in self.tables.values() if notice_group(t.table_id) == group and self.follows(t))
            targets: list[Table | None] = list(self.tables.values() if group is None else grouped)
            what = ""
        else:
            targets = [await self.find(table_id)]
        for table in targets:
            if table is None or (what.isdigit() and int(what) <= table.log_len):
                continue  # unknown, or an action this process has
            changed = await self.catch_up(table, seats=what in ("seat", ""))
            if what in ("seat", ""):  # a chair taken back through another process: its old sockets here end
                await end_replaced(self.watchers(table.table_id), table.token_hashes)
            if what.startswith("analysis:") and int(what.split(":")[1]) == table.deal_no:
                document = await self.store.get_analysis(table.table_id, table.deal_no)
                if document is not None and table.deal_no not in table.analysis:
                    table.analysis[table.deal_no] = json.loads(document)
                    changed = True
            if changed:
                table.last_active = time.monotonic()
            if changed or group is not None:  # (a group's tables: their analyses, perhaps stored meanwhile, too)
                self.notify(table)
                self.schedule_work(table)

    def _analyse_once(
        self, table_id: str, deal_no: int, state: DealState, scheme: str, seats: Sequence[Seat], names: Sequence[str]
    ) -> AnalysisJson:
        """(In the analysis thread.) The deal's stored analysis, else computed once over the processes (``analyse_once``)."""
        assert self.store is not None and self.peers is not None
        return analyse_once(
            self.store.sync, self.peers.owner, self.is_stopping, table_id, deal_no, (state, scheme, seats, names)
        )

    def socket_counts(self) -> dict[str, int]:
        """This process's open WebSockets per table."""
        return {table_id: len(self.watchers(table_id)) for table_id in list(self.subscribers)}

    # --- tables ----------------------------------------------------------------------------
    async def live_tables(self, client: str | None = None) -> int:
        """Tables with activity in the last ``idle_seconds`` (only those ``client`` created, if given)."""
        if self.peers is not None:
            since = time.time() - self.limits.idle_seconds
            recent = await self.peers.store.recent_tables(since)
            return sum(1 for t in recent if client is None or t.creator == client)
        since = time.monotonic() - self.limits.idle_seconds
        return sum(
            1
            for t in self.tables.values()
            if t.last_active >= since and (client is None or self.creators.get(t.table_id) == client)
        )

    async def recent_creations(self, client: str) -> tuple[int, int, int, int]:
        """(tables ``client`` created in the last minute, and everyone; seconds until each count drops)."""
        if self.peers is None:
            window = self.creations
            return window.count(client), window.count("*"), window.retry_after(client), window.retry_after("*")
        now = time.time()
        created = [t for t in await self.peers.store.recent_tables(now - 60.0) if t.created >= now - 60.0]
        mine = [t.created for t in created if t.creator == client]
        every = [t.created for t in created]

        def retry(times: list[float]) -> int:
            return max(1, int(min(times) + 60.0 - now + 0.999)) if times else 0

        return len(mine), len(every), retry(mine), retry(every)

    async def check_creation_limits(self, client: str) -> None:
        """Raise ``TooMany`` when ``client`` (or everyone, on every process of the store) may not create a table now."""
        counts = await self.live_tables(client), await self.live_tables(), await self.recent_creations(client)
        check_creation_counts(self.limits, *counts)

    async def create(self, body: Any, client: str = "local") -> tuple[Table, str | None]:
        """Create a table from ``{"chairs", "scheme", "options", "seed" | "deals", "take"}``; returns it and a token."""
        config, take = table_config(body)
        return await self.create_configured(config, take, client)

    async def create_configured(
        self,
        config: TableConfig,
        take: int | None,
        client: str,
        name: str | None = None,
        seats: Callable[[str], Mapping[int, tuple[str, str]]] | None = None,
    ) -> tuple[Table, str | None]:
        """Create a table from a checked configuration (``config.py``), within the creation limits; its token.
        ``seats(table_id)`` (chair -> (name, token)): chairs taken at once with the caller's tokens (an event's)."""
        assert self.store is not None
        await self.check_creation_limits(client)
        table_id = secrets.token_urlsafe(8)
        table = Table(table_id, config)
        table.begin()
        await self.store.create_table(table_id, config, client)
        self.tables[table_id] = table
        self.creators[table_id] = client
        self.creations.add(client)
        self.creations.add("*")
        for chair, (person, chosen) in (seats(table_id) if seats is not None else {}).items():
            await self._issue_token(table, chair, person, chosen)
        token = await self._issue_token(table, take, name) if take is not None else None  # (``take``: a checked chair)
        if table.all_bots:  # a watcher's token (chair 0's view; it cannot act): the table plays while watched
            token = await self._issue_token(table, 0, None)
        self.schedule_work(table)
        log.info("table created", extra={"event": "create", "table_id": table_id})
        return table, token

    async def get(self, table_id: str) -> Table:
        """A table by id, caught up with the store (404 if unknown)."""
        table = await self.find_or_404(table_id)
        await self.catch_up(table)
        return table

    async def find_or_404(self, table_id: str) -> Table:
        """A table by id as this process knows it (404 if unknown)."""
        table = await self.find(table_id)
        if table is None:
            raise NotFound(f"no table {table_id[:40]!r}")
        return table

    async def take_seat(self, table: Table, chair: int, name: str | None = None, token: str | None = None) -> str:
        """Give a free human chair a new token (or ``token``; committed before it is returned) and the player's name."""
        assert self.store is not None
        if not 0 <= chair <= 2:
            raise InvalidInput("chair", "expected 0, 1 or 2")
        if table.is_bot(chair):
            raise Conflict(f"chair {chair} is a bot")
        event = table.config.get("event")
        if event is not None:  # its chairs were taken for its entrants when it was created
            raise Conflict(f"chair {chair} belongs to an entrant of event {event['event_id']!r}: enter the event")
        await self.catch_up(table, seats=True)
        if chair in table.token_hashes:
            raise Conflict(f"chair {chair} is already taken")
        token = await self._issue_token(table, chair, name, token)
        self.schedule_work(table)  # the game starts once every chair is taken: a bot may be on turn
        return token

    async def _issue_token(self, table: Table, chair: int, name: str | None, token: str | None = None) -> str:
        assert self.store is not None
        token = token or secrets.token_urlsafe(24)
        if not await self.store.set_token(table.table_id, chair, token, name):
            raise Conflict(f"chair {chair} is already taken")
        table.token_hashes[chair] = token_hash(token)
        if name:
            table.taken_names[chair] = name
        table.last_active = time.monotonic()
        return token

    async def chair_of(self, table: Table, token: str | None) -> int:
        """The chair a bearer token belongs to (403 if none)."""
        if not token:
            raise Forbidden("missing seat token: send 'Authorization: Bearer <token>'")
        digest = token_hash(token)
        for attempt in range(2):
            for chair, h in table.token_hashes.items():
                if secrets.compare_digest(h, digest):
                    return chair
            if attempt == 0 and not await self.catch_up(table, seats=True):  # a seat another process gave?
                break
        raise Forbidden("wrong seat token for this table")

    # --- actions ---------------------------------------------------------------------------
    async def act(
        self, table: Table, chair: int | None, action: object, expect_version: object = None, by_bot: bool = False
    ) -> None:
        """Check (the JSON's fields first: ``wire.parse_action``), commit, install one action; then mark the
        subscribers' views stale and start any work due."""
        assert self.store is not None
        if chair is not None and table.is_bot(chair) and not by_bot:
            raise Forbidden(f"chair {chair} is a bot: a watcher's token cannot act")
        if expect_version is not None and (not isinstance(expect_version, int) or isinstance(expect_version, bool)):
            raise InvalidInput("version", f"expected a whole number, got {expect_version!r}"[:200])
        clean = parse_action(action, explain=by_bot)  # only a bot (or the server itself) explains its call
        for gate in self.gates if clean["type"] != MEANING_TYPE else ():  # (the words of a call made already)
            await gate(table, clean)
        async with table.lock:
            if table.seats_open:
                await self.catch_up(table)  # a seat another process gave counts in the version this action checks
            if table.seats_open and clean["type"] not in SIDE_TYPES:
                raise Conflict(waiting_for_friends(table))
            await self.log_follower().caught_up_by_news(
                table
            )  # a notice heard, its read under way: judged on what it brings
            for _attempt in range(ACT_ATTEMPTS):
                try:
                    prepared = self._judge(table, chair, clean, expect_version)
                except (Conflict, InvalidInput):
                    if await self.catch_up(table):  # judged on a table another process had moved on
                        continue
                    raise
                try:
                    seq = table.log_len + 1  # the number judged on (a catch-up may install others' before it logs)
                    await uncancelled(self._log_and_install(table, seq, chair, clean, prepared))
                except SeqTaken:  # another process logged this number first: read it, judge the action again
                    await self.catch_up(table)
                    continue
                break
            else:
                raise Conflict("the table changed while this action was being logged; try again")
            table.last_active = time.monotonic()
        self.notify(table)
        self.schedule_work(table)

    async def _log_and_install(
        self, table: Table, seq: int, chair: int | None, action: TableAction, prepared: Prepared
    ) -> None:
        """Commit the action as number ``seq`` of the table's log, then install it (``SeqTaken`` if taken)."""
        assert self.store is not None
        with self.log_follower().logging_as(table, seq):
            await self.store.append_action(table.table_id, seq, chair, action)
            if table.log_len < seq:  # (a catch-up meanwhile may have installed it from the log)
                table.install(prepared)

    def _judge(self, table: Table, chair: int | None, action: TableAction, expect_version: object) -> Prepared:
        """The action checked against the table as this process knows it (409 stale version, 400 illegal)."""
        if expect_version is not None and expect_version != table.version:
            raise Conflict(f"stale version {expect_version}: the table is at version {table.version}")
        table.check_caps(chair, action, self.limits.claims_per_deal, self.limits.deals_per_table)
        return table.prepare(chair, action)

    # --- subscribers -----------------------------------------------------------------------
    def watchers(self, table_id: str) -> set[Subscriber]:
        """The open subscribers of a table (closed ones are forgotten here)."""
        subs = self.subscribers.get(table_id)
        if subs is None:
            return set()
        subs.difference_update([sub for sub in subs if sub.closed])
        return subs

    def notify(self, table: Table) -> None:
        """Mark every subscriber's view of ``table`` stale (their writers send the newest view)."""
        table.changes += 1
        for sub in list(self.watchers(table.table_id)):
            sub.notify()

    async def subscribe(
        self,
        table: Table,
        chair: int,
        websocket: Any,
        render: Callable[[], TableViewJson | RefusedViewJson] | None = None,
        token: str | None = None,
    ) -> Subscriber:
        """Register a WebSocket for a chair's views (opened with the chair's ``token``), or ``render``'s (a
        spectator's); ``TooMany`` past the limit."""
        others = 0
        if self.peers is not None:  # the other processes' sockets as last reported
            others = await self.peers.store.socket_count(table.table_id, self.peers.fresh_seconds, self.peers.owner)
        if others + len(self.watchers(table.table_id)) >= self.limits.sockets_per_table:
            raise TooMany(f"too many sockets on this table (limit {self.limits.sockets_per_table})", 10)
        text = (lambda: json.dumps(render())) if render is not None else (lambda: view_text(table, chair))
        digest = None if token is None else token_hash(token)
        sub = Subscriber(websocket, chair, text, self.limits.send_timeout, token_hash=digest)
        self.subscribers.setdefault(table.table_id, set()).add(sub)
        if self.peers is not None:
            self.log_follower().follow(
                table
            )  # what other processes logged before this socket made the table followed here
        table.last_active = time.monotonic()
        if self.peers is not None:
            self.peers.report_later(table.table_id)
        sub.start()
        self.schedule_work(table)  # an all-bot table resumes when someone watches
        return sub

    async def unsubscribe(self, table: Table, sub: Subscriber) -> None:
        """Forget a subscriber and stop its writer."""
        subs = self.subscribers.get(table.table_id)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self.subscribers[table.table_id]
        if self.peers is not None:
            self.peers.report_later()
        await sub.stop()
