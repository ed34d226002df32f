"""Benchmark: the server on loopback (a `tribridge serve` subprocess). Bounded and self-stopping.

    .venv/bin/python -m benchmarks server bid              # /apis/brill/bid at 20 concurrent clients
    .venv/bin/python -m benchmarks server play             # /apis/brill/play with 32 layouts
    .venv/bin/python -m benchmarks server tables           # 50 three-bot tables for 60 s, then the store is checked
    .venv/bin/python -m benchmarks server all --json

Targets (issue 7): /bid median <= 5 ms and p99 <= 50 ms at 20 concurrent clients (Creole: about
15 ms a call); /play with 32 layouts median <= 250 ms; 50 concurrent three-player bot tables for
60 s with no errors and no lost or duplicated actions. Baselines in the same run: /healthz at the
same concurrency (the HTTP floor) for /bid, and the same PIMC call in-process (no HTTP) for /play.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tribridge.testing import start_server as launch_server
from tribridge.testing import ws_token_message


def start_server(
    db: Path | str, bot_delay: float = 0.0, extra: tuple[str, ...] = (), prefix: Sequence[str] = ()
) -> tuple[subprocess.Popen, str]:
    """Start `tribridge serve` on a free port, quietly (through the command ``prefix``, if any); the process and its
    URL once /healthz answers."""
    return launch_server(db, *extra, bot_delay=bot_delay, log_level="warning", prefix=prefix)


def stop_server(proc: subprocess.Popen) -> tuple[int, str]:
    """SIGTERM (graceful shutdown); returns the exit status and stderr."""
    proc.send_signal(signal.SIGTERM)
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    return proc.returncode, err


def process_tree_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of ``pid`` and every live descendant (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = {}
    times: dict[int, float] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        children.setdefault(int(fields[1]), []).append(int(entry))
        times[int(entry)] = (int(fields[11]) + int(fields[12])) / tick
    total, todo = 0.0, [pid]
    while todo:
        p = todo.pop()
        total += times.get(p, 0.0)
        todo += children.get(p, [])
    return total


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (0..100) of ``values``."""
    return float(np.percentile(np.asarray(values), q))


# ---------------------------------------------------------------------------------------------- bid


def bid_requests(count: int, seed: int) -> list[dict[str, str]]:
    """Realistic /bid requests: positions from natural4 self-play auctions on random deals."""
    from tribridge.cards import SEAT_CHARS, random_deal
    from tribridge.four.natural4 import Bid4View, bid
    from tribridge.four.rules import Auction4, to_brill

    rng = np.random.default_rng(seed)
    out: list[dict[str, str]] = []
    while len(out) < count:
        deal = random_deal(rng)
        dealer = int(rng.integers(4))
        auction = Auction4(dealer)
        while not auction.is_over and len(out) < count:
            seat = auction.turn
            out.append(
                {
                    "seat": SEAT_CHARS[seat],
                    "dealer": SEAT_CHARS[dealer],
                    "vul": "None",
                    "ctx": "".join(to_brill(c) for c in auction.calls),
                    "hand": deal[seat].to_pbn(),
                }
            )
            auction = auction.apply(bid(Bid4View(seat, dealer, "None", tuple(deal[seat].cards), auction)))
    return out


class RawHttpClient:
    """A minimal HTTP/1.1 keep-alive GET client on asyncio streams.

    httpx costs about a millisecond of CPU per request, which on a 2-core machine running the
    server too is of the same order as what is measured; this client costs a few microseconds.
    """

    def __init__(self, url: str) -> None:
        from urllib.parse import urlsplit

        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def __aenter__(self) -> RawHttpClient:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        return self

    async def __aexit__(self, *exc: Any) -> None:
        if self.writer is not None:
            self.writer.close()

    async def get(self, path: str, params: dict[str, str] | None = None) -> tuple[int, bytes]:
        """One GET; returns (status, body)."""
        from urllib.parse import urlencode

        target = path + ("?" + urlencode(params) if params else "")
        assert self.reader is not None and self.writer is not None
        self.writer.write(f"GET {target} HTTP/1.1\r\nHost: {self.host}\r\n\r\n".encode())
        await self.writer.drain()
        status = int((await self.reader.readline()).split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode("latin-1").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value)
        return status, await self.reader.readexactly(length)


