"""Events on accounts, both stores, one app a module: entries by account, the entry found on another device,
duplicate results rated once at the close, knockouts seeded by rating, the daily series, withdrawing before a
start."""

from __future__ import annotations

import datetime as dt
import json
import time

import pytest
from fastapi.testclient import TestClient

from account_helpers import PASSWORD, every_cell
from event_helpers import (
    address_of,
    auth,
    event_view,
    from_address,
    move_clock,
    play_board,
    post_entry,
    table_state,
)
from tribridge.cli.main import main
from tribridge.server.accounts.rating_service import account_entity, rate
from tribridge.server.accounts.ratings import ANCHOR, Game
from tribridge.server.app import create_app
from tribridge.server.store import open_store

ORIGIN = {"Origin": "http://testserver"}
COOKIE = "tribridge_session"


@pytest.fixture(scope="module")
def app_client(module_db_url):
    """One app on a fresh store of each backend for the module (bots without delay), and the store's URL."""
    app = create_app(db_path=module_db_url, bot_delay=0, log_requests=False)
    with TestClient(app) as client:
        yield client, module_db_url


def session(client, username: str, sign_up: bool = True) -> dict[str, str]:
    """Sign up (or log in) ``username`` from an address of its own: the headers of that session's page."""
    path, status = ("/api/accounts", 201) if sign_up else ("/api/session", 200)
    with from_address(client, address_of(f"{username} {sign_up}")):
        answer = client.post(path, json={"username": username, "password": PASSWORD}, headers=ORIGIN)
    assert answer.status_code == status, answer.text
    secret = answer.cookies[COOKIE]
    client.cookies.clear()
    return {**ORIGIN, "Cookie": f"{COOKIE}={secret}"}


def create(client, body: dict) -> str:
    """Create an event (random bots) from an address of its own (the creation limits are per client): its id."""
    with from_address(client, address_of(f"creator of {body['name']}")):
        answer = client.post("/api/events", json={"filler": "random", "scheme": "classic", **body})
    assert answer.status_code == 200, answer.text
    return answer.json()["event_id"]


def daily(client, name: str, boards: int = 1, **extra) -> str:
    """A daily event of ``boards`` boards: its id."""
    return create(client, {"form": "daily", "name": name, "boards": boards, **extra})


def enter_as(client, event_id: str, headers: dict[str, str], body: dict | None = None, address: str = "192.0.2.9"):
    """``POST /api/events/{id}/entries`` with a session's headers, from ``address``."""
    with from_address(client, address):
        return client.post(f"/api/events/{event_id}/entries", json=body or {"name": "ignored"}, headers=headers)


def test_an_account_enters_under_its_username_once_and_guests_once_an_address(app_client):
    client, _url = app_client
    eid = daily(client, "Entries")
    ann, bob = session(client, "entry_ann"), session(client, "entry_bob")
    first = enter_as(client, eid, ann, {"name": "Somebody Else"})
    assert first.status_code == 200 and first.json()["name"] == "entry_ann" and first.json()["account"] is True
    again = enter_as(client, eid, ann, address="192.0.2.77")
    assert again.status_code == 409 and "this account" in again.json()["error"]
    assert enter_as(client, eid, bob).status_code == 200, "another account from the same address enters"
    guest = post_entry(client, eid, {"name": "Gus"}, address="192.0.2.9")
    assert guest.status_code == 200 and guest.json()["account"] is False
    second_guest = post_entry(client, eid, {"name": "Gwen"}, address="192.0.2.9")
    assert second_guest.status_code == 409 and "client address" in second_guest.json()["error"]
    assert enter_as(client, eid, {"Cookie": ann["Cookie"]}).status_code == 403, "a cookie's POST needs the Origin"
    view = event_view(client, eid)
    assert {e["name"]: e["account"] for e in view["entrants"]} == {"entry_ann": True, "entry_bob": True, "Gus": False}
    assert {s["name"]: s["bot"] for s in view["standings"]} == {
        "entry_ann": "account",
        "entry_bob": "account",
        "Gus": "guest",
    }


