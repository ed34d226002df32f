"""CPU quotas for benchmarked processes: a cgroup of its own per process, with a share of one core.

On a machine with few cores, several server processes and their load generator compete for the same
cores, so the machine rather than the servers is the bottleneck. A quota per server process (a cgroup
with ``cpu.max`` under cgroup v2, ``cpu.cfs_quota_us`` under v1) makes each server the bottleneck of
its own share: ``python -m benchmarks server_scale --cpu-quota 0.25`` gives every server process a
quarter of a core, and its solver children with it (they are forked inside the group). A quota is a
ceiling, not a promise: on a machine that other work keeps busy the groups also get a CPU weight ten
times the default (``cpu.weight`` under v2, ``cpu.shares`` under v1), so they get their quota first; the
benchmark's load generator and database go in a group of the same weight without a quota.

Making a group needs root (or a delegated cgroup tree); where it cannot be made, ``make_groups``
says why and the benchmark runs without quotas.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tribridge.testing import child_pids

__all__ = [
    "DEFAULT_PERIOD_MS",
    "QUOTA_USED_TO_COUNT",
    "QuotaGroup",
    "make_groups",
    "make_weighted_group",
    "quota_use",
    "solvers_kept_apart",
]

V2_ROOT = Path("/sys/fs/cgroup")
V1_CPU = Path("/sys/fs/cgroup/cpu")
DEFAULT_PERIOD_MS = 10.0  # short periods: a server throttled at its share waits at most this long to run again
WEIGHT = 10  # the groups' CPU weight, in multiples of the default
QUOTA_USED_TO_COUNT = 0.9  # a set-up under quota counts where every server used this share of its quota


@dataclass
class QuotaGroup:
    """One cgroup that a command joins before it starts, limited to ``share`` of one core each ``period_ms`` once
    ``apply_quota`` is called (start-up at a tenth of a core would take a server half a minute)."""

    path: Path
    version: int
    share: float | None  # of one core; None: no quota, only the weight
    period_ms: float = DEFAULT_PERIOD_MS
    cpu: int | None = None  # the one CPU the server and its solver processes run on (None: any)

    def join_command(self) -> list[str]:
        """A prefix that moves the command's process into this group, then runs it (``exec``)."""
        return ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', str(self.path)]

    def add(self, pid: int) -> None:
        """Move the running process ``pid`` into this group (the processes it forks later follow it)."""
        (self.path / "cgroup.procs").write_text(str(pid))

    def apply_quota(self) -> None:
        """Limit the group to its share from now on (a group without a share keeps only its weight)."""
        if self.share is None:
            return
        period_us = int(self.period_ms * 1000)
        quota_us = max(1000, int(self.share * period_us))
        if self.version == 2:
            (self.path / "cpu.max").write_text(f"{quota_us} {period_us}")
        else:
            (self.path / "cpu.cfs_period_us").write_text(str(period_us))
            (self.path / "cpu.cfs_quota_us").write_text(str(quota_us))

    def lift_quota(self) -> None:
        """No limit from now on (a server shuts down at full speed)."""
        if self.version == 2:
            (self.path / "cpu.max").write_text(f"max {int(self.period_ms * 1000)}")
        else:
            (self.path / "cpu.cfs_quota_us").write_text("-1")

    def split_off_solvers(self, server_pid: int) -> None:
        """Within the group (so within its quota), the server in a subgroup of full weight and its solver processes in
        one of the least weight: the post-deal analyses then run only on quota the server leaves unused, and their
        share of the quota says how much the server left (not how the kernel's weights divided a busy period).

        Weights divide the time of one CPU only: solver processes on another CPU would run beside the server and spend
        its quota while it waits for them. So the server and its solver processes are kept on the group's ``cpu``. The
        solvers' subgroup is also marked idle (``cpu.idle``, where the kernel has it: a waking server thread preempts
        them at once)."""
        server, solvers = self.path / "server", self.path / "solvers"
        for sub in (server, solvers):
            sub.mkdir(exist_ok=True)
        (server / "cgroup.procs").write_text(str(server_pid))
        self._pin(server_pid)
        self.move_solvers(server_pid)
        if self.version == 2:
            (self.path / "cgroup.subtree_control").write_text("+cpu")  # the group itself holds no process now
            (server / "cpu.weight").write_text("10000")
            (solvers / "cpu.weight").write_text("1")
        else:
            (server / "cpu.shares").write_text(str(1024 * WEIGHT))
            (solvers / "cpu.shares").write_text("2")
        idle = solvers / "cpu.idle"
        if idle.exists():
            idle.write_text("1")

    def move_solvers(self, server_pid: int) -> None:
        """Move every child of the server (a solver process it started since, too) to the least-weight subgroup."""
        for pid in child_pids(server_pid):
            try:
                (self.path / "solvers" / "cgroup.procs").write_text(str(pid))
            except (ProcessLookupError, FileNotFoundError):
                continue
            self._pin(pid)

    def _pin(self, pid: int) -> None:
        """Keep every thread of ``pid`` on the group's ``cpu`` (the threads it starts later follow them)."""
        if self.cpu is None:
            return
        for task in Path(f"/proc/{pid}/task").glob("*"):
            try:
                os.sched_setaffinity(int(task.name), {self.cpu})
            except (ProcessLookupError, FileNotFoundError):
                continue

    def throttled(self) -> tuple[int, int]:
        """(periods with work, periods the quota was used up in) so far (``cpu.stat``)."""
        stat = dict(line.split() for line in (self.path / "cpu.stat").read_text().splitlines() if " " in line)
        return int(stat.get("nr_periods", 0)), int(stat.get("nr_throttled", 0))

    def remove(self, wait_s: float = 10.0) -> None:
        """Remove the group once its processes have ended (a solver child may outlive its server briefly)."""
        deadline = time.monotonic() + wait_s
        while True:
            try:
                for sub in (self.path / "server", self.path / "solvers"):
                    if sub.exists():
                        sub.rmdir()
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    return
                time.sleep(0.2)


