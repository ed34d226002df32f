"""Holes a hostile entrant could use in events, each shown closed on both store backends (the ``client`` fixture):
watching boards not yet played, taking other entrants' chairs, a second entry from one address, chosen boards in a
public event, team matches' points, limits after parsing, boards after the close, and tags injected in exports."""

from __future__ import annotations

import pytest

from event_helpers import (
    address_of,
    auth,
    enter,
    event_view,
    move_clock,
    new_event,
    next_board,
    play_board,
    post_entry,
    step,
)
from tribridge.cards import random_deal
from tribridge.dealing.streams import random_stream
from tribridge.rules.pbn import read_boards
from tribridge.testing import ws_token_message

pytestmark = pytest.mark.loop_watch  # servers watched for a blocked loop (loop_watch_check)


def pbn_of(count: int, first_number: str = "1") -> str:
    """A PBN text of ``count`` random boards (the first numbered ``first_number``)."""
    games = []
    for n in range(count):
        number = first_number if n == 0 else str(n + 1)
        deal = random_deal(random_stream(11, n)).to_pbn()
        games.append(f'[Board "{number}"]\n[Dealer "N"]\n[Deal "{deal}"]\n')
    return "\n".join(games)


def test_an_event_table_is_watched_only_on_a_board_the_watcher_has_finished(client):
    """Hole 1: an entrant who has not finished the board a table is on cannot watch it, nor can a stranger (REST
    and WebSocket); once it has finished that board it may; the next board is closed to it again."""
    event_id = new_event(client, boards=3)
    ann_table, ann = enter(client, event_id, "Ann")
    bob_table, bob = enter(client, event_id, "Bob")
    play_board(client, ann_table, ann)  # Ann's table shows board 1, finished
    for token in (None, bob):
        r = client.get(f"/api/tables/{ann_table}/watch", headers=auth(token))
        assert r.status_code == 403 and "open" in r.json()["error"]
    with client.websocket_connect(f"/api/tables/{ann_table}/ws?follow=0") as ws:
        ws.send_text(ws_token_message(bob))
        with pytest.raises(Exception):  # noqa: B017 - closed with 4403 before any view
            ws.receive_json()
    play_board(client, bob_table, bob)
    r = client.get(f"/api/tables/{ann_table}/watch", headers=auth(bob))
    assert r.status_code == 200 and r.json()["spectator"]
    next_board(client, ann_table, ann)  # board 2, which Bob has not played
    assert client.get(f"/api/tables/{ann_table}/watch", headers=auth(bob)).status_code == 403
    move_clock(client, 15 * 24 * 3600)  # once closed, anyone may watch
    assert client.get(f"/api/tables/{ann_table}/watch").status_code == 200


def individual_event(client) -> tuple[str, dict[str, dict]]:
    """An individual event of three people, round 1 started: its id and each person's ``me``."""
    body = {"form": "individual", "name": "Live", "boards": 2, "players": 3, "rounds": 1, "filler": "random"}
    event_id = client.post("/api/events", json=body).json()["event_id"]
    tokens = {n: post_entry(client, event_id, {"name": n}).json()["token"] for n in ("Ann", "Bob", "Cid")}
    return event_id, {n: event_view(client, event_id, t)["me"] for n, t in tokens.items()}


def test_the_chairs_of_an_event_table_belong_to_its_entrants(client):
    """Hole 2: every chair of a round's table is taken for its entrant when the table is created; taking one with no
    token is refused (409, naming the event), and each entrant acts with its own token."""
    event_id, me = individual_event(client)
    table_id = me["Ann"]["table_id"]
    assert {m["table_id"] for m in me.values()} == {table_id}
    chairs = client.get(f"/api/tables/{table_id}").json()["chairs"]
    assert all(chair["taken"] for chair in chairs)
    for chair in range(3):
        r = client.post(f"/api/tables/{table_id}/seats/{chair}")
        assert r.status_code == 409 and event_id in r.json()["error"]
    for person in me.values():
        r = client.get(f"/api/tables/{table_id}/state", headers=auth(person["table_token"]))
        assert r.status_code == 200 and chairs[r.json()["my_chair"]]["name"] in ("Ann", "Bob", "Cid")
    step(client, me["Ann"])  # the rightful entrants still play


