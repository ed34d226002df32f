"""What one server process does with the others on a shared store (PostgreSQL): hear, report, take turns.

``Peers`` listens to the store's commit notices (``Store.listen``) of the notice groups ``groups()`` names (the
groups of the tables this process follows) and hands each notice (``<table_id>:<what>``, ``*`` or ``*:<group>``) to
``on_change``; reports this process's WebSocket count per table every ``beat_seconds`` (the
heartbeat other processes read for the per-table limit); and runs work that exactly one process may
do (a bot's turn, a deal's analysis) under a lease in the store, renewed while the work runs. A
process that dies stops renewing, so its lease expires after ``lease_seconds`` and another process
that still finds the work due takes it.

A store that is briefly unreachable (``StoreUnavailable``: the database dropped the connections)
stops none of this: a notice that could not be read leads to ``*`` (re-read everything) a moment
later, until it can; a lease that could not be taken is tried again while the work is due; one that
could not be renewed or released expires by itself.
"""

from __future__ import annotations

import asyncio
import logging
import os
import secrets
import socket
from collections.abc import Awaitable, Callable, Collection
from typing import TypeVar

from tribridge.server.store import AsyncStore, StoreUnavailable

__all__ = ["Peers", "process_owner"]

log = logging.getLogger("tribridge.server.tables")

T = TypeVar("T")

CATCH_UP_SECONDS = 1.0  # after a notice the store could not answer, everything is re-read this much later


def process_owner() -> str:
    """A name for this process that no other process shares: host, process id and a random part."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class Peers:
    """The shared-store side of one process: the listener, the heartbeat and leases (``with_lease``)."""

    def __init__(
        self,
        store: AsyncStore,
        on_change: Callable[[str], Awaitable[None]],
        socket_counts: Callable[[], dict[str, int]],
        lease_seconds: float = 5.0,
        beat_seconds: float = 2.0,
        groups: Callable[[], Collection[int]] | None = None,
    ) -> None:
        """``groups()``: the notice groups to hear (every group when None)."""
        self.store = store
        self.groups = groups
        self.owner = process_owner()
        self.on_change = on_change
        self.socket_counts = socket_counts
        self.lease_seconds = float(lease_seconds)
        self.beat_seconds = float(beat_seconds)
        self._tasks: list[asyncio.Task[None]] = []
        self._catching_up: asyncio.Task[None] | None = None
        self._reporting: asyncio.Task[None] | None = None
        self._report_due = False
        self._touch_due: set[str] = set()

    @property
    def fresh_seconds(self) -> float:
        """How old a heartbeat may be and still count (three beats)."""
        return 3 * self.beat_seconds

    def start(self) -> None:
        """Start listening and beating."""
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._listen()), loop.create_task(self._beat())]

    async def stop(self) -> None:
        """Stop both tasks and withdraw this process's socket counts."""
        tasks = [*self._tasks, *(t for t in (self._catching_up, self._reporting) if t is not None)]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks, self._catching_up, self._reporting = [], None, None
        try:
            await self.store.report_sockets(self.owner, {})
        except Exception:  # noqa: BLE001 - the store may already be unreachable at shutdown
            log.warning("could not withdraw the socket counts at shutdown")

    def report_later(self, touch: str | None = None) -> None:
        """Report this process's sockets (and record activity at table ``touch``) shortly, on the store's threads: the
        changes of a burst of subscribes make one or two reports."""
        self._report_due = True
        if touch is not None:
            self._touch_due.add(touch)
        if self._reporting is None or self._reporting.done():
            self._reporting = asyncio.get_running_loop().create_task(self._report_while_due())

    async def _report_while_due(self) -> None:
        while self._report_due:
            self._report_due = False
            touch, self._touch_due = sorted(self._touch_due), set()
            try:
                await self.report_soon()
                for table_id in touch:
                    await self.store.touch(table_id)
            except Exception:  # noqa: BLE001 - a store that is briefly away: the heartbeat reports again
                log.warning("socket report failed", exc_info=True)
                return

    async def report_soon(self) -> None:
        """Report this process's sockets on the store's threads (the counts are taken here, on the event loop)."""
        await self.store.report_sockets(self.owner, self.socket_counts())

    async def _listen(self) -> None:
        async for payload in self.store.listen(self.groups):
            await self.hear(payload)

    async def hear(self, payload: str) -> None:
        """Hand one notice to ``on_change``; when the store cannot answer it, ``*`` follows soon."""
        try:
            await self.on_change(payload)
        except StoreUnavailable as exc:
            log.warning("change notice %s not read (%s); re-reading everything soon", payload, exc)
            if self._catching_up is None or self._catching_up.done():
                self._catching_up = asyncio.get_running_loop().create_task(self._catch_up())
        except Exception:  # noqa: BLE001 - one table that cannot be read must not stop the listener
            log.exception("change notice failed", extra={"event": "listen_error"})

    async def _catch_up(self) -> None:
        """``*`` every ``CATCH_UP_SECONDS`` until the store answers it (what the missed notices said is in the log)."""
        while True:
            await asyncio.sleep(CATCH_UP_SECONDS)
            try:
                await self.on_change("*")
                return
            except StoreUnavailable:
                continue

    async def _beat(self) -> None:
        while True:
            try:
                await self.report_soon()
            except Exception:  # noqa: BLE001 - a store that is briefly away: beat again later
                log.warning("heartbeat failed", exc_info=True)
            await asyncio.sleep(self.beat_seconds)

    async def with_lease(
        self, key: str, work: Callable[[], Awaitable[T]], still_due: Callable[[], Awaitable[bool]]
    ) -> T | None:
        """Run ``work`` once it holds the lease ``key`` (None when ``still_due()`` turns false while waiting)."""
        while await self._due(still_due):
            if await self._acquire(key):
                renewing = asyncio.get_running_loop().create_task(self._renew(key))
                try:
                    return await work()
                finally:
                    renewing.cancel()
                    await asyncio.gather(renewing, return_exceptions=True)
                    await self._release(key)
            await asyncio.sleep(self.lease_seconds / 4)
        return None

    @staticmethod
    async def _due(still_due: Callable[[], Awaitable[bool]]) -> bool:
        """``still_due()``, taken as true while the store cannot answer it (the work is tried again later)."""
        try:
            return await still_due()
        except StoreUnavailable:
            return True

    async def _acquire(self, key: str) -> bool:
        """Take or renew the lease ``key``; False also when the store cannot be reached."""
        try:
            return await self.store.acquire_lease(key, self.owner, self.lease_seconds)
        except StoreUnavailable as exc:
            log.warning("lease %s not taken: %s", key, exc)
            return False

    async def _release(self, key: str) -> None:
        try:
            await self.store.release_lease(key, self.owner)
        except StoreUnavailable as exc:
            log.warning("lease %s not released (it expires by itself): %s", key, exc)

    async def _renew(self, key: str) -> None:
        while True:
            await asyncio.sleep(self.lease_seconds / 3)
            try:
                renewed = await self.store.acquire_lease(key, self.owner, self.lease_seconds)
            except StoreUnavailable as exc:
                log.warning("lease %s not renewed: %s; trying again", key, exc)
                continue
            if not renewed:
                log.warning("lost the lease %s", key)
                return
