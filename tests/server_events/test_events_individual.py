"""The live individual form on both store backends: entries, the start, round by round, what each person sees."""

from __future__ import annotations

import time

from event_helpers import auth, cards_in, event_view, move_clock, post_entry, step, table_state
from tribridge.events.movement import individual_movement, round_boards
from tribridge.server.events.documents import EventLimits
from tribridge.testing import ws_token_message

PLAYERS, BOARDS, ROUNDS = 4, 4, 2
NAMES = ("Ann", "Bob", "Cid")


def play_round(client, event_id: str, tokens: dict[str, str]) -> dict[str, str]:
    """Every person plays its table of the current round to its end (any person presses "next"); their tables."""
    seats = {name: event_view(client, event_id, token)["me"] for name, token in tokens.items()}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        busy = False
        for name, me in seats.items():
            view = table_state(client, me["table_id"], me["table_token"])
            assert (
                cards_in(view)
                <= set(view["hand"])
                | set(view["widow"] or [])
                | cards_in(view["current_trick"])
                | (cards_in(view["last_trick"]))
                or view["phase"] == "done"
            ), name
            if view["phase"] == "done":
                if not view["event"]["over"]:
                    busy = True
                    client.post(
                        f"/api/tables/{me['table_id']}/actions", headers=auth(me["table_token"]), json={"type": "next"}
                    )
                continue
            busy = True
            if not view["my_turn"]:
                continue
            if view["phase"] == "auction":
                action = {"type": "call", "call": "P", "version": view["version"]}
            else:
                action = {"type": "play", "card": view["legal_cards"][0], "version": view["version"]}
            client.post(f"/api/tables/{me['table_id']}/actions", headers=auth(me["table_token"]), json=action)
        if not busy:
            return {name: me["table_id"] for name, me in seats.items()}
        time.sleep(0.01)
    raise AssertionError("the round did not finish")


def test_individual_event_round_by_round(client):
    body = {"form": "individual", "name": "Live", "boards": BOARDS, "players": PLAYERS, "rounds": ROUNDS}
    body.update({"filler": "random", "starts_in_minutes": 10})
    r = client.post("/api/events", json=body)
    assert r.status_code == 200, r.text
    event_id = r.json()["event_id"]
    tokens = {}
    for name in ("Ann", "Bob", "Cid"):
        entry = post_entry(client, event_id, {"name": name}).json()
        tokens[name] = entry["token"]
    first = event_view(client, event_id, tokens["Ann"])
    assert first["event"]["rounds_started"] == 0 and first["me"]["table_id"] is None

    move_clock(client, 11 * 60)  # the start time passes with a place empty: a bot takes it
    assert post_entry(client, event_id, {"name": "Dee"}).status_code == 409
    movement = individual_movement(PLAYERS, ROUNDS)
    runs = round_boards(BOARDS, ROUNDS)
    names = ["Ann", "Bob", "Cid"]
    shown = {}  # (round, movement table) -> the names the table's view gives its chairs
    for round_index in range(ROUNDS):
        view = event_view(client, event_id, tokens["Bob"])
        assert view["event"]["rounds_started"] == round_index + 1
        assert [t["board"] for t in view["travellers"]] == list(range(1, runs[round_index][0] + 1))
        tables = play_round(client, event_id, tokens)
        # people the movement seats together share a table; the table's chairs are the movement's chairs
        for name, table_id in tables.items():
            place = next(t for t in movement.rounds[round_index] if names.index(name) in t)
            together = {n for n in names if names.index(n) in place}
            assert {n for n, t in tables.items() if t == table_id} == together
            info = client.get(f"/api/tables/{table_id}").json()
            for chair, person in enumerate(place):
                expected = names[person] if person < len(names) else None
                assert (info["chairs"][chair]["kind"] == "human") == (expected is not None)
                if expected:
                    assert info["chairs"][chair]["name"] == expected
            shown[(round_index, movement.rounds[round_index].index(place))] = [
                c["label"] or c["name"] for c in info["chairs"]
            ]

    final_round = event_view(client, event_id, tokens["Cid"])
    assert [t["board"] for t in final_round["travellers"]] == list(range(1, BOARDS + 1))
    for traveller in final_round["travellers"]:
        round_index = next(r for r, run in enumerate(runs) if traveller["board"] - 1 in run)
        seated = [p for t in movement.rounds[round_index] for p in t if p < len(names)]
        assert sorted(n for r in traveller["results"] for n in r["players"] if n in names) == sorted(
            names[p] for p in seated
        )
        for result in traveller["results"]:
            table = movement.rounds[round_index][result["table"] - 1]
            for chair, person in enumerate(table):  # the dealer holds the movement's chair 0
                bot_name = "random bot" if sum(p >= len(names) for p in table) == 1 else f"random bot {chair + 1}"
                assert result["players"][chair] == (names[person] if person < len(names) else bot_name)
                assert result["fillers"][chair] == (person >= len(names))
            assert result["players"] == shown[(round_index, result["table"] - 1)]  # as the table names its chairs
    standings = {s["name"]: s for s in final_round["standings"]}
    assert set(standings) == set(names) and all(s["boards"] == BOARDS for s in standings.values())


def test_a_bot_stands_in_for_a_person_who_leaves_until_it_comes_back(client):
    events = client.app.state.events
    events.limits = EventLimits(leave_seconds=1.0)
    events.standins.check_seconds = 0.05
    body = {"form": "individual", "name": "Live", "boards": 3, "players": 3, "rounds": 1, "filler": "random"}
    event_id = client.post("/api/events", json=body).json()["event_id"]
    tokens = {n: post_entry(client, event_id, {"name": n}).json()["token"] for n in NAMES}
    here = {n: event_view(client, event_id, tokens[n])["me"] for n in ("Ann", "Bob")}  # Cid never comes to play
    table_id = here["Ann"]["table_id"]
    cid_chair = next(
        c for c, chair in enumerate(client.get(f"/api/tables/{table_id}").json()["chairs"]) if chair["name"] == "Cid"
    )
    sockets = [client.websocket_connect(f"/api/tables/{table_id}/ws") for _ in here]
    for socket, name in zip(sockets, here):
        socket.__enter__().send_text(ws_token_message(here[name]["table_token"]))
    try:
        deadline = time.monotonic() + 120
        while client.get(f"/api/tables/{table_id}").json()["deal_no"] < 2:  # a whole board: Cid's turns by a bot
            assert time.monotonic() < deadline, "the stand-in never played"
            for me in here.values():
                step(client, me)
            time.sleep(0.02)
        assert client.get(f"/api/tables/{table_id}").json()["chairs"][cid_chair]["kind"] == "bot"

        cid = event_view(client, event_id, tokens["Cid"])["me"]  # Cid comes back: its chair is its own again
        assert cid["table_id"] == table_id
        chair = client.get(f"/api/tables/{table_id}").json()["chairs"][cid_chair]
        assert chair["kind"] == "human" and chair["name"] == "Cid"
        acted_by_cid = False
        while not table_state(client, table_id, cid["table_token"])["event"]["over"]:
            assert time.monotonic() < deadline, "the event's table did not finish"
            for me in here.values():
                step(client, me)
            view = step(client, cid)
            acted_by_cid |= view["my_turn"]
            time.sleep(0.02)
        assert acted_by_cid
    finally:
        for socket in sockets:
            socket.__exit__(None, None, None)
    traveller = event_view(client, event_id, tokens["Cid"])["travellers"][0]
    assert sorted(traveller["results"][0]["players"]) == sorted(NAMES)
