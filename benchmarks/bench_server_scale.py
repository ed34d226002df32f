"""Benchmark: the server past one process. Human tables driven as fast as they go, on several set-ups in one run.

    .venv/bin/python -m benchmarks server_scale                    # 6 tables a process, 20 s per set-up
    .venv/bin/python -m benchmarks server_scale --tables-per-process 12 --seconds 30 --json
    .venv/bin/python -m benchmarks server_scale --cpu-quota 0.1 --processes 1,2,4 --tables-per-process 8 --repeats 3
    .venv/bin/python -m benchmarks server_scale --db-url postgresql://me@localhost/bench   # an existing database

Set-ups (each run ``--repeats`` times, round robin, and reported by its median run with every run's figures
beside it): one `tribridge serve` on an SQLite file; then, for each count of ``--processes`` (default 1,2),
that many on the same PostgreSQL database, with and without table affinity (``--affinity``). Each process
serves ``--tables-per-process`` tables (so every set-up loads each process alike), each table three people,
each with a WebSocket. With affinity, a table's requests and sockets all go to one
process, the one a proxy hashing on the table id would choose (``owner_of``: CRC-32 of the id, modulo
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
import json
import multiprocessing
import os
import resource
import sys
import tempfile
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import websockets

from benchmarks.bench_server import percentile, print_results, process_tree_cpu_seconds, start_server, stop_server
from benchmarks.bench_server_load import wait_until_ready
from benchmarks.cpu_quota import (
    DEFAULT_PERIOD_MS,
    QuotaGroup,
    make_groups,
    make_weighted_group,
    quota_use,
    solvers_kept_apart,
)
from benchmarks.raw_http import KeepAlive
from benchmarks.scale_results import median_run, ratios, setup_name
from benchmarks.speed_probe import SpeedProbe
from tribridge.testing import PgServer, next_presser, pg_bin_dir, ws_token_message

HUMANS = [{"kind": "human"}] * 3


@dataclass
class Samples:
    """Latencies in seconds, and the count of acknowledged actions."""

    actions: int = 0
    per_process: dict[int, int] = field(default_factory=dict)  # process index -> actions it acknowledged
    ack: list[float] = field(default_factory=list)
    ack_by_kind: dict[str, list[float]] = field(default_factory=dict)  # call, play, last card, next
    push_same: list[float] = field(default_factory=list)
    push_cross: list[float] = field(default_factory=list)


@dataclass
class Chair:
    """One chair of a driven table: its token, its socket's process and the newest view pushed to it."""

    token: str
    process: int
    view: dict[str, Any] = field(default_factory=dict)
    fresh: asyncio.Event = field(default_factory=asyncio.Event)


def next_move(view: dict[str, Any]) -> dict[str, Any]:
    """1NT by whoever opens, passes after it, the first legal card, ``next`` when the deal is done."""
    if view["phase"] == "done":
        return {"type": "next"}
    if view["phase"] == "auction":
        calls = view["legal_calls"]
        return {"type": "call", "call": "1N" if not view["auction"] and "1N" in calls else "P"}
    return {"type": "play", "card": view["legal_cards"][0]}


async def follow(url: str, table_id: str, chair: Chair, sent: dict[int, tuple[float, int]], out: Samples) -> None:
    """Read a chair's socket: keep its newest view, and time each version's push against when it was sent."""
    ws_url = url.replace("http://", "ws://") + f"/api/tables/{table_id}/ws"
    async with websockets.connect(ws_url, max_size=None) as ws:
        await ws.send(ws_token_message(chair.token))
        async for message in ws:
            view = json.loads(message)
            chair.view = view
            chair.fresh.set()
            when = sent.get(view["version"])
            if when is not None:
                delay = time.perf_counter() - when[0]
                (out.push_same if when[1] == chair.process else out.push_cross).append(delay)


def owner_of(table_id: str, processes: int) -> int:
    """The process a proxy hashing on the table id keeps the table on (CRC-32 of the id, modulo ``processes``)."""
    return zlib.crc32(table_id.encode("ascii")) % processes


@dataclass
class MadeTable:
    """A table created for the load: its id, the first chair's token, and the process that created it."""

    table_id: str
    token: str
    created_on: int


