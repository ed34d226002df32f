"""The quota benchmark's process placement: a server and its solver processes kept on one CPU, and the wait for
solver processes that are still starting."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from benchmarks.bench_server_scale import children_cpu_seconds, wait_for_quiet_children
from benchmarks.cpu_quota import QuotaGroup, make_groups

from tribridge.testing import child_pids

THREADED = """
import sys, threading, time
threading.Thread(target=time.sleep, args=(60,), daemon=True).start()
print("ready", flush=True)
sys.stdin.readline()
"""

BUSY_CHILD_FOR_ONE_SECOND = """
import subprocess, sys
burn = "import time\\nwhile time.process_time() < 1.0: pass\\ntime.sleep(60)"
child = subprocess.Popen([sys.executable, "-c", burn])
print("ready", flush=True)
sys.stdin.readline()
child.kill()
"""


def _started(source: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-c", source], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def _stopped(proc: subprocess.Popen[str]) -> None:
    proc.communicate("\n", timeout=10)


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two CPUs to tell a pinned thread from a free one")
def test_every_thread_of_a_pinned_process_stays_on_the_groups_cpu():
    cpu = sorted(os.sched_getaffinity(0))[-1]
    group = QuotaGroup(Path("/nonexistent"), 1, 0.1, cpu=cpu)
    proc = _started(THREADED)
    try:
        tasks = [int(task.name) for task in Path(f"/proc/{proc.pid}/task").iterdir()]
        assert len(tasks) >= 2  # the main thread and the one it started
        assert all(len(os.sched_getaffinity(task)) > 1 for task in tasks)
        group._pin(proc.pid)
        assert {task: os.sched_getaffinity(task) for task in tasks} == {task: {cpu} for task in tasks}
    finally:
        _stopped(proc)


def test_a_group_without_a_cpu_leaves_the_process_where_it_may_run():
    group = QuotaGroup(Path("/nonexistent"), 1, 1.5)
    proc = _started(THREADED)
    try:
        group._pin(proc.pid)
        assert os.sched_getaffinity(proc.pid) == os.sched_getaffinity(0)
    finally:
        _stopped(proc)


def test_the_wait_lasts_until_the_solver_processes_have_finished_starting():
    proc = _started(BUSY_CHILD_FOR_ONE_SECOND)
    try:
        wait_for_quiet_children(proc.pid, every_s=0.3, most_s=60)
        assert children_cpu_seconds(proc.pid) >= 0.9  # it returned only once the child's second of CPU was spent
    finally:
        _stopped(proc)


def test_the_solver_processes_join_a_subgroup_that_runs_only_when_the_server_cannot():
    groups, why = make_groups(1, 0.5, label="tribridge-test-quota")
    if not groups:
        pytest.skip(f"no cgroup here: {why}")
    group = groups[0]
    proc = _started(BUSY_CHILD_FOR_ONE_SECOND)
    try:
        group.split_off_solvers(proc.pid)
        solvers = group.path / "solvers"
        (child,) = child_pids(proc.pid)
        assert str(child) in (solvers / "cgroup.procs").read_text().split()
        assert str(proc.pid) in (group.path / "server" / "cgroup.procs").read_text().split()
        if (solvers / "cpu.idle").exists():  # (kernels since 5.15)
            assert (solvers / "cpu.idle").read_text().strip() == "1"
    finally:
        _stopped(proc)
        group.remove()
