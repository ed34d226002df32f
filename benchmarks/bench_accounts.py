"""Benchmark: logins cost bounded CPU, and a password-guessing flood does not stall the page.

    .venv/bin/python -m benchmarks accounts                  # about a minute
    .venv/bin/python -m benchmarks accounts --json --out benchmarks/results/accounts.json

One `tribridge serve` (SQLite, behind a trusted proxy: ``--forwarded-allow-ips 127.0.0.1``). First the server's
CPU per login: ``--logins`` right-password logins one after another, the server's CPU seconds (process tree)
divided by their number, and the median wall time of one. Then the page load: the lobby's page and its files
(``/``, ``style.css``, ``app.js``, ``lobby.js``, ``api.js``) and ``GET /api/account`` with a session cookie,
one after another, ``--loads`` times in each of ``--rounds`` alternating rounds, idle (the baseline) and while ``--clients`` clients post wrong passwords
as fast as they can, each attempt from another forwarded address and for another username (so no limit stops
it before the hash: the worst case for the hash pool; the pool's bounded queue answers the excess with 429).
Reported: medians and 90th percentiles of the page load, the ratio of the medians (target: within x3), and
the attackers' attempts per second with their answers by status.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks.bench_server import process_tree_cpu_seconds, start_server, stop_server

TARGET_RATIO = 3.0
PAGE_FILES = ("/", "/style.css", "/app.js", "/lobby.js", "/api.js")
PASSWORD = "the benchmark's own passphrase"


async def sign_up(client: httpx.AsyncClient) -> None:
    """The benchmark's account (its session cookie stays in ``client``)."""
    answer = await client.post("/api/accounts", json={"username": "bench_user", "password": PASSWORD})
    answer.raise_for_status()


async def login_cost(url: str, pid: int, logins: int) -> dict[str, Any]:
    """CPU seconds of the server per right-password login, and the median wall time of one."""
    walls = []
    async with httpx.AsyncClient(base_url=url, headers={"Origin": url}, timeout=60) as client:
        before = process_tree_cpu_seconds(pid)
        for _ in range(logins):
            start = time.perf_counter()
            answer = await client.post("/api/session", json={"username": "bench_user", "password": PASSWORD})
            walls.append(time.perf_counter() - start)
            answer.raise_for_status()
        cpu = process_tree_cpu_seconds(pid) - before
    return {
        "logins": logins,
        "cpu_s_per_login": round(cpu / logins, 4),
        "median_wall_s": round(statistics.median(walls), 4),
    }


async def page_loads(client: httpx.AsyncClient, loads: int) -> list[float]:
    """Seconds for each full page load (its files, then the account), one after another."""
    times = []
    for _ in range(loads):
        start = time.perf_counter()
        for path in PAGE_FILES:
            (await client.get(path)).raise_for_status()
        (await client.get("/api/account")).raise_for_status()
        times.append(time.perf_counter() - start)
    return times


async def guess(url: str, stop: asyncio.Event, counts: dict[int, int], seed: int) -> None:
    """Wrong passwords as fast as the server answers, each from another address and for another username."""
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=url, headers={"Origin": url}, timeout=60) as client:
        while not stop.is_set():
            address = f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}"
            body = {"username": f"victim{rng.randrange(10**6)}", "password": f"guess {rng.random()}"}
            answer = await client.post("/api/session", json=body, headers={"X-Forwarded-For": address})
            counts[answer.status_code] = counts.get(answer.status_code, 0) + 1


def summary(times: list[float]) -> dict[str, float]:
    """Median and 90th percentile in milliseconds."""
    ordered = sorted(times)
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 2),
        "p90_ms": round(ordered[int(0.9 * (len(ordered) - 1))] * 1000, 2),
    }


async def measure(url: str, pid: int, args: argparse.Namespace) -> dict[str, Any]:
    """Every case of one run, on one server."""
    async with httpx.AsyncClient(base_url=url, headers={"Origin": url}, timeout=60) as page:
        await sign_up(page)
        cost = await login_cost(url, pid, args.logins)
        await page_loads(page, 3)  # warm
        idle: list[float] = []
        flooded: list[float] = []
        counts: dict[int, int] = {}
        elapsed = 0.0
        for _ in range(args.rounds):  # alternating, so a drift of the machine's other load hits both cases alike
            idle += await page_loads(page, args.loads)
            stop = asyncio.Event()
            attackers = [asyncio.create_task(guess(url, stop, counts, n)) for n in range(args.clients)]
            await asyncio.sleep(1.0)  # the flood reaches its pace
            start = time.perf_counter()
            flooded += await page_loads(page, args.loads)
            await asyncio.sleep(max(0.0, 2.0 - (time.perf_counter() - start)))  # let the guesses be counted a while
            elapsed += time.perf_counter() - start + 1.0
            stop.set()
            await asyncio.gather(*attackers)
    ratio = statistics.median(flooded) / statistics.median(idle)
    return {
        "login": cost,
        "page_idle": summary(idle),
        "page_under_guessing": summary(flooded),
        "ratio_of_medians": round(ratio, 2),
        "target_ratio": TARGET_RATIO,
        "within_target": ratio <= TARGET_RATIO,
        "guessing_clients": args.clients,
        "guesses_per_s": round(sum(counts.values()) / max(elapsed, 1e-9), 1),
        "guess_answers": {str(k): v for k, v in sorted(counts.items())},
        "loads": args.loads * args.rounds,
    }


def main(argv: list[str]) -> int:
    """Run the benchmark; print (and optionally write) its figures."""
    parser = argparse.ArgumentParser(prog="benchmarks accounts", description=__doc__.split("\n\n")[0])
    parser.add_argument("--logins", type=int, default=20)
    parser.add_argument("--loads", type=int, default=30)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        proc, url = start_server(Path(folder) / "bench.sqlite", extra=("--forwarded-allow-ips", "127.0.0.1"))
        try:
            result = asyncio.run(measure(url, proc.pid, args))
        finally:
            stop_server(proc)
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.write_text(text + "\n")
    if args.json:
        print(text)
    else:
        login = result["login"]
        print(
            f"login: {login['cpu_s_per_login']} s CPU each, median {login['median_wall_s']} s ({login['logins']} logins)"
        )
        print(
            f"page load idle: {result['page_idle']}; while {args.clients} clients guess: {result['page_under_guessing']}"
        )
        print(
            f"ratio of medians {result['ratio_of_medians']} (target <= {TARGET_RATIO}); guesses {result['guesses_per_s']}/s, answers {result['guess_answers']}"
        )
    return 0