async def make_tables(urls: list[str], per_process: int, affinity: bool) -> list[MadeTable]:
    """``per_process`` tables for each server. With ``affinity`` each process owns exactly that many (by
    ``owner_of``): tables are created round the processes until every owner has its share, and the surplus (left
    idle: nobody takes its chairs) keeps the hash from loading one process more than another."""
    links = [KeepAlive(url) for url in urls]
    count, wanted = len(urls), per_process * len(urls)
    owned: dict[int, list[MadeTable]] = {p: [] for p in range(count)}
    made: list[MadeTable] = []
    try:
        index = 0
        while len(made) < wanted:
            batch = await asyncio.gather(*(_create(links, index + i) for i in range(count)))
            index += count
            for table in batch:
                owner = owner_of(table.table_id, count) if affinity else len(made) % count
                if len(owned[owner]) < per_process:
                    owned[owner].append(table)
                    made.append(table)
            if index > 50 * wanted:
                raise RuntimeError("the table ids do not spread over the processes")
    finally:
        for link in links:
            await link.close()
    return made


async def _create(links: list[KeepAlive], index: int) -> MadeTable:
    """One table of three people, created on process ``index`` modulo the processes, its first chair taken."""
    process = index % len(links)
    status, made = await links[process].request("POST", "/api/tables", {"chairs": HUMANS, "take": 0})
    if status != 200:
        raise RuntimeError(f"table not created ({status}): {made}")
    return MadeTable(made["table_id"], made["token"], process)


async def drive(urls: list[str], table: MadeTable, until: float, out: Samples, affinity: bool) -> None:
    """Take the table's other chairs, open its three sockets and play until ``until`` (a keep-alive HTTP
    connection to each process)."""
    links = [KeepAlive(url) for url in urls]
    try:
        await play_table(urls, links, table, until, out, affinity)
    finally:
        for link in links:
            await link.close()


async def play_table(
    urls: list[str],
    links: list[KeepAlive],
    table: MadeTable,
    until: float,
    out: Samples,
    affinity: bool,
    one_deal: bool = False,
) -> None:
    """``drive``'s table, kept on its owner (``affinity``) or spread over all the processes (``one_deal``: only until
    the first deal is done)."""
    count = len(urls)
    table_id, tokens = table.table_id, [table.token]
    owner = owner_of(table_id, count)

    def process_for(step: int) -> int:
        return owner if affinity else (table.created_on + step) % count

    for chair in (1, 2):
        status, taken = await links[process_for(chair)].request("POST", f"/api/tables/{table_id}/seats/{chair}")
        tokens.append(taken["token"])
    chairs = [Chair(tokens[c], process_for(c)) for c in range(3)]
    sent: dict[int, tuple[float, int]] = {}
    readers = [asyncio.create_task(follow(urls[c.process], table_id, c, sent, out)) for c in chairs]
    try:
        auth = {"authorization": f"Bearer {tokens[0]}"}
        _status, first = await links[process_for(0)].request("GET", f"/api/tables/{table_id}/state", headers=auth)
        actor, version, step = first["turn_chair"], first["version"], 0
        while time.perf_counter() < until:
            chair = chairs[actor]
            while chair.view.get("version", -1) < version:  # the push of the newest view to the chair on turn
                chair.fresh.clear()
                await asyncio.wait_for(chair.fresh.wait(), 30)
            process = process_for(step)
            step += 1
            sent[version + 1] = (time.perf_counter(), process)
            start, move = time.perf_counter(), next_move(chair.view)
            status, answer = await links[process].request(
                "POST", f"/api/tables/{table_id}/actions", move, {"authorization": f"Bearer {chair.token}"}
            )
            if status != 200:
                raise RuntimeError(f"action refused ({status}): {answer}")
            out.ack.append(time.perf_counter() - start)
            kind = "last card" if move["type"] == "play" and answer["phase"] == "done" else move["type"]
            out.ack_by_kind.setdefault(kind, []).append(out.ack[-1])
            out.actions += 1
            out.per_process[process] = out.per_process.get(process, 0) + 1
            version = answer["version"]
            if one_deal and answer["phase"] == "done":
                return
            actor = next_presser(answer) if answer["phase"] == "done" else answer["turn_chair"]
    finally:
        for task in readers:
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)


async def warm_up(url: str) -> None:
    """Play one deal to its end on the server at ``url``, so that its post-deal analysis starts the analyses' solver
    processes before the measurement (the table is left idle)."""
    link = KeepAlive(url)
    try:
        table = await _create([link], 0)
        await play_table([url], [link], table, time.perf_counter() + 120, Samples(), True, one_deal=True)
    finally:
        await link.close()


