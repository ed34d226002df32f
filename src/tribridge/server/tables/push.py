"""Pushing views to WebSocket subscribers without ever holding up an action.

Each subscriber has its own writer task. A view is the whole state, so a subscriber keeps no
queue of views: ``notify`` only marks it stale, and the writer renders the newest view when it is
ready to send (older, unsent views are never built). A subscriber that cannot take a view within
``send_timeout`` seconds is closed with code 1013 and a reason; the page reconnects and gets the
current view, as after a reload. Memory per subscriber is one view, whatever the client does. A
chair's subscriber remembers the hash of the token it was opened with: once the chair has another
token (the seat taken back on another device), ``end_replaced`` closes it with code 4409.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["SEAT_TAKEN_CLOSE_CODE", "SEAT_TAKEN_REASON", "SLOW_CLOSE_CODE", "Subscriber", "end_replaced"]

log = logging.getLogger("tribridge.server.tables")

SLOW_CLOSE_CODE = 1013  # "try again later": the client reconnects for the current view
SEAT_TAKEN_CLOSE_CODE = 4409  # the chair's token was replaced (taken back on another device): the page stops
SEAT_TAKEN_REASON = "your seat at this table was taken on another device"


class Subscriber:
    """One WebSocket following one chair of a table; ``notify()`` after every change, never awaited by actions."""

    def __init__(
        self,
        websocket: Any,
        chair: int,
        render: Callable[[], str],
        send_timeout: float = 5.0,
        close_timeout: float = 2.0,
        token_hash: str | None = None,
    ) -> None:
        self.websocket = websocket
        self.chair = chair
        self.token_hash = token_hash  # the hash of the chair's token it was opened with (None: a spectator)
        self.render = render
        self.send_timeout = float(send_timeout)
        self.close_timeout = float(close_timeout)
        self.closed = False
        self.sent = 0
        self._stale = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Start the writer; it sends the current view first."""
        self._stale.set()
        self._task = asyncio.get_running_loop().create_task(self._write())

    def notify(self) -> None:
        """Mark the view stale: the writer sends the newest one as soon as the client can take it."""
        if not self.closed:
            self._stale.set()

    async def _write(self) -> None:
        while not self.closed:
            await self._stale.wait()
            self._stale.clear()
            if self.closed:
                return
            try:
                text = self.render()
            except Exception:  # noqa: BLE001 - a view that cannot be built is a bug: log it, close the socket
                log.exception("view failed", extra={"event": "view_error"})
                await self.close(1011, "the server could not build your view")
                return
            try:
                await asyncio.wait_for(self.websocket.send_text(text), self.send_timeout)
            except TimeoutError:
                log.info("slow subscriber closed", extra={"event": "slow_subscriber"})
                await self.close(
                    SLOW_CLOSE_CODE,
                    f"too slow: a view was not taken within {self.send_timeout:g} s; reconnect for the current view",
                )
                return
            except Exception:  # noqa: BLE001 - the socket is gone
                self.closed = True
                return
            self.sent += 1

    async def close(self, code: int, reason: str) -> None:
        """Close the socket with ``code`` and ``reason``; waits at most ``close_timeout`` seconds and never raises.

        A peer that takes nothing gets the close frame after the data already queued for it, if it ever
        reads again (the close request stays pending); the server's WebSocket keepalive drops it otherwise.
        """
        self.closed = True
        self._stale.set()
        closing = asyncio.ensure_future(self.websocket.close(code=code, reason=reason))
        closing.add_done_callback(_ignore_result)
        try:
            await asyncio.wait_for(asyncio.shield(closing), self.close_timeout)
        except Exception:  # noqa: BLE001 - already closed, or the peer is stuck: the close stays pending
            pass

    async def stop(self) -> None:
        """Stop the writer (the socket is left to its handler)."""
        self.closed = True
        task = self._task
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


async def end_replaced(subscribers: Iterable[Subscriber], token_hashes: Mapping[int, str]) -> None:
    """Close the subscribers opened with a chair's token that is no longer the chair's (``token_hashes``: the table's
    now), with ``SEAT_TAKEN_CLOSE_CODE``: the seat was taken back on another device."""
    for sub in list(subscribers):
        if sub.token_hash is not None and token_hashes.get(sub.chair) != sub.token_hash:
            await sub.close(SEAT_TAKEN_CLOSE_CODE, SEAT_TAKEN_REASON)


def _ignore_result(future: asyncio.Future[Any]) -> None:
    """Retrieve a background close's outcome (a socket already gone is not an error)."""
    if not future.cancelled():
        future.exception()
