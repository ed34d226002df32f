"""The one pool of solver processes, the one DDS lock, and a priority scheduler for solver work.

DDS keeps per-thread global state, so inside one process every DDS call holds :data:`DDS_LOCK`
(the only DDS lock in tribridge); parallelism comes from processes. :func:`solver_pool` is the
one process pool: solver work of every kind (a bot's card, a robot-API answer, the post-deal
analysis, the chunks of a study's table batch) is submitted to it with a priority class.

Interface
---------
``Priority`` (highest first): ``INTERACTIVE`` (a bot at a table where a person waits),
``ROBOT_API``, ``ANALYSIS`` (post-deal analysis), ``BATCH`` (studies, table batches).

``solver_pool(workers=None) -> SolverPool``: the process-wide pool, created on first use with
``workers`` processes (default :func:`default_workers`: ``$TRIBRIDGE_DD_WORKERS`` or the CPU
count). A different ``workers`` re-creates it only while it is idle. ``configure_pool(workers,
queue_limits)`` replaces it (e.g. from server flags); ``shutdown_pool()`` stops it.

On a :class:`SolverPool`, ``fn`` is a picklable top-level callable (the processes are spawned):

- ``submit(fn, *args, priority=Priority.BATCH, block=False, timeout=None, **kwargs)`` ->
  ``concurrent.futures.Future``; raises :class:`QueueFull` when the class's queue holds
  ``queue_limits[priority]`` waiting jobs (``block=True`` waits for room instead, at most
  ``timeout`` seconds). Cancelling the future of a job still queued drops the job.
- ``await run(fn, *args, priority=..., **kwargs)``: the same from async code (the event loop is
  never blocked; a cancelled await drops the queued job).
- ``call(fn, *args, priority=..., **kwargs)``: submit and wait, from sync code.
- ``stats()``: workers, running jobs, queued and completed jobs and limits per class.

``with solving_at(priority): ...`` routes the solver calls made inside the block by this thread
(or asyncio task) to the pool in that class: each ``solve_positions`` call and each chunk of a
table batch becomes one job, while the code around them (a bot's sampling, the analysis) runs
where it is. Outside such a block the solving functions solve in the calling process (holding
``DDS_LOCK``), or, for table batches with ``workers > 1``, on the pool in the ``BATCH`` class.
``QueueFull`` is raised from the solver call inside the block.

Scheduling: strict priority, first come first served within a class. At most ``workers`` jobs
are handed to the processes at once, so a job submitted later in a higher class starts as soon as
any process is free; a running job is never interrupted, and lower classes wait while higher
ones have work. Inside a solver process every submission runs inline (a job never waits on the
pool it runs in), and the solving functions solve in that process.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import contextvars
import enum
import functools
import multiprocessing
import os
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from tribridge.dd.dds import SolverUnavailable, require_dds
from tribridge.errors import InvalidInput

__all__ = [
    "DDS_LOCK",
    "DEFAULT_QUEUE_LIMITS",
    "Priority",
    "QueueFull",
    "SolverPool",
    "configure_pool",
    "default_workers",
    "in_solver_process",
    "routed_priority",
    "shutdown_pool",
    "solver_pool",
    "solving_at",
]

DDS_LOCK = threading.Lock()  # never two DDS calls at once from threads of one process


class Priority(enum.IntEnum):
    """Classes of solver work, highest first (a lower value runs first)."""

    INTERACTIVE = 0
    ROBOT_API = 1
    ANALYSIS = 2
    BATCH = 3


DEFAULT_QUEUE_LIMITS: Mapping[Priority, int] = {
    Priority.INTERACTIVE: 256,
    Priority.ROBOT_API: 64,
    Priority.ANALYSIS: 64,
    Priority.BATCH: 256,
}


class QueueFull(RuntimeError):
    """A priority class's queue is full; the caller should refuse the work (HTTP 503/429) or retry later."""

    def __init__(self, priority: Priority, limit: int) -> None:
        self.priority = Priority(priority)
        self.limit = limit
        super().__init__(f"solver queue {self.priority.name} is full ({limit} jobs waiting)")


_IN_SOLVER_PROCESS = False
_ROUTED: contextvars.ContextVar[Priority | None] = contextvars.ContextVar("tribridge_dd_priority", default=None)


def in_solver_process() -> bool:
    """True inside a process of the solver pool."""
    return _IN_SOLVER_PROCESS


@contextlib.contextmanager
def solving_at(priority: Priority) -> Iterator[None]:
    """Inside the block, this thread's (or task's) solver calls run on the pool in ``priority``'s class."""
    token = _ROUTED.set(Priority(priority))
    try:
        yield
    finally:
        _ROUTED.reset(token)


