"""Finding what blocks the event loop: asyncio's debug mode with a slow-callback threshold, on request.

Every table of a process shares its one event loop, so a callback that holds the loop (a store call made
on it, a sleep, a long computation) stalls them all. With ``TRIBRIDGE_SLOW_CALLBACK_MS`` set, the server
turns on asyncio's debug mode with that threshold while it serves (not during start-up, before the first
connection is accepted, whose heap freeze holds the loop about 0.2 s): asyncio then logs (logger ``asyncio``,
WARNING, "Executing <callback> took 0.061 seconds") every callback that ran longer, and raises on calls
made from the wrong thread. Debug mode also records where each callback and future was made, a walk of the
stack with an ``os.stat`` per frame that would be measured as the server's own time: the watch keeps no
such record (``asyncio.constants.DEBUG_STACK_DEPTH`` 0) for callbacks; futures made by the C accelerator
still take theirs. With ``TRIBRIDGE_SLOW_CALLBACK_REPORT`` naming a file, each such warning is
also appended to it, one line each, so a test can run whole suites of servers and read what blocked.

A callback's time is wall-clock time, so on a machine whose cores are busy it includes the time the
loop's thread waited for a CPU, which no code of the server can avoid. The report subtracts that wait
(the thread's run-queue time, from Linux's ``/proc/thread-self/schedstat``, read around each callback
while watching) and appends only the callbacks that held the loop for the threshold or longer without
it: their time on a CPU, blocked in a call, or waiting for the interpreter's lock. That timing wraps asyncio's
own ``Handle``, so ``tribridge serve`` runs on asyncio's loop rather than uvloop while watching.
"""

from __future__ import annotations

import asyncio
import asyncio.constants as asyncio_constants
import logging
import os
import re
import threading

__all__ = ["REPORT_ENV", "SLOW_CALLBACK_ENV", "slow_callback_seconds", "stop_watching_the_loop", "watch_the_loop"]

SLOW_CALLBACK_ENV = "TRIBRIDGE_SLOW_CALLBACK_MS"
REPORT_ENV = "TRIBRIDGE_SLOW_CALLBACK_REPORT"

_report_lock = threading.Lock()
_watched = threading.local()  # on the loop's thread: ``queued``, the run-queue seconds of the last callback
_loop_threads: set[int] = set()  # the threads of the loops being watched
SCHEDSTAT = "/proc/thread-self/schedstat"
_TOOK = re.compile(r" took (\d+(?:\.\d+)?) seconds")


class _ReportSlowCallbacks(logging.Handler):
    """Append asyncio's slow-callback warnings to a file (one line each, process id first)."""

    def __init__(self, path: str, threshold: float) -> None:
        super().__init__(logging.WARNING)
        self.path = path
        self.threshold = threshold

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        took = _TOOK.search(message)
        if not message.startswith("Executing") or took is None:
            return
        queued = getattr(_watched, "queued", 0.0)
        held = float(took.group(1)) - queued
        if held < self.threshold:
            return  # it waited for a CPU, not for the server's code
        with _report_lock, open(self.path, "a", encoding="utf-8") as report:
            report.write(f"{os.getpid()} held {held:.3f} s (queued {queued:.3f} s) {' '.join(message.split())}\n")


def _run_queue_seconds() -> float:
    """Seconds this thread has waited on a run queue for a CPU (0 where Linux's schedstat is missing)."""
    try:
        with open(SCHEDSTAT, encoding="ascii") as stat:
            return int(stat.read().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def _time_run_queue(loop_thread: int) -> None:
    """Wrap ``asyncio.Handle._run`` (once per process) so each callback on a watched loop's thread notes its
    run-queue wait."""
    _loop_threads.add(loop_thread)
    if getattr(asyncio.Handle._run, "_watched", False):
        return
    original = asyncio.Handle._run

    def run(handle: asyncio.Handle) -> None:
        if threading.get_ident() not in _loop_threads:
            return original(handle)
        before = _run_queue_seconds()
        try:
            return original(handle)
        finally:
            _watched.queued = _run_queue_seconds() - before

    run._watched = True  # type: ignore[attr-defined]
    asyncio.Handle._run = run  # type: ignore[method-assign,assignment]


def slow_callback_seconds() -> float | None:
    """The threshold ``TRIBRIDGE_SLOW_CALLBACK_MS`` asks for, in seconds (None when unset)."""
    text = os.environ.get(SLOW_CALLBACK_ENV, "").strip()
    if not text:
        return None
    try:
        milliseconds = float(text)
    except ValueError:
        raise ValueError(f"{SLOW_CALLBACK_ENV}: expected milliseconds, got {text!r}") from None
    if not milliseconds > 0:
        raise ValueError(f"{SLOW_CALLBACK_ENV}: expected a positive number of milliseconds, got {text!r}")
    return milliseconds / 1000.0


def watch_the_loop() -> float | None:
    """Turn on asyncio's debug mode on the running loop when ``TRIBRIDGE_SLOW_CALLBACK_MS`` asks (its threshold)."""
    seconds = slow_callback_seconds()
    if seconds is None:
        return None
    loop = asyncio.get_running_loop()
    asyncio_constants.DEBUG_STACK_DEPTH = 0  # type: ignore[misc]  # no source traceback per callback: its os.stat calls would be measured
    loop.set_debug(True)
    loop.slow_callback_duration = seconds
    logger = logging.getLogger("asyncio")
    logger.setLevel(logging.WARNING)
    path = os.environ.get(REPORT_ENV)
    if path and not any(isinstance(h, _ReportSlowCallbacks) and h.path == path for h in logger.handlers):
        logger.addHandler(_ReportSlowCallbacks(path, seconds))
    if path:
        _time_run_queue(threading.get_ident())
    return seconds


def stop_watching_the_loop() -> None:
    """Turn asyncio's debug mode off again when ``watch_the_loop`` turned it on (the server stops serving)."""
    if slow_callback_seconds() is not None:
        asyncio.get_running_loop().set_debug(False)
