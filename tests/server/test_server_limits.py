"""Bounded work at the table server: creation and socket limits (429), paused all-bot tables, the analysis queue,
binary WebSocket frames, and a private database file."""

import argparse
import asyncio
import stat
import subprocess
import sys
import threading
import time

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from tribridge.dd import solver_pool
from tribridge.errors import InvalidInput
from tribridge.server.app import create_app
from tribridge.server.store import is_postgres_url
from tribridge.server.tables.analysis_queue import AnalysisQueue
from tribridge.server.tables.limits import RateWindow, TableLimits, add_limit_flags, limits_from_args
from tribridge.server.tables.table import Table

BOTS = [{"kind": "bot", "bot": "random"}] * 3


def make_client(db, **limits):
    app = create_app(db_path=db, bot_delay=0, log_requests=False)
    app.state.manager.limits = TableLimits(**limits)
    return TestClient(app)


def test_table_creation_limits_answer_429(db_url, another_db_url):
    with make_client(db_url, tables_per_client=3) as c:
        for _ in range(3):
            assert c.post("/api/tables", json={"take": 0}).status_code == 200
        r = c.post("/api/tables", json={"take": 0})
        assert r.status_code == 429 and "live tables for this client" in r.json()["error"]
        assert int(r.headers["retry-after"]) > 0
    with make_client(another_db_url, creations_per_minute_per_client=2) as c:
        assert [c.post("/api/tables", json={}).status_code for _ in range(3)] == [200, 200, 429]
    with make_client(db_url, live_tables=1) as c:
        r = c.post("/api/tables", json={})
        if is_postgres_url(db_url):  # counted in the store, over every process and run: the three are live
            assert r.status_code == 429 and "on this server" in r.json()["error"]
            return
        assert r.status_code == 200  # one process counts its own activity: replayed tables are idle until used
        r = c.post("/api/tables", json={})
        assert r.status_code == 429 and "on this server" in r.json()["error"]


def test_rate_window_forgets_old_events():
    window = RateWindow(10.0)
    window.add("a", now=0.0)
    window.add("a", now=5.0)
    assert window.count("a", now=9.0) == 2 and window.retry_after("a", now=9.0) == 1
    assert window.count("a", now=12.0) == 1 and window.count("a", now=16.0) == 0
    for i in range(5000):  # many clients, each seen once: the old ones are forgotten
        window.add(f"client {i}", now=100.0 + i / 100)
    assert len(window) < 4096 + 1000


def test_sockets_per_table_are_limited(db_url):
    with make_client(db_url, sockets_per_table=2) as c:
        body = c.post("/api/tables", json={"take": 0}).json()
        url, hello = f"/api/tables/{body['table_id']}/ws", {"token": body["token"]}
        with c.websocket_connect(url) as a, c.websocket_connect(url) as b:
            a.send_json(hello), b.send_json(hello)
            a.receive_json(), b.receive_json()
            with c.websocket_connect(url) as third:
                third.send_json(hello)
                message = third.receive()
                assert message["type"] == "websocket.close" and message["code"] == 4429
                assert "too many sockets" in message["reason"]
        with c.websocket_connect(url) as again:  # room again once they closed
            again.send_json(hello)
            assert again.receive_json()["my_chair"] == 0


def test_binary_frames_are_closed_with_1003(db_url):
    with make_client(db_url) as c:
        body = c.post("/api/tables", json={"take": 0}).json()
        with c.websocket_connect(f"/api/tables/{body['table_id']}/ws") as ws:
            ws.send_json({"token": body["token"]})
            ws.receive_json()
            ws.send_bytes(b"\x00\x01")
            message = ws.receive()
            assert message["type"] == "websocket.close" and message["code"] == 1003 and "binary" in message["reason"]


