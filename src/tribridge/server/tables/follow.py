"""How a ``TableManager`` keeps its tables caught up with the store's log (its part ``LogFollower``).

On a shared store (PostgreSQL, several processes) a table's truth is its action log: a process
installs what others logged when their commit notice arrives (``hear_action``: the next action straight from
the notice, which carries it; after a gap, or for a notice without it, the tables with news are read in one
query, one at a time, and the notices that come meanwhile make the next one) or when its own action finds its
number taken. The notice of a commit this process is still waiting for (its
own, most often) is only noted: when the commit is not installed after all, the table follows the
log then. Every store
call on these paths is awaited through ``store.AsyncStore`` (the store's threads), so the event loop
never waits for the database. On SQLite (one process) the table in memory is the log's only writer and nothing is
read back.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from tribridge.server.store import AsyncStore, LoggedAction, Seats, StoreUnavailable
from tribridge.server.store.accounts import rename_chair_in
from tribridge.server.tables.table import Table
from tribridge.server.tables.wire import parse_action

__all__ = ["LogFollower", "install_logged", "rename_chairs", "rename_held", "uncancelled"]

log = logging.getLogger("tribridge.server.tables")

FOLLOW_RETRY_SECONDS = 1.0  # a catch-up the store could not answer is tried again after this


def install_logged(table: Table, logged: Sequence[LoggedAction]) -> None:
    """Install the logged actions ``table`` lacks, in order (those it already has are skipped); each is read back
    through ``wire.parse_action``, its explanation kept."""
    for seq, chair, action in logged:
        if seq <= table.log_len:
            continue  # installed meanwhile: this process's own action, or another catch-up's
        if seq != table.log_len + 1:
            raise RuntimeError(f"table {table.table_id}: action log out of order at {seq}")
        table.install(table.prepare(chair, parse_action(action, explain=True)))


def rename_chairs(table: Table, names: Mapping[int, str]) -> bool:
    """Give the seated chairs of ``names`` those names where they had others (a deleted account's chairs become
    neutral): the shown name, the configured one, the finished deals' records and analyses; True if any changed."""
    changed = False
    for chair, name in names.items():
        if chair not in table.token_hashes or table.chair_name(chair) == name:
            continue
        table.taken_names[chair] = name
        if table.config["chairs"][chair].get("name") is not None:
            table.config["chairs"][chair]["name"] = name
        for record in table.history:
            record["players"][chair] = name
        rename_chair_in(table.analysis, chair, name)
        changed = True
    if changed:
        table.sheet_memo = None
    return changed


def rename_held(
    tables: Mapping[str, Table], chairs: Iterable[tuple[str, int]], name: str, changed: Callable[[Table], None]
) -> None:
    """Name the chairs ``(table_id, chair)`` ``name`` at the tables in memory (``tables``), telling ``changed`` of each
    table renamed (its views pushed again); other processes rename theirs at the store's ``seat`` notice."""
    for table_id, chair in chairs:
        table = tables.get(table_id)
        if table is not None and rename_chairs(table, {chair: name}):
            changed(table)


async def uncancelled(work: Awaitable[None]) -> None:
    """Run ``work`` to its end even if the caller is cancelled meanwhile (then re-raise the cancellation): a
    commit that may have reached the store is always installed, and the table's lock held until it is."""
    task = asyncio.ensure_future(work)
    cancelled = False
    while True:
        try:
            await asyncio.shield(task)
            break
        except asyncio.CancelledError:
            cancelled = True
            if task.done():
                break
    if cancelled:
        task.exception()  # (retrieved: the caller's cancellation is what propagates)
        raise asyncio.CancelledError
    task.result()


