"""Benchmark: the server past one process. Human tables driven as fast as they go, on several set-ups in one run.

    .venv/bin/python -m benchmarks server_scale                    # 6 tables a process, 20 s per set-up
    .venv/bin/python -m benchmarks server_scale --tables-per-process 12 --seconds 30 --json
    .venv/bin/python -m benchmarks server_scale --cpu-quota 0.1 --processes 1,2,4 --tables-per-process 8 --repeats 3
    .venv/bin/python -m benchmarks server_scale --db-url postgresql://me@localhost/bench   # an existing database
    .venv/bin/python -m benchmarks server_scale --cpu-quota 0.25 --processes 1,2,4 --baseline-beside --repeats 5

Set-ups (each run ``--repeats`` times, round robin, and reported by its median run with every run's figures
beside it): one `tribridge serve` on an SQLite file; then, for each count of ``--processes`` (default 1,2),
that many on the same PostgreSQL database, with and without table affinity (``--affinity``). Each process
serves ``--tables-per-process`` tables (so every set-up loads each process alike), each table three people,
each with a WebSocket. With affinity, a table's requests and sockets all go to one
process, the one a proxy hashing on the table id would choose (``scale_load.owner_of``: CRC-32 of the id, modulo
the processes; docs/deploy.md's nginx does the same), and tables are created until each process owns
its share (a few tables hash nowhere near evenly; a site's thousands do); without it ("spread"), the chairs' sockets and
the actions alternate between the processes (no sticky sessions), so most pushes cross processes. A
table's driver sends the action of the chair on turn (the opener bids 1NT, the others pass, then each
card is the first legal one; ``next`` after the last trick), waits for the push of the new view to the
chair that acts next, and acts again. Measured: actions acknowledged per second (all tables),
acknowledgement latency (POST to answer) p50 and p99, and push latency (POST sent to the push of that
version arriving on another chair's socket) p50 and p99, split into pushes from the process that took
the action and pushes from the other process; the processor time of each server (with its solver
children) per action it acknowledged, and of the load generator, which runs in a process of its own at a
lower CPU priority (nice 10). The machine's own speed during each run is gauged by ``benchmarks.speed_probe``
(``probe_ms``), and the CPU per action against one process's is also given with each run measured in its probe's
pieces of work (``cpu_per_action_at_probe_speed_*``), which takes out a spell in which the whole machine ran slower.

``--baseline-beside`` also starts, with each multi-process set-up, one more server on a database of its own and
drives it at the same time (the two loads' timed parts start together), so every run has a one-process run
beside it in the same spell of the machine: the ``*_beside`` ratios pair each run with that one (the plain ratios,
against the one-process set-up run on its own, are kept beside them). The set-up's processes and the one beside
it then share the machine, so the ratios, not the absolute rates, are what such a run is for.

``--cpu-quota Q`` puts each server process in a cgroup of its own limited to ``Q`` of one core
(``benchmarks.cpu_quota``; needs root) in every ``--quota-period-ms`` (default 10 ms: a throttled server
waits at most that long, where the kernel's 100 ms default adds up to 90 ms to an acknowledgement), so the servers, not the machine, are the bottleneck (the groups,
and one without a quota for the load generator and PostgreSQL, weigh ten times the default, so other work
on the machine does not take their share); each
process's share of its quota used is reported, and a set-up counts (``counts``) only where every server
used at least 90 % of its quota and its solver children at most 10 %: then the actions were what the quota
limited. Once a server is ready its solver processes (the post-deal analyses) move to a subgroup of the least
weight inside its group, so they run only on quota the server leaves unused, and their share says how much it
left; a quota of at most one core keeps the server and its solver processes on one CPU (the groups round the
CPUs), since weights divide one CPU's time only. Before the measurement each server plays one deal to its end, so
that its first analysis starts the analyses' solver processes, and the benchmark waits until the solver processes
have finished starting (``wait_for_quiet_children``): their start-up is not measured. Without ``--db-url`` a
throwaway PostgreSQL is started from Debian's binaries (``apt-get install postgresql``) in a temporary folder.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.bench_server import print_results, process_tree_cpu_seconds, start_server, stop_server
from benchmarks.bench_server_load import wait_until_ready
from benchmarks.cpu_quota import (
    DEFAULT_PERIOD_MS,
    QuotaGroup,
    make_groups,
    make_weighted_group,
    quota_use,
    solvers_kept_apart,
)
from benchmarks.scale_load import niced_load, warm_up
from benchmarks.scale_results import RUN_FIGURES, median_run, ratios, setup_name
from benchmarks.speed_probe import SpeedProbe
from tribridge.testing import PgServer, pg_bin_dir


def own_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of the process ``pid`` alone, not its children (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children_cpu_seconds(pid: int) -> float:
    """CPU seconds of the live descendants of ``pid`` (its solver processes), not its own."""
    return process_tree_cpu_seconds(pid) - own_cpu_seconds(pid)


def wait_for_quiet_children(pid: int, every_s: float = 0.5, quiet_s: float = 0.02, most_s: float = 120.0) -> None:
    """Wait until the solver processes a server started have finished starting (each imports the bidder and the
    solver for about a second of CPU after the server answers): until they spend under ``quiet_s`` CPU seconds in
    ``every_s``, at most ``most_s``."""
    deadline = time.monotonic() + most_s
    before = children_cpu_seconds(pid)
    while time.monotonic() < deadline:
        time.sleep(every_s)
        now = children_cpu_seconds(pid)
        if now - before < quiet_s:
            return
        before = now
    print(f"server {pid}: its solver processes still busy after {most_s:g} s; measuring anyway", file=sys.stderr)


SERVER_OPTIONS = (
    "--max-tables-per-client",
    "1000",
    "--max-client-creations-per-minute",
    "1000",
    "--max-connections-per-client",
    "1000",
)
# how long after the loads start their timed part begins, so that set-ups measured together start alike
BESIDE_START_S = 10.0


@dataclass
class Servers:
    """The server processes of one set-up on one database (each in its cgroup ``groups[i]``, if any), and whether
    its load keeps each table on one process (``affinity``)."""

    procs: list[tuple[subprocess.Popen[str], str]]
    groups: list[QuotaGroup]
    affinity: bool

    @property
    def urls(self) -> list[str]:
        """The servers' addresses."""
        return [url for _proc, url in self.procs]


