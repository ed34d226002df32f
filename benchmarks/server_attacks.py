"""The visitors the abuse case of ``bench_server_load`` sends at a server, and the two people it times meanwhile.

``all_floods`` runs the four floods together for a while (in a process of its own, so that the timed
people's client is not slowed by the load generator's own event loop).

Each coroutine runs until ``stop`` is set and counts what it got: a person acting at a three-person
table (each action's latency), the page loading (index and scripts), a history and export flood, slow
connections trickling their headers, a robot-API flood of slow ``simulation`` bids, and a claim flood at a
table with two ``pimc`` bots (every claim makes the bots check it on the claimer's layouts).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from typing import Any

import httpx

from tribridge.testing import next_presser

__all__ = [
    "EXTRA_FLOODS",
    "FLOODS",
    "all_floods",
    "event_pbn_flood",
    "fresh_page_loads",
    "claim_flood",
    "history_flood",
    "page_loads",
    "person_actions",
    "robot_flood",
    "slow_connections",
    "slowloris_addresses",
]

PAGE = ("/", "/app.js", "/api.js", "/style.css")
SLOW_BID = {"seat": "N", "dealer": "N", "ctx": "", "hand": "AKQ2.KJ4.T98.762", "model": "simulation"}


async def _three_people(client: httpx.AsyncClient) -> tuple[str, dict[int, dict[str, str]]]:
    made = (await client.post("/api/tables", json={"chairs": [{"kind": "human"}] * 3, "take": 0})).json()
    tid, tokens = made["table_id"], {0: made["token"]}
    for chair in (1, 2):
        tokens[chair] = (await client.post(f"/api/tables/{tid}/seats/{chair}")).json()["token"]
    return tid, {c: {"Authorization": f"Bearer {t}"} for c, t in tokens.items()}


async def person_actions(url: str, stop: asyncio.Event, latencies: list[float], pace: float = 0.05) -> None:
    """People at a three-person table passing out deal after deal; the latency of each action."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        tid, auth = await _three_people(client)
        view = (await client.get(f"/api/tables/{tid}/state", headers=auth[0])).json()
        while not stop.is_set():
            chair, action = (
                (next_presser(view), {"type": "next"})
                if view["phase"] == "done"
                else (view["turn_chair"], {"type": "call", "call": "P"})
            )
            start = time.perf_counter()
            r = await client.post(f"/api/tables/{tid}/actions", json=action, headers=auth[chair])
            latencies.append(time.perf_counter() - start)
            view = (
                r.json()
                if r.status_code == 200
                else (await client.get(f"/api/tables/{tid}/state", headers=auth[0])).json()
            )
            await asyncio.sleep(pace)


async def page_loads(url: str, stop: asyncio.Event, latencies: list[float], pace: float = 0.2) -> None:
    """The web page loading (its index and scripts, one after another); the time for the whole page."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        while not stop.is_set():
            start = time.perf_counter()
            for path in PAGE:
                (await client.get(path)).raise_for_status()
            latencies.append(time.perf_counter() - start)
            await asyncio.sleep(pace)


async def fresh_page_loads(
    url: str, stop: asyncio.Event, latencies: list[float], failures: Counter[str], pace: float = 0.2
) -> None:
    """The page loaded as a new visitor does, on new connections each time (a kept-alive connection would not see
    a full connection table); each load's time, and what failed (``failures``)."""
    while not stop.is_set():
        start = time.perf_counter()
        try:
            async with httpx.AsyncClient(base_url=url, timeout=30) as client:
                for path in PAGE:
                    (await client.get(path)).raise_for_status()
            latencies.append(time.perf_counter() - start)
        except (httpx.HTTPError, OSError) as exc:
            failures[type(exc).__name__] += 1
        await asyncio.sleep(pace)


