"""The ``server_scale`` benchmark's load: tables of three people driven as fast as they go, from a process of its
own (``niced_load``), with or without table affinity (``owner_of``), and the one-deal warm-up of each server."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import websockets

from benchmarks.bench_server import percentile
from benchmarks.raw_http import KeepAlive
from tribridge.testing import next_presser, ws_token_message

__all__ = [
    "HUMANS",
    "LOAD_NICENESS",
    "MadeTable",
    "Samples",
    "make_tables",
    "niced_load",
    "owner_of",
    "play_table",
    "warm_up",
]

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


async def run_load(
    urls: list[str], per_process: int, seconds: float, affinity: bool, start_at: float | None = None
) -> dict[str, Any]:
    """Drive ``per_process`` tables a server on the servers at ``urls`` for ``seconds`` (from the wall-clock time
    ``start_at`` once the tables are made, if given); the summary."""
    out = Samples()
    made = await make_tables(urls, per_process, affinity)
    tables = len(made)
    late_s = 0.0 if start_at is None else time.time() - start_at
    if late_s < 0:
        await asyncio.sleep(-late_s)
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
        "started_late_s": round(max(0.0, late_s), 2),
    }


LOAD_NICENESS = 10  # the load generator yields the cores to the servers and the database


def niced_load(
    urls: list[str],
    per_process: int,
    seconds: float,
    affinity: bool,
    group: str | None = None,
    start_at: float | None = None,
) -> dict[str, Any]:
    """(In a child process.) Join the cgroup folder ``group`` if given, else lower this process's CPU priority; drive
    the tables (``run_load``); the summary and its own CPU."""
    if group is not None:
        Path(group, "cgroup.procs").write_text(str(os.getpid()))
    else:
        os.nice(LOAD_NICENESS)
    before = resource.getrusage(resource.RUSAGE_SELF)
    summary = asyncio.run(run_load(urls, per_process, seconds, affinity, start_at))
    after = resource.getrusage(resource.RUSAGE_SELF)
    used = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    summary["load_generator_cpu_s"] = round(used, 2)
    return summary