@contextmanager
def started_servers(db: str, processes: int, groups: list[QuotaGroup], affinity: bool) -> Iterator[Servers]:
    """``processes`` servers on ``db`` (one in each group of ``groups`` when given), each warmed up by one deal and
    its solver processes started; stopped, and their groups removed, on leaving."""
    procs: list[tuple[subprocess.Popen[str], str]] = []
    try:
        for index in range(processes):
            prefix = groups[index].join_command() if groups else ()
            procs.append(start_server(db, extra=SERVER_OPTIONS, prefix=prefix))
        for proc, url in procs:
            wait_until_ready(url)
            asyncio.run(warm_up(url))  # the first analysis starts the analyses' solver processes
            wait_for_quiet_children(proc.pid)  # the solver processes' start-up is not part of the measurement
        yield Servers(procs, groups, affinity)
    finally:
        for group in groups:
            group.lift_quota()
        for proc, _url in procs:
            stop_server(proc)
        for group in groups:
            group.remove()


def measure(
    setups: list[Servers], per_process: int, seconds: float, load_group: QuotaGroup | None = None
) -> list[dict[str, Any]]:
    """Drive every set-up of ``setups`` at the same time (a niced load process each, their timed parts starting
    together when there are several) under their quotas; each one's summary with its servers' CPU and quota use."""
    groups = [g for setup in setups for g in setup.groups]
    procs = [proc for setup in setups for proc, _url in setup.procs]
    for group in groups:
        group.apply_quota()
    cpu_before = {proc.pid: process_tree_cpu_seconds(proc.pid) for proc in procs}
    own_before = {proc.pid: own_cpu_seconds(proc.pid) for proc in procs}
    throttled_before = {id(g): g.throttled() for g in groups}
    folder = None if load_group is None else str(load_group.path)
    start_at = time.time() + BESIDE_START_S if len(setups) > 1 else None
    with (
        solvers_kept_apart(groups, [proc.pid for proc in procs]),
        ProcessPoolExecutor(len(setups), mp_context=multiprocessing.get_context("spawn")) as children,
        SpeedProbe() as probe,
    ):
        loads = [
            children.submit(niced_load, s.urls, per_process, seconds, s.affinity, folder, start_at) for s in setups
        ]
        summaries = [load.result() for load in loads]
    for setup, summary in zip(setups, summaries):
        used = [process_tree_cpu_seconds(proc.pid) - cpu_before[proc.pid] for proc, _url in setup.procs]
        own = [own_cpu_seconds(proc.pid) - own_before[proc.pid] for proc, _url in setup.procs]
        summary["affinity"] = setup.affinity
        summary["server_process_cpu_s_per_process"] = [round(o, 2) for o in own]  # the rest: its solver children
        summary["server_process_ms_per_action_per_process"] = [
            round(1000 * o / max(1, n), 2) for o, n in zip(own, summary["actions_per_process"])
        ]
        summary["servers_cpu_s"] = round(sum(used), 2)
        summary["server_cpu_ms_per_action"] = round(1000 * sum(used) / max(1, summary["actions"]), 2)
        summary["cpu_ms_per_action_per_process"] = [
            round(1000 * u / max(1, n), 2) for u, n in zip(used, summary["actions_per_process"])
        ]
        summary["probe_ms"] = probe.median_ms  # the machine's speed meanwhile (``benchmarks.speed_probe``)
        if setup.groups:
            before = [throttled_before[id(g)] for g in setup.groups]
            summary.update(quota_use(setup.groups, used, own, before, summary["seconds"]))
    return summaries