def test_teams_tables_are_bound_and_matches_show_only_what_the_asker_may_see(client):
    """Holes 2 and 6 in the teams form: the match's chairs are the entrants'; while the event runs a stranger sees
    no board's IMPs in ``matches``, and an entrant only those of boards it has finished."""
    body = {"form": "teams", "name": "Teams", "boards": 1, "teams": 2, "filler": "random", "starts_in_minutes": 5}
    event_id = client.post("/api/events", json=body).json()["event_id"]
    ann = post_entry(client, event_id, {"name": "Ann", "team": "Red"}).json()["token"]
    bob = post_entry(client, event_id, {"name": "Bob", "team": "Blue"}).json()["token"]
    move_clock(client, 3600)
    me = {"Ann": event_view(client, event_id, ann)["me"], "Bob": event_view(client, event_id, bob)["me"]}
    table_id = me["Ann"]["table_id"]
    for chair in range(3):
        assert client.post(f"/api/tables/{table_id}/seats/{chair}").status_code == 409
    for _ in range(2000):  # both play on (pass, first card, next) until Ann sees the match's board
        if all(m["boards"] for m in event_view(client, event_id, ann)["matches"]):
            break
        for token in (ann, bob):
            person = event_view(client, event_id, token)["me"]
            if person["table_id"]:
                step(client, person)
    assert event_view(client, event_id, ann)["matches"][0]["boards"]  # Ann finished board 1: she sees it
    stranger = event_view(client, event_id)
    assert all(m["boards"] == [] and not any(m["imps"]) for m in stranger["matches"])
    assert stranger["travellers"] == []


def test_one_entry_per_address_and_look_alike_names(client):
    """Hole 3: a second entry from one address is refused, and so is a name that only looks different (a Cyrillic
    "А"); guests are marked in the standings."""
    event_id = new_event(client, boards=2)
    assert post_entry(client, event_id, {"name": "Ann"}, address="198.51.100.7").status_code == 200
    second = post_entry(client, event_id, {"name": "Ann2"}, address="198.51.100.7")
    assert second.status_code == 409 and "one entry per person" in second.json()["error"]
    look_alike = post_entry(client, event_id, {"name": "\u0410nn"}, address="198.51.100.8")
    assert look_alike.status_code == 409
    # IPv6: one /64 is one person
    assert post_entry(client, event_id, {"name": "Bob"}, address="2001:db8:1:2::10").status_code == 200
    assert post_entry(client, event_id, {"name": "Cid"}, address="2001:db8:1:2::99").status_code == 409
    assert post_entry(client, event_id, {"name": "Cid"}, address="2001:db8:1:3::99").status_code == 200
    move_clock(client, 15 * 24 * 3600)
    assert {s["bot"] for s in event_view(client, event_id)["standings"]} == {"guest"}


def test_an_event_of_the_creators_boards_is_private(client):
    """Hole 4: an event created from a PBN text is not listed, takes entries only with its invitation, says where
    its boards came from in its summary and in its export."""
    r = client.post("/api/events", json={"form": "daily", "name": "Mine", "pbn": pbn_of(2), "filler": "random"})
    assert r.status_code == 200
    created = r.json()
    event_id, invite = created["event_id"], created["invite"]
    assert created["private"] and created["boards_from"] == "pbn"
    assert event_id not in [e["event_id"] for e in client.get("/api/events").json()["events"]]
    refused = post_entry(client, event_id, {"name": "Ann"})
    assert refused.status_code == 403 and "invitation" in refused.json()["error"]
    assert post_entry(client, event_id, {"name": "Ann", "invite": "guess"}).status_code == 403
    assert post_entry(client, event_id, {"name": "Ann", "invite": invite}).status_code == 200
    public = new_event(client, boards=2)
    listed = client.get("/api/events").json()["events"]
    assert public in [e["event_id"] for e in listed] and not any("invite" in e for e in listed)
    assert not event_view(client, public)["event"]["private"]
    move_clock(client, 15 * 24 * 3600)
    text = client.get(f"/api/events/{event_id}/export.pbn").text
    assert "private event" in text.splitlines()[0]


