"""Accounts on a live server, both stores: cookies, CSRF, session fixation, logout everywhere, brute force,
equal answers for unknown names, another account's data, deletion from every table, guests unchanged, and the
daily series of two accounts' entries."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from account_helpers import PASSWORD, browser, every_cell, sign_up
from live_server import start_server
from tribridge.server.accounts.service import CLIENT_FAILURES, SIGN_UPS_PER_CLIENT
from tribridge.server.store import open_store
from tribridge.server.tables.push import SEAT_TAKEN_CLOSE_CODE
from tribridge.testing import ws_token_message

COOKIE = "tribridge_session"
GUEST_TABLE = {
    "chairs": [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}],
    "take": 0,
}


@pytest.fixture(scope="module")
def live(module_db_url):
    proc, url = start_server(module_db_url, "--forwarded-allow-ips", "127.0.0.1")
    yield url, module_db_url
    proc.terminate()
    proc.wait(timeout=20)


def test_sign_up_sets_an_httponly_lax_session_cookie_and_logs_in(live):
    url, _db = live
    client = browser(url)
    answer = client.post("/api/accounts", json={"username": "cookie_anna", "password": PASSWORD})
    assert answer.status_code == 201
    header = answer.headers["set-cookie"].lower()
    assert "httponly" in header and "samesite=lax" in header and "secure" not in header  # plain http here
    assert client.get("/api/account").json()["username"] == "cookie_anna"
    assert httpx.get(url + "/api/account").status_code == 401, "no cookie, no account"


@pytest.mark.parametrize(
    ("password", "why"),
    [("short", "at least 8"), ("password123", "common"), ("qwertyuiop", "common"), ("rules_bob", "username")],
)
def test_passwords_that_break_the_rules_are_refused_with_the_rule(live, password, why):
    url, _db = live
    answer = browser(url).post("/api/accounts", json={"username": "rules_bob", "password": password})
    assert answer.status_code == 400 and "password" in answer.json()["error"] and why in answer.json()["error"]


def test_a_long_passphrase_without_composition_is_accepted(live):
    url, _db = live
    sign_up(url, "phrase_carl", "correct horse battery staple " * 4)


def test_a_taken_username_is_refused_whatever_its_case(live):
    url, _db = live
    sign_up(url, "taken_dora")
    answer = browser(url).post("/api/accounts", json={"username": "TAKEN_dora", "password": PASSWORD})
    assert answer.status_code == 400 and "taken" in answer.json()["error"]


def test_a_cross_origin_form_post_with_the_cookie_is_refused(live):
    url, _db = live
    client = sign_up(url, "csrf_erin")
    secret = client.cookies[COOKIE]
    evil = {"Origin": "https://evil.example", "Cookie": f"{COOKIE}={secret}"}
    form = httpx.post(
        url + "/api/account/logout-everywhere",
        headers={**evil, "Content-Type": "application/x-www-form-urlencoded"},
        content=b"keep_this=false",
    )
    assert form.status_code in (403, 415)
    as_json = httpx.post(url + "/api/account/delete", headers=evil, json={"password": PASSWORD})
    assert as_json.status_code == 403
    no_origin = httpx.post(
        url + "/api/account/delete", headers={"Cookie": f"{COOKIE}={secret}"}, json={"password": PASSWORD}
    )
    assert no_origin.status_code == 403 and "Origin" in no_origin.json()["error"]
    assert client.get("/api/account").status_code == 200, "the account and its session survived"


def test_the_session_id_changes_at_login(live):
    url, _db = live
    sign_up(url, "fixation_finn")
    planted = {"Origin": url, "Cookie": f"{COOKIE}=planted-by-an-attacker"}
    login = {"username": "fixation_finn", "password": PASSWORD}
    answer = httpx.post(url + "/api/session", headers=planted, json=login)
    assert answer.status_code == 200
    first = answer.cookies[COOKIE]
    assert first and first != "planted-by-an-attacker"
    assert httpx.get(url + "/api/account", headers=planted).status_code == 401, "the planted id stays nobody's"
    assert httpx.get(url + "/api/account", headers={"Cookie": f"{COOKIE}={first}"}).status_code == 200
    again = httpx.post(url + "/api/session", headers={"Origin": url, "Cookie": f"{COOKIE}={first}"}, json=login)
    assert again.cookies[COOKIE] != first, "every login makes a new session"


def test_logout_and_logout_everywhere(live):
    url, _db = live
    phone = sign_up(url, "everywhere_gus")
    laptop = browser(url)
    assert laptop.post("/api/session", json={"username": "everywhere_gus", "password": PASSWORD}).status_code == 200
    tablet = browser(url)
    assert tablet.post("/api/session", json={"username": "everywhere_gus", "password": PASSWORD}).status_code == 200
    listed = phone.get("/api/account/sessions").json()["sessions"]
    assert len(listed) == 3 and sum(s["current"] for s in listed) == 1
    tablet_id = [s for s in tablet.get("/api/account/sessions").json()["sessions"] if s["current"]][0]["session_id"]
    assert phone.delete(f"/api/account/sessions/{tablet_id}").status_code == 200
    assert tablet.get("/api/account").status_code == 401, "a revoked session is over"
    assert phone.post("/api/account/logout-everywhere", json={"keep_this": True}).json() == {"ended": 1}
    assert laptop.get("/api/account").status_code == 401 and phone.get("/api/account").status_code == 200
    assert phone.delete("/api/session").status_code == 200
    assert phone.get("/api/account").status_code == 401


def test_another_accounts_sessions_and_export_are_out_of_reach(live):
    url, _db = live
    hana = sign_up(url, "other_hana")
    ivan = sign_up(url, "other_ivan")
    hana_session = hana.get("/api/account/sessions").json()["sessions"][0]["session_id"]
    assert ivan.delete(f"/api/account/sessions/{hana_session}").status_code == 404
    assert hana.get("/api/account").status_code == 200
    exported = ivan.get("/api/account/export").json()
    assert exported["account"]["username"] == "other_ivan"
    assert "other_hana" not in str(exported) and hana_session not in str(exported)
    assert httpx.get(url + "/api/account/export").status_code == 401


def test_the_eleventh_wrong_password_in_a_window_gets_429(live):
    url, _db = live
    sign_up(url, "brute_jan")
    statuses = []
    for n in range(11):  # each from another address would be the same: the account's count decides
        answer = browser(url).post("/api/session", json={"username": "brute_jan", "password": f"guess number {n}"})
        statuses.append(answer.status_code)
    assert statuses == [401] * 10 + [429]
    assert int(answer.headers["retry-after"]) > 0
    right = browser(url).post("/api/session", json={"username": "brute_jan", "password": PASSWORD})
    assert right.status_code == 429, "not even the right password is tried while the account is limited"


def test_unknown_and_known_usernames_get_equal_answers(live):
    url, _db = live
    sign_up(url, "known_kim")
    known = browser(url).post("/api/session", json={"username": "known_kim", "password": "not the password"})
    unknown = browser(url).post("/api/session", json={"username": "nobody_here", "password": "not the password"})
    assert (known.status_code, known.json()) == (unknown.status_code, unknown.json()) == (401, known.json())
    assert "set-cookie" not in known.headers and "set-cookie" not in unknown.headers


def test_a_password_change_needs_the_old_one_and_ends_the_other_sessions(live):
    url, _db = live
    main = sign_up(url, "change_lea")
    other = browser(url)
    other.post("/api/session", json={"username": "change_lea", "password": PASSWORD})
    wrong = main.post("/api/account/password", json={"current": "not it at all", "new": "another long phrase"})
    assert wrong.status_code == 400 and "current" in wrong.json()["error"]
    assert (
        main.post("/api/account/password", json={"current": PASSWORD, "new": "another long phrase"}).status_code == 200
    )
    assert other.get("/api/account").status_code == 401 and main.get("/api/account").status_code == 200
    old = browser(url).post("/api/session", json={"username": "change_lea", "password": PASSWORD})
    assert old.status_code == 401
    new = browser(url).post("/api/session", json={"username": "change_lea", "password": "another long phrase"})
    assert new.status_code == 200


def test_a_deleted_account_is_gone_from_every_table_of_the_store(live):
    url, db = live
    client = sign_up(url, "delete_mona")
    table = httpx.post(url + "/api/tables", json=GUEST_TABLE).json()
    held = client.post("/api/account/seats", json={"table_id": table["table_id"], "token": table["token"]})
    assert held.status_code == 200, held.text
    assert client.get("/api/account/tables").json()["tables"][0]["table_id"] == table["table_id"]
    secret = client.cookies[COOKIE]
    assert client.post("/api/account/delete", json={"password": "wrong one"}).status_code == 400
    assert client.post("/api/account/delete", json={"password": PASSWORD}).status_code == 200
    assert httpx.get(url + "/api/account", headers={"Cookie": f"{COOKIE}={secret}"}).status_code == 401
    store = open_store(db)
    try:
        assert not [c for c in every_cell(store) if "delete_mona" in c]
        assert store.account_by_key("delete_mona") is None
    finally:
        store.close()
    again = browser(url).post("/api/session", json={"username": "delete_mona", "password": PASSWORD})
    assert again.status_code == 401


def test_bearer_seat_tokens_and_guest_play_are_unchanged(live):
    url, _db = live
    guest = sign_up(url, "guest_nils")  # a logged-in browser plays its guest table by its seat token as before
    table = guest.post("/api/tables", json=GUEST_TABLE).json()
    bearer = {"Authorization": f"Bearer {table['token']}"}
    assert httpx.get(f"{url}/api/tables/{table['table_id']}/state", headers=bearer).status_code == 200
    assert guest.get(f"/api/tables/{table['table_id']}/state").status_code == 403, "the cookie is no seat token"


def test_a_guests_table_follows_the_account_and_the_seat_is_taken_back_elsewhere(live):
    url, _db = live
    phone = sign_up(url, "follow_olga")
    table = httpx.post(url + "/api/tables", json=GUEST_TABLE).json()  # played as a guest before signing up
    old = {"Authorization": f"Bearer {table['token']}"}
    assert phone.post("/api/account/seats", json={"table_id": table["table_id"], "token": "not it"}).status_code == 403
    assert phone.post("/api/account/seats", json={"table_id": table["table_id"], "token": table["token"]}).json() == {
        "table_id": table["table_id"],
        "chair": 0,
    }
    laptop = browser(url)
    assert laptop.post("/api/session", json={"username": "follow_olga", "password": PASSWORD}).status_code == 200
    listed = laptop.get("/api/account/tables").json()["tables"]
    assert [(t["table_id"], t["chair"]) for t in listed] == [(table["table_id"], 0)]
    stranger = sign_up(url, "follow_pete")
    path = f"/api/account/tables/{table['table_id']}/seats/0/token"
    assert stranger.post(path).status_code == 404, "only the account holding the chair takes it"
    back = laptop.post(path)
    assert back.status_code == 200
    new = {"Authorization": f"Bearer {back.json()['token']}"}
    assert httpx.get(f"{url}/api/tables/{table['table_id']}/state", headers=new).status_code == 200
    assert httpx.get(f"{url}/api/tables/{table['table_id']}/state", headers=old).status_code == 403


def test_a_seat_taken_back_elsewhere_ends_the_old_devices_socket(live):
    url, _db = live
    phone = sign_up(url, "socket_xena")
    table = httpx.post(url + "/api/tables", json=GUEST_TABLE).json()
    tid = table["table_id"]
    assert phone.post("/api/account/seats", json={"table_id": tid, "token": table["token"]}).status_code == 200
    ws_url = url.replace("http://", "ws://") + f"/api/tables/{tid}/ws"
    with connect(ws_url, open_timeout=10) as old, connect(ws_url + "?watch=1", open_timeout=10) as watcher:
        old.send(ws_token_message(table["token"]))
        assert json.loads(old.recv(timeout=10))["table_id"] == tid
        json.loads(watcher.recv(timeout=10))
        laptop = browser(url)
        assert laptop.post("/api/session", json={"username": "socket_xena", "password": PASSWORD}).status_code == 200
        new_token = laptop.post(f"/api/account/tables/{tid}/seats/0/token").json()["token"]
        with pytest.raises(ConnectionClosed) as closed:
            while True:  # (a view pushed before the close may come first)
                old.recv(timeout=10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == SEAT_TAKEN_CLOSE_CODE
        assert "another device" in closed.value.rcvd.reason
        with connect(ws_url, open_timeout=10) as new:
            new.send(ws_token_message(new_token))
            view = json.loads(new.recv(timeout=10))
            assert view["my_chair"] == 0
            watcher.ping().wait(10)  # a spectator's socket is no chair's: it stays


def test_sign_ups_from_one_address_are_limited(live):
    url, _db = live
    client = browser(url)
    for n in range(SIGN_UPS_PER_CLIENT):
        answer = client.post("/api/accounts", json={"username": f"many_{n}", "password": PASSWORD})
        assert answer.status_code == 201, answer.text
        client.cookies.clear()
    refused = client.post("/api/accounts", json={"username": "many_more", "password": PASSWORD})
    assert refused.status_code == 429 and int(refused.headers["retry-after"]) > 0
    assert browser(url).post("/api/accounts", json={"username": "many_more", "password": PASSWORD}).status_code == 201


def test_wrong_passwords_from_one_address_are_limited_across_usernames(live):
    url, _db = live
    client = browser(url)
    statuses = [
        client.post("/api/session", json={"username": f"spray_{n % 3}", "password": "a wrong guess"}).status_code
        for n in range(CLIENT_FAILURES + 1)
    ]
    assert statuses == [401] * CLIENT_FAILURES + [429]


def play_out(url: str, table: dict, deals: int) -> None:
    """Play (passing where it may, else the first legal call and card) at a table of one person and two bots until ``deals`` deals are finished."""
    bearer = {"Authorization": f"Bearer {table['token']}"}
    path = f"{url}/api/tables/{table['table_id']}"
    for _ in range(400):
        view = httpx.get(path + "/state", headers=bearer).json()
        if view["phase"] == "done" and view["score_sheet"]["deals_total"] >= deals:
            return
        if view["phase"] == "done":
            act = {"type": "next"}
        elif view["my_turn"] and view["legal_calls"]:
            act = {"type": "call", "call": "P" if "P" in view["legal_calls"] else view["legal_calls"][0]}
        elif view["my_turn"] and view["legal_cards"]:
            act = {"type": "play", "card": view["legal_cards"][0]}
        else:
            time.sleep(0.05)
            continue
        httpx.post(path + "/actions", headers=bearer, json={**act, "version": view["version"]})
    raise AssertionError("the deals did not finish")


def test_my_deals_lists_filters_and_exports_only_the_accounts_own(live):
    url, _db = live
    rita = sign_up(url, "deals_rita")
    table = rita.post("/api/tables", json=GUEST_TABLE).json()
    assert (
        rita.post("/api/account/seats", json={"table_id": table["table_id"], "token": table["token"]}).status_code
        == 200
    )
    play_out(url, table, 2)
    deals = rita.get("/api/account/deals").json()["deals"]
    assert len(deals) >= 2 and {d["table_id"] for d in deals} == {table["table_id"]}
    assert all(d["chair"] == 0 and d["role"] in ("declarer", "defender", "passed") for d in deals)
    for role in ("declarer", "defender", "passed"):
        listed = rita.get("/api/account/deals", params={"role": role}).json()["deals"]
        assert listed == [d for d in deals if d["role"] == role]
    assert rita.get("/api/account/deals", params={"role": "dummy"}).status_code == 400
    picked = ",".join(f"{d['table_id']}:{d['deal_no']}" for d in deals[:2])
    pbn = rita.get("/api/account/deals/export.pbn", params={"deals": picked})
    assert pbn.status_code == 200 and pbn.text.count("[Board ") == 2
    lin = rita.get("/api/account/deals/export.lin", params={"deals": picked})
    assert lin.status_code == 200 and len(lin.text.strip().splitlines()) == 2
    sam = sign_up(url, "deals_sam")
    assert sam.get("/api/account/deals").json()["deals"] == []
    assert sam.get("/api/account/deals/export.pbn", params={"deals": picked}).status_code == 404
    exported = rita.get("/api/account/export").json()
    assert len(exported["deals"]) == len(deals) and exported["deals_pbn"].count("[Board ") == len(deals)


def test_my_deals_review_opens_that_deal_for_its_account_on_any_device_only(live):
    url, _db = live
    vera = sign_up(url, "review_vera")
    created = browser(url).post(
        "/api/events", json={"form": "daily", "name": "Review night", "boards": 1, "filler": "random"}
    )
    assert created.status_code == 200, created.text
    entry = vera.post(f"/api/events/{created.json()['event_id']}/entries", json={}).json()
    play_out(url, entry, 1)
    [deal] = vera.get("/api/account/deals").json()["deals"]
    path = f"/api/tables/{deal['table_id']}/deals/{deal['deal_no']}/review"
    bearer = {"Authorization": f"Bearer {entry['token']}"}
    by_token = httpx.get(url + path, headers=bearer, timeout=60)  # (the double-dummy marks take a moment)
    assert by_token.status_code == 200, by_token.text
    laptop = browser(url)  # another device: the account's session, no seat token
    assert laptop.post("/api/session", json={"username": "review_vera", "password": PASSWORD}).status_code == 200
    review = laptop.get(path)
    assert review.status_code == 200, review.text
    assert review.json() == by_token.json() and review.json()["deal_no"] == deal["deal_no"]
    assert httpx.get(url + path).status_code == 403, "a spectator still waits for the board, as before"
    other = sign_up(url, "review_walt")
    refused = other.get(path)
    assert refused.status_code == 404 and "of yours" in refused.json()["error"]


def test_deals_against_bots_rate_the_account_and_its_profile_draws_the_graph(live):
    url, _db = live
    tess = sign_up(url, "rated_tess")
    table = httpx.post(url + "/api/tables", json=GUEST_TABLE).json()  # one deal as a guest, rated once tied
    play_out(url, table, 1)
    assert (
        tess.post("/api/account/seats", json={"table_id": table["table_id"], "token": table["token"]}).status_code
        == 200
    )
    play_out(url, table, 3)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:  # the ratings are applied in a task after each deal
        profile = httpx.get(f"{url}/api/players/rated_tess").json()
        if profile["rating"]["games"] == 6:  # three deals, each against both bots
            break
        time.sleep(0.2)
    assert profile["rating"]["games"] == 6 and len(profile["history"]) == 6
    assert profile["rating"]["sigma"] < 8.3334, "games make the rating surer"
    leaders = httpx.get(f"{url}/api/ratings", params={"min_games": 6}).json()["leaders"]
    assert "rated_tess" in [r["name"] for r in leaders] and "bot:random" in [r["name"] for r in leaders]
    records = profile["head_to_head"]  # every game was against the random bots, each deal a win, tie or loss
    assert [r["opponent"] for r in records] == ["bot:random"] and records[0]["bot"]
    assert records[0]["wins"] + records[0]["ties"] + records[0]["losses"] == 6
    svg = httpx.get(f"{url}/api/players/rated_tess/rating.svg")
    assert svg.headers["content-type"].startswith("image/svg+xml") and svg.text.count("<polyline") == 1
    assert httpx.get(f"{url}/api/players/nobody_at_all").status_code == 404
    assert tess.post("/api/account/delete", json={"password": PASSWORD}).status_code == 200
    assert httpx.get(f"{url}/api/players/rated_tess").status_code == 404
    assert "rated_tess" not in str(httpx.get(f"{url}/api/ratings", params={"min_games": 0}).json())


def test_todays_daily_entered_from_two_accounts_shows_both_in_the_weeks_series(live):
    url, _db = live
    people = {name: sign_up(url, name) for name in ("week_rosa", "week_saul")}
    daily = next(e for e in people["week_rosa"].get("/api/events").json()["events"] if e["house"])
    for name, client in people.items():
        entry = client.post(f"/api/events/{daily['event_id']}/entries", json={})
        assert entry.status_code == 200 and entry.json()["name"] == name, entry.text
    day = f"{daily['event_id'][6:10]}-{daily['event_id'][10:12]}-{daily['event_id'][12:14]}"
    series = people["week_saul"].get("/api/events/series", params={"period": "week", "date": day}).json()
    assert series["first"] <= day <= series["last"] and series["best"] == 5
    lines = {line["name"]: line for line in series["lines"]}
    assert set(lines) == {"week_rosa", "week_saul"}
    assert all(line["days"] == 1 and line["counted"] == 0 for line in lines.values()), "today's has not closed"
    recent = httpx.get(f"{url}/api/players/week_rosa").json()["recent_events"]  # the profile's recent events
    assert [(e["event_id"], e["closed"], e["percent"]) for e in recent] == [(daily["event_id"], False, None)]