def quota_groups(count: int, quota: float | None, period_ms: float) -> list[QuotaGroup]:
    """``count`` cgroups of ``quota`` of a core each (``cpu_quota.make_groups``), none without a quota."""
    if quota is None:
        return []
    groups, why_not = make_groups(count, quota, period_ms=period_ms)
    if why_not is not None:
        raise SystemExit(f"--cpu-quota: {why_not}")
    return groups


def bench_setup(
    db: str,
    processes: int,
    per_process: int,
    seconds: float,
    affinity: bool = False,
    quota: float | None = None,
    load_group: QuotaGroup | None = None,
    period_ms: float = DEFAULT_PERIOD_MS,
    beside_db: str | None = None,
) -> dict[str, Any]:
    """Start ``processes`` servers on ``db`` (each in a cgroup of ``quota`` of a core, if given), drive the tables from
    a niced process, stop them; the summary with each server's CPU and share of its quota. With ``beside_db``, one
    server on that database is driven at the same time, and its summary's main figures are the run's ``beside``."""
    groups = quota_groups(processes + (beside_db is not None), quota, period_ms)
    with started_servers(db, processes, groups[-processes:] if groups else [], affinity) as setup:
        if beside_db is None:
            return measure([setup], per_process, seconds, load_group)[0]
        with started_servers(beside_db, 1, groups[:1], False) as baseline:
            run, alone = measure([setup, baseline], per_process, seconds, load_group)
    run["beside"] = {key: alone.get(key) for key in RUN_FIGURES if key != "beside"}
    if "counts" in run:  # (under quota) the run counts where the process beside it counts too
        run["counts"] = bool(run["counts"] and alone["counts"])
    return run


def parse_counts(text: str) -> list[int]:
    """``--processes``: whole numbers >= 1, comma-separated."""
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected whole numbers such as 1,2,4, got {text!r}") from None
    if not counts or min(counts) < 1:
        raise argparse.ArgumentTypeError(f"expected whole numbers >= 1 such as 1,2,4, got {text!r}")
    return sorted(set(counts))