async def _load(
    url: str, path: str, requests: list[dict[str, str]], clients: int, pace: float = 0.0, client_kind: str = "raw"
) -> tuple[list[float], int]:
    """Send ``requests`` over ``clients`` concurrent connections; per-request latencies (s) and error count.

    ``pace`` 0: closed loop (each client sends its next request as soon as the last is answered,
    so the server is saturated); ``pace`` > 0: each client starts a request every ``pace`` seconds.
    ``client_kind``: ``raw`` (:class:`RawHttpClient`) or ``httpx``.
    """
    import httpx

    queue: asyncio.Queue[dict[str, str]] = asyncio.Queue()
    for r in requests:
        queue.put_nowait(r)
    latencies: list[float] = []
    errors = 0

    def open_client() -> Any:
        return RawHttpClient(url) if client_kind == "raw" else httpx.AsyncClient(base_url=url, timeout=30)

    async def worker() -> None:
        nonlocal errors
        async with open_client() as client:
            next_start = time.perf_counter() + pace * np.random.default_rng().random()
            while True:
                if pace:
                    await asyncio.sleep(max(0.0, next_start - time.perf_counter()))
                    next_start += pace
                try:
                    params = queue.get_nowait()
                except asyncio.QueueEmpty:
                    return
                t0 = time.perf_counter()
                r = await client.get(path, params=params)
                latencies.append(time.perf_counter() - t0)
                status = r[0] if isinstance(r, tuple) else r.status_code
                if status != 200:
                    errors += 1

    await asyncio.gather(*(worker() for _ in range(clients)))
    return latencies, errors


def bench_bid(
    url: str,
    server_pid: int,
    clients: int = 20,
    requests: int = 2000,
    repeats: int = 3,
    seed: int = 1,
    pace_ms: float = 100.0,
    client_kind: str = "raw",
) -> dict[str, Any]:
    """Latency of /apis/brill/bid and of /healthz at the same concurrency (medians of repeats), paced and saturated,
    and the server's CPU time per request (``server_pid`` and its children; user + system, so time stolen from
    this machine by other guests of its host counts in the latencies but not in it)."""

    def cpu() -> float:
        return process_tree_cpu_seconds(server_pid)

    reqs = bid_requests(requests, seed)
    asyncio.run(_load(url, "/apis/brill/bid", reqs[:200], clients, 0.0, client_kind))  # warm-up
    out: dict[str, Any] = {"clients": clients, "requests_per_run": requests, "repeats": repeats, "client": client_kind}
    for mode, pace in (("paced", pace_ms / 1000.0), ("saturated", 0.0)):
        runs = []
        for _ in range(repeats):
            t0, c0 = time.perf_counter(), cpu()
            bid_lat, bid_err = asyncio.run(_load(url, "/apis/brill/bid", reqs, clients, pace, client_kind))
            wall, c1 = time.perf_counter() - t0, cpu()
            base_lat, base_err = asyncio.run(_load(url, "/healthz", [{}] * requests, clients, pace, client_kind))
            c2 = cpu()
            runs.append(
                {
                    "server_cpu_ms_per_bid": (c1 - c0) / len(bid_lat) * 1e3,
                    "server_cpu_ms_per_healthz": (c2 - c1) / len(base_lat) * 1e3,
                    "bid_median_ms": statistics.median(bid_lat) * 1e3,
                    "bid_p99_ms": percentile(bid_lat, 99) * 1e3,
                    "healthz_median_ms": statistics.median(base_lat) * 1e3,
                    "healthz_p99_ms": percentile(base_lat, 99) * 1e3,
                    "bid_per_second": len(bid_lat) / wall,
                    "errors": bid_err + base_err,
                }
            )
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        out[mode] = {
            **(
                {"pace_ms_per_client": pace_ms, "offered_per_second": round(clients / (pace_ms / 1000.0), 1)}
                if pace
                else {}
            ),
            **{k: round(v, 3) for k, v in med.items()},
            "ratio_bid_to_healthz_median": round(med["bid_median_ms"] / med["healthz_median_ms"], 3),
            "meets_target": med["bid_median_ms"] <= 5 and med["bid_p99_ms"] <= 50,
        }
    out["target"] = "median <= 5 ms, p99 <= 50 ms at 20 concurrent clients"
    out["anchor"] = "Creole: about 15 ms a call (model card; not run here)"
    return out


# --------------------------------------------------------------------------------------------- play