def test_another_device_finds_the_entry_and_takes_the_daily_seat_back(app_client):
    client, _url = app_client
    eid = daily(client, "Devices")
    phone = session(client, "device_cara")
    entry = enter_as(client, eid, phone).json()
    laptop = session(client, "device_cara", sign_up=False)
    seen = client.get(f"/api/events/{eid}", headers=laptop).json()["me"]
    assert seen["name"] == "device_cara" and seen["account"] and seen["table_id"] == entry["table_id"]
    assert client.get(f"/api/events/{eid}").json()["me"] is None, "without the session, a stranger"
    back = client.post(f"/api/account/tables/{entry['table_id']}/seats/0/token", headers=laptop)
    assert back.status_code == 200, back.text
    new = back.json()["token"]
    assert client.get(f"/api/tables/{entry['table_id']}/state", headers=auth(new)).status_code == 200
    assert client.get(f"/api/tables/{entry['table_id']}/state", headers=auth(entry["token"])).status_code == 403
    assert event_view(client, eid, new)["me"]["name"] == "device_cara"


def test_another_device_gets_the_individual_entrants_chair_token(app_client):
    client, _url = app_client
    eid = create(client, {"form": "individual", "name": "Ind", "boards": 3, "players": 3})
    tokens = {}
    for name in ("ind_dan", "ind_eve", "ind_fay"):
        tokens[name] = enter_as(client, eid, session(client, name)).json()["token"]
    mine = event_view(client, eid, tokens["ind_dan"])["me"]
    assert mine["table_id"] and mine["table_token"], "three places taken: round 1 has started"
    elsewhere = session(client, "ind_dan", sign_up=False)
    seen = client.get(f"/api/events/{eid}", headers=elsewhere).json()["me"]
    assert (seen["table_id"], seen["table_token"]) == (mine["table_id"], mine["table_token"])


def test_duplicate_results_of_accounts_are_rated_once_when_the_event_closes(app_client, capsys):
    client, url = app_client
    eid = daily(client, "Rated", closes_in_hours=1)
    players = {}
    for name in ("dup_gil", "dup_hal", "dup_ida"):
        answer = enter_as(client, eid, session(client, name), address=address_of(name))
        players[name] = answer.json()
    players["Guest Jo"] = post_entry(client, eid, {"name": "Guest Jo"}).json()
    for entry in players.values():
        play_board(client, entry["table_id"], entry["token"])
    store = open_store(url)
    try:
        assert not [g for g in store.rating_games() if g.key.startswith(f"event:{eid}:")], "nothing before the close"
        move_clock(client, 3601)
        [traveller] = event_view(client, eid)["travellers"]
        games = [g for g in store.rating_games() if g.key.startswith(f"event:{eid}:")]
        ids = {a.username: account_entity(a.account_id) for a in store.list_accounts()}
        score = {ids[r["players"][0]]: r["scores"][0] for r in traveller["results"] if r["players"][0] in ids}
        assert len(score) == 3 and len(games) == 3, "three accounts in chair 0: three pairs; the guest is not rated"
        for game in games:
            expected = 1.0 if score[game.a] > score[game.b] else 0.5 if score[game.a] == score[game.b] else 0.0
            assert game.outcome == expected
        document = json.loads(store.load_event(eid))
        assert document["settled"]
        document["settled"] = False  # as if another process had not seen it settled: it settles again
        store.put_event(eid, json.dumps(document))
        event_view(client, eid)
        assert [g for g in store.rating_games() if g.key.startswith(f"event:{eid}:")] == games, "each game once"
        assert json.loads(store.load_event(eid))["settled"]
    finally:
        store.close()
    assert main(["ratings", "rebuild", "--db", url]) == 0
    assert "equal to the kept ones" in capsys.readouterr().out, "the event games rebuild to the kept ratings"


