"""Several server processes on one listening socket (``tribridge serve --workers N``).

The parent binds the socket and forks ``N`` workers that each run the whole server (their own app,
store connections and solver pool). The parent accepts the connections and hands each to the worker
that keeps its table (``server.routing``: table affinity, so a table's actions and sockets are served by
one process); a table's truth is in the shared store, so any worker still serves any table.
Each worker is in a process group of its own: Ctrl-C reaches the parent only, which asks every
worker to shut down gracefully (SIGTERM) and waits for them. A worker that dies is not replaced: its
tables go to the next worker.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
from collections.abc import Callable
from types import FrameType

from tribridge.server.routing import Router

__all__ = ["run_workers"]

LISTEN_BACKLOG = 2048  # uvicorn's default


def _start_worker(serve: Callable[[socket.socket], int], channel: socket.socket, others: list[socket.socket]) -> int:
    """Fork one worker running ``serve(channel)``; its process id (the child never returns)."""
    pid = os.fork()
    if pid != 0:
        return pid
    os.setpgid(0, 0)
    for other in others:
        other.close()
    code = 1
    try:
        code = serve(channel)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def run_workers(count: int, listener: socket.socket, serve: Callable[[socket.socket], int]) -> int:
    """Run ``serve(channel)`` in ``count`` forked workers, routing ``listener``'s connections to them by table, until
    each has stopped; 0 if every one stopped cleanly."""
    listener.listen(LISTEN_BACKLOG)
    pairs = [socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM) for _ in range(count)]
    parents = [mine for mine, _theirs in pairs]
    workers: list[int] = []
    for index, (_mine, theirs) in enumerate(pairs):
        others = parents + [t for i, (_m, t) in enumerate(pairs) if i != index] + [listener]
        workers.append(_start_worker(serve, theirs, others))
        theirs.close()
    stopping: list[int] = []

    def stop_workers(number: int, frame: FrameType | None) -> None:
        stopping.append(number)
        for pid in workers:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, stop_workers)
    exits: dict[int, int] = {}

    def reap() -> list[int]:
        ended = []
        while len(exits) < len(workers):
            pid, wait_status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            exits[pid] = os.waitstatus_to_exitcode(wait_status)
            ended.append(workers.index(pid))
        return ended

    Router(listener, parents).run(lambda: not stopping, reap)
    listener.close()
    for pid in workers:
        if pid not in exits:
            _pid, wait_status = os.waitpid(pid, 0)  # retried by Python after a signal handler runs (PEP 475)
            exits[pid] = os.waitstatus_to_exitcode(wait_status)
    return 0 if all(code == 0 for code in exits.values()) else 1