def test_an_undo_cannot_take_back_the_opening_lead(client):
    """Hole 5: the opening lead shows the widow; asking to take it back is refused (others would agree at once)."""
    chairs = [{"kind": "human"}] * 3
    body = client.post("/api/tables", json={"chairs": chairs, "take": 0}).json()
    table_id, tokens = body["table_id"], {0: body["token"]}
    for chair in (1, 2):
        tokens[chair] = client.post(f"/api/tables/{table_id}/seats/{chair}").json()["token"]
    for call in ("1N", "P", "P"):
        turn = client.get(f"/api/tables/{table_id}/state", headers=auth(tokens[0])).json()["turn_chair"]
        r = client.post(
            f"/api/tables/{table_id}/actions", headers=auth(tokens[turn]), json={"type": "call", "call": call}
        )
        assert r.status_code == 200, r.text
    leader = client.get(f"/api/tables/{table_id}/state", headers=auth(tokens[0])).json()["turn_chair"]
    view = client.get(f"/api/tables/{table_id}/state", headers=auth(tokens[leader])).json()
    lead = {"type": "play", "card": view["legal_cards"][0]}
    assert client.post(f"/api/tables/{table_id}/actions", headers=auth(tokens[leader]), json=lead).status_code == 200
    r = client.post(f"/api/tables/{table_id}/actions", headers=auth(tokens[leader]), json={"type": "undo"})
    assert r.status_code == 400 and "opening lead" in r.json()["error"]
    after = client.get(f"/api/tables/{table_id}/state", headers=auth(tokens[leader])).json()
    assert after["undo"] is None and not after["can_undo"]  # the page offers no Undo either


def test_limits_come_before_parsing_and_board_numbers_are_bounded(client):
    """Hole 7: a PBN of too many boards is refused by its count of deals; past the creation limit a big PBN is
    refused with 429 before it is read; a 5,000-digit Board number is a 400, not a 500."""
    too_many = client.post("/api/events", json={"name": "Flood", "pbn": pbn_of(40), "filler": "random"})
    assert too_many.status_code == 400 and "40" in too_many.json()["error"]
    huge = client.post("/api/events", json={"name": "Huge", "pbn": pbn_of(1, "9" * 5000), "filler": "random"})
    assert huge.status_code == 400 and "Board number" in huge.json()["error"]
    for n in range(10):
        r = client.post("/api/events", json={"name": f"e{n}", "boards": 1, "filler": "random"})
        if r.status_code == 429:
            break
    else:
        raise AssertionError("the creation limit never answered")
    flood = client.post("/api/events", json={"name": "Flood", "pbn": "[Deal garbage" * 3000})
    assert flood.status_code == 429 and "Retry-After" in flood.headers


def test_a_board_finished_after_the_close_does_not_count(client):
    """The close: once ``closes_at`` has passed an event table takes no more game actions (409), ``next`` answers
    with the event's end, and the frozen results hold only what was finished before."""
    event_id = new_event(client, boards=2)
    table_id, token = enter(client, event_id, "Ann")
    play_board(client, table_id, token)
    move_clock(client, 15 * 24 * 3600)
    r = client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json={"type": "next"})
    assert r.status_code == 409 and "ended" in r.json()["error"]
    view = client.get(f"/api/tables/{table_id}/state", headers=auth(token)).json()
    assert view["deal_no"] == 1 and view["phase"] == "done"
    final = event_view(client, event_id)
    assert final["closed"] and final["entrants"] == [{"name": "Ann", "boards_played": 1, "account": False}]


def test_an_event_name_cannot_add_a_tag_to_the_export(client):
    """Export escaping: a name holding quotes and brackets comes back from our reader as written, with no tag added."""
    name = 'Ev"] [Result "13'
    event_id = new_event(client, boards=1, name=name)
    table_id, token = enter(client, event_id, "Ann")
    play_board(client, table_id, token)
    move_clock(client, 15 * 24 * 3600)
    (board,) = read_boards(client.get(f"/api/events/{event_id}/export.pbn").text)
    assert board.tags["Event"] == f"tribridge {name}" and "Result" not in board.tags


def test_talk_refuses_direction_overrides_and_piles_of_marks(client):
    """Talk and names: U+202E/U+2067 refused, and more than four combining marks on one letter."""
    event_id = new_event(client, boards=1)
    table_id, token = enter(client, event_id, "Ann")
    for text in ("abc\u202edef", "x\u2067y", "e" + "\u0301" * 199):
        r = client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json={"type": "say", "text": text})
        assert r.status_code == 400 and r.json()["error"].startswith("text")
    ok = client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json={"type": "say", "text": "Tiê\u0301n"})
    assert ok.status_code == 200
    r = post_entry(client, event_id, {"name": "Z" + "\u0300" * 9}, address=address_of("Zed"))
    assert r.status_code == 400 and r.json()["error"].startswith("name")
