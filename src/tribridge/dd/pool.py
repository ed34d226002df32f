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
``workers`` processes in each tier, started when first needed (default :func:`default_workers`:
``$TRIBRIDGE_DD_WORKERS`` or the CPU count). A different ``workers`` re-creates it only while it is
idle. ``configure_pool(workers,
queue_limits)`` replaces it (e.g. from server flags); ``shutdown_pool()`` stops it.

On a :class:`SolverPool`, ``fn`` is a picklable top-level callable (the processes are spawned):

- ``submit(fn, *args, priority=Priority.BATCH, block=False, timeout=None, **kwargs)`` ->
  ``concurrent.futures.Future``; raises :class:`QueueFull` when the class's queue holds
  ``queue_limits[priority]`` waiting jobs (``block=True`` waits for room instead, at most
  ``timeout`` seconds). Cancelling the future of a job still queued drops the job.
- ``await run(fn, *args, priority=..., **kwargs)``: the same from async code (the event loop is
  never blocked; a cancelled await drops the queued job).
- ``call(fn, *args, priority=..., **kwargs)``: submit and wait, from sync code.
- ``stats()``: workers per tier; running jobs; running, queued and completed jobs and limits per class.

``with solving_at(priority): ...`` routes the solver calls made inside the block by this thread
(or asyncio task) to the pool in that class: each ``solve_positions`` call and each chunk of a
table batch becomes one job, while the code around them (a bot's sampling, the analysis) runs
where it is. Outside such a block the solving functions solve in the calling process (holding
``DDS_LOCK``), or, for table batches with ``workers > 1``, on the pool in the ``BATCH`` class.
``QueueFull`` is raised from the solver call inside the block.

Scheduling: each tier of classes has its own processes, so work of one tier never holds a process
another tier needs. All run at ordinary ``nice`` values, a little below the process that made the pool
(so a server's event loop, which answers every person, is never outweighed by solver work): ``INTERACTIVE``
and ``ROBOT_API`` at +:data:`INTERACTIVE_NICE` / +:data:`ROBOT_NICE`, ``ANALYSIS`` and ``BATCH`` at
+:data:`BACKGROUND_NICE`. A lower priority is a smaller share of a busy CPU, never none: the robot API and
the analyses keep answering beside CPU-bound processes (at ``nice`` 0, three such processes on two cores
leave a robot process about a quarter of a core, an analysis process about a fifteenth). Within a tier:
strict priority, first come first served within a class; a running job is never interrupted. Inside a solver process every
submission runs inline (a job never waits on the pool it runs in), and the solving functions solve
in that process.
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
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from tribridge.dd.dds import SolverUnavailable, require_dds
from tribridge.errors import InvalidInput

__all__ = [
    "BACKGROUND_NICE",
    "DDS_LOCK",
    "DEFAULT_QUEUE_LIMITS",
    "INTERACTIVE_NICE",
    "Priority",
    "QueueFull",
    "ROBOT_NICE",
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


INTERACTIVE_NICE = 3  # how much lower than their parent's the interactive processes' CPU priority is
ROBOT_NICE = INTERACTIVE_NICE  # ... the robot API's processes' (a remote client's person waits too)
BACKGROUND_NICE = INTERACTIVE_NICE + 7  # ... and the analysis and batch processes'


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


PARENT_CHECK_SECONDS = 1.0  # how often a solver process checks that its parent is alive


def _exit_with_parent(parent: int) -> None:
    """End this process once its parent is gone (a killed server must not leave solver processes behind)."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(0)


def _worker_init(nice: int = 0, parent: int | None = None) -> None:
    """Pool process start: mark the process, lower its CPU priority by ``nice``, one DDS thread, exit with the
    parent (``parent``: the pid of the process that made the pool, so that a parent killed while this process was
    still starting is noticed too)."""
    global _IN_SOLVER_PROCESS
    _IN_SOLVER_PROCESS = True
    watched = os.getppid() if parent is None else parent
    threading.Thread(target=_exit_with_parent, args=(watched,), name="tribridge-parent-watch", daemon=True).start()
    if nice > 0 and hasattr(os, "nice"):
        os.nice(nice)
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


@dataclass(eq=False)
class _Tier:
    """Processes serving some classes (highest first): how many, and how much lower their CPU priority is."""

    name: str
    classes: tuple[Priority, ...]
    workers: int
    nice: int
    running: dict[Priority, int] = field(default_factory=dict)
    executor: ProcessPoolExecutor | None = None
    broken: bool = False  # set when a process died; the dispatcher then starts fresh ones

    def busy(self) -> int:
        """Jobs running in this tier's processes."""
        return sum(self.running.values())

    def startable(self, queues: Mapping[Priority, deque[_Job]]) -> Priority | None:
        """The class whose oldest job may start now (highest first), or None."""
        if self.busy() >= self.workers:
            return None
        return next((p for p in self.classes if queues[p]), None)


def _tiers(workers: int) -> dict[str, _Tier]:
    """The interactive, robot and background tiers, of ``workers`` processes each."""
    return {
        "interactive": _Tier("interactive", (Priority.INTERACTIVE,), workers, INTERACTIVE_NICE),
        "robot": _Tier("robot", (Priority.ROBOT_API,), workers, ROBOT_NICE),
        "background": _Tier("background", (Priority.ANALYSIS, Priority.BATCH), workers, BACKGROUND_NICE),
    }


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
        self._tiers = _tiers(self.workers)
        self._completed = {p: 0 for p in Priority}
        self._closed = False
        self._warming: list[Future[Any]] | None = None  # the warm-up jobs, once ``warm`` ran
        self._dispatchers = [
            threading.Thread(target=self._dispatch_loop, args=(tier,), name=f"tribridge-solver-{name}", daemon=True)
            for name, tier in self._tiers.items()
        ]
        for thread in self._dispatchers:
            thread.start()

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
        """``{"workers", "running", "queued", "running_by_class", "completed", "limits"}`` (per class)."""
        with self._cond:
            running = {p: tier.running.get(p, 0) for tier in self._tiers.values() for p in tier.classes}
            return {
                "workers": {name: tier.workers for name, tier in self._tiers.items()},
                "running": sum(running.values()),
                "running_by_class": {p.name: running[p] for p in Priority},
                "queued": {p.name: len(self._queues[p]) for p in Priority},
                "completed": {p.name: self._completed[p] for p in Priority},
                "limits": {p.name: self.queue_limits[p] for p in Priority},
            }

    def warm(self, fn: Callable[[], Any] | None = None) -> None:
        """Start the interactive and robot processes now (once per pool), each running ``fn`` (imports, kernels).

        Returns at once; a job submitted meanwhile waits for a process that finished warming.
        """
        with self._cond:
            if self._warming is not None or self._closed or _IN_SOLVER_PROCESS:
                return
            self._warming = []
            for name in ("interactive", "robot"):
                tier = self._tiers[name]
                executor = self._live_executor(tier)
                # no process is idle yet, so each submission starts one
                self._warming += [executor.submit(fn or int) for _ in range(tier.workers)]

    def warmed(self) -> bool:
        """True once the warm-up jobs (if any were started) have finished."""
        with self._cond:
            return all(f.done() for f in self._warming or ())

    def idle(self) -> bool:
        """True when no job is queued or running."""
        with self._cond:
            return not any(tier.busy() for tier in self._tiers.values()) and not any(self._queues.values())

    def shutdown(self, wait: bool = True) -> None:
        """Cancel the queued jobs and stop the processes: after the running jobs finish, or (``wait=False``) now."""
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
        for thread in self._dispatchers:
            thread.join()
        for tier in self._tiers.values():
            if tier.executor is not None:
                if not wait:  # the standard library offers no public way to end busy workers before 3.14
                    for process in list((getattr(tier.executor, "_processes", None) or {}).values()):
                        process.terminate()
                tier.executor.shutdown(wait=wait, cancel_futures=True)

    # --- dispatch -----------------------------------------------------------------------------
    def _forget(self, job: _Job) -> None:
        """Drop a job whose future was cancelled while it was still queued."""
        if job.future.cancelled():
            with self._cond:
                queue = self._queues[job.priority]
                if job in queue:
                    queue.remove(job)
                    self._cond.notify_all()

    def _next_job(self, tier: _Tier) -> _Job | None:
        """Wait for a free process of ``tier`` and a job it may start; the job, None once shut down."""
        with self._cond:
            while True:
                self._cond.wait_for(lambda: self._closed or tier.startable(self._queues) is not None)
                if self._closed:
                    return None
                priority = tier.startable(self._queues)
                assert priority is not None
                job = self._queues[priority].popleft()
                self._cond.notify_all()  # room for a blocked submitter
                if job.future.set_running_or_notify_cancel():
                    tier.running[priority] = tier.running.get(priority, 0) + 1
                    return job

    def _dispatch_loop(self, tier: _Tier) -> None:
        """Hand queued jobs to ``tier``'s processes, within its limits (one dispatcher thread per tier)."""
        while (job := self._next_job(tier)) is not None:
            try:
                running = self._live_executor(tier).submit(job.fn, *job.args, **job.kwargs)
            except Exception as exc:  # noqa: BLE001 - e.g. a broken pool or interpreter shutdown: the job fails
                tier.broken = True
                self._finish(tier, job, None, exc)
                continue
            running.add_done_callback(functools.partial(self._done, tier, job))

    def _done(self, tier: _Tier, job: _Job, running: Future[Any]) -> None:
        """Pass a process's outcome to the job's future and free its slot."""
        if running.cancelled():
            self._finish(tier, job, None, CancelledError("the solver pool shut down"))
            return
        exc = running.exception()
        if isinstance(exc, BrokenProcessPool):
            tier.broken = True
        self._finish(tier, job, None if exc is not None else running.result(), exc)

    def _finish(self, tier: _Tier, job: _Job, result: Any, exc: BaseException | None) -> None:
        """Free the job's slot, then complete its future (so a caller woken by it sees the slot free)."""
        with self._cond:
            tier.running[job.priority] -= 1
            self._completed[job.priority] += 1
            self._cond.notify_all()
        if exc is not None:
            job.future.set_exception(exc)
        else:
            job.future.set_result(result)

    def _live_executor(self, tier: _Tier) -> ProcessPoolExecutor:
        """The tier's processes, started on first use and again after one died (its dispatcher, or ``warm``)."""
        with self._cond:  # (re-entrant) the dispatcher and ``warm`` may both ask
            if tier.broken and tier.executor is not None:
                tier.executor.shutdown(wait=False, cancel_futures=True)
                tier.executor = None
            tier.broken = False
            if tier.executor is None:
                tier.executor = ProcessPoolExecutor(
                    max_workers=tier.workers,
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_worker_init,
                    initargs=(tier.nice, os.getpid()),
                )
            return tier.executor


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


def shutdown_pool(wait: bool = True) -> None:
    """Stop the process-wide pool (a later call to :func:`solver_pool` starts a new one); ``wait`` as in shutdown."""
    global _POOL
    with _POOL_GUARD:
        old, _POOL = _POOL, None
    if old is not None:
        old.shutdown(wait=wait)


atexit.register(shutdown_pool, wait=False)  # a process that exits does not wait for jobs still running