async def history_flood(url: str, stop: asyncio.Event, counts: Counter[str]) -> None:
    """One player asking for history pages and exports of a long table in a closed loop."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        tid, auth = await _three_people(client)
        for _ in range(40):  # forty passed-out deals
            view = (await client.get(f"/api/tables/{tid}/state", headers=auth[0])).json()
            while view["phase"] != "done":
                view = (
                    await client.post(
                        f"/api/tables/{tid}/actions",
                        json={"type": "call", "call": "P"},
                        headers=auth[view["turn_chair"]],
                    )
                ).json()
            for chair in (0, 1, 2):  # every person presses Next deal
                await client.post(f"/api/tables/{tid}/actions", json={"type": "next"}, headers=auth[chair])
        i = 0
        while not stop.is_set():
            path = ("history?offset=0&limit=100", "export.json", "export.pbn")[i % 3]
            r = await client.get(f"/api/tables/{tid}/{path}", headers=auth[0])
            counts[f"{path.split('?')[0]} {r.status_code}"] += 1
            i += 1


async def _one_slow_connection(
    host: str, port: int, stop: asyncio.Event, counts: Counter[str], local: str | None = None
) -> None:
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection(host, port, local_addr=None if local is None else (local, 0))
        except OSError:
            counts["refused"] += 1
            await asyncio.sleep(0.5)
            continue
        counts["opened"] += 1
        request = b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 1000
        try:
            for byte in request:
                if stop.is_set() or reader.at_eof():
                    break
                writer.write(bytes([byte]))
                await writer.drain()
                try:
                    answer = await asyncio.wait_for(reader.read(200), 1.0)
                except TimeoutError:
                    continue
                counts["closed_by_server" if not answer else f"answered {answer[9:12].decode()}"] += 1
                break
        except OSError:
            counts["closed_by_server"] += 1
        writer.close()


async def slowloris_addresses(url: str, stop: asyncio.Event, counts: Counter[str], addresses: int = 8) -> None:
    """Slow connections from ``addresses`` loopback addresses (127.0.0.2, ...), 64 from each (the default per-client
    cap; 8 x 64 fill the default total of 512), reopened whenever the server closes one."""
    host, port = url.removeprefix("http://").split(":")
    await asyncio.gather(
        *(
            _one_slow_connection(host, int(port), stop, counts, local=f"127.0.0.{2 + k}")
            for k in range(addresses)
            for _ in range(64)
        )
    )


EVENT_PBN_BOARDS = 555


def _big_event_pbn() -> str:
    """A ~56 KB PBN text of 555 boards (far past an event's 36): refused, and it must be refused cheaply."""
    deal = "N:AKQ2.KJ4.T98.762 J543.AQ2.KQ3.T98 T98.T987.A765.AK 76.653.J42.QJ543"
    return "\n".join(f'[Board "{n}"]\n[Dealer "N"]\n[Deal "{deal}"]\n' for n in range(1, EVENT_PBN_BOARDS + 1))


async def event_pbn_flood(url: str, stop: asyncio.Event, counts: Counter[str], clients: int = 2) -> None:
    """``clients`` clients each creating an event from a 555-board PBN about ten times a second."""
    body = {"form": "daily", "name": "flood", "pbn": _big_event_pbn()}

    async def one() -> None:
        async with httpx.AsyncClient(base_url=url, timeout=30) as client:
            while not stop.is_set():
                r = await client.post("/api/events", json=body)
                counts[str(r.status_code)] += 1
                await asyncio.sleep(0.1)

    await asyncio.gather(*(one() for _ in range(clients)))


async def slow_connections(url: str, stop: asyncio.Event, counts: Counter[str], sockets: int = 100) -> None:
    """``sockets`` connections each sending its headers a byte a second, reopened whenever the server closes one."""
    host, port = url.removeprefix("http://").split(":")
    await asyncio.gather(*(_one_slow_connection(host, int(port), stop, counts) for _ in range(sockets)))


async def robot_flood(url: str, stop: asyncio.Event, counts: Counter[str], clients: int = 16) -> None:
    """``clients`` closed-loop clients asking /apis/3pab/bid with the slow ``simulation`` model."""

    async def one() -> None:
        async with httpx.AsyncClient(base_url=url, timeout=120) as client:
            while not stop.is_set():
                r = await client.get("/apis/3pab/bid", params=SLOW_BID)
                counts[str(r.status_code)] += 1
                if r.status_code == 503:
                    await asyncio.sleep(0.05)

    await asyncio.gather(*(one() for _ in range(clients)))


def _first_move(view: dict[str, Any]) -> dict[str, Any] | None:
    if view["phase"] == "done":
        return {"type": "next"}
    if not view.get("my_turn"):
        return None
    if view["phase"] == "auction":
        return {"type": "call", "call": "P" if "P" in view["legal_calls"] else view["legal_calls"][0]}
    return {"type": "play", "card": view["legal_cards"][0]}


async def claim_flood(url: str, stop: asyncio.Event, counts: Counter[str]) -> None:
    """A person at a table with two pimc bots claiming every trick again and again (until the cap says no)."""
    async with httpx.AsyncClient(base_url=url, timeout=60) as client:
        chairs = [{"kind": "human"}, {"kind": "bot", "bot": "pimc"}, {"kind": "bot", "bot": "pimc"}]
        made = (await client.post("/api/tables", json={"chairs": chairs, "take": 0})).json()
        tid, auth = made["table_id"], {"Authorization": f"Bearer {made['token']}"}
        while not stop.is_set():
            view = (await client.get(f"/api/tables/{tid}/state", headers=auth)).json()
            if view["can_claim"] and view["claim"] is None and view["phase"] == "play":
                left = 13 - view["tricks"]["declarer"] - view["tricks"]["defenders"]
                r = await client.post(
                    f"/api/tables/{tid}/actions", json={"type": "claim", "tricks": left}, headers=auth
                )
                counts[f"claim {r.status_code}"] += 1
                if r.status_code == 200:
                    continue
            move = _first_move(view)
            if move is not None and view["claim"] is None:
                await client.post(f"/api/tables/{tid}/actions", json=move, headers=auth)
            await asyncio.sleep(0.05)


FLOODS = {"history": history_flood, "slow": slow_connections, "robot": robot_flood, "claims": claim_flood}
EXTRA_FLOODS = {"event_pbn": event_pbn_flood, "slowloris8": slowloris_addresses}
"""Floods measured as cases of their own (each against the page idle), not part of the four floods together."""


async def _floods(url: str, seconds: float, which: tuple[str, ...]) -> dict[str, dict[str, int]]:
    stop = asyncio.Event()
    counts: dict[str, Counter[str]] = {k: Counter() for k in which}
    every = FLOODS | EXTRA_FLOODS
    tasks = [asyncio.create_task(every[k](url, stop, counts[k])) for k in which]
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {k: dict(v) for k, v in counts.items()}


def all_floods(url: str, seconds: float, results: Any, which: tuple[str, ...] = tuple(FLOODS), nice: int = 0) -> None:
    """Run the floods named in ``which`` (by default all four) against ``url`` for ``seconds``, this process's CPU
    priority lowered by ``nice``; put what each got on the queue ``results``."""
    if nice > 0:
        os.nice(nice)
    results.put(asyncio.run(_floods(url, seconds, which)))
