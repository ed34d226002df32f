"""Benchmark: the server past one process. Human tables driven as fast as they go, on three set-ups in one run.

    .venv/bin/python -m benchmarks server_scale                    # 12 tables, 20 s per set-up
    .venv/bin/python -m benchmarks server_scale --tables 30 --seconds 30 --json
    .venv/bin/python -m benchmarks server_scale --db-url postgresql://me@localhost/bench   # an existing database

Set-ups: one `tribridge serve` on an SQLite file; one on PostgreSQL; two on the same PostgreSQL
database. Each table has three people, each with a WebSocket; with two processes the chairs' sockets
and the actions alternate between them (no sticky sessions), so most pushes cross processes. A
table's driver sends the action of the chair on turn (the opener bids 1NT, the others pass, then
each card is the first legal one; ``next`` after the last trick), waits for the push of the new view
to the chair that acts next, and acts again. Measured: actions acknowledged per second (all tables),
acknowledgement latency (POST to answer) p50 and p99, and push latency (POST sent to the push of
that version arriving on another chair's socket) p50 and p99, split into pushes from the process
that took the action and pushes from the other process; the processor time of the servers (per action)
and of the load generator, which runs in a process of its own at a lower CPU priority (nice 10). Without ``--db-url`` a throwaway
PostgreSQL is started from Debian's binaries (``apt-get install postgresql``) in a temporary folder.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import resource
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import websockets

from benchmarks.bench_server import percentile, print_results, process_tree_cpu_seconds, start_server, stop_server
from benchmarks.bench_server_load import wait_until_ready
from benchmarks.raw_http import KeepAlive
from tribridge.testing import PgServer, next_presser, pg_bin_dir, ws_token_message

HUMANS = [{"kind": "human"}] * 3


@dataclass
class Samples:
    """Latencies in seconds, and the count of acknowledged actions."""

    actions: int = 0
    ack: list[float] = field(default_factory=list)
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


async def drive(urls: list[str], index: int, until: float, out: Samples) -> None:
    """Create one table, take its chairs, open its three sockets and play until ``until`` (a keep-alive HTTP
    connection to each process)."""
    links = [KeepAlive(url) for url in urls]
    try:
        await play_table(urls, links, index, until, out)
    finally:
        for link in links:
            await link.close()


async def play_table(urls: list[str], links: list[KeepAlive], index: int, until: float, out: Samples) -> None:
    """``drive``'s table: created on the first process, chairs and actions spread over all of them."""
    status, made = await links[0].request("POST", "/api/tables", {"chairs": HUMANS, "take": 0})
    if status != 200:
        raise RuntimeError(f"table not created ({status}): {made}")
    table_id, tokens = made["table_id"], [made["token"]]
    for chair in (1, 2):
        status, taken = await links[(index + chair) % len(urls)].request(
            "POST", f"/api/tables/{table_id}/seats/{chair}"
        )
        tokens.append(taken["token"])
    chairs = [Chair(tokens[c], (index + c) % len(urls)) for c in range(3)]
    sent: dict[int, tuple[float, int]] = {}
    readers = [asyncio.create_task(follow(urls[c.process], table_id, c, sent, out)) for c in chairs]
    try:
        auth = {"authorization": f"Bearer {tokens[0]}"}
        _status, first = await links[0].request("GET", f"/api/tables/{table_id}/state", headers=auth)
        actor, version, step = first["turn_chair"], first["version"], 0
        while time.perf_counter() < until:
            chair = chairs[actor]
            while chair.view.get("version", -1) < version:  # the push of the newest view to the chair on turn
                chair.fresh.clear()
                await asyncio.wait_for(chair.fresh.wait(), 30)
            process = (index + step) % len(urls)
            step += 1
            sent[version + 1] = (time.perf_counter(), process)
            start = time.perf_counter()
            status, answer = await links[process].request(
                "POST",
                f"/api/tables/{table_id}/actions",
                next_move(chair.view),
                {"authorization": f"Bearer {chair.token}"},
            )
            if status != 200:
                raise RuntimeError(f"action refused ({status}): {answer}")
            out.ack.append(time.perf_counter() - start)
            out.actions += 1
            version = answer["version"]
            actor = next_presser(answer) if answer["phase"] == "done" else answer["turn_chair"]
    finally:
        for task in readers:
            task.cancel()
        await asyncio.gather(*readers, return_exceptions=True)


