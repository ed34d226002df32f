"""Table affinity for ``tribridge serve --workers N``: each connection goes to the worker that keeps its table.

The parent process accepts every connection on the listening socket and reads (without taking them) the
first bytes of its first request. A request for ``/api/tables/{id}/...`` goes to the worker the table's
id hashes to (CRC-32 modulo the workers, the next live one when that worker has died); any other
request, and a connection that has not sent its request line within ``ROUTE_WAIT_SECONDS``, to the
workers in turn. The connection itself (its file descriptor) is handed to the worker over a Unix
socket, so the parent never copies a byte of it; the worker serves it as if it had accepted it. A
keep-alive connection stays with the worker of its first request (a page talks to one table); any
worker serves any table, after reading what its log gained meanwhile.
"""

from __future__ import annotations

import asyncio
import re
import selectors
import socket
import time
import zlib
from collections.abc import Callable
from typing import Any

import uvicorn

__all__ = ["ROUTE_WAIT_SECONDS", "RoutedServer", "Router", "worker_for"]

ROUTE_WAIT_SECONDS = 2.0  # a connection silent this long goes to the next worker, whose own header deadline applies
PEEK_BYTES = 2048  # the request line is read from at most this much of a connection's first bytes
TABLE_PATH = re.compile(rb"^[A-Z]+ /api/tables/([A-Za-z0-9_-]{1,64})[/? ]")


def worker_for(first_bytes: bytes, live: list[bool], turn: int) -> int:
    """The worker for a connection whose first bytes are ``first_bytes``: its table's, else ``turn``'s (live ones)."""
    found = TABLE_PATH.match(first_bytes)
    count = len(live)
    start = zlib.crc32(found.group(1)) % count if found else turn % count
    for step in range(count):
        if live[(start + step) % count]:
            return (start + step) % count
    raise RuntimeError("no worker is running")


class Router:
    """The parent's side: accept, peek at the request line, hand the connection to its worker."""

    def __init__(self, listener: socket.socket, channels: list[socket.socket]) -> None:
        self.listener = listener
        self.channels = channels
        self.live = [True] * len(channels)
        self.turn = 0
        self.waiting: dict[socket.socket, float] = {}  # connection -> when it was accepted
        self.selector = selectors.DefaultSelector()
        listener.setblocking(False)
        self.selector.register(listener, selectors.EVENT_READ)

    def run(self, running: Callable[[], bool], reap: Callable[[], list[int]]) -> None:
        """Route connections while ``running()``; ``reap()`` names the workers that have died since last asked."""
        while running():
            for dead in reap():
                self.live[dead] = False
            if not any(self.live):
                return
            for key, _events in self.selector.select(timeout=0.2):
                if key.fileobj is self.listener:
                    self._accept()
                else:
                    self._peek(key.fileobj)  # type: ignore[arg-type]
            self._expire()
        for conn in list(self.waiting):
            self._close(conn)

    def _accept(self) -> None:
        try:
            conn, _address = self.listener.accept()
        except (BlockingIOError, InterruptedError):
            return
        conn.setblocking(False)
        self.waiting[conn] = time.monotonic()
        self.selector.register(conn, selectors.EVENT_READ)

    def _peek(self, conn: socket.socket) -> None:
        try:
            first = conn.recv(PEEK_BYTES, socket.MSG_PEEK)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            first = b""
        if not first:
            self._close(conn)  # closed before it asked anything
        elif b"\n" in first or len(first) >= PEEK_BYTES:
            self._hand_over(conn, first)

    def _expire(self) -> None:
        now = time.monotonic()
        for conn, since in list(self.waiting.items()):
            if now - since >= ROUTE_WAIT_SECONDS:
                self._hand_over(conn, b"")

    def _hand_over(self, conn: socket.socket, first: bytes) -> None:
        self.selector.unregister(conn)
        del self.waiting[conn]
        try:
            index = worker_for(first, self.live, self.turn)
            self.turn += 1
            socket.send_fds(self.channels[index], [b"c"], [conn.fileno()])
        except OSError:
            pass  # the worker died meanwhile: the client sees the connection close and retries
        finally:
            conn.close()

    def _close(self, conn: socket.socket) -> None:
        self.selector.unregister(conn)
        self.waiting.pop(conn, None)
        conn.close()


class RoutedServer(uvicorn.Server):
    """A worker's uvicorn server that listens on nothing and serves the connections the parent hands it."""

    def __init__(self, config: uvicorn.Config, channel: socket.socket) -> None:
        super().__init__(config)
        self.channel = channel
        self.servers = []
        self.handing: set[asyncio.Task[Any]] = set()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        """Start the app (its lifespan), then take connections from the channel."""
        await super().startup(sockets=[])
        self.channel.setblocking(False)
        asyncio.get_running_loop().add_reader(self.channel.fileno(), self._receive)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        """Take no more connections, then shut down as uvicorn does."""
        asyncio.get_running_loop().remove_reader(self.channel.fileno())
        await super().shutdown(sockets=[])

    def _receive(self) -> None:
        try:
            _message, fds, _flags, _address = socket.recv_fds(self.channel, 16, 16)
        except (BlockingIOError, InterruptedError):
            return
        loop = asyncio.get_running_loop()
        for fd in fds:
            conn = socket.socket(fileno=fd)
            conn.setblocking(False)
            task = loop.create_task(loop.connect_accepted_socket(self._protocol, conn))
            self.handing.add(task)
            task.add_done_callback(self.handing.discard)

    def _protocol(self) -> Any:
        config = self.config
        return config.http_protocol_class(  # type: ignore[call-arg]
            config=config, server_state=self.server_state, app_state=self.lifespan.state
        )
