"""Tests of the solver pool: priority order under load, bounded queues, sync and async use, results vs direct solves."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import time

import numpy as np
import pytest

from tribridge import dd
from tribridge.cards import random_deal
from tribridge.dd import Priority, QueueFull, SolverPool
from tribridge.dd.pool import (
    BACKGROUND_NICE,
    INTERACTIVE_NICE,
    ROBOT_NICE,
    _worker_init,
    in_solver_process,
    routed_priority,
)
from tribridge.rules.trick import legal_cards

pytest.importorskip("endplay._dds")


def _wait_running(pool: SolverPool, count: int) -> None:
    """Wait until ``count`` jobs are handed to the processes."""
    deadline = time.monotonic() + 60
    while pool.stats()["running"] < count:
        assert time.monotonic() < deadline, "the pool never started the job"
        time.sleep(0.01)


def _random_positions(seed: int, count: int) -> list[dd.Position]:
    """Positions after a random number of random legal cards on random deals, random trump and leader."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        deal = random_deal(rng)
        trump = int(rng.integers(5))
        leader = int(rng.integers(4))
        played: list[int] = []
        pos = dd.position_after(deal, trump, leader, played)
        for _ in range(int(rng.integers(20, 44))):
            led = pos.trick[0] // 13 if pos.trick else None
            legal = legal_cards(pos.hands[pos.turn], led)
            played.append(legal[int(rng.integers(len(legal)))])
            pos = dd.position_after(deal, trump, leader, played)
        out.append(pos)
    return out


def _solve_nested(positions: list[dd.Position]) -> tuple[bool, object, list[dict[int, int]]]:
    """Run in a solver process: a solving_at block and a nested submission both solve right there."""
    with dd.solving_at(Priority.INTERACTIVE):
        routed = routed_priority()
        solved = dd.solver_pool().call(dd.solve_positions, positions, priority=Priority.INTERACTIVE)
    return in_solver_process(), routed, solved


@pytest.fixture(scope="module")
def one_worker():
    pool = SolverPool(workers=1, queue_limits={Priority.ANALYSIS: 2, Priority.ROBOT_API: 0})
    yield pool
    pool.shutdown()


def test_highest_class_runs_first_under_load_in_each_tier() -> None:
    pool = SolverPool(workers=1)
    try:
        blockers = [pool.submit(time.sleep, 0.3, priority=p) for p in Priority]
        _wait_running(pool, 3)  # the interactive, robot and background processes are busy; one BATCH job waits
        order: list[str] = []
        jobs = [
            ("batch-1", Priority.BATCH),
            ("analysis", Priority.ANALYSIS),
            ("robot", Priority.ROBOT_API),
            ("interactive-1", Priority.INTERACTIVE),
            ("batch-2", Priority.BATCH),
            ("interactive-2", Priority.INTERACTIVE),
        ]
        futures = []
        for label, priority in jobs:
            fut = pool.submit(abs, -len(label), priority=priority)
            fut.add_done_callback(lambda _f, label=label: order.append(label))
            futures.append(fut)
        assert pool.stats()["queued"] == {"INTERACTIVE": 2, "ROBOT_API": 1, "ANALYSIS": 1, "BATCH": 3}
        assert [f.result(timeout=60) for f in futures] == [len(label) for label, _ in jobs]
        assert [b.result() for b in blockers] == [None] * 4
        assert [x for x in order if x.startswith("interactive")] == ["interactive-1", "interactive-2"]
        assert [x for x in order if x in ("analysis", "batch-1", "batch-2")] == ["analysis", "batch-1", "batch-2"]
        assert pool.idle()
    finally:
        pool.shutdown()


def test_robot_and_background_work_never_hold_an_interactive_process() -> None:
    pool = SolverPool(workers=1)
    try:
        others = [pool.submit(time.sleep, 1.0, priority=p) for p in (Priority.BATCH, Priority.ROBOT_API)]
        queued = [pool.submit(time.sleep, 1.0, priority=p) for p in (Priority.BATCH, Priority.ROBOT_API)]
        _wait_running(pool, 2)
        person = pool.submit(time.sleep, 0.2, priority=Priority.INTERACTIVE)
        _wait_running(pool, 3)  # handed to its own process at once, while the others' jobs wait
        stats = pool.stats()
        assert stats["running_by_class"]["INTERACTIVE"] == 1
        assert stats["queued"]["ROBOT_API"] == 1 and stats["queued"]["BATCH"] == 1
        assert person.result(timeout=60) is None
        assert [f.result(timeout=60) for f in (*others, *queued)] == [None] * 4
    finally:
        pool.shutdown()


def test_each_tier_runs_at_its_cpu_priority(one_worker: SolverPool) -> None:
    here = os.nice(0)
    assert one_worker.call(os.nice, 0, priority=Priority.INTERACTIVE) == min(19, here + INTERACTIVE_NICE)
    assert 0 < INTERACTIVE_NICE <= ROBOT_NICE < BACKGROUND_NICE  # every tier below the process that made the pool
    assert one_worker.call(os.nice, 0, priority=Priority.BATCH) == min(19, here + BACKGROUND_NICE)
    assert one_worker.call(os.nice, 0, priority=Priority.ANALYSIS) == min(19, here + BACKGROUND_NICE)
    robot_pool = SolverPool(workers=1)  # (the shared fixture refuses robot jobs)
    try:
        assert robot_pool.call(os.nice, 0, priority=Priority.ROBOT_API) == min(19, here + ROBOT_NICE)
        if hasattr(os, "SCHED_OTHER"):  # ordinary scheduling everywhere: a busy CPU leaves every tier a share
            for pool, priority in ((robot_pool, Priority.ROBOT_API), (one_worker, Priority.BATCH)):
                assert pool.call(os.sched_getscheduler, 0, priority=priority) == os.SCHED_OTHER
            assert one_worker.call(os.sched_getscheduler, 0, priority=Priority.INTERACTIVE) == os.SCHED_OTHER
    finally:
        robot_pool.shutdown()


