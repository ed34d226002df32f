"""``tribridge store copy``: every table and its history reach the destination, and replay to the same views; an
account logs in on the copy with its password and finds its tables, deals and rating there."""

from __future__ import annotations

import time

from fastapi.testclient import TestClient
from store_games import HUMANS, chair_views, played_table

from account_helpers import PASSWORD
from event_helpers import auth, next_board, play_board
from tribridge.cli.main import main
from tribridge.server.accounts.ratings import Game
from tribridge.server.app import create_app
from tribridge.server.store import open_store
from tribridge.server.tables.manager import replay_table

ORIGIN = {"Origin": "http://testserver"}
COOKIE = "tribridge_session"
BOTS_TABLE = {
    "chairs": [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}],
    "take": 0,
}


def fill(path):
    """An SQLite store with four played tables (seats taken, one name) and an event."""
    store = open_store(path)
    for i in range(4):
        table_id = f"tab{i}"
        _table, log = played_table(table_id, HUMANS, 25 * i + 3, seed=40 + i)
        store.create_table(table_id, HUMANS, f"10.0.0.{i}")
        for chair in range(3):
            store.set_token(table_id, chair, f"tok-{i}-{chair}", "Bea" if chair == 2 else None)
        for seq, chair, action in log:
            store.append_action(table_id, seq, chair, action)
    store.put_event("ev1", '{"name": "club night", "tables": ["tab0", "tab1"]}')
    store.close()


def views_of(url):
    store = open_store(url)
    try:
        return {t: chair_views(replay_table(store.load(t))) for t in store.table_ids()}, store.load_event("ev1")
    finally:
        store.close()


def test_copy_keeps_every_table_and_its_views(tmp_path, db_url, capsys):
    source = tmp_path / "source.sqlite"
    fill(source)
    before = views_of(str(source))
    assert main(["store", "copy", "--from", str(source), "--to", db_url]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"copied 4 tables ({sum(25 * i + 3 for i in range(4))} actions), 1 events, 0 accounts ")
    after = views_of(db_url)
    assert after == before and len(after[0]) == 4
    assert main(["store", "copy", "--from", str(source), "--to", db_url]) == 0, "a second run copies nothing"
    assert "copied 0 tables (0 actions), 0 events, 0 accounts and 0 rated games" in capsys.readouterr().out
    dest = open_store(db_url)
    assert [dest.load(t).creator for t in dest.table_ids()] == [f"10.0.0.{i}" for i in range(4)]
    dest.append_action("tab0", 4, 0, {"type": "call", "call": "P"})
    dest.close()
    assert main(["store", "copy", "--from", str(source), "--to", db_url]) == 2
    assert "table tab0 is already there with a different history" in capsys.readouterr().err


def test_copy_refuses_a_missing_source(tmp_path, capsys):
    assert main(["store", "copy", "--from", str(tmp_path / "nope.sqlite"), "--to", str(tmp_path / "x.sqlite")]) == 2
    assert "no store file" in capsys.readouterr().err


def what_the_account_sees(client: TestClient, headers: dict[str, str]) -> dict:
    """The account's tables, "My deals" (without the par difference: the analyses are not copied, and a PostgreSQL
    copy may have computed one again already) and its public rating profile, as the server answers them."""
    deals = client.get("/api/account/deals", headers=headers).json()["deals"]
    return {
        "tables": client.get("/api/account/tables", headers=headers).json(),
        "deals": [{k: v for k, v in d.items() if k != "par_diff"} for d in deals],
        "profile": client.get("/api/players/copy_ada").json(),
    }


def log_in(client: TestClient) -> dict[str, str]:
    """Log copy_ada in with her password: the headers of the new session."""
    answer = client.post("/api/session", json={"username": "copy_ada", "password": PASSWORD}, headers=ORIGIN)
    assert answer.status_code == 200, answer.text
    secret = answer.cookies[COOKIE]
    client.cookies.clear()
    return {**ORIGIN, "Cookie": f"{COOKIE}={secret}"}