def _cgroup_version() -> int | None:
    """2 or 1 where the CPU controller is mounted that way, else None."""
    controllers = V2_ROOT / "cgroup.controllers"
    if controllers.exists() and "cpu" in controllers.read_text().split():
        return 2
    if (V1_CPU / "cpu.cfs_quota_us").exists():
        return 1
    return None


def _make_one(name: str, share: float | None, version: int, period_ms: float = DEFAULT_PERIOD_MS) -> QuotaGroup:
    """Create the group ``name`` of ``WEIGHT`` times the default weight, to be limited to ``share`` of one core each
    ``period_ms`` (None: never) by ``apply_quota``."""
    if version == 2:
        subtree = V2_ROOT / "cgroup.subtree_control"
        if "cpu" not in subtree.read_text().split():
            subtree.write_text("+cpu")
        path = V2_ROOT / name
        path.mkdir(exist_ok=True)
        (path / "cpu.weight").write_text(str(100 * WEIGHT))
        (path / "cpu.max").write_text(f"max {int(period_ms * 1000)}")  # no limit yet, and the file is writable
    else:
        path = V1_CPU / name
        path.mkdir(exist_ok=True)
        (path / "cpu.shares").write_text(str(1024 * WEIGHT))
        (path / "cpu.cfs_quota_us").write_text("-1")  # no limit yet, and the file is writable
    return QuotaGroup(path, version, share, period_ms)


def make_weighted_group(label: str = "tribridge-bench-load") -> QuotaGroup | None:
    """A group without a quota, of the quota groups' weight (for the load generator and the database); None where
    groups cannot be made."""
    version = _cgroup_version()
    if version is None:
        return None
    try:
        return _make_one(f"{label}-{os.getpid()}", None, version)
    except OSError:
        return None


def make_groups(
    count: int, share: float, label: str = "tribridge-bench", period_ms: float = DEFAULT_PERIOD_MS
) -> tuple[list[QuotaGroup], str | None]:
    """``count`` groups of ``share`` of a core each (once ``apply_quota`` is called), and None; or no groups and the
    reason they could not be made."""
    if not 0 < share <= (os.cpu_count() or 1):
        raise ValueError(f"--cpu-quota: expected a share of a core in (0, {os.cpu_count()}], got {share}")
    if share * period_ms < 1:  # the kernel's smallest quota is 1 ms a period
        raise ValueError(f"--cpu-quota: {share} of a {period_ms:g} ms period is under the kernel's 1 ms smallest quota")
    version = _cgroup_version()
    if version is None:
        return [], "no cgroup CPU controller is mounted (neither cgroup v2's cpu.max nor v1's cpu.cfs_quota_us)"
    groups: list[QuotaGroup] = []
    try:
        cpus = sorted(os.sched_getaffinity(0))
        for index in range(count):
            group = _make_one(f"{label}-{os.getpid()}-{index}", share, version, period_ms)
            if share <= 1:  # a quota of at most one core fits one CPU: the processes share it out evenly
                group.cpu = cpus[index % len(cpus)]
            groups.append(group)
    except OSError as exc:
        for group in groups:
            group.remove()
        return [], f"cannot make a cgroup (cgroup v{version}): {exc.strerror}; run as root"
    return groups, None


def quota_use(
    groups: list[QuotaGroup],
    used: list[float],
    own: list[float],
    throttled_before: list[tuple[int, int]],
    seconds: float,
) -> dict[str, Any]:
    """Each server's share of its quota used (all of it, and by its solver children: the post-deal analyses, which
    run at a lower priority and fill what the actions leave), the periods it was throttled in, and whether the
    set-up counts: every server used its quota, and the actions, not the analyses, used it."""
    quotas = [seconds * (g.share or 0.0) for g in groups]
    shares = [round(u / q, 3) for u, q in zip(used, quotas)]
    children = [round((u - o) / q, 3) for u, o, q in zip(used, own, quotas)]
    throttled = []
    for group, (periods_before, throttled_before_n) in zip(groups, throttled_before):
        periods, times = group.throttled()
        throttled.append(round((times - throttled_before_n) / max(1, periods - periods_before), 3))
    return {
        "cpu_quota_per_process": groups[0].share,
        "quota_used_per_process": shares,
        "quota_used_by_solver_children_per_process": children,
        "throttled_periods_share_per_process": throttled,
        "counts": min(shares) >= QUOTA_USED_TO_COUNT and max(children) <= 1 - QUOTA_USED_TO_COUNT,
    }


@contextmanager
def solvers_kept_apart(groups: list[QuotaGroup], server_pids: list[int], every_s: float = 0.2) -> Iterator[None]:
    """While the block runs, each server's solver processes stay in its group's least-weight subgroup
    (``split_off_solvers``), those the server starts later (the analyses' tier, on its first analysis) too."""
    for group, pid in zip(groups, server_pids):
        group.split_off_solvers(pid)
    stop = threading.Event()

    def keep_apart() -> None:
        while not stop.wait(every_s):
            for group, pid in zip(groups, server_pids):
                group.move_solvers(pid)

    thread = threading.Thread(target=keep_apart, name="solvers-kept-apart", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