def test_a_knockout_is_seeded_by_rating_not_by_entry_order(app_client):
    client, url = app_client
    eid = create(client, {"form": "teams", "name": "KO", "boards": 1, "teams": 3, "starts_in_minutes": 10})
    assert post_entry(client, eid, {"name": "Guest Kai", "team": "Guests"}).status_code == 200
    for name, team in (("seed_mid", "Mids"), ("seed_ace", "Aces")):
        assert enter_as(client, eid, session(client, name), {"team": team}, address_of(name)).status_code == 200
    store = open_store(url)
    try:
        ids = {a.username: account_entity(a.account_id) for a in store.list_accounts()}
        wins = [Game(f"seed:{n}", ids["seed_ace"], ANCHOR, 1.0) for n in range(12)]
        wins += [Game(f"seed:mid:{n}", ids["seed_mid"], ANCHOR, 1.0) for n in range(3)]
        store.apply_games(wins, rate)
    finally:
        store.close()
    value = {"Guests": 0.0}
    for name, team in (("seed_mid", "Mids"), ("seed_ace", "Aces")):
        value[team] = client.get(f"/api/players/{name}").json()["rating"]["conservative"]
    expected = sorted(value, key=lambda t: -value[t])
    assert expected != ["Guests", "Mids", "Aces"], "the ratings order the teams otherwise than their entry"
    move_clock(client, 601)
    view = event_view(client, eid)
    assert [t["name"] for t in view["teams"]] == expected
    assert view["matches"][0]["teams"] == expected


def test_the_daily_series_counts_each_accounts_closed_days(app_client):
    client, _url = app_client
    daily = next(e for e in client.get("/api/events").json()["events"] if e["house"])
    day = dt.date(int(daily["event_id"][6:10]), int(daily["event_id"][10:12]), int(daily["event_id"][12:14]))
    for name in ("series_lou", "series_max"):
        entry = enter_as(client, daily["event_id"], session(client, name), address=address_of(name)).json()
        play_board(client, entry["table_id"], entry["token"])
    week = client.get("/api/events/series", params={"period": "week", "date": day.isoformat()}).json()
    lines = {line["name"]: line for line in week["lines"]}
    assert {"series_lou", "series_max"} <= set(lines) and lines["series_lou"]["days"] == 1
    assert lines["series_lou"]["counted"] == 0, "the day counts once its event has closed"
    move_clock(client, daily["closes_at"] - client.app.state.events.clock() + 1)
    final = {s["name"]: s["percent"] for s in event_view(client, daily["event_id"])["standings"]}
    month = client.get("/api/events/series", params={"period": "month", "date": day.isoformat()}).json()
    assert month["first"] == day.replace(day=1).isoformat() and month["best"] == 15
    for line in month["lines"]:
        if line["name"] in ("series_lou", "series_max"):
            assert line["percents"] == [round(final[line["name"]], 2)]
            assert line["score"] == round(final[line["name"]] / 15, 2)
    assert client.get("/api/events/series", params={"period": "year"}).status_code == 400
    bad = client.get("/api/events/series", params={"period": "week", "date": "yesterday"})
    assert bad.status_code == 400 and "date" in bad.json()["error"]


def test_an_individual_entrant_withdraws_before_the_start_and_not_after(app_client):
    client, _url = app_client
    eid = create(client, {"form": "individual", "name": "Sign-up", "boards": 3, "players": 4, "starts_in_minutes": 5})
    nia, oto = session(client, "signup_nia"), session(client, "signup_oto")
    assert enter_as(client, eid, nia).status_code == 200 and enter_as(client, eid, oto).status_code == 200
    with from_address(client, "192.0.2.9"):
        assert client.delete(f"/api/events/{eid}/entries/mine", headers=nia).status_code == 200
        assert client.delete(f"/api/events/{eid}/entries/mine", headers=nia).status_code == 404
    assert [e["name"] for e in event_view(client, eid)["entrants"]] == ["signup_oto"]
    move_clock(client, 301)
    view = event_view(client, eid)
    assert view["event"]["rounds_started"] == 1 and [e["name"] for e in view["entrants"]] == ["signup_oto"]
    assert enter_as(client, eid, nia).status_code == 409, "no sign-up after the start"
    with from_address(client, "192.0.2.9"):
        assert client.delete(f"/api/events/{eid}/entries/mine", headers=oto).status_code == 409


