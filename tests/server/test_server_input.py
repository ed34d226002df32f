"""Input and health on a live server: the depth limit reads the decoded body (UTF-16 too), names that show nothing
or imitate the server's own are refused, /healthz reports a store that cannot commit, and a bot table whose commit
failed goes on by itself once the store is back."""

import json
import sqlite3
import time

import httpx
import pytest
from websockets.sync.client import connect as ws_connect

from live_server import start_server
from tribridge.server.edge import DEFAULT_MAX_JSON_DEPTH, json_depth, json_depth_reference
from tribridge.testing import ws_token_message

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    db = tmp_path_factory.mktemp("input") / "input.sqlite"
    proc, url = start_server(db, bot_delay=0.05)
    yield url, db
    proc.terminate()
    proc.wait(60)


def utf16_deep_body(depth):
    """A JSON array nested ``depth`` deep, in UTF-16-LE, after a string whose code units hold the byte of a quote."""
    text = '["\u2200", ' + "[" * depth + "]" * depth + ', "x"]'
    return text.encode("utf-16-le")


def test_depth_is_measured_on_the_decoded_text():
    body = utf16_deep_body(900)
    assert json.loads(body)[1]  # the parser reads it: so must the limit
    assert json_depth(body) == json_depth_reference(body) == 901


def test_a_utf16_body_cannot_hide_its_depth(live):
    url, _ = live
    r = httpx.post(
        url + "/api/tables", content=utf16_deep_body(900), headers={"Content-Type": "application/json"}, timeout=10
    )
    assert r.status_code == 400 and f"limit of {DEFAULT_MAX_JSON_DEPTH} levels" in r.json()["error"]


@pytest.mark.parametrize(
    "name", ["\u3164", "\u2800\u2800", "Ann\u2028Lee", "Bot (pimc)", "\uff22ot (random)", "Player 2", "x\u00a0y"]
)
def test_names_that_show_nothing_or_imitate_the_server_are_refused(live, name):
    url, _ = live
    chairs = [{"kind": "human", "name": name}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
    r = httpx.post(url + "/api/tables", json={"chairs": chairs, "take": 0}, timeout=10)
    assert r.status_code == 400 and r.json()["error"].startswith("chairs[0].name"), r.text
    table = httpx.post(url + "/api/tables", json={"chairs": [{"kind": "human"}] * 3, "take": 0}, timeout=10).json()
    r = httpx.post(f"{url}/api/tables/{table['table_id']}/seats/1", json={"name": name}, timeout=10)
    assert r.status_code == 400 and r.json()["error"].startswith("name"), r.text


def test_ordinary_names_pass(live):
    url, _ = live
    for name in ("Ann Lee", "Zoë", "李明", "Botvinnik"):
        chairs = [{"kind": "human", "name": name}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
        r = httpx.post(url + "/api/tables", json={"chairs": chairs, "take": 0}, timeout=10)
        assert r.status_code == 200 and r.json()["chairs"][0]["name"] == name


def locked(db):
    """Another writer holding the store's write lock."""
    other = sqlite3.connect(db, isolation_level=None, timeout=10)
    other.execute("BEGIN EXCLUSIVE")
    return other


def test_healthz_reports_a_store_that_cannot_commit(live):
    url, db = live
    assert httpx.get(url + "/healthz", timeout=10).json()["ok"] is True
    other = locked(db)
    try:
        r = httpx.get(url + "/healthz", timeout=10)
        assert r.status_code == 503 and r.json()["ok"] is False and "cannot commit" in r.json()["store"]
    finally:
        other.rollback()
        other.close()
    assert httpx.get(url + "/healthz", timeout=10).json()["ok"] is True


def test_a_bot_table_goes_on_after_a_failed_commit(live):
    url, db = live
    table = httpx.post(url + "/api/tables", json={"chairs": [{"kind": "bot", "bot": "random"}] * 3}, timeout=10).json()
    ws_url = url.replace("http", "ws") + f"/api/tables/{table['table_id']}/ws"
    with ws_connect(ws_url, max_size=None) as ws:
        ws.send(ws_token_message(table["watch_token"]))
        version = json.loads(ws.recv(timeout=10))["version"]
        other = locked(db)
        time.sleep(6.5)  # longer than a write waits for the lock: a bot's commit fails meanwhile
        other.rollback()
        other.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            seen = json.loads(ws.recv(timeout=10))["version"]
            if seen > version + 5:
                break
        assert seen > version + 5, (version, seen)