def routed_priority() -> Priority | None:
    """The class a :func:`solving_at` block gives this context's solver calls; None: solve here."""
    return None if _IN_SOLVER_PROCESS else _ROUTED.get()


def _worker_init() -> None:
    """Pool process start: mark the process, one DDS thread (processes give the parallelism)."""
    global _IN_SOLVER_PROCESS
    _IN_SOLVER_PROCESS = True
    try:
        require_dds().SetMaxThreads(1)
    except SolverUnavailable:
        pass  # jobs that solve report it themselves; other jobs still run


def default_workers() -> int:
    """Solver processes: ``TRIBRIDGE_DD_WORKERS`` or the CPU count (1 inside a solver or daemon process)."""
    env = os.environ.get("TRIBRIDGE_DD_WORKERS")
    if env:
        try:
            return max(1, int(env))
        except ValueError as exc:
            raise InvalidInput("TRIBRIDGE_DD_WORKERS", f"expected an integer, got {env!r}") from exc
    if _IN_SOLVER_PROCESS or multiprocessing.current_process().daemon:
        return 1  # a pool process does not start children
    return max(1, os.cpu_count() or 1)


@dataclass(eq=False)  # jobs are found in their queue by identity
class _Job:
    """A submitted call, its class and the future its caller holds."""

    fn: Callable[..., Any]
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    priority: Priority
    future: Future[Any] = field(default_factory=Future)


class SolverPool:
    """Solver processes fed from bounded per-priority queues, highest class first (see the module doc)."""

    def __init__(self, workers: int | None = None, queue_limits: Mapping[Priority, int] | None = None) -> None:
        self.workers = default_workers() if workers is None else int(workers)
        if self.workers < 1:
            raise InvalidInput("workers", f"expected at least one solver process, got {workers}")
        self.queue_limits = {p: int(DEFAULT_QUEUE_LIMITS[p]) for p in Priority}
        for p, limit in (queue_limits or {}).items():
            if int(limit) < 0:
                raise InvalidInput("queue_limits", f"{Priority(p).name}: expected a limit >= 0, got {limit}")
            self.queue_limits[Priority(p)] = int(limit)
        self._cond = threading.Condition()
        self._queues: dict[Priority, deque[_Job]] = {p: deque() for p in Priority}
        self._running = 0
        self._completed = {p: 0 for p in Priority}
        self._closed = False
        self._executor: ProcessPoolExecutor | None = None
        self._broken = False  # set when a process died; the dispatcher then starts fresh ones
        self._dispatcher = threading.Thread(target=self._dispatch_loop, name="tribridge-solver-dispatch", daemon=True)
        self._dispatcher.start()

    # --- submission -------------------------------------------------------------------------
    def submit(
        self,
        fn: Callable[..., Any],
        *args: Any,
        priority: Priority = Priority.BATCH,
        block: bool = False,
        timeout: float | None = None,
        **kwargs: Any,
    ) -> Future[Any]:
        """Queue ``fn(*args, **kwargs)`` in ``priority``'s class; its Future; QueueFull when the class is full."""
        job = _Job(fn, args, kwargs, Priority(priority))
        if _IN_SOLVER_PROCESS:
            _run_inline(job)
            return job.future
        limit = self.queue_limits[job.priority]
        with self._cond:
            queue = self._queues[job.priority]
            if block and limit > 0:
                self._cond.wait_for(lambda: self._closed or len(queue) < limit, timeout)
            if self._closed:
                raise RuntimeError("the solver pool is shut down")
            if len(queue) >= limit:
                raise QueueFull(job.priority, limit)
            queue.append(job)
            self._cond.notify_all()
        job.future.add_done_callback(lambda _fut: self._forget(job))
        return job.future

    async def run(self, fn: Callable[..., Any], *args: Any, priority: Priority = Priority.BATCH, **kwargs: Any) -> Any:
        """Await ``fn(*args, **kwargs)`` run by the pool in ``priority``'s class (QueueFull when it is full)."""
        return await asyncio.wrap_future(self.submit(fn, *args, priority=priority, **kwargs))

    def call(self, fn: Callable[..., Any], *args: Any, priority: Priority = Priority.BATCH, **kwargs: Any) -> Any:
        """Run ``fn(*args, **kwargs)`` on the pool in ``priority``'s class and wait for its result."""
        return self.submit(fn, *args, priority=priority, **kwargs).result()

    def stats(self) -> dict[str, Any]:
        """``{"workers", "running", "queued": {class: n}, "completed": {class: n}, "limits": {class: n}}``."""
        with self._cond:
            return {
                "workers": self.workers,
                "running": self._running,
                "queued": {p.name: len(self._queues[p]) for p in Priority},
                "completed": {p.name: self._completed[p] for p in Priority},
                "limits": {p.name: self.queue_limits[p] for p in Priority},
            }

    def idle(self) -> bool:
        """True when no job is queued or running."""
        with self._cond:
            return self._running == 0 and not any(self._queues.values())

    def shutdown(self, wait: bool = True) -> None:
        """Cancel the queued jobs, let running ones finish (``wait``: wait for them), stop the processes."""
        with self._cond:
            if self._closed:
                return
            self._closed = True
            dropped = [job for queue in self._queues.values() for job in queue]
            for queue in self._queues.values():
                queue.clear()
            self._cond.notify_all()
        for job in dropped:
            job.future.cancel()
        self._dispatcher.join()
        if self._executor is not None:
            self._executor.shutdown(wait=wait, cancel_futures=True)

    # --- dispatch -----------------------------------------------------------------------------
    def _forget(self, job: _Job) -> None:
        """Drop a job whose future was cancelled while it was still queued."""
        if job.future.cancelled():
            with self._cond:
                queue = self._queues[job.priority]
                if job in queue:
                    queue.remove(job)
                    self._cond.notify_all()

    def _next_job(self) -> _Job | None:
        """Wait for a free process and a queued job; the highest-class oldest job, None once shut down."""
        with self._cond:
            while True:
                self._cond.wait_for(
                    lambda: self._closed or (self._running < self.workers and any(self._queues.values()))
                )
                if self._closed:
                    return None
                job = next(self._queues[p] for p in Priority if self._queues[p]).popleft()
                self._cond.notify_all()  # room for a blocked submitter
                if job.future.set_running_or_notify_cancel():
                    self._running += 1
                    return job

    def _dispatch_loop(self) -> None:
        """Hand queued jobs to the processes, at most ``workers`` at a time (the dispatcher thread)."""
        while (job := self._next_job()) is not None:
            try:
                running = self._live_executor().submit(job.fn, *job.args, **job.kwargs)
            except Exception as exc:  # noqa: BLE001 - e.g. a broken pool or interpreter shutdown: the job fails
                self._broken = True
                self._finish(job, None, exc)
                continue
            running.add_done_callback(functools.partial(self._done, job))

    def _done(self, job: _Job, running: Future[Any]) -> None:
        """Pass a process's outcome to the job's future and free its slot."""
        if running.cancelled():
            self._finish(job, None, CancelledError("the solver pool shut down"))
            return
        exc = running.exception()
        if isinstance(exc, BrokenProcessPool):
            self._broken = True
        self._finish(job, None if exc is not None else running.result(), exc)

    def _finish(self, job: _Job, result: Any, exc: BaseException | None) -> None:
        """Free the job's slot, then complete its future (so a caller woken by it sees the slot free)."""
        with self._cond:
            self._running -= 1
            self._completed[job.priority] += 1
            self._cond.notify_all()
        if exc is not None:
            job.future.set_exception(exc)
        else:
            job.future.set_result(result)

    def _live_executor(self) -> ProcessPoolExecutor:
        """The process pool, started on first use and again after a process died (dispatcher thread only)."""
        if self._broken and self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None
        self._broken = False
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"), initializer=_worker_init
            )
        return self._executor


