"""Two `tribridge serve` processes on one PostgreSQL database: one table through both, races, pushes, a SIGKILL, a
seat taken back through the other process."""

from __future__ import annotations

import json
import signal
import threading
import time

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from account_helpers import PASSWORD, sign_up
from tribridge.server.store import open_store
from tribridge.server.tables.push import SEAT_TAKEN_CLOSE_CODE
from tribridge.testing import start_server, ws_token_message

pytestmark = [pytest.mark.slow, pytest.mark.loop_watch]  # servers watched for a blocked loop (loop_watch_check)

HUMANS = [{"kind": "human"}] * 3


def auth(token):
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture()
def two_servers(pg_server):
    url = pg_server.new_database()
    procs = []
    try:
        for _ in range(2):
            procs.append(start_server(url))
        yield url, [u for _p, u in procs], [p for p, _u in procs]
    finally:
        for proc, _u in procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                proc.communicate(timeout=30)


def three_human_table(a, b):
    """A table of three people created on ``a``, chair 1 taken on ``b``, chair 2 on ``a``: (id, tokens)."""
    body = httpx.post(f"{a}/api/tables", json={"chairs": HUMANS, "take": 0}).json()
    tid = body["table_id"]
    tokens = {0: body["token"]}
    tokens[1] = httpx.post(f"{b}/api/tables/{tid}/seats/1", json={"name": "Bea"}).json()["token"]
    tokens[2] = httpx.post(f"{a}/api/tables/{tid}/seats/2").json()["token"]
    return tid, tokens


def state(url, tid, token):
    r = httpx.get(f"{url}/api/tables/{tid}/state", headers=auth(token))
    assert r.status_code == 200, r.text
    return r.json()


def move_for(view, rng_pick=0):
    """A legal move for the chair whose view this is (it must be its turn)."""
    if view["phase"] == "auction":
        calls = view["legal_calls"]
        return {"type": "call", "call": "1N" if "1N" in calls and not view["auction"] else calls[rng_pick % len(calls)]}
    return {"type": "play", "card": view["legal_cards"][rng_pick % len(view["legal_cards"])]}


def turn_token(url, tid, tokens):
    chair = state(url, tid, tokens[0])["turn_chair"]
    return chair, tokens[chair]


def test_one_table_through_both_processes_with_pushes_and_identical_views(two_servers):
    _db, (a, b), _procs = two_servers
    tid, tokens = three_human_table(a, b)
    ws_url = b.replace("http://", "ws://") + f"/api/tables/{tid}/ws"
    with connect(ws_url, open_timeout=10) as ws:
        ws.send(ws_token_message(tokens[0]))
        first = json.loads(ws.recv(timeout=10))
        assert first["version"] == 3 and first["chairs"][1]["name"] == "Bea"
        for step in range(20):
            here = (a, b)[step % 2]
            _chair, token = turn_token(here, tid, tokens)
            mine = state(here, tid, token)
            r = httpx.post(f"{here}/api/tables/{tid}/actions", headers=auth(token), json=move_for(mine, step))
            assert r.status_code == 200, r.text
            version = r.json()["version"]
            for chair, t in tokens.items():
                assert state(a, tid, t) == state(b, tid, t), (step, chair)
            deadline = time.monotonic() + 10
            pushed = json.loads(ws.recv(timeout=10))
            while pushed["version"] < version and time.monotonic() < deadline:  # pushes may coalesce
                pushed = json.loads(ws.recv(timeout=10))
            assert pushed == state(b, tid, tokens[0]), f"the push on b after an action on {here}"


