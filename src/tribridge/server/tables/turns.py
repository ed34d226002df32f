"""The bot side of ``TableManager`` (one of its parts): whether a bot must act, its decision, its commit.

A bot's whole decision (its sampling and its solves) is one job on the solver pool
(``tribridge.dd.pool``), so no bot's work competes with the server's own process: a bot at a table
with a person runs in the ``INTERACTIVE`` class (processes of its own, a little below the server's own CPU priority), a
watched table of bots in ``BATCH`` (background processes at the lowest CPU priority). A bot whose
solver queue is full tries again shortly. Every call and card shows ``bot_delay`` seconds after the
table's last change, however long the decision took, so a bot's tempo tells nothing of its hand. What a bot's
call shows is worked out after the call is committed (``meanings.MeaningQueue``), never on the bot's turn.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from tribridge.dd import Priority, QueueFull, solver_pool
from tribridge.errors import InvalidInput
from tribridge.server.errors import Conflict
from tribridge.server.tables.analysis_queue import AnalysisQueue
from tribridge.server.tables.bots import bot_decision
from tribridge.server.tables.meanings import MeaningJob, MeaningQueue, without_meaning
from tribridge.server.tables.peers import Peers
from tribridge.server.tables.push import Subscriber
from tribridge.server.tables.table import Table
from tribridge.server.tables.wire import TableAction

__all__ = ["BotAct", "BotTurns", "waiting_for_friends"]

log = logging.getLogger("tribridge.server.tables")

BUSY_RETRY_SECONDS = 0.5  # a bot whose solver queue was full tries again after this
COMMIT_RETRY_SECONDS = 1.0  # a bot action the store failed to commit is tried again after this


class BotAct(Protocol):
    """The manager's ``act``: check, commit and install one action."""

    def __call__(
        self,
        table: Table,
        chair: int | None,
        action: TableAction,
        expect_version: object = None,
        by_bot: bool = False,
    ) -> Awaitable[None]:
        """Act at ``table`` for ``chair``."""
        ...


