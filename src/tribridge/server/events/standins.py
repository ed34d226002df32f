"""Stand-ins at the live individual and teams forms' tables: a person who keeps its table waiting is played by a bot.

A person's chair is *waiting* while a call, a card or an answer to a claim is due from it. When a chair has
waited ``leave_seconds`` with the table unchanged and no WebSocket of that chair open, the event's bot takes
the chair over (in memory: the table's chair becomes a bot chair until given back); an event's table whose
every chair is a bot plays on unwatched. The person takes its chair back by opening the
event (``GET /api/events/{id}`` with its token), which seats it again. Results played by a stand-in count for
the person whose place it is. After a restart every chair is a person's again until the timeout passes anew.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable

from tribridge.server.tables.manager import TableManager
from tribridge.server.tables.table import Table
from tribridge.server.tables.wire import ChairConfig

__all__ = ["StandIns"]

log = logging.getLogger("tribridge.server.events")


class StandIns:
    """Watches the current round's tables of live events and puts bots in the chairs left waiting."""

    def __init__(self, manager: TableManager, leave_seconds: float, check_seconds: float = 2.0) -> None:
        self.manager = manager
        self.leave_seconds = float(leave_seconds)
        self.check_seconds = float(check_seconds)
        self.waiting: dict[tuple[str, int], tuple[int, float]] = {}  # (table, chair) -> (version, since)
        self.stood_in: dict[tuple[str, int], ChairConfig] = {}  # (table, chair) -> the person's chair spec
        self.task: asyncio.Task[None] | None = None

    def start(self, tables: Callable[[], Awaitable[list[tuple[str, str]]]]) -> None:
        """Start watching the (table id, stand-in bot) pairs ``tables()`` names, every ``check_seconds`` (once; the
        manager cancels the task when it stops)."""
        if self.task is not None and not self.task.done():
            return
        self.task = asyncio.get_running_loop().create_task(self._watch(tables))
        self.manager.tasks.add(self.task)
        self.task.add_done_callback(self.manager.tasks.discard)

    async def _watch(self, tables: Callable[[], Awaitable[list[tuple[str, str]]]]) -> None:
        while not self.manager.stopping:
            try:
                for table_id, bot in await tables():
                    self.check(await self.manager.get(table_id), bot)
            except Exception:  # noqa: BLE001 - the watch must go on; log it
                log.exception("stand-in check failed", extra={"event": "standin_error"})
            await asyncio.sleep(self.check_seconds)

    def _due_chairs(self, table: Table) -> list[int]:
        """The chairs a call, card or claim answer is due from now."""
        state = table.current()
        if state.claim is not None:
            chairs = [table.chair_of_player(p) for p in state.awaiting]
        elif state.phase == "done":  # any person may start the next board
            chairs = [] if table.boards_over else [0, 1, 2]
        else:
            chairs = [table.chair_of_player(state.turn)]
        return [c for c in chairs if c is not None]

    def check(self, table: Table, bot: str) -> None:
        """Stand in for each person's chair of ``table`` that has waited too long."""
        now = time.monotonic()
        watched = {sub.chair for sub in self.manager.watchers(table.table_id)}
        for chair in self._due_chairs(table):
            if table.is_bot(chair):
                continue
            version, since = self.waiting.get((table.table_id, chair), (table.version, now))
            if version != table.version:
                version, since = table.version, now
            self.waiting[(table.table_id, chair)] = (version, since)
            if now - since >= self.leave_seconds and chair not in watched:
                self.stand_in(table, chair, bot)

    def stand_in(self, table: Table, chair: int, bot: str) -> None:
        """Let ``bot`` play a person's chair from now on (until ``give_back``)."""
        key = (table.table_id, chair)
        self.stood_in.setdefault(key, table.config["chairs"][chair])
        table.config["chairs"][chair] = {"kind": "bot", "bot": bot}
        log.info("stand-in", extra={"event": "standin", "table_id": table.table_id})
        self.manager.notify(table)
        self.manager.schedule_work(table)

    def give_back(self, table: Table, chair: int) -> None:
        """The person is back: its chair is its own again."""
        spec = self.stood_in.pop((table.table_id, chair), None)
        if spec is None:
            return
        table.config["chairs"][chair] = spec
        self.waiting.pop((table.table_id, chair), None)
        self.manager.notify(table)
        self.manager.schedule_work(table)