class LogFollower:
    """Catch-up from the store's log for the tables of one ``TableManager`` (one of its parts)."""

    def __init__(
        self,
        store: AsyncStore,
        tasks: set[asyncio.Task[Any]],
        stopping: Callable[[], bool],
        changed: Callable[[Table], None],
    ) -> None:
        """``tasks``: the manager's tasks (cancelled when it stops); ``stopping()``: whether it is stopping;
        ``changed(table)``: called when a read of the log installed something (views pushed, bots scheduled)."""
        self.store = store
        self.tasks = tasks
        self.stopping = stopping
        self.changed = changed
        self.news: dict[str, Table] = {}  # the tables that follow the log at the next read
        self.news_read: dict[str, asyncio.Future[None]] = {}  # table id -> done when the read of its news is installed
        self.news_task: asyncio.Task[None] | None = None  # the read in flight
        self.committing: dict[str, int] = {}  # table id -> the number this process is committing an action as
        self.heard: dict[str, int] = {}  # table id -> the highest number noticed meanwhile

    async def catch_up(self, table: Table, seats: bool = False) -> bool:
        """Catch a table up with what other processes committed (its log; its chairs if ``seats``); True if changed."""
        if not self.store.shared:
            return False
        before = (table.version, table.log_len)  # the log also grows by table talk, which leaves the version alone
        install_logged(table, await self.store.actions_since(table.table_id, table.log_len))
        renamed = False
        if seats or table.seats_open:  # (the version counts the seats taken: every process must know them all)
            renamed = self._take_seats(table, await self.store.seats(table.table_id))
        return (table.version, table.log_len) != before or renamed

    @staticmethod
    def _take_seats(table: Table, taken: Seats) -> bool:
        """The seats as committed (a seated chair whose name changed is renamed: ``rename_chairs``); True if renamed."""
        renamed = rename_chairs(table, taken.names)
        table.token_hashes.update(taken.token_hashes)
        table.taken_names.update(taken.names)
        return renamed

    def hear_action(self, table: Table, seq: int, logged: LoggedAction | None = None) -> None:
        """A notice that action ``seq`` of ``table`` is in the log (``logged``: the action, when the notice carries
        it): the table installs it when it is the next, else follows the log, unless it holds it."""
        if seq <= table.log_len:
            return  # installed already
        if self.committing.get(table.table_id) == seq:  # this process's own commit, most often: its act installs it
            self.heard[table.table_id] = max(seq, self.heard.get(table.table_id, 0))
            return
        if logged is None or seq != table.log_len + 1 or table.seats_open or table.table_id in self.news:
            self.follow(table)  # (a gap, chairs still to learn, or a read already due: the log decides)
            return
        try:
            install_logged(table, [logged])
        except Exception:  # noqa: BLE001 - an action this process cannot install from the notice: the log decides
            log.exception("installing a notice failed", extra={"table_id": table.table_id, "event": "listen_error"})
            self.follow(table)
            return
        table.last_active = time.monotonic()
        self.changed(table)

    @contextmanager
    def logging_as(self, table: Table, seq: int) -> Iterator[None]:
        """While the block commits and installs action ``seq``, its notices are only noted; one that the table does
        not hold afterwards (the commit failed, or lost to another process's) is followed then."""
        self.committing[table.table_id] = seq
        try:
            yield
        finally:
            del self.committing[table.table_id]
            if self.heard.pop(table.table_id, 0) > table.log_len:
                self.follow(table)

    def follow(self, table: Table) -> None:
        """Catch ``table`` up with the log and push its views: the tables with news are read together, one read at a
        time (the notices that come meanwhile make the next one)."""
        self.news[table.table_id] = table
        if table.table_id not in self.news_read:
            self.news_read[table.table_id] = asyncio.get_running_loop().create_future()
        if self.news_task is None or self.news_task.done():
            self.news_task = asyncio.get_running_loop().create_task(self._follow_news())
            self.tasks.add(self.news_task)
            self.news_task.add_done_callback(self.tasks.discard)

    async def _follow_news(self) -> None:
        while self.news and not self.stopping():
            news, self.news = self.news, {}
            read = [self.news_read.pop(t) for t in news if t in self.news_read]
            failed = False
            try:
                await self._read_news(news)
            except StoreUnavailable as exc:  # the database is briefly away: what the notices said is in the log
                log.warning("catching up %d tables failed (%s); again shortly", len(news), exc)
                failed = True
            except Exception:  # noqa: BLE001 - the next notice (or request) catches the tables up
                log.exception("catching up failed", extra={"event": "listen_error"})
            finally:
                for done in read:  # (the actions waiting for it judge again, or read the log themselves)
                    if not done.done():
                        done.set_result(None)
            if failed:
                for table in news.values():
                    self.follow(table)
                await asyncio.sleep(FOLLOW_RETRY_SECONDS)

    async def caught_up_by_news(self, table: Table) -> bool:
        """Wait for the read of ``table``'s news under way, if any (a second at most); True if it changed the table."""
        pending = self.news_read.get(table.table_id)
        if pending is None:
            return False
        before = (table.version, table.log_len)
        await asyncio.wait([pending], timeout=FOLLOW_RETRY_SECONDS)
        return (table.version, table.log_len) != before

    async def _read_news(self, news: dict[str, Table]) -> None:
        """Read the logs of the tables in ``news`` in one query; install what they lack and say which changed."""
        logged = await self.store.actions_after({t: news[t].log_len for t in news})
        seats = {t: await self.store.seats(t) for t in news if news[t].seats_open}
        for table_id, table in news.items():
            try:
                before = (table.version, table.log_len)
                install_logged(table, logged.get(table_id, []))
                if table_id in seats:
                    self._take_seats(table, seats[table_id])
                if (table.version, table.log_len) != before:
                    table.last_active = time.monotonic()
                    self.changed(table)
            except Exception:  # noqa: BLE001 - the next notice (or request) catches the table up
                log.exception("catching up failed", extra={"table_id": table_id, "event": "listen_error"})