async def run_load(urls: list[str], per_process: int, seconds: float, affinity: bool) -> dict[str, Any]:
    """Drive ``per_process`` tables a server on the servers at ``urls`` for ``seconds``; the summary."""
    out = Samples()
    made = await make_tables(urls, per_process, affinity)
    tables = len(made)
    until = time.perf_counter() + seconds
    started = time.perf_counter()
    await asyncio.gather(*(drive(urls, table, until, out, affinity) for table in made))
    elapsed = time.perf_counter() - started

    def ms(values: list[float], q: float) -> float | None:
        return round(percentile(values, q) * 1000, 2) if values else None

    return {
        "processes": len(urls),
        "tables": tables,
        "seconds": round(elapsed, 1),
        "actions_per_s": round(out.actions / elapsed, 1),
        "ack_p50_ms": ms(out.ack, 50),
        "ack_p99_ms": ms(out.ack, 99),
        "ack_p50_p99_ms_by_kind": {
            kind: [ms(acks, 50), ms(acks, 99)] for kind, acks in sorted(out.ack_by_kind.items())
        },
        "push_same_process_p50_ms": ms(out.push_same, 50),
        "push_same_process_p99_ms": ms(out.push_same, 99),
        "push_cross_process_p50_ms": ms(out.push_cross, 50),
        "push_cross_process_p99_ms": ms(out.push_cross, 99),
        "pushes_timed": len(out.push_same) + len(out.push_cross),
        "actions": out.actions,
        "actions_per_process": [out.per_process.get(p, 0) for p in range(len(urls))],
    }


LOAD_NICENESS = 10  # the load generator yields the cores to the servers and the database


def niced_load(
    urls: list[str], per_process: int, seconds: float, affinity: bool, group: str | None = None
) -> dict[str, Any]:
    """(In a child process.) Join the cgroup folder ``group`` if given, else lower this process's CPU priority; drive
    the tables; the summary and its own CPU."""
    if group is not None:
        Path(group, "cgroup.procs").write_text(str(os.getpid()))
    else:
        os.nice(LOAD_NICENESS)
    before = resource.getrusage(resource.RUSAGE_SELF)
    summary = asyncio.run(run_load(urls, per_process, seconds, affinity))
    after = resource.getrusage(resource.RUSAGE_SELF)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary["load_generator_cpu_s"] = round(used, 2)
    return summary


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


def bench_setup(
    db: str,
    processes: int,
    per_process: int,
    seconds: float,
    affinity: bool = False,
    quota: float | None = None,
    load_group: QuotaGroup | None = None,
    period_ms: float = DEFAULT_PERIOD_MS,
) -> dict[str, Any]:
    """Start ``processes`` servers on ``db`` (each in a cgroup of ``quota`` of a core, if given), drive the tables from
    a niced process, stop them; the summary with each server's CPU and share of its quota."""
    extra = (
        "--max-tables-per-client",
        "1000",
        "--max-client-creations-per-minute",
        "1000",
        "--max-connections-per-client",
        "1000",
    )
    groups: list[QuotaGroup] = []
    if quota is not None:
        groups, why_not = make_groups(processes, quota, period_ms=period_ms)
        if why_not is not None:
            raise SystemExit(f"--cpu-quota: {why_not}")
    procs = [start_server(db, extra=extra, prefix=g.join_command()) for g in groups] or [
        start_server(db, extra=extra) for _ in range(processes)
    ]
    try:
        for proc, url in procs:
            wait_until_ready(url)
            asyncio.run(warm_up(url))  # the first analysis starts the analyses' solver processes
            wait_for_quiet_children(proc.pid)  # the solver processes' start-up is not part of the measurement
        for group in groups:
            group.apply_quota()
        cpu_before = [process_tree_cpu_seconds(proc.pid) for proc, _url in procs]
        own_before = [own_cpu_seconds(proc.pid) for proc, _url in procs]
        throttled_before = [g.throttled() for g in groups]
        with (
            solvers_kept_apart(groups, [proc.pid for proc, _url in procs]),
            ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as child,
            SpeedProbe() as probe,
        ):
            folder = None if load_group is None else str(load_group.path)
            summary = child.submit(
                niced_load, [url for _p, url in procs], per_process, seconds, affinity, folder
            ).result()
        used = [process_tree_cpu_seconds(proc.pid) - b for (proc, _url), b in zip(procs, cpu_before)]
        own = [own_cpu_seconds(proc.pid) - b for (proc, _url), b in zip(procs, own_before)]
        summary["affinity"] = affinity
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
        if groups:
            summary.update(quota_use(groups, used, own, throttled_before, summary["seconds"]))
        return summary
    finally:
        for group in groups:
            group.lift_quota()
        for proc, _url in procs:
            stop_server(proc)
        for group in groups:
            group.remove()


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
    parser.add_argument("--db-url", default=None, help="an empty PostgreSQL database to use (default: a throwaway one)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.tables_per_process < 1 or args.seconds <= 0 or args.repeats < 1:
        parser.error("--tables-per-process, --seconds and --repeats must be positive")
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
                    run = bench_setup(
                        url,
                        processes,
                        args.tables_per_process,
                        args.seconds,
                        affinity,
                        quota,
                        load_group,
                        args.quota_period_ms,
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