def main(argv: list[str] | None = None) -> int:
    """Run the set-ups and print the results."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks server_scale",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--tables-per-process", type=int, default=6, help="tables each server process serves (default 6)"
    )
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--repeats", type=int, default=1, help="runs of every set-up; the median run is reported")
    parser.add_argument("--processes", type=parse_counts, default=[1, 2], help="PostgreSQL set-ups (default 1,2)")
    parser.add_argument(
        "--affinity", choices=["both", "on", "off"], default="both", help="of the multi-process set-ups"
    )
    parser.add_argument("--cpu-quota", type=float, default=None, help="share of one core per server process (root)")
    parser.add_argument(
        "--quota-period-ms",
        type=float,
        default=DEFAULT_PERIOD_MS,
        help=f"the quota's period: a server runs its share of each period (default {DEFAULT_PERIOD_MS:g} ms)",
    )
    parser.add_argument("--no-sqlite", action="store_true", help="skip the SQLite set-up")
    parser.add_argument(
        "--baseline-beside",
        action="store_true",
        help="run one process on a database of its own beside each multi-process set-up, at the same time",
    )
    parser.add_argument("--db-url", default=None, help="an empty PostgreSQL database to use (default: a throwaway one)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.tables_per_process < 1 or args.seconds <= 0 or args.repeats < 1:
        parser.error("--tables-per-process, --seconds and --repeats must be positive")
    if args.baseline_beside and args.db_url is not None:
        parser.error("--baseline-beside: needs the throwaway PostgreSQL (a second database), not --db-url")
    if not 1 <= args.quota_period_ms <= 1000:
        parser.error(f"--quota-period-ms: expected 1 to 1000 ms, got {args.quota_period_ms:g}")
    results: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "loadavg_at_start": os.getloadavg()}}
    quota = args.cpu_quota
    if quota is not None:
        try:
            # the share checked and the controller found; the groups are made per set-up
            _none, why_not = make_groups(0, quota, period_ms=args.quota_period_ms)
        except ValueError as exc:
            parser.error(str(exc))
        probe, why_not = make_groups(1, quota, period_ms=args.quota_period_ms) if why_not is None else ([], why_not)
        for group in probe:
            group.remove()
        if why_not is not None:
            print(f"--cpu-quota: {why_not}; running without quotas", file=sys.stderr)
            results["machine"]["cpu_quota_unavailable"] = why_not
            quota = None
    load_group = make_weighted_group() if quota is not None else None  # the load generator's and the database's
    pg = None
    if args.db_url is None:
        bin_dir = pg_bin_dir()
        if bin_dir is None:
            raise SystemExit("PostgreSQL's binaries are missing: apt-get install postgresql, or give --db-url")
        pg = PgServer(bin_dir, fsync=True).start()
        if load_group is not None:  # the postmaster: the backends it forks for each connection follow it
            load_group.add(int((pg.data / "postmaster.pid").read_text().split()[0]))
    modes = {"both": (False, True), "on": (True,), "off": (False,)}[args.affinity]
    runs: dict[str, list[dict[str, Any]]] = {}
    try:
        for _repeat in range(args.repeats):  # each repeat runs every set-up once, so a slow spell hits all alike
            if not args.no_sqlite:
                with tempfile.TemporaryDirectory() as folder:
                    runs.setdefault("sqlite_1_process", []).append(
                        bench_setup(
                            str(Path(folder) / "bench.sqlite"),
                            1,
                            args.tables_per_process,
                            args.seconds,
                            quota=quota,
                            load_group=load_group,
                            period_ms=args.quota_period_ms,
                        )
                    )
            for processes in args.processes:
                for affinity in modes if processes > 1 else (False,):
                    url = args.db_url if pg is None else pg.new_database()
                    beside = pg.new_database() if pg is not None and args.baseline_beside and processes > 1 else None
                    run = bench_setup(
                        url,
                        processes,
                        args.tables_per_process,
                        args.seconds,
                        affinity,
                        quota,
                        load_group,
                        args.quota_period_ms,
                        beside,
                    )
                    runs.setdefault(setup_name(processes, affinity), []).append(run)
    finally:
        if pg is not None:
            pg.stop()
        if load_group is not None:
            load_group.remove()
    results.update({name: median_run(found) for name, found in runs.items()})
    results["machine"]["loadavg_at_end"] = os.getloadavg()
    results["ratios"] = ratios(results, args.processes)
    print_results(results, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
