"""Durability: `tribridge serve` in a subprocess, killed with SIGKILL mid-game, restarted on the same store."""

import signal
import subprocess
import sys
import threading
import time

import httpx
import pytest

from live_server import start_server
from tribridge.testing import child_pids

pytestmark = pytest.mark.slow


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def _alive(pids: list[int]) -> list[int]:
    """Those of ``pids`` that still run (zombies count as gone)."""
    alive = []
    for pid in pids:
        try:
            state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            alive.append(pid)
    return alive


def test_sigkill_loses_no_acknowledged_action(db_url):
    db = db_url
    proc, url = start_server(db)
    try:
        with httpx.Client(base_url=url, timeout=10) as c:
            body = c.post("/api/tables", json={"chairs": [{"kind": "human"}] * 3, "take": 0}).json()
            tid, tokens = body["table_id"], {0: body["token"]}
            for chair in (1, 2):
                tokens[chair] = c.post(f"/api/tables/{tid}/seats/{chair}").json()["token"]
            acked: list[dict] = []
            stop = threading.Event()

            def player():
                bid = False
                with httpx.Client(base_url=url, timeout=10) as pc:
                    while not stop.is_set():
                        try:
                            v0 = pc.get(f"/api/tables/{tid}/state", headers=auth(tokens[0])).json()
                            if v0["phase"] == "done":  # every person asks for the next deal
                                ready = v0["next_ready"]
                                action, token = {"type": "next"}, tokens[next(c for c in (0, 1, 2) if c not in ready)]
                            else:
                                token = tokens[v0["turn_chair"]]
                                mine = pc.get(f"/api/tables/{tid}/state", headers=auth(token)).json()
                                if mine["phase"] == "auction":
                                    call = "1N" if not bid and "1N" in mine["legal_calls"] else "P"
                                    bid = bid or call == "1N"
                                    action = {"type": "call", "call": call}
                                else:
                                    action = {"type": "play", "card": mine["legal_cards"][0]}
                            r = pc.post(f"/api/tables/{tid}/actions", headers=auth(token), json=action)
                            if r.status_code == 200:
                                acked.append(r.json())
                        except httpx.HTTPError:
                            return

            thread = threading.Thread(target=player)
            thread.start()
            deadline = time.time() + 30
            while len(acked) < 25 and time.time() < deadline:
                time.sleep(0.02)
            children = child_pids(proc.pid)
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
            stop.set()
            thread.join(20)
        assert len(acked) >= 25
        assert children, "the server starts its solver processes at start-up"
        deadline = time.time() + 30
        while _alive(children) and time.time() < deadline:
            time.sleep(0.2)
        assert not _alive(children), "a killed server left solver processes behind"
        last = acked[-1]
    finally:
        if proc.poll() is None:
            proc.kill()
    proc2, url2 = start_server(db)
    try:
        with httpx.Client(base_url=url2, timeout=10) as c:
            view = c.get(f"/api/tables/{tid}/state", headers=auth(tokens[last["my_chair"]])).json()
            # every acknowledged action is there; at most the one request in flight at the kill is extra
            assert last["version"] <= view["version"] <= last["version"] + 1
            if view["version"] == last["version"]:
                for key in (
                    "deal_no",
                    "phase",
                    "auction",
                    "current_trick",
                    "tricks",
                    "hand",
                    "widow",
                    "turn",
                    "contract",
                ):
                    assert view[key] == last[key], key
            else:
                assert (
                    view["auction"][: len(last["auction"])] == last["auction"] or view["deal_no"] == last["deal_no"] + 1
                )
    finally:
        proc2.send_signal(signal.SIGTERM)
        out, err = proc2.communicate(timeout=20)
    assert proc2.returncode == 0, err[-2000:]
    assert "stopped" in err and '"event": "shutdown"' in err  # graceful shutdown, JSON log lines


def test_serve_rejects_bad_port():
    r = subprocess.run(
        [sys.executable, "-m", "tribridge.cli.main", "serve", "--port", "70000"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2 and "--port" in r.stderr