def play_positions(count: int, seed: int, lead: bool = False) -> list[dict[str, Any]]:
    """Mid-play positions from real auctions (natural4) and random legal play, with the request parameters."""
    from tribridge.cards import SEAT_CHARS, random_deal
    from tribridge.four.natural4 import Bid4View, bid
    from tribridge.four.rules import Auction4, to_brill
    from tribridge.rules.auction import Contract, Denom
    from tribridge.rules.play import PlayState

    rng = np.random.default_rng(seed)
    out: list[dict[str, Any]] = []
    while len(out) < count:
        deal = random_deal(rng)
        dealer = int(rng.integers(4))
        auction = Auction4(dealer)
        while not auction.is_over:
            seat = auction.turn
            auction = auction.apply(bid(Bid4View(seat, dealer, "None", tuple(deal[seat].cards), auction)))
        if auction.passed_out:
            continue
        c4 = auction.contract
        state = PlayState.start(deal, Contract(c4.level, Denom(c4.strain), c4.doubling, c4.declarer))
        for _ in range(0 if lead else int(rng.integers(1, 44))):
            legal = state.legal_cards()
            state = state.apply(legal[int(rng.integers(len(legal)))])
        turn = int(state.turn)
        asker = c4.declarer if turn == c4.dummy else turn
        out.append(
            {
                "params": {
                    "seat": SEAT_CHARS[asker],
                    "dealer": SEAT_CHARS[dealer],
                    "vul": "None",
                    "ctx": "".join(to_brill(c) for c in auction.calls),
                    "hand": deal[asker].to_pbn(),
                    "dummy": deal[c4.dummy].to_pbn(),
                    "played": "".join(str(c) for c in state.played),
                },
                "inproc": (
                    deal[asker].cards,
                    asker,
                    c4.declarer,
                    c4.trump,
                    [c.index for c in state.played],
                    deal[c4.dummy].cards,
                ),
            }
        )
    return out