def test_racing_actions_for_one_turn_are_accepted_exactly_once(two_servers):
    db, (a, b), _procs = two_servers
    tid, tokens = three_human_table(a, b)
    outcomes = []
    for step in range(12):
        _chair, token = turn_token(a, tid, tokens)
        view = state(a, tid, token)
        moves = [move_for(view, step), move_for(view, step + 1)]
        barrier = threading.Barrier(2)
        results: list[int] = [0, 0]

        # in the auction one move goes without a version (its loser is no longer legal: 400); in the play a
        # chair may have two turns running (its own and its dummy's), so both carry the version there (409)
        versioned = (True, view["phase"] != "auction")

        def send(i, moves=moves, barrier=barrier, results=results, token=token, version=view["version"], v=versioned):
            barrier.wait()
            body = {**moves[i], "version": version} if v[i] else moves[i]
            results[i] = httpx.post(f"{(a, b)[i]}/api/tables/{tid}/actions", headers=auth(token), json=body).status_code

        threads = [threading.Thread(target=send, args=(i,)) for i in (0, 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results.count(200) == 1 and sorted(results)[1] in (400, 409), results
        outcomes.append(results)
        after = state(b, tid, tokens[0])
        assert after["version"] == view["version"] + results.count(200)
    store = open_store(db)
    try:
        assert store.check_log(tid) == []
        assert store.action_counts()[tid] == sum(r.count(200) for r in outcomes)
    finally:
        store.close()


def _lease_owners(store):
    with store.transaction() as tx:
        return [str(r[0]) for r in tx.execute("SELECT owner FROM leases WHERE lease_key LIKE ?", ("bot:%",)).fetchall()]


def game_actions(store, table_id: str) -> list[dict]:
    """The table's logged actions that count in its version: all but the explanations of bots' calls (worked out
    after each call and logged as entries of their own)."""
    return [action for _seq, _chair, action in store.load(table_id).actions if action["type"] != "explain"]


def test_sigkill_keeps_acknowledged_actions_and_the_other_process_takes_the_bot_turn(pg_server):
    db = pg_server.new_database()
    pa, a = start_server(db)  # takes bot turns at once
    pb, b = start_server(db, bot_delay=0.5)  # would take them half a second later
    store = open_store(db)
    try:
        chairs = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "pimc"}]
        body = httpx.post(f"{a}/api/tables", json={"chairs": chairs, "take": 0}).json()
        tid, tokens = body["table_id"], {0: body["token"]}
        tokens[1] = httpx.post(f"{b}/api/tables/{tid}/seats/1").json()["token"]
        acked = []  # (seq, action) of every answered action
        killed_at = None
        deadline = time.monotonic() + 90
        step = 0

        def played_on() -> bool:  # an action acknowledged after the bot's turn that the dead process held
            return killed_at is not None and any(seq > killed_at[0] + 1 for seq, _m in acked)

        while time.monotonic() < deadline and not (played_on() and len(acked) >= 5 and step > 30):
            step += 1
            here = a if pa.poll() is None and step % 2 == 0 else b
            view = state(b, tid, tokens[0])
            chair = view["turn_chair"]
            if view["phase"] == "done":  # every person presses Next (the bot is always ready)
                chair, move = next(c for c in tokens if c not in view["next_ready"]), {"type": "next"}
            elif chair not in tokens:  # the bot's turn: kill a while it holds the turn, then b must take it
                if killed_at is None and any(f":{pa.pid}:" in o for o in _lease_owners(store)):
                    pa.send_signal(signal.SIGKILL)
                    pa.wait(10)
                    killed_at = (len(game_actions(store, tid)), view["version"])
                time.sleep(0.02)
                continue
            else:
                move = move_for(state(b, tid, tokens[chair]), step)
            try:
                r = httpx.post(f"{here}/api/tables/{tid}/actions", headers=auth(tokens[chair]), json=move, timeout=10)
            except httpx.HTTPError:
                continue  # the killed process
            if r.status_code == 200:
                acked.append((r.json()["version"] - len(tokens), move))
        assert killed_at is not None, "the test never caught a process holding a bot's turn"
        logged_at_kill, version_at_kill = killed_at
        assert logged_at_kill == version_at_kill - len(tokens), "the bot's action was not yet logged at the kill"
        assert any(seq > logged_at_kill + 1 for seq, _m in acked), "b took the bot's turn, and people played on"
        log = dict(enumerate(game_actions(store, tid), start=1))  # numbered as the version counts them
        for seq, move in acked:
            assert log[seq] == move, seq
        assert store.check_log(tid) == []
        assert state(b, tid, tokens[0])["version"] >= max(seq for seq, _m in acked) + len(tokens)
    finally:
        store.close()
        for proc in (pa, pb):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                proc.communicate(timeout=30)