async def run_load(urls: list[str], tables: int, seconds: float) -> dict[str, Any]:
    """Drive ``tables`` tables on the servers at ``urls`` for ``seconds``; the summary."""
    out = Samples()
    until = time.perf_counter() + seconds
    started = time.perf_counter()
    await asyncio.gather(*(drive(urls, i, until, out) for i in range(tables)))
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
        "push_same_process_p50_ms": ms(out.push_same, 50),
        "push_same_process_p99_ms": ms(out.push_same, 99),
        "push_cross_process_p50_ms": ms(out.push_cross, 50),
        "push_cross_process_p99_ms": ms(out.push_cross, 99),
        "pushes_timed": len(out.push_same) + len(out.push_cross),
        "actions": out.actions,
    }


LOAD_NICENESS = 10  # the load generator yields the cores to the servers and the database


def niced_load(urls: list[str], tables: int, seconds: float) -> dict[str, Any]:
    """(In a child process.) Lower this process's CPU priority, drive the tables; the summary and its own CPU."""
    os.nice(LOAD_NICENESS)
    before = resource.getrusage(resource.RUSAGE_SELF)
    summary = asyncio.run(run_load(urls, tables, seconds))
    after = resource.getrusage(resource.RUSAGE_SELF)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary["load_generator_cpu_s"] = round(used, 2)
    return summary


def bench_setup(db: str, processes: int, tables: int, seconds: float) -> dict[str, Any]:
    """Start ``processes`` servers on ``db``, drive the tables from a niced process, stop them; the summary."""
    extra = (
        "--max-tables-per-client",
        "1000",
        "--max-client-creations-per-minute",
        "1000",
        "--max-connections-per-client",
        "1000",
    )
    procs = [start_server(db, extra=extra) for _ in range(processes)]
    try:
        for _proc, url in procs:
            wait_until_ready(url)  # the solver processes' start-up is not part of the measurement
        cpu_before = [process_tree_cpu_seconds(proc.pid) for proc, _url in procs]
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as child:
            summary = child.submit(niced_load, [url for _p, url in procs], tables, seconds).result()
        used = sum(process_tree_cpu_seconds(proc.pid) - b for (proc, _url), b in zip(procs, cpu_before))
        summary["servers_cpu_s"] = round(used, 2)
        summary["server_cpu_ms_per_action"] = round(1000 * used / max(1, summary["actions"]), 2)
        return summary
    finally:
        for proc, _url in procs:
            stop_server(proc)


def main(argv: list[str] | None = None) -> int:
    """Run the three set-ups and print the results."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks server_scale",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--tables", type=int, default=12)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--db-url", default=None, help="an empty PostgreSQL database to use (default: a throwaway one)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "loadavg_at_start": os.getloadavg()}}
    with tempfile.TemporaryDirectory() as folder:
        results["sqlite_1_process"] = bench_setup(str(Path(folder) / "bench.sqlite"), 1, args.tables, args.seconds)
    pg = None
    if args.db_url is None:
        bin_dir = pg_bin_dir()
        if bin_dir is None:
            raise SystemExit("PostgreSQL's binaries are missing: apt-get install postgresql, or give --db-url")
        pg = PgServer(bin_dir, fsync=True).start()
    try:
        for processes in (1, 2):
            url = args.db_url if args.db_url is not None and processes == 1 else None
            if url is None:
                url = args.db_url if pg is None else pg.new_database()
            results[f"postgres_{processes}_process{'es' if processes > 1 else ''}"] = bench_setup(
                url, processes, args.tables, args.seconds
            )
    finally:
        if pg is not None:
            pg.stop()
    sqlite, pg1, pg2 = (
        results[k]["actions_per_s"] for k in ("sqlite_1_process", "postgres_1_process", "postgres_2_processes")
    )
    results["ratios"] = {
        "postgres_1_vs_sqlite": round(pg1 / sqlite, 3) if sqlite else None,
        "postgres_2_vs_postgres_1": round(pg2 / pg1, 3) if pg1 else None,
    }
    print_results(results, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