def test_all_bot_tables_pause_without_a_subscriber(db_url):
    with make_client(db_url) as c:
        body = c.post("/api/tables", json={"chairs": BOTS}).json()
        tid, watch = body["table_id"], body["watch_token"]
        table = c.app.state.manager.tables[tid]
        time.sleep(0.5)
        assert table.log_len == 0  # nobody watches: not a single action
        r = c.post(f"/api/tables/{tid}/actions", headers={"Authorization": f"Bearer {watch}"}, json={"type": "next"})
        assert r.status_code == 403 and "watcher" in r.json()["error"]
        with c.websocket_connect(f"/api/tables/{tid}/ws") as ws:
            ws.send_json({"token": watch})
            ws.receive_json()
            deadline = time.time() + 30
            while time.time() < deadline and table.log_len < 5:
                time.sleep(0.05)
            assert table.log_len >= 5  # someone watches: the bots play
        time.sleep(0.3)  # at most the action in flight finishes
        paused_at = table.log_len
        time.sleep(0.5)
        assert table.log_len == paused_at


def test_bots_decide_in_solver_processes_in_their_class(db_url):
    """A bot at a person's table is an INTERACTIVE job on the solver pool; at a watched all-bot table, BATCH."""
    with make_client(db_url) as c:
        before = solver_pool().stats()["completed"]
        person = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
        body = c.post("/api/tables", json={"chairs": person, "take": 0}).json()
        seat_token = {"Authorization": f"Bearer {body['token']}"}
        deadline = time.time() + 60
        while time.time() < deadline and solver_pool().stats()["completed"]["INTERACTIVE"] == before["INTERACTIVE"]:
            view = c.get(f"/api/tables/{body['table_id']}/state", headers=seat_token).json()
            if view.get("my_turn") and view.get("legal_calls"):
                c.post(
                    f"/api/tables/{body['table_id']}/actions", headers=seat_token, json={"type": "call", "call": "P"}
                )
            time.sleep(0.05)
        assert solver_pool().stats()["completed"]["INTERACTIVE"] > before["INTERACTIVE"]
        bots = c.post("/api/tables", json={"chairs": BOTS}).json()
        with c.websocket_connect(f"/api/tables/{bots['table_id']}/ws") as ws:
            ws.send_json({"token": bots["watch_token"]})
            ws.receive_json()
            while time.time() < deadline and solver_pool().stats()["completed"]["BATCH"] == before["BATCH"]:
                time.sleep(0.05)
        assert solver_pool().stats()["completed"]["BATCH"] > before["BATCH"]


def test_healthz_says_when_the_solver_processes_are_ready(db_url):
    with make_client(db_url) as c:
        deadline = time.time() + 120
        while not c.get("/healthz").json()["solvers_ready"]:
            assert time.time() < deadline, "the interactive solver processes never became ready"
            time.sleep(0.2)
        assert solver_pool().warmed()


def _passed_out_table(table_id):
    table = Table(table_id, {"chairs": BOTS, "scheme": "classic", "deals": {"seed": 1}})
    table.begin()
    for _ in range(3):
        chair = table.chair_of_player(table.current().turn)
        table.install(table.prepare(chair, {"type": "call", "call": "P"}))
    assert table.current().phase == "done"
    return table


def _next_deal_passed_out(table):
    table.install(table.prepare(None, {"type": "next"}))
    for _ in range(3):
        chair = table.chair_of_player(table.current().turn)
        table.install(table.prepare(chair, {"type": "call", "call": "P"}))


def test_analysis_is_bounded_coalesced_cached_and_dropped_when_superseded():
    release = threading.Event()
    started = threading.Event()

    def run(state, scheme, seats, names):
        started.set()
        release.wait(10)
        return {"hands": None, "dd": None, "notes": ["fake"], "names": names}

    async def scenario():
        done = []
        queue = AnalysisQueue(run, None, lambda t: done.append(t.table_id), limit=1)
        queue.start()
        a, b, c = _passed_out_table("a"), _passed_out_table("b"), _passed_out_table("c")
        assert queue.request(a)
        await asyncio.get_running_loop().run_in_executor(None, started.wait, 10)
        assert queue.request(b)
        _next_deal_passed_out(b)
        assert queue.request(b)  # coalesced: b's deal 2 replaces its deal 1 in the one waiting place
        assert not queue.request(c) and "busy" in c.analysis[1]["notes"][0]  # the queue is full
        _next_deal_passed_out(a)  # a moves on while its deal 1 is analysed: that result is dropped
        release.set()
        for _ in range(200):
            if queue.ran == [("a", 1), ("b", 2)]:
                break
            await asyncio.sleep(0.01)
        assert queue.ran == [("a", 1), ("b", 2)]
        assert 1 not in a.analysis and b.analysis[2]["notes"] == ["fake"] and done == ["b"]
        assert queue.request(b) and not queue.waiting  # cached: no second run for the same deal
        await queue.stop()

    asyncio.run(scenario())