class BotTurns:
    """Bot turns and post-deal analysis requests of a ``TableManager`` (one of its parts)."""

    def __init__(
        self,
        bot_delay: float,
        tasks: set[asyncio.Task[Any]],
        stopping: Callable[[], bool],
        watchers: Callable[[str], set[Subscriber]],
        catch_up: Callable[[Table], Awaitable[bool]],
        act: BotAct,
        peers: Peers | None = None,
        analysis: AnalysisQueue | None = None,
    ) -> None:
        """``tasks``: the manager's tasks (cancelled when it stops); ``stopping()``: whether it is stopping;
        ``watchers(table_id)``: a table's open subscribers; ``catch_up(table)``: the table caught up with a shared
        store; ``act``: the manager's check, commit and install of one action; ``peers``: the other processes on a
        shared store (a bot turn is taken under a lease); ``analysis``: the post-deal analysis queue."""
        self.bot_delay = bot_delay
        self.tasks = tasks
        self.stopping = stopping
        self.watchers = watchers
        self.catch_up = catch_up
        self.act = act
        self.peers = peers
        self.analysis = analysis
        self.meanings = MeaningQueue(lambda t, entry: act(t, None, entry, by_bot=True), tasks, stopping, self.plays_on)
        self.bots_pending: set[tuple[str, int]] = set()  # (table id, version) with a bot task on its way
        self.bot_tasks: dict[str, tuple[int, asyncio.Task[Any]]] = {}  # table id -> (version, its bot's task)

    def bot_chair_due(self, table: Table) -> tuple[bool, int | None]:
        """(whether a bot must act now, which chair; None for the table's ``next`` at an all-bot table)."""
        state = table.current()
        if table.undo_request is not None:
            return False, None  # the bots wait for the people's answer to an undo
        if table.seats_open:
            return False, None  # a friends' table: the game starts when every person has taken a chair
        if state.claim is not None:
            chairs = [table.chair_of_player(p) for p in state.awaiting]
            bots = [c for c in chairs if c is not None and table.is_bot(c)]
            return (True, bots[0]) if bots else (False, None)
        if state.phase == "done":
            return (table.all_bots and not table.boards_over and self.plays_on(table)), None
        chair = table.chair_of_player(state.turn)
        if chair is None or not table.is_bot(chair):
            return False, None
        if not self.plays_on(table):
            return False, None  # paused: nobody watches
        return True, chair

    def plays_on(self, table: Table) -> bool:
        """Whether the table plays now: a table with a person, or one of bots someone watches, or an event's."""
        watched = bool(self.watchers(table.table_id)) or table.event_facts() is not None  # an event's table plays on
        return not table.all_bots or watched

    def schedule_work(self, table: Table) -> None:
        """Start the bot turn and the analysis that the table's state calls for, if any."""
        if self.stopping() or table.state is None:
            return
        if table.current().phase == "done" and not table.all_bots and self.analysis is not None:
            self.analysis.request(table)
        self._cancel_stale_bot(table)
        if table.all_bots and self.peers is None and self.plays_on(table):
            self.meanings.request_due(table)  # words left when it paused (one store of its own; waiting: kept once)
        due, chair = self.bot_chair_due(table)
        key = (table.table_id, table.version)
        if not due or key in self.bots_pending:
            return
        self.bots_pending.add(key)
        task = asyncio.get_running_loop().create_task(self._bot_turn(table, chair, table.version))
        self.bot_tasks[table.table_id] = (table.version, task)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        task.add_done_callback(lambda _t: self.bots_pending.discard(key))

    def _cancel_stale_bot(self, table: Table) -> None:
        """Cancel the bot task of an older version of ``table`` (its queued solver job is dropped with it)."""
        entry = self.bot_tasks.get(table.table_id)
        if entry is None:
            return
        version, task = entry
        if task.done() or version != table.version:
            del self.bot_tasks[table.table_id]
            if not task.done() and task is not asyncio.current_task():
                task.cancel()

    async def _bot_turn(self, table: Table, chair: int | None, version: int) -> None:
        """Decide, then act ``bot_delay`` seconds after the table's last change, however long the decision took."""
        started = time.monotonic()
        try:
            if self.peers is None:
                await self._bot_act(table, chair, version, started)
                return

            async def still_due() -> bool:
                await self.catch_up(table)
                return table.version == version and not self.stopping()

            key = f"bot:{table.table_id}:{version}"  # one process takes the turn; another when it dies
            await self.peers.with_lease(key, lambda: self._bot_act(table, chair, version, started), still_due)
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - a bot failure must not kill the server; log it
            log.exception("bot failed", extra={"table_id": table.table_id, "event": "bot_error"})

    async def _bot_act(self, table: Table, chair: int | None, version: int, started: float) -> None:
        """Decide and act for the bot on turn ``bot_delay`` after ``started``, unless the table moved on meanwhile; then
        ask for what its call shows."""
        before, deal_no = table.current(), table.deal_no
        bot_name = table.config["chairs"][chair]["bot"] if chair is not None else ""
        action = await self._bot_decision(table, chair, version)
        if action is None or table.version != version or self.stopping():
            return
        if action["type"] == "call" and action.get("explain_due") and not self.meanings.has_room():
            action = without_meaning(action)  # too many calls wait for their words: this one says so
        wait = self.bot_delay - (time.monotonic() - started)
        if wait > 0:
            await asyncio.sleep(wait)  # every call and card shows after the same delay, forced or not
        committed = await self._commit_bot_action(table, chair, action, version)
        if committed and action["type"] == "call" and action.get("explain_due"):
            self.meanings.request(MeaningJob(table, deal_no, bot_name, before.auction, action["call"]))

    async def _commit_bot_action(self, table: Table, chair: int | None, action: TableAction, version: int) -> bool:
        """Act for the bot (True once committed); a commit the store failed is tried again until it lands or the
        table moves on."""
        while table.version == version and not self.stopping():
            try:
                await self.act(table, chair, action, expect_version=version, by_bot=True)
                return True
            except Conflict:
                return False
            except InvalidInput:
                raise  # an illegal bot action is a bug: logged by the caller, not retried
            except Exception:  # noqa: BLE001 - e.g. the store could not commit: the table must go on
                log.exception("bot action not committed; retrying", extra={"table_id": table.table_id})
                await asyncio.sleep(COMMIT_RETRY_SECONDS)
        return False

    async def _bot_decision(self, table: Table, chair: int | None, version: int) -> TableAction | None:
        """The bot's action (None once the table moved on); retried while the solver queue is full."""
        if chair is None:
            return {"type": "next"}
        priority = Priority.BATCH if table.all_bots else Priority.INTERACTIVE
        bot_name = table.config["chairs"][chair]["bot"]
        while table.version == version and not self.stopping():
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


def waiting_for_friends(table: Table) -> str:
    """Why a game action waits at a table with a person's chair still free: which chairs (numbered from 1)."""
    free = [str(c + 1) for c in range(3) if not table.is_bot(c) and c not in table.token_hashes]
    return f"the game starts when every friend has taken their chair (chair {' and '.join(free)} still free)"