def test_a_deal_is_analysed_once_and_both_processes_show_it(two_servers):
    _db, (a, b), procs = two_servers
    tid, tokens = three_human_table(a, b)
    with (
        connect(a.replace("http://", "ws://") + f"/api/tables/{tid}/ws") as ws_a,
        connect(b.replace("http://", "ws://") + f"/api/tables/{tid}/ws") as ws_b,
    ):
        ws_a.send(ws_token_message(tokens[0]))
        ws_b.send(ws_token_message(tokens[1]))
        for step in range(3):  # three passes: the deal is over
            here = (a, b)[step % 2]
            _chair, token = turn_token(here, tid, tokens)
            r = httpx.post(f"{here}/api/tables/{tid}/actions", headers=auth(token), json={"type": "call", "call": "P"})
            assert r.status_code == 200, r.text
        deadline = time.monotonic() + 120
        views = [state(u, tid, tokens[0]) for u in (a, b)]
        while any(v["analysis"].get("pending") for v in views) and time.monotonic() < deadline:
            time.sleep(0.5)
            views = [state(u, tid, tokens[0]) for u in (a, b)]
        assert views[0]["phase"] == "done" and views[0]["analysis"]["declarer_tricks"] is not None
        assert views[0] == views[1]
    logs = []
    for proc in procs:
        proc.send_signal(signal.SIGTERM)
        logs.append(proc.communicate(timeout=30)[1])
    computed = [line for text in logs for line in text.splitlines() if '"event": "analysis"' in line and tid in line]
    assert len(computed) == 1, computed


def test_a_socket_on_the_other_process_finds_a_table_just_created(two_servers):
    _db, (a, b), _procs = two_servers
    for _ in range(5):
        made = httpx.post(f"{a}/api/tables", json={"chairs": HUMANS, "take": 0}).json()
        ws_url = b.replace("http://", "ws://") + f"/api/tables/{made['table_id']}/ws"
        with connect(ws_url, open_timeout=10) as ws:
            ws.send(ws_token_message(made["token"]))
            assert json.loads(ws.recv(timeout=10))["version"] == 1


def test_a_seat_taken_back_through_one_process_ends_the_old_socket_on_the_other(two_servers):
    _db, (a, b), _procs = two_servers
    phone = sign_up(a, "procs_yara")
    made = httpx.post(f"{a}/api/tables", json={"chairs": HUMANS, "take": 0}).json()
    tid = made["table_id"]
    assert phone.post("/api/account/seats", json={"table_id": tid, "token": made["token"]}).status_code == 200
    with connect(b.replace("http://", "ws://") + f"/api/tables/{tid}/ws", open_timeout=10) as old:
        old.send(ws_token_message(made["token"]))
        assert json.loads(old.recv(timeout=10))["my_chair"] == 0
        taken = phone.post(f"/api/account/tables/{tid}/seats/0/token")  # on a: b hears of it by the store's notice
        assert taken.status_code == 200, taken.text
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                old.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == SEAT_TAKEN_CLOSE_CODE
    assert state(b, tid, taken.json()["token"])["my_chair"] == 0


def test_a_deleted_accounts_name_leaves_the_tables_of_the_other_process_too(two_servers):
    _db, (a, b), _procs = two_servers
    zoe = sign_up(a, "procs_zoe")
    daily = zoe.post("/api/events", json={"form": "daily", "name": "Gone", "boards": 1, "filler": "random"}).json()
    entry = zoe.post(f"/api/events/{daily['event_id']}/entries", json={}).json()
    assert state(b, entry["table_id"], entry["token"])["chairs"][0]["name"] == "procs_zoe"  # b holds it in memory
    assert zoe.post("/api/account/delete", json={"password": PASSWORD}).status_code == 200  # through a
    deadline = time.monotonic() + 10
    while "procs_zoe" in json.dumps(state(b, entry["table_id"], entry["token"])):  # b renames at the seat notice
        assert time.monotonic() < deadline, "b still names the deleted account"
        time.sleep(0.1)
    assert "procs_zoe" not in httpx.get(f"{b}/api/tables/{entry['table_id']}").text
