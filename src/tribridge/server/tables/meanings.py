"""What a bot's call shows, worked out after the call is made: a queue off the bots' turns, and the log entry that
brings the words to every view and every process.

A bot's call is committed at once with how it was chosen and ``explain_due`` (``bots.bot_action``); views show it
under ``explain.MEANING_PENDING`` meanwhile. ``MeaningQueue`` then works out what the call shows
(``explain.explain_call``: hands sampled, the bidder run many times; deterministic, seeded by the position) as one
job on the solver pool in a background class (``ANALYSIS`` at a table with a person, ``BATCH`` at a table of
bots, as their post-deal analysis and their bots), one position at a time, and logs the words through the
table's ``act`` as an entry of its own kind, ``{"type": "explain", "deal_no", "auction", "explain"}`` (the
auction up to and including the call). Like table talk it changes neither the deal nor the table's version; every
process installs it from the log (``prepare_meaning``), so the pushes, a reload and another process's views show
the words as they show the call. At most ``limit`` positions wait: a call made while the queue is full carries
``explain.MEANING_BUSY`` as its first line instead (``without_meaning``). A job is dropped when its deal has
moved on or its call was taken back, or while its table is not ``wanted`` (a table of bots that nobody watches
pauses, its words too). On a server with a store of its own (SQLite), the current deal's calls still due are
queued again (``request_due``) when it starts and when a paused table of bots is watched again; on a shared
store (PostgreSQL) the process that made the call works out its words, and a call whose words were dropped
(its process stopped, or its table of bots paused) keeps how it was chosen, under ``MEANING_PENDING``, until
the next deal.
"""

from __future__ import annotations

import asyncio
import logging
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tribridge.dd import Priority, QueueFull, solver_pool
from tribridge.errors import InvalidInput
from tribridge.rules.auction import AuctionState, Call
from tribridge.server.errors import Conflict
from tribridge.server.tables.explain import MEANING_BUSY, MEANING_FAILED, explain_call
from tribridge.server.tables.prepared import Prepared
from tribridge.server.tables.wire import CallAction, ExplainAction

if TYPE_CHECKING:
    from tribridge.server.tables.table import Table

__all__ = ["MEANING_QUEUE", "MEANING_TYPE", "MeaningJob", "MeaningQueue", "prepare_meaning", "without_meaning"]

log = logging.getLogger("tribridge.server.tables")

MEANING_TYPE = "explain"  # the log entry that gives a bot's call its words
MEANING_QUEUE = 64  # positions waiting at most
BUSY_RETRY_SECONDS = 0.5  # a job whose solver queue was full tries again after this


def _due_call(table: Table, deal_no: int, auction: list[str]) -> int | None:
    """The index in ``table.deal_actions`` of the last call of ``auction`` while its words are still due, else None."""
    if table.deal_no != deal_no or table.state is None:
        return None
    if [str(c) for c in table.current().auction.calls[: len(auction)]] != auction:
        return None
    calls = [i for i, (_chair, action) in enumerate(table.deal_actions) if action["type"] == "call"]
    if len(calls) < len(auction):
        return None
    index = calls[len(auction) - 1]
    return index if table.deal_actions[index][1].get("explain_due") else None


def prepare_meaning(table: Table, chair: int | None, action: ExplainAction) -> Prepared:
    """Check an ``explain`` entry (the server's own: no chair; its fields read by ``wire.parse_action``); installed,
    it gives its call the words."""
    if chair is not None:
        raise InvalidInput("type", "only the server explains a bot's call")
    deal_no, auction, text = action["deal_no"], action["auction"], action["explain"]

    def give(t: Table) -> None:
        index = _due_call(t, deal_no, auction)
        if index is not None:
            chair_of_call, call = t.deal_actions[index]
            assert call["type"] == "call"
            words: CallAction = {"type": "call", "call": call["call"], "explain": text}
            t.deal_actions = [*t.deal_actions[:index], (chair_of_call, words), *t.deal_actions[index + 1 :]]

    return Prepared(table.current(), table.deal_no, kind=MEANING_TYPE, effect=give, counts=False)


def without_meaning(action: CallAction, first_line: str = MEANING_BUSY) -> CallAction:
    """A bot's call whose words will not be worked out: ``first_line`` above how it was chosen, nothing due."""
    return {"type": "call", "call": action["call"], "explain": f"{first_line}\n{action.get('explain')}"}


