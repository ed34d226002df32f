"""The live individual form on both store backends: entries, the start, round by round, what each person sees."""

from __future__ import annotations

import time

import pytest
from event_helpers import auth, cards_in, event_view, table_state
from fastapi.testclient import TestClient

from tribridge.events.movement import individual_movement, round_boards
from tribridge.server.app import create_app

PLAYERS, BOARDS, ROUNDS = 4, 4, 2


@pytest.fixture()
def client(db_url):
    app = create_app(db_path=db_url, bot_delay=0, log_requests=False)
    with TestClient(app) as c:
        yield c


def later(client, minutes: float) -> None:
    """Move the event service's clock on by ``minutes``."""
    events = client.app.state.events
    now = events.clock() + minutes * 60
    events.clock = lambda: now


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
        entry = client.post(f"/api/events/{event_id}/entries", json={"name": name}).json()
        tokens[name] = entry["token"]
    first = event_view(client, event_id, tokens["Ann"])
    assert first["event"]["rounds_started"] == 0 and first["me"]["table_id"] is None

    later(client, 11)  # the start time passes with a place empty: a bot takes it
    assert client.post(f"/api/events/{event_id}/entries", json={"name": "Dee"}).status_code == 409
    movement = individual_movement(PLAYERS, ROUNDS)
    runs = round_boards(BOARDS, ROUNDS)
    names = ["Ann", "Bob", "Cid"]
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
                assert result["players"][chair] == (names[person] if person < len(names) else result["players"][chair])
                assert result["fillers"][chair] == (person >= len(names))
    standings = {s["name"]: s for s in final_round["standings"]}
    assert set(standings) == set(names) and all(s["boards"] == BOARDS for s in standings.values())