def views_of_table(client, table_id: str, token: str) -> str:
    """What the table shows: its chair's view, its public facts and its first deal's review, as one text."""
    return json.dumps(
        [
            client.get(f"/api/tables/{table_id}/state", headers=auth(token)).json(),
            client.get(f"/api/tables/{table_id}").json(),
            client.get(f"/api/tables/{table_id}/deals/1/review", headers=auth(token)).json(),
        ]
    )


def test_a_deleted_account_leaves_its_events_under_a_neutral_name(app_client):
    client, url = app_client
    eid = daily(client, "Forgotten")
    headers = session(client, "gone_pia")
    entry = enter_as(client, eid, headers, address=address_of("gone_pia")).json()
    play_board(client, entry["table_id"], entry["token"])
    deadline = time.monotonic() + 60
    while table_state(client, entry["table_id"], entry["token"])["analysis"].get("pending"):  # (it names the chairs)
        assert time.monotonic() < deadline, "the deal was not analysed"
        time.sleep(0.1)
    solo = create(client, {"form": "individual", "name": "Forgotten too", "boards": 3, "players": 3, "rounds": 1})
    mine = enter_as(client, solo, headers, address=address_of("gone_pia")).json()
    for guest in ("Guest Una", "Guest Vic"):
        assert post_entry(client, solo, {"name": guest}).status_code == 200
    me = event_view(client, solo, mine["token"])["me"]  # the round started: the three places are full
    assert "gone_pia" in views_of_table(client, entry["table_id"], entry["token"])
    assert "gone_pia" in json.dumps(client.get(f"/api/tables/{me['table_id']}").json())
    assert client.post("/api/account/delete", json={"password": PASSWORD}, headers=headers).status_code == 200
    [entrant] = event_view(client, eid)["entrants"]
    assert entrant["name"].startswith("former player ") and not entrant["account"]
    shown = views_of_table(client, entry["table_id"], entry["token"])
    assert "gone_pia" not in shown and "former player" in shown, "the live table renamed its chair"
    assert "gone_pia" not in json.dumps(
        client.get(f"/api/tables/{me['table_id']}/state", headers=auth(me["table_token"])).json()
    )
    store = open_store(url)
    try:
        assert "gone_pia" not in store.load_event(eid), "the event's document names the account no more"
        assert not [g for g in store.rating_games() if "gone_pia" in g.a + g.b + g.key]
        assert not [c for c in every_cell(store) if "gone_pia" in c], "no row of the store names the account"
    finally:
        store.close()


def test_the_servers_check_settles_a_closed_event_without_a_look(app_client):
    client, url = app_client
    eid = daily(client, "Unlooked", closes_in_hours=0.5)
    guest_only = daily(client, "Guests only", closes_in_hours=0.5)
    post_entry(client, guest_only, {"name": "Only Guest"})
    for name in ("check_quin", "check_ruth"):
        entry = enter_as(client, eid, session(client, name), address=address_of(name)).json()
        play_board(client, entry["table_id"], entry["token"])
    move_clock(client, 1801)
    client.portal.call(client.app.state.events.settle_closed)  # what the minute's check runs
    store = open_store(url)
    try:
        document = json.loads(store.load_event(eid))
        assert document["settled"] and document["frozen"] is not None
        assert all("final_percent" in e for e in document["entries"])
        assert len([g for g in store.rating_games() if g.key.startswith(f"event:{eid}:")]) == 1
        assert json.loads(store.load_event(guest_only))["settled"]
    finally:
        store.close()
