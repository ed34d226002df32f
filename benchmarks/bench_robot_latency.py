"""Benchmark: robot answers never starve. /apis/brill/lead and /play latency idle, then beside CPU-bound processes.

    .venv/bin/python -m benchmarks robot_latency                 # idle, hogs, tables; about two minutes
    .venv/bin/python -m benchmarks robot_latency --hogs 6 --json --out benchmarks/results/robot_latency.json

One `tribridge serve` (SQLite, its solver processes at their ordinary ``nice``) answers the same lead and play
requests, one at a time, in three cases of one run: idle (the baseline); beside ``--hogs`` CPU-bound
processes at ``nice`` 0 started from this benchmark's own session and scheduling group (default: the cores
plus one, so there are more runnable processes than cores, as a server's own bots would be under a service
manager); and beside ``--tables`` busy tables of a person and two PIMC bots (the person's chair played by this
benchmark). Reported per case and endpoint: median and worst latency, 503s (the robot deadline said so) and
requests left without any answer; ratios of medians to idle. Target: within x5 of idle, and no request past its
deadline without an answer.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks.bench_server import play_positions, start_server, stop_server
from benchmarks.bench_server_load import person_waits, wait_until_ready
from tribridge.server.robot import ROBOT_DEADLINE_SECONDS

TARGET_RATIO = 5.0
HOG = "while True: pass"


def robot_requests(count: int, seed: int) -> dict[str, list[dict[str, str]]]:
    """``count`` opening leads and ``count`` mid-play positions, as query parameters."""
    leads = [
        {k: v for k, v in p["params"].items() if k not in ("played", "dummy")}
        for p in play_positions(count, seed, lead=True)
    ]
    plays = [p["params"] for p in play_positions(count, seed + 1)]
    return {"/apis/brill/lead": leads, "/apis/brill/play": plays}


async def timed_answers(url: str, requests: dict[str, list[dict[str, str]]]) -> dict[str, dict[str, Any]]:
    """Each request once, one at a time: per endpoint the latencies of answers and the counts of 503s and silences."""
    out: dict[str, dict[str, Any]] = {}
    async with httpx.AsyncClient(base_url=url, timeout=ROBOT_DEADLINE_SECONDS + 20) as client:
        for path, cases in requests.items():
            latencies, busy, silent = [], 0, 0
            for params in cases:
                start = time.perf_counter()
                try:
                    answer = await client.get(path, params=params)
                except httpx.TimeoutException:
                    silent += 1
                    continue
                if answer.status_code == 503:
                    busy += 1
                elif answer.status_code != 200:
                    raise RuntimeError(f"{path} answered {answer.status_code}: {answer.text[:200]}")
                else:
                    latencies.append(time.perf_counter() - start)
            out[path] = {
                "answers": len(latencies),
                "median_s": round(statistics.median(latencies), 3) if latencies else None,
                "worst_s": round(max(latencies), 3) if latencies else None,
                "answered_503": busy,
                "no_answer": silent,
            }
    return out


def beside_hogs(url: str, requests: dict[str, list[dict[str, str]]], hogs: int) -> dict[str, dict[str, Any]]:
    """The requests while ``hogs`` CPU-bound processes at nice 0 run in this session."""
    spinners = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(hogs)]
    try:
        time.sleep(1.0)  # they are running
        return asyncio.run(timed_answers(url, requests))
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


async def _beside_tables(url: str, requests: dict[str, list[dict[str, str]]], tables: int) -> dict[str, Any]:
    people = [asyncio.create_task(person_waits(url, 10_000, 600.0, seed)) for seed in range(tables)]
    await asyncio.sleep(2.0)  # the bots are thinking
    try:
        return await timed_answers(url, requests)
    finally:
        for person in people:
            person.cancel()
        await asyncio.gather(*people, return_exceptions=True)


def ratios(case: dict[str, dict[str, Any]], idle: dict[str, dict[str, Any]]) -> dict[str, float | None]:
    """Median latency of each endpoint in ``case`` over its idle median."""
    out: dict[str, float | None] = {}
    for path, numbers in case.items():
        base, loaded = idle[path]["median_s"], numbers["median_s"]
        out[path] = round(loaded / base, 2) if base and loaded else None
    return out


def bench(requests_per_endpoint: int, hogs: int, tables: int, seed: int) -> dict[str, Any]:
    """The three cases on one server; ratios to idle and whether the target holds."""
    requests = robot_requests(requests_per_endpoint, seed)
    with tempfile.TemporaryDirectory() as tmp:
        proc, url = start_server(Path(tmp) / "robot.sqlite")
        try:
            wait_until_ready(url)
            asyncio.run(timed_answers(url, {p: c[:2] for p, c in requests.items()}))  # warm-up (numba, DDS)
            cases = {"idle": asyncio.run(timed_answers(url, requests))}
            cases["hogs"] = beside_hogs(url, requests, hogs)
            if tables:
                cases["tables"] = asyncio.run(_beside_tables(url, requests, tables))
        finally:
            stop_server(proc)
    out: dict[str, Any] = {
        "cores": os.cpu_count(),
        "load_average_1min_at_end": round(os.getloadavg()[0], 2),
        "hogs": hogs,
        "tables": tables,
        "requests_per_endpoint": requests_per_endpoint,
        "deadline_s": ROBOT_DEADLINE_SECONDS,
        "cases": cases,
        "ratio_to_idle": {name: ratios(case, cases["idle"]) for name, case in cases.items() if name != "idle"},
        "target": f"median within x{TARGET_RATIO:g} of idle; no request past its deadline without an answer",
    }
    within = all(r is not None and r <= TARGET_RATIO for case in out["ratio_to_idle"].values() for r in case.values())
    silent = sum(n["no_answer"] for case in cases.values() for n in case.values())
    out["meets_target"] = within and silent == 0
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print (or write) its result."""
    parser = argparse.ArgumentParser(prog="benchmarks robot_latency", description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=12, help="lead and play requests per case (default 12)")
    parser.add_argument("--hogs", type=int, default=(os.cpu_count() or 1) + 1, help="CPU-bound processes (cores+1)")
    parser.add_argument("--tables", type=int, default=4, help="busy person+PIMC tables in the third case (0: none)")
    parser.add_argument("--seed", type=int, default=5, help="seed of the positions (default 5)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--out", type=Path, help="also write the JSON result to this file")
    args = parser.parse_args(argv)
    if args.requests < 1 or args.hogs < 0 or args.tables < 0:
        parser.error("--requests must be >= 1, --hogs and --tables >= 0")
    result = bench(args.requests, args.hogs, args.tables, args.seed)
    text = json.dumps(result, indent=2)
    if args.out:
        args.out.write_text(text + "\n", encoding="utf-8")
    if args.json:
        print(text)
    else:
        for name, case in result["cases"].items():
            for path, numbers in case.items():
                ratio = result["ratio_to_idle"].get(name, {}).get(path)
                print(
                    f"{name:7} {path:18} median {numbers['median_s']} s  worst {numbers['worst_s']} s  "
                    f"503 {numbers['answered_503']}  silent {numbers['no_answer']}  x{ratio if ratio else 1}"
                )
        print(f"meets target: {result['meets_target']}")
    return 0 if result["meets_target"] else 1


if __name__ == "__main__":
    sys.exit(main())
