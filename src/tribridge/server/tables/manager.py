"""``TableManager``: the tables in memory, the store, WebSocket subscribers, bot turns and post-deal analysis.

Each action is checked first, committed second, installed third: an invalid action changes
nothing, and nothing is acknowledged before it is on disk. Views are pushed by each subscriber's
own writer (``server.tables.push``), never on the path of an action. A table of three bots plays only
while someone watches it.

A bot's whole decision (its sampling and its solves) is one job on the solver pool
(``tribridge.dd.pool``), so no bot's work competes with the server's own process: a bot at a table
with a person runs in the ``INTERACTIVE`` class (processes of its own, at normal CPU priority), a
watched table of bots in ``BATCH`` (background processes at the lowest CPU priority). The post-deal analysis runs on its own thread and solves in the ``ANALYSIS`` class. A
bot whose solver queue is full tries again shortly.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tribridge.analysis import analyse
from tribridge.cards import Seat
from tribridge.dd import Priority, QueueFull, solver_pool, solving_at
from tribridge.errors import InvalidInput
from tribridge.rules.deal import DealState
from tribridge.server.errors import Conflict, Forbidden, NotFound, TooMany
from tribridge.server.tables.analysis_queue import AnalysisQueue
from tribridge.server.tables.bots import bot_decision, warm_up
from tribridge.server.tables.config import table_config
from tribridge.server.tables.limits import RateWindow, TableLimits
from tribridge.server.tables.push import Subscriber
from tribridge.server.tables.store import Store, token_hash
from tribridge.server.tables.table import Prepared, Table
from tribridge.server.tables.views import view_for

__all__ = ["TableManager"]

log = logging.getLogger("tribridge.server.tables")

BUSY_RETRY_SECONDS = 0.5  # a bot whose solver queue was full tries again after this


def analyse_at_priority(
    state: DealState, scheme: str, chair_seats: Sequence[Seat], names: Sequence[str]
) -> dict[str, Any]:
    """Post-deal analysis of a finished deal (each chair's dealing seat and name given), solving in the ANALYSIS class."""
    with solving_at(Priority.ANALYSIS):
        return analyse(state, scheme, chair_seats, names)


class TableManager:
    """Owns the store, the tables in memory, the WebSocket subscribers, the bot tasks and the analysis queue."""

    def __init__(self, db_path: str | Path, bot_delay: float = 0.6, limits: TableLimits | None = None) -> None:
        self.db_path = str(db_path)
        self.bot_delay = float(bot_delay)
        self.limits = limits or TableLimits()
        self.store: Store | None = None
        self.tables: dict[str, Table] = {}
        self.creators: dict[str, str] = {}  # table id -> the client that created it (this run)
        self.subscribers: dict[str, set[Subscriber]] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.bots_pending: set[tuple[str, int]] = set()  # (table id, version) with a bot task on its way
        self.creations = RateWindow(60.0)
        self.analysis: AnalysisQueue | None = None
        self.stopping = False
        self.analysis_thread: ThreadPoolExecutor | None = None

    # --- lifecycle -------------------------------------------------------------------------
    async def start(self) -> None:
        """Open the store, replay every table, start the analysis queue and the bots."""
        self.store = Store(self.db_path)
        self.stopping = False
        solver_pool().warm(warm_up)  # the solver processes start now, not at the first person's bot
        self.analysis_thread = ThreadPoolExecutor(1, thread_name_prefix="tribridge-analysis")
        self.analysis = AnalysisQueue(
            analyse_at_priority, self.analysis_thread, self.notify, self.limits.analysis_queue
        )
        self.analysis.start()
        for table_id in self.store.table_ids():
            table = self._replay(table_id)
            if table is not None:
                self.tables[table_id] = table
        for table in self.tables.values():
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
        if self.store is not None:
            self.store.close()
            self.store = None

    def table_count(self) -> int:
        """Number of tables known."""
        return len(self.tables)

    def _replay(self, table_id: str) -> Table | None:
        assert self.store is not None
        stored = self.store.load(table_id)
        if stored is None:
            return None
        table = Table(table_id, stored.config, dict(stored.token_hashes), dict(stored.names), last_active=-1e18)
        table.begin()
        for seq, chair, action in stored.actions:
            table.install(table.prepare(chair, action))
            if seq != table.log_len:
                raise RuntimeError(f"table {table_id}: action log out of order at {seq}")
        return table

    # --- tables ----------------------------------------------------------------------------
    def live_tables(self, client: str | None = None) -> int:
        """Tables with activity in the last ``idle_seconds`` (only those ``client`` created, if given)."""
        since = time.monotonic() - self.limits.idle_seconds
        return sum(
            1
            for t in self.tables.values()
            if t.last_active >= since and (client is None or self.creators.get(t.table_id) == client)
        )

    def check_creation_limits(self, client: str) -> None:
        """Raise ``TooMany`` when ``client`` (or everyone) may not create a table now."""
        lim = self.limits
        if self.live_tables(client) >= lim.tables_per_client:
            raise TooMany(
                f"too many live tables for this client (limit {lim.tables_per_client}); finish or leave one first",
                int(lim.idle_seconds),
            )
        if self.live_tables() >= lim.live_tables:
            raise TooMany(f"too many live tables on this server (limit {lim.live_tables}); try again later", 60)
        if self.creations.count(client) >= lim.creations_per_minute_per_client:
            raise TooMany(
                f"too many tables created by this client in the last minute (limit "
                f"{lim.creations_per_minute_per_client})",
                self.creations.retry_after(client),
            )
        if self.creations.count("*") >= lim.creations_per_minute:
            raise TooMany(
                f"too many tables created in the last minute (limit {lim.creations_per_minute})",
                self.creations.retry_after("*"),
            )

    def create(self, body: Any, client: str = "local") -> tuple[Table, str | None]:
        """Create a table from ``{"chairs", "scheme", "options", "seed" | "deals", "take"}``; returns it and a token."""
        assert self.store is not None
        config, take = table_config(body)
        self.check_creation_limits(client)
        table_id = secrets.token_urlsafe(8)
        table = Table(table_id, config)
        table.begin()
        self.store.create_table(table_id, config)
        self.tables[table_id] = table
        self.creators[table_id] = client
        self.creations.add(client)
        self.creations.add("*")
        token = self.take_seat(table, take) if take is not None else None
        if table.all_bots:  # a watcher's token (chair 0's view; it cannot act): the table plays while watched
            token = self._issue_token(table, 0, None)
        self.schedule_work(table)
        log.info("table created", extra={"event": "create", "table_id": table_id})
        return table, token

    def get(self, table_id: str) -> Table:
        """A table by id (404 if unknown)."""
        table = self.tables.get(table_id)
        if table is None:
            raise NotFound(f"no table {table_id[:40]!r}")
        return table

    def take_seat(self, table: Table, chair: int, name: str | None = None) -> str:
        """Give a free human chair a new token (committed before it is returned) and the player's name."""
        assert self.store is not None
        if not 0 <= chair <= 2:
            raise InvalidInput("chair", "expected 0, 1 or 2")
        if table.is_bot(chair):
            raise Conflict(f"chair {chair} is a bot")
        if chair in table.token_hashes:
            raise Conflict(f"chair {chair} is already taken")
        return self._issue_token(table, chair, name)

    def _issue_token(self, table: Table, chair: int, name: str | None) -> str:
        assert self.store is not None
        token = secrets.token_urlsafe(24)
        if not self.store.set_token(table.table_id, chair, token, name):
            raise Conflict(f"chair {chair} is already taken")
        table.token_hashes[chair] = token_hash(token)
        if name:
            table.taken_names[chair] = name
        table.last_active = time.monotonic()
        return token

    def chair_of(self, table: Table, token: str | None) -> int:
        """The chair a bearer token belongs to (403 if none)."""
        if not token:
            raise Forbidden("missing seat token: send 'Authorization: Bearer <token>'")
        digest = token_hash(token)
        for chair, h in table.token_hashes.items():
            if secrets.compare_digest(h, digest):
                return chair
        raise Forbidden("wrong seat token for this table")

    # --- actions ---------------------------------------------------------------------------
    async def act(
        self, table: Table, chair: int | None, action: dict[str, Any], expect_version: Any = None, by_bot: bool = False
    ) -> None:
        """Check, commit, install one action; then mark the subscribers' views stale and start any work due."""
        assert self.store is not None
        if chair is not None and table.is_bot(chair) and not by_bot:
            raise Forbidden(f"chair {chair} is a bot: a watcher's token cannot act")
        async with table.lock:
            if expect_version is not None:
                if not isinstance(expect_version, int) or isinstance(expect_version, bool):
                    raise InvalidInput("version", f"expected a whole number, got {expect_version!r}"[:200])
                if expect_version != table.version:
                    raise Conflict(f"stale version {expect_version}: the table is at version {table.version}")
            if not by_bot:
                action = {k: v for k, v in action.items() if k != "explain"}  # only a bot explains its call
            prepared: Prepared = table.prepare(chair, action)
            keys = ("type", "call", "card", "tricks", "text", "allow", "explain")
            clean: dict[str, Any] = {k: action[k] for k in keys if k in action}
            self.store.append_action(table.table_id, table.log_len + 1, chair, clean)
            table.install(prepared)
            table.last_active = time.monotonic()
        self.notify(table)
        self.schedule_work(table)

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
        for sub in list(self.watchers(table.table_id)):
            sub.notify()

    def subscribe(
        self, table: Table, chair: int, websocket: Any, render: Callable[[], dict[str, Any]] | None = None
    ) -> Subscriber:
        """Register a WebSocket for a chair's views, or ``render``'s (a spectator's); ``TooMany`` past the limit."""
        if len(self.watchers(table.table_id)) >= self.limits.sockets_per_table:
            raise TooMany(f"too many sockets on this table (limit {self.limits.sockets_per_table})", 10)
        build = render or (lambda: view_for(table, chair))
        sub = Subscriber(websocket, chair, lambda: json.dumps(build()), self.limits.send_timeout)
        self.subscribers.setdefault(table.table_id, set()).add(sub)
        table.last_active = time.monotonic()
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
        await sub.stop()

    # --- bots and analysis -----------------------------------------------------------------
    def bot_chair_due(self, table: Table) -> tuple[bool, int | None]:
        """(whether a bot must act now, which chair; None for the table's ``next`` at an all-bot table)."""
        state = table.current()
        if table.undo_request is not None:
            return False, None  # the bots wait for the people's answer to an undo
        if state.claim is not None:
            chairs = [table.chair_of_player(p) for p in state.awaiting]
            bots = [c for c in chairs if c is not None and table.is_bot(c)]
            return (True, bots[0]) if bots else (False, None)
        if state.phase == "done":
            return (table.all_bots and bool(self.watchers(table.table_id))), None
        chair = table.chair_of_player(state.turn)
        if chair is None or not table.is_bot(chair):
            return False, None
        if table.all_bots and not self.watchers(table.table_id):
            return False, None  # paused: nobody watches
        return True, chair

    def schedule_work(self, table: Table) -> None:
        """Start the bot turn and the analysis that the table's state calls for, if any."""
        if self.stopping or table.state is None:
            return
        if table.current().phase == "done" and not table.all_bots and self.analysis is not None:
            self.analysis.request(table)
        due, chair = self.bot_chair_due(table)
        key = (table.table_id, table.version)
        if not due or key in self.bots_pending:
            return
        self.bots_pending.add(key)
        task = asyncio.get_running_loop().create_task(self._bot_turn(table, chair, table.version))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        task.add_done_callback(lambda _t: self.bots_pending.discard(key))

    async def _bot_turn(self, table: Table, chair: int | None, version: int) -> None:
        try:
            if self.bot_delay > 0:
                await asyncio.sleep(self.bot_delay)
            action = await self._bot_decision(table, chair, version)
            if action is None or table.version != version or self.stopping:
                return
            await self.act(table, chair, action, expect_version=version, by_bot=True)
        except asyncio.CancelledError:
            raise
        except Conflict:
            return
        except Exception:  # noqa: BLE001 - a bot failure must not kill the server; log it
            log.exception("bot failed", extra={"table_id": table.table_id, "event": "bot_error"})

    async def _bot_decision(self, table: Table, chair: int | None, version: int) -> dict[str, Any] | None:
        """The bot's action (None once the table moved on); retried while the solver queue is full."""
        if chair is None:
            return {"type": "next"}
        priority = Priority.BATCH if table.all_bots else Priority.INTERACTIVE
        bot_name = table.config["chairs"][chair]["bot"]
        while table.version == version and not self.stopping:
            try:
                action, problems = await solver_pool().run(
                    bot_decision, bot_name, table.current(), table.player_of(chair), chair, priority, priority=priority
                )
                for problem in problems:
                    log.error(problem, extra={"table_id": table.table_id, "event": "bot_error"})
                return action
            except QueueFull:
                await asyncio.sleep(BUSY_RETRY_SECONDS)
        return None
