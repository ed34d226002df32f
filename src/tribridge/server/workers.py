"""Several server processes on one listening socket (``tribridge serve --workers N``).

The parent binds the socket, forks ``N`` workers that each run the whole server (their own app,
store connections and solver pool) and accept on the inherited socket, so the kernel hands each new
connection to one of them; a table's truth is in the shared store, so any worker serves any table.
Each worker is in a process group of its own: Ctrl-C reaches the parent only, which asks every
worker to shut down gracefully (SIGTERM) and waits for them. A worker that dies is not replaced.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from types import FrameType

__all__ = ["run_workers"]


def _start_worker(serve: Callable[[], int]) -> int:
    """Fork one worker running ``serve()``; its process id (the child never returns)."""
    pid = os.fork()
    if pid != 0:
        return pid
    os.setpgid(0, 0)
    code = 1
    try:
        code = serve()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def run_workers(count: int, serve: Callable[[], int]) -> int:
    """Run ``serve()`` in ``count`` forked workers until each has stopped; 0 if every one stopped cleanly."""
    workers = [_start_worker(serve) for _ in range(count)]

    def stop_workers(number: int, frame: FrameType | None) -> None:
        for pid in workers:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, stop_workers)
    status = 0
    for pid in workers:
        _pid, wait_status = os.waitpid(pid, 0)  # retried by Python after a signal handler runs (PEP 475)
        if os.waitstatus_to_exitcode(wait_status) != 0:
            status = 1
    return status