def test_database_file_is_private(tmp_path):
    db = tmp_path / "private.sqlite"
    with TestClient(create_app(db_path=db, bot_delay=0, log_requests=False)) as c:
        assert c.post("/api/tables", json={"take": 0}).status_code == 200
        for path in tmp_path.iterdir():
            assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


def test_bad_socket_tokens_still_close(db_url):
    with make_client(db_url, sockets_per_table=1) as c:
        body = c.post("/api/tables", json={"take": 0}).json()
        with pytest.raises(WebSocketDisconnect):
            with c.websocket_connect(f"/api/tables/{body['table_id']}/ws") as ws:
                ws.send_json({"token": "wrong"})
                ws.receive_json()


def test_serve_flags_set_the_limits():
    parser = argparse.ArgumentParser()
    add_limit_flags(parser)
    limits = limits_from_args(parser.parse_args(["--max-sockets-per-table", "3", "--max-tables-per-client", "7"]))
    assert limits == TableLimits(sockets_per_table=3, tables_per_client=7)
    with pytest.raises(InvalidInput, match="--analysis-queue"):
        limits_from_args(parser.parse_args(["--analysis-queue", "0"]))


def test_server_freezes_its_long_lived_heap_at_start_and_after_the_first_robot_answer(db_url, monkeypatch):
    """The objects loaded at start-up, and those the first robot answer loads (the bidder), are frozen out of the
    collector's full passes (``gc.freeze``), once each."""
    import gc

    from tribridge.server import heap

    gc.unfreeze()
    monkeypatch.setattr(heap, "_frozen_for", set())
    params = {"seat": "W", "dealer": "E", "vul": "None", "ctx": "1N--2C--2H--", "hand": "AQ6.T2.KQJ7.K984"}
    with make_client(db_url) as c:
        at_start = gc.get_freeze_count()
        assert at_start > 0
        assert c.get("/apis/brill/bid", params=params).status_code == 200
        after_first = gc.get_freeze_count()
        assert after_first > at_start
        assert c.get("/apis/brill/bid", params=params).status_code == 200
        # once: later answers freeze nothing (frozen objects may still be freed, e.g. a store's pooled connection)
        assert gc.get_freeze_count() <= after_first


FIRST_ANALYSIS = """
import gc
import numpy as np
from tribridge.cards import Seat, random_deal
from tribridge.rules.deal import replay
from tribridge.server.heap import freeze_heap
from tribridge.server.tables.analysis_queue import analyse_at_priority

freeze_heap()  # as the server does at start-up, before any analysis
state = replay(random_deal(np.random.default_rng(3)), Seat(0), ["P", "1N", "P", "P"])
while not state.is_terminal():
    state = state.apply(state.legal_actions()[0])
analyse_at_priority(state, "classic", list(state.players), ["a", "b", "c"])
print(sum(1 for o in gc.get_objects() if type(o).__name__ == "function" and str(o.__module__).startswith("endplay")))
"""


def test_the_first_analysis_freezes_the_solver_package_it_imported() -> None:
    """The first post-deal analysis imports the solver's package (endplay and what it imports: tens of thousands of
    objects that live as long as the server); they are frozen out of the collector's full passes after it, so no
    full pass scans them (a fresh process: nothing of endplay is loaded or frozen before the analysis)."""
    done = subprocess.run([sys.executable, "-c", FIRST_ANALYSIS], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.split()[-1]) == 0  # endplay's functions: none left where full passes would scan them