def test_a_full_class_is_refused_and_others_still_accepted(one_worker: SolverPool) -> None:
    blocker = one_worker.submit(time.sleep, 0.3, priority=Priority.BATCH)  # the background process is busy
    _wait_running(one_worker, 1)
    queued = [one_worker.submit(abs, -(i + 1), priority=Priority.ANALYSIS) for i in range(2)]
    with pytest.raises(QueueFull, match="ANALYSIS") as err:
        one_worker.submit(abs, -3, priority=Priority.ANALYSIS)
    assert err.value.priority is Priority.ANALYSIS and err.value.limit == 2
    with pytest.raises(QueueFull):
        one_worker.submit(abs, -3, priority=Priority.ANALYSIS, block=True, timeout=0.05)
    with pytest.raises(QueueFull):
        one_worker.submit(abs, -3, priority=Priority.ROBOT_API)  # a limit of 0 refuses every job
    batch = one_worker.submit(abs, -4, priority=Priority.BATCH)
    arrays = [one_worker.submit(np.sum, np.arange(k), priority=Priority.BATCH) for k in (3, 4)]
    assert queued[1].cancel()  # a cancelled queued job leaves its place
    assert arrays[1].cancel()  # (jobs are told apart by identity, whatever their arguments)
    assert one_worker.stats()["queued"]["BATCH"] == 2
    room = one_worker.submit(abs, -5, priority=Priority.ANALYSIS)
    assert [f.result(timeout=60) for f in (queued[0], room, batch, arrays[0])] == [1, 5, 4, 3]
    assert blocker.result() is None


def test_errors_of_a_job_reach_the_caller(one_worker: SolverPool) -> None:
    with pytest.raises(ValueError):
        one_worker.call(int, "not a number", priority=Priority.INTERACTIVE)
    assert one_worker.call(abs, -2, priority=Priority.BATCH) == 2


def test_async_submission(one_worker: SolverPool) -> None:
    async def main() -> tuple[int, list[float]]:
        ticks: list[float] = []

        async def tick() -> None:
            for _ in range(5):
                ticks.append(time.monotonic())
                await asyncio.sleep(0.02)

        slept, _ = await asyncio.gather(one_worker.run(time.sleep, 0.3, priority=Priority.INTERACTIVE), tick())
        assert slept is None
        with pytest.raises(QueueFull):
            await one_worker.run(abs, -1, priority=Priority.ROBOT_API)
        return await one_worker.run(abs, -6, priority=Priority.ANALYSIS), ticks

    value, ticks = asyncio.run(main())
    assert value == 6
    assert len(ticks) == 5  # the event loop kept running while the job ran


def test_pool_results_equal_direct_solves() -> None:
    positions = _random_positions(41, 12)
    direct = dd.solve_positions(positions)
    pool = SolverPool(workers=2)
    try:
        futures = [pool.submit(dd.solve_positions, [p], priority=Priority(i % 4)) for i, p in enumerate(positions)]
        assert [f.result(timeout=120)[0] for f in futures] == direct
        nested, routed, solved = pool.call(_solve_nested, positions, priority=Priority.ROBOT_API)
        assert nested and routed is None and solved == direct
    finally:
        pool.shutdown()


def test_solving_at_routes_solves_and_tables_to_the_shared_pool() -> None:
    positions = _random_positions(42, 6)
    deals = [random_deal(np.random.default_rng(43 + i)) for i in range(3)]
    direct = dd.solve_positions(positions)
    tables = dd.dd_tables_array(deals, cache=False, workers=1)
    before = dd.solver_pool().stats()["completed"]["ROBOT_API"]
    with dd.solving_at(Priority.ROBOT_API):
        assert routed_priority() is Priority.ROBOT_API
        assert dd.solve_positions(positions) == direct
        assert (dd.dd_tables_array(deals, cache=False, workers=1) == tables).all()
    assert routed_priority() is None
    stats = dd.solver_pool().stats()
    assert stats["completed"]["ROBOT_API"] - before >= 2  # one solve job, at least one table chunk
    assert dd.solver_pool().idle()


def _start_then_wait(parent: int) -> None:
    """A solver process start told that ``parent`` made its pool; then it waits to be ended."""
    _worker_init(0, parent)
    time.sleep(60)


def test_a_solver_process_whose_pool_maker_died_while_it_started_exits():
    # the process that made the pool is gone before the new process runs its start-up: its parent now is
    # someone else, and it must still end rather than wait for a parent that is not the pool's maker
    gone = os.getpid() + 10**6  # no such process
    proc = multiprocessing.get_context("spawn").Process(target=_start_then_wait, args=(gone,))
    proc.start()
    proc.join(20)
    alive = proc.is_alive()
    if alive:
        proc.kill()
    assert not alive
    assert proc.exitcode == 0