def bench_play(url: str, positions: int = 32, repeats: int = 3, seed: int = 2) -> dict[str, Any]:
    """/apis/brill/play latency with the server's 32 layouts, against the same PIMC call in-process."""
    import httpx

    from tribridge.four.play import pimc_decide_four_handed

    cases = play_positions(positions, seed)
    http_runs, inproc_runs, errors = [], [], 0
    with httpx.Client(base_url=url, timeout=120) as client:
        client.get("/apis/brill/play", params=cases[0]["params"])  # warm-up (numba, DDS)
        for _ in range(repeats):
            lat, base = [], []
            for case in cases:
                t0 = time.perf_counter()
                r = client.get("/apis/brill/play", params=case["params"])
                lat.append(time.perf_counter() - t0)
                errors += r.status_code != 200
                hand, asker, declarer, trump, played, dummy = case["inproc"]
                t0 = time.perf_counter()
                pimc_decide_four_handed(hand, asker, declarer, trump, played, dummy, layouts=32)
                base.append(time.perf_counter() - t0)
            http_runs.append(statistics.median(lat))
            inproc_runs.append(statistics.median(base))
    med_http = statistics.median(http_runs) * 1e3
    med_base = statistics.median(inproc_runs) * 1e3
    leads = play_positions(max(4, positions // 4), seed + 1, lead=True)
    lead_lat = []
    with httpx.Client(base_url=url, timeout=120) as client:
        for case in leads:
            params = {k: v for k, v in case["params"].items() if k not in ("played", "dummy")}
            t0 = time.perf_counter()
            r = client.get("/apis/brill/lead", params=params)
            lead_lat.append(time.perf_counter() - t0)
            errors += r.status_code != 200
    return {
        "lead_positions": len(leads),
        "lead_median_ms": round(statistics.median(lead_lat) * 1e3, 2),
        "positions": positions,
        "layouts": 32,
        "repeats": repeats,
        "errors": errors,
        "play_median_ms": round(med_http, 2),
        "inprocess_pimc_median_ms": round(med_base, 2),
        "ratio_http_to_inprocess": round(med_http / med_base, 3) if med_base else None,
        "target": "median <= 250 ms",
        "meets_target": med_http <= 250,
    }


# ------------------------------------------------------------------------------------------- tables


def watch(url: str, table_id: str, token: str, stop: Any) -> None:
    """Follow a table over its WebSocket until ``stop`` is set (a table of three bots plays only while watched)."""
    from websockets.exceptions import WebSocketException
    from websockets.sync.client import connect

    ws_url = url.replace("http://", "ws://") + f"/api/tables/{table_id}/ws"
    try:
        with connect(ws_url, max_size=None) as ws:
            ws.send(ws_token_message(token))
            while not stop.is_set():
                try:
                    ws.recv(timeout=0.5)
                except TimeoutError:
                    continue
    except (OSError, WebSocketException):
        return


def bench_tables(
    db_dir: Path, tables: int = 50, seconds: float = 60.0, bot: str = "random", bot_delay: float = 0.0
) -> dict[str, Any]:
    """Many watched three-bot tables at once for ``seconds``; then the store is checked and replayed by a restarted server."""
    import threading

    import httpx

    from tribridge.server.store import Store

    db = db_dir / "tables.sqlite"
    limits = ("--max-tables-per-client", str(tables), "--max-client-creations-per-minute", str(tables))
    proc, url = start_server(db, bot_delay=bot_delay, extra=limits)
    ids = []
    errors = 0
    stop = threading.Event()
    watchers = []
    try:
        with httpx.Client(base_url=url, timeout=30) as client:
            for i in range(tables):
                r = client.post("/api/tables", json={"chairs": [{"kind": "bot", "bot": bot}] * 3, "seed": 1000 + i})
                if r.status_code != 200:
                    errors += 1
                    continue
                ids.append(r.json()["table_id"])
                watchers.append(threading.Thread(target=watch, args=(url, ids[-1], r.json()["watch_token"], stop)))
                watchers[-1].start()
            t_end = time.time() + seconds
            while time.time() < t_end and proc.poll() is None:
                time.sleep(min(1.0, max(0.0, t_end - time.time())))
            stop.set()
            for thread in watchers:
                thread.join(10)
            seen = {}
            for tid in ids:
                r = client.get(f"/api/tables/{tid}")
                errors += r.status_code != 200
                seen[tid] = r.json().get("version", -1) if r.status_code == 200 else -1
    finally:
        code, err = stop_server(proc)
    error_lines = [line for line in err.splitlines() if '"level": "error"' in line]
    store = Store(db)
    counts = store.action_counts()
    problems = [p for tid in ids for p in store.check_log(tid)]
    store.close()
    lost = [tid for tid in ids if counts.get(tid, 0) + 1 < seen[tid]]  # version = actions + the watcher's token
    # restart on the same store (bots held back): every table replays through the rules, so a
    # duplicated or impossible action would fail, and the replayed version must equal the log
    proc2, url2 = start_server(db, bot_delay=3600.0)
    replay_mismatch = []
    try:
        with httpx.Client(base_url=url2, timeout=30) as client:
            for tid in ids:
                r = client.get(f"/api/tables/{tid}")
                if r.status_code != 200 or r.json()["version"] != counts.get(tid, 0) + 1:  # + the watcher's token
                    replay_mismatch.append(tid)
    finally:
        code2, err2 = stop_server(proc2)
    total_actions = sum(counts.get(t, 0) for t in ids)
    return {
        "tables": len(ids),
        "seconds": seconds,
        "bot": bot,
        "bot_delay": bot_delay,
        "actions_committed": total_actions,
        "actions_per_second": round(total_actions / seconds, 1),
        "deals_estimate": round(total_actions / 56, 1),
        "request_errors": errors,
        "server_error_log_lines": len(error_lines),
        "log_problems": problems[:5],
        "tables_with_lost_actions": len(lost),
        "tables_not_replayed_exactly": len(replay_mismatch),
        "exit_status": [code, code2],
        "ok": not (errors or error_lines or problems or lost or replay_mismatch) and code == 0 and code2 == 0,
        "error_samples": error_lines[:3],
    }


# --------------------------------------------------------------------------------------------- main


def print_results(results: dict[str, Any], as_json: bool) -> None:
    """Stamp the load average at the end into ``results["machine"]`` and print them (JSON or one line per key)."""
    results["machine"]["loadavg_at_end"] = os.getloadavg()
    if as_json:
        print(json.dumps(results, indent=2))
        return
    for name, res in results.items():
        print(f"== {name}")
        for k, v in res.items():
            print(f"  {k}: {v}")


def main(argv: list[str] | None = None) -> int:
    """Run the server benchmarks and print a summary (``--json`` for machine-readable output)."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks server", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("which", choices=["bid", "play", "tables", "all"], nargs="?", default="all")
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--requests", type=int, default=2000, help="/bid requests per repeat")
    parser.add_argument(
        "--pace-ms", type=float, default=100.0, help="paced /bid mode: each client starts a request every this many ms"
    )
    parser.add_argument("--positions", type=int, default=32, help="/play positions per repeat")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--bot",
        default="random",
        help="bot for the table load (default random: cheap, so the server is what is measured)",
    )
    parser.add_argument("--bot-delay", type=float, default=0.0)
    parser.add_argument(
        "--client",
        choices=["raw", "httpx"],
        default="raw",
        help="load-generator HTTP client for /bid (raw: minimal asyncio client; httpx: heavier)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    results: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "loadavg_at_start": os.getloadavg()}}
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        if args.which in ("bid", "play", "all"):
            proc, url = start_server(tmp_path / "robot.sqlite")
            try:
                if args.which in ("bid", "all"):
                    results["bid"] = bench_bid(
                        url,
                        proc.pid,
                        args.clients,
                        args.requests,
                        args.repeats,
                        pace_ms=args.pace_ms,
                        client_kind=args.client,
                    )
                if args.which in ("play", "all"):
                    results["play"] = bench_play(url, args.positions, args.repeats)
            finally:
                stop_server(proc)
        if args.which in ("tables", "all"):
            results["tables"] = bench_tables(tmp_path, args.tables, args.seconds, args.bot, args.bot_delay)
    print_results(results, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