@dataclass(frozen=True)
class MeaningJob:
    """One bot call to explain: its table and deal, the bot, the auction before it, the call."""

    table: Table
    deal_no: int
    bot_name: str
    before: AuctionState
    call: str

    @property
    def auction(self) -> list[str]:
        """The auction up to and including the call."""
        return [*map(str, self.before.calls), self.call]

    @property
    def key(self) -> tuple[str, int, int]:
        """(table id, deal number, the call's place in the auction)."""
        return self.table.table_id, self.deal_no, len(self.before.calls)

    def still_due(self) -> bool:
        """Whether the table still waits for these words (same deal, call not taken back, not explained yet)."""
        return _due_call(self.table, self.deal_no, self.auction) is not None


Commit = Callable[["Table", ExplainAction], Awaitable[None]]


class MeaningQueue:
    """Works out bots' calls' words one position at a time and logs them with ``commit(table, entry)``."""

    def __init__(
        self,
        commit: Commit,
        tasks: set[asyncio.Task[Any]],
        stopping: Callable[[], bool],
        wanted: Callable[[Table], bool],
        limit: int = MEANING_QUEUE,
    ) -> None:
        """``commit``: the manager's act for the server itself; ``tasks``: the manager's (cancelled when it stops);
        ``wanted(table)``: whether the table plays on now (its words are worked out only then)."""
        self.commit = commit
        self.tasks = tasks
        self.stopping = stopping
        self.wanted = wanted
        self.limit = int(limit)
        self.waiting: OrderedDict[tuple[str, int, int], MeaningJob] = OrderedDict()
        self.working: set[tuple[str, int, int]] = set()  # the keys of the jobs being worked out now
        self.explained = 0  # words logged (tests and logs)
        self.dropped = 0  # jobs whose deal moved on or whose call was taken back
        self._task: asyncio.Task[None] | None = None

    def has_room(self) -> bool:
        """Whether another position may wait."""
        return len(self.waiting) < self.limit

    def request(self, job: MeaningJob) -> None:
        """Queue ``job`` (its call was committed with ``explain_due``; the room was asked before, with ``has_room``)."""
        if job.key in self.working:
            return
        self.waiting.setdefault(job.key, job)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._work())
            self.tasks.add(self._task)
            self._task.add_done_callback(self.tasks.discard)

    def request_due(self, table: Table) -> None:
        """Queue every bot call of the table's current deal whose words are still due (after a restart, or a pause)."""
        if table.state is None or not any(action.get("explain_due") for _chair, action in table.deal_actions):
            return
        auction = table.start_deal(table.deal_no).auction
        for chair, action in table.deal_actions:
            if action["type"] != "call":
                continue
            spec = table.config["chairs"][chair] if chair is not None else None
            if action.get("explain_due") and spec is not None and spec["kind"] == "bot" and self.has_room():
                self.request(MeaningJob(table, table.deal_no, spec["bot"], auction, str(action["call"])))
            auction = auction.apply(Call.parse(str(action["call"]), "call"))

    async def _work(self) -> None:
        while self.waiting and not self.stopping():
            key, job = self.waiting.popitem(last=False)
            self.working.add(key)
            try:
                await self._explain(job)
            finally:
                self.working.discard(key)

    async def _explain(self, job: MeaningJob) -> None:
        """Work out and log the words of ``job``'s call, unless nobody waits for them any more."""
        if not job.still_due() or not self.wanted(job.table):
            self.dropped += 1
            return
        while True:
            priority = Priority.BATCH if job.table.all_bots else Priority.ANALYSIS
            try:
                text = await solver_pool().run(
                    explain_call, job.bot_name, Call.parse(job.call, "call"), job.before, priority=priority
                )
                break
            except QueueFull:
                await asyncio.sleep(BUSY_RETRY_SECONDS)  # the solver pool's queue is full: try again shortly
                if not job.still_due() or self.stopping():
                    return
            except Exception:  # noqa: BLE001 - the table goes on; the call says its words are not known
                log.exception("explaining a call failed", extra={"table_id": job.table.table_id})
                text = f"{MEANING_FAILED}\n{_second_line(job)}"
                break
        if job.still_due() and self.wanted(job.table):
            await self._log(job, text)
        else:
            self.dropped += 1

    async def _log(self, job: MeaningJob, text: str) -> None:
        """Log the words of ``job``'s call (given up when the table refuses them: it moved on meanwhile)."""
        entry: ExplainAction = {"type": "explain", "explain": text, "deal_no": job.deal_no, "auction": job.auction}
        try:
            await self.commit(job.table, entry)
            self.explained += 1
        except (Conflict, InvalidInput):
            self.dropped += 1
        except Exception:  # noqa: BLE001 - e.g. the store could not commit: the call keeps how it was chosen
            log.exception("a call's words not committed", extra={"table_id": job.table.table_id})


def _second_line(job: MeaningJob) -> str:
    """How the call of ``job`` was chosen, as its call action carries it."""
    index = _due_call(job.table, job.deal_no, job.auction)
    return "" if index is None else str(job.table.deal_actions[index][1].get("explain", ""))
