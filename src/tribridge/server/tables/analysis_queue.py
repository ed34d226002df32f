"""The post-deal analysis queue: bounded, coalesced per table, cached per deal, dropped when superseded.

One job per table at most waits: a newer deal of the same table replaces the waiting one. At most
``limit`` tables wait; beyond that a request is refused (the deal's analysis says so). A job whose
deal is no longer the table's current deal when its turn comes is dropped, and so is a result that
arrives after the table moved on. Jobs run one at a time in ``executor``: ``run(state, scheme,
chair_seats, names)`` is the blocking analysis (with ``keyed``, ``run(table_id, deal_no, state, ...)``, for a
run that shares results between processes); results are cached in ``table.analysis[deal_no]``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any

from tribridge.analysis import analyse
from tribridge.cards import Seat
from tribridge.dd import Priority, solving_at
from tribridge.rules.deal import DealState
from tribridge.server.heap import freeze_heap_once
from tribridge.server.store import Store
from tribridge.server.tables.table import Table
from tribridge.server.tables.wire_view import AnalysisJson, PendingAnalysisJson

__all__ = ["AnalysisQueue", "analyse_at_priority", "analyse_once", "busy_analysis"]

log = logging.getLogger("tribridge.server.tables")

ANALYSIS_LEASE_SECONDS = 120.0  # a process that died while analysing lets another try after this
ANALYSIS_POLL_SECONDS = 0.5


@dataclass(frozen=True)
class _Job:
    table: Table
    deal_no: int
    args: tuple[Any, ...]


def analyse_at_priority(
    state: DealState, scheme: str, chair_seats: Sequence[Seat], names: Sequence[str]
) -> AnalysisJson:
    """Post-deal analysis of a finished deal (each chair's dealing seat and name given), solving in the ANALYSIS class."""
    with solving_at(Priority.ANALYSIS):
        result: AnalysisJson = {**analyse(state, scheme, chair_seats, names)}  # kept with the table's other analyses
    freeze_heap_once("analysis")  # the first analysis imported the solver's package (endplay, ~50,000 objects)
    return result


def analyse_once(
    store: Store,
    owner: str,
    stopping: Callable[[], bool],
    table_id: str,
    deal_no: int,
    deal: tuple[DealState, str, Sequence[Seat], Sequence[str]],
) -> AnalysisJson:
    """(In the analysis thread, off the event loop: the store is called directly.) The deal's stored analysis, else
    computed here under a lease (``owner``'s) and stored: each deal is analysed once over the processes on a store."""
    key = f"analysis:{table_id}:{deal_no}"
    while not stopping():
        document = store.get_analysis(table_id, deal_no)
        if document is not None:
            stored: AnalysisJson = json.loads(document)
            return stored
        if store.acquire_lease(key, owner, ANALYSIS_LEASE_SECONDS):
            try:
                result = analyse_at_priority(*deal)
                store.put_analysis(table_id, deal_no, json.dumps(result))
                log.info("analysis computed", extra={"event": "analysis", "table_id": table_id})
                return result
            finally:
                store.release_lease(key, owner)
        time.sleep(ANALYSIS_POLL_SECONDS)  # another process is computing it
    return busy_analysis("analysis skipped: the server is stopping")


def busy_analysis(note: str) -> PendingAnalysisJson:
    """An analysis object with no parts and one note (refused, failed)."""
    return {"hands": None, "dd": None, "capture": None, "nt_calls": None, "best_contract": None, "notes": [note]}


class AnalysisQueue:
    """Runs post-deal analyses one at a time; ``on_done(table)`` is called after a result is cached."""

    def __init__(
        self,
        run: Callable[..., AnalysisJson],
        executor: Executor | None,
        on_done: Callable[[Table], None],
        limit: int = 32,
        keyed: bool = False,
    ) -> None:
        self.run = run
        self.keyed = keyed
        self.executor = executor
        self.on_done = on_done
        self.limit = int(limit)
        self.waiting: OrderedDict[str, _Job] = OrderedDict()
        self.ran: list[tuple[str, int]] = []  # (table id, deal number) of every analysis computed, in order
        self.dropped = 0
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the worker task."""
        self._task = asyncio.get_running_loop().create_task(self._work())

    async def stop(self) -> None:
        """Stop the worker (a running analysis finishes in its thread; its result is discarded)."""
        if self._task is not None:
            self._task.cancel()
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        self.waiting.clear()

    def request(self, table: Table) -> bool:
        """Queue the analysis of the table's finished current deal; False when refused (the queue is full)."""
        state, deal_no = table.current(), table.deal_no
        if state.phase != "done" or deal_no in table.analysis:
            return True
        key = table.table_id
        if key not in self.waiting and len(self.waiting) >= self.limit:
            self.dropped += 1
            table.analysis[deal_no] = busy_analysis("analysis skipped: the server is busy with other analyses")
            return False
        if key in self.waiting:
            self.dropped += 1  # the older deal's job is superseded
        names = [table.chair_name(c) for c in range(3)]
        args = (state, table.scheme, table.seats, names)
        self.waiting[key] = _Job(table, deal_no, (key, deal_no, *args) if self.keyed else args)
        self._wake.set()
        return True

    async def _work(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            if not self.waiting:
                self._wake.clear()
                await self._wake.wait()
                continue
            _key, job = self.waiting.popitem(last=False)
            if job.table.deal_no != job.deal_no or job.deal_no in job.table.analysis:
                self.dropped += 1  # superseded by a newer deal, or already cached
                continue
            try:
                result = await loop.run_in_executor(self.executor, self.run, *job.args)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - an analysis failure is shown as a note, the server goes on
                log.exception("analysis failed", extra={"table_id": job.table.table_id})
                result = busy_analysis(f"analysis failed: {exc}")
            self.ran.append((job.table.table_id, job.deal_no))
            del self.ran[:-1000]
            if job.table.deal_no == job.deal_no:
                job.table.analysis[job.deal_no] = result
                self.on_done(job.table)
            else:
                self.dropped += 1