def _run_inline(job: _Job) -> None:
    """Run a job in this process (inside a solver process), completing its future."""
    if not job.future.set_running_or_notify_cancel():
        return
    try:
        job.future.set_result(job.fn(*job.args, **job.kwargs))
    except BaseException as exc:  # noqa: BLE001 - the caller gets it from the future
        job.future.set_exception(exc)


_POOL: SolverPool | None = None
_POOL_GUARD = threading.Lock()


def solver_pool(workers: int | None = None) -> SolverPool:
    """The process-wide solver pool (created on first use; a new size is taken only while it is idle)."""
    global _POOL
    with _POOL_GUARD:
        if _POOL is None:
            _POOL = SolverPool(workers)
        elif workers is not None and int(workers) != _POOL.workers and _POOL.idle():
            old, _POOL = _POOL, SolverPool(workers, _POOL.queue_limits)
            old.shutdown(wait=True)
        return _POOL


def configure_pool(workers: int | None = None, queue_limits: Mapping[Priority, int] | None = None) -> SolverPool:
    """Replace the process-wide pool with one of ``workers`` processes and these queue limits."""
    global _POOL
    with _POOL_GUARD:
        old, _POOL = _POOL, SolverPool(workers, queue_limits)
    if old is not None:
        old.shutdown(wait=True)
    return _POOL


def shutdown_pool() -> None:
    """Stop the process-wide pool (a later call to :func:`solver_pool` starts a new one)."""
    global _POOL
    with _POOL_GUARD:
        old, _POOL = _POOL, None
    if old is not None:
        old.shutdown(wait=True)


atexit.register(shutdown_pool)