def played_account(path) -> tuple[dict[str, str], dict]:
    """An SQLite store where copy_ada signed up and played two rated deals against bots: her session's headers and
    what she sees."""
    with TestClient(create_app(db_path=path, bot_delay=0, log_requests=False)) as client:
        answer = client.post("/api/accounts", json={"username": "copy_ada", "password": PASSWORD}, headers=ORIGIN)
        assert answer.status_code == 201, answer.text
        headers = {**ORIGIN, "Cookie": f"{COOKIE}={answer.cookies[COOKIE]}"}
        client.cookies.clear()
        table = client.post("/api/tables", json=BOTS_TABLE).json()
        held = client.post(
            "/api/account/seats", json={"table_id": table["table_id"], "token": table["token"]}, headers=headers
        )
        assert held.status_code == 200, held.text
        play_board(client, table["table_id"], table["token"])
        next_board(client, table["table_id"], table["token"])
        play_board(client, table["table_id"], table["token"])
        deadline = time.monotonic() + 20
        while client.get("/api/players/copy_ada").json()["rating"]["games"] < 4:  # applied in a task after each deal
            assert time.monotonic() < deadline, "the deals were not rated"
            time.sleep(0.05)
        state_url = f"/api/tables/{table['table_id']}/state"
        while '"explain_pending":true' in client.get(state_url, headers=auth(table["token"])).text.replace(" ", ""):
            assert time.monotonic() < deadline, "the bots' calls were not explained"  # (worked out after each call,
            time.sleep(0.05)  # logged in the table's history: the copy must find them all there)
        seen = what_the_account_sees(client, headers)
        assert client.get(state_url, headers=auth(table["token"])).status_code == 200
    assert len(seen["deals"]) == 2 and len(seen["profile"]["history"]) == 4
    return headers, seen


def test_an_account_finds_its_tables_deals_and_rating_on_the_copy(tmp_path, db_url, capsys):
    source = tmp_path / "accounts.sqlite"
    old_session, seen = played_account(source)
    assert main(["store", "copy", "--from", str(source), "--to", db_url]) == 0
    assert ", 1 accounts and 4 rated games from " in capsys.readouterr().out
    with TestClient(create_app(db_path=db_url, bot_delay=0, log_requests=False)) as client:
        assert what_the_account_sees(client, log_in(client)) == seen, "the same password, tables, deals and rating"
        assert client.get("/api/account", headers=old_session).status_code == 200, "the sessions were copied"
    assert main(["ratings", "rebuild", "--db", db_url]) == 0
    assert "rebuilt 2 ratings from 4 games: equal to the kept ones" in capsys.readouterr().out
    with TestClient(create_app(db_path=db_url, bot_delay=0, log_requests=False)) as client:
        assert what_the_account_sees(client, log_in(client))["profile"] == seen["profile"]
    assert main(["store", "copy", "--from", str(source), "--to", db_url]) == 0, "a second run copies nothing"
    assert "0 events, 0 accounts and 0 rated games" in capsys.readouterr().out


def test_a_copy_stops_at_a_username_or_ratings_the_destination_has_otherwise(tmp_path, db_url, capsys):
    source = open_store(tmp_path / "source.sqlite")
    source.create_account("id-src", "Ada", "ada", "hash-src")
    source.apply_game(Game("g-src", "acct:id-src", "bot:random", 1.0), lambda a, b: (a, b))
    source.close()
    dest = open_store(db_url)
    dest.create_account("id-dest", "ada", "ada", "hash-dest")
    dest.apply_game(Game("g-dest", "acct:id-dest", "bot:random", 0.0), lambda a, b: (a, b))
    dest.close()
    copy = ["store", "copy", "--from", str(tmp_path / "source.sqlite"), "--to", db_url]
    assert main(copy) == 2
    assert "another account there has the username of account id-src" in capsys.readouterr().err
    dest = open_store(db_url)
    dest.delete_account("id-dest", "ada")
    dest.close()
    assert main(copy) == 2
    assert "the destination holds other rated games already" in capsys.readouterr().err
    dest = open_store(db_url)
    assert [g.key for g in dest.rating_games()] == ["g-dest"] and dest.account_by_key("ada").account_id == "id-src"
    dest.close()
