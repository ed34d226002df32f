"""The events API on both store backends: a daily event played by two entrants, what each may see, the scores."""

from __future__ import annotations

from fractions import Fraction

import pytest

from event_helpers import (
    auth,
    cards_in,
    enter,
    event_view,
    move_clock,
    new_event,
    next_board,
    play_board,
    post_entry,
    table_state,
)
from tribridge.events.boards import seeded_boards
from tribridge.server.events.documents import EventLimits
from tribridge.testing import ws_token_message

pytestmark = pytest.mark.loop_watch  # servers watched for a blocked loop (loop_watch_check)


def close_event(client) -> None:
    """Move the event service's clock a fortnight on: every event has closed."""
    move_clock(client, 15 * 24 * 3600)


def own_cards_only(view) -> None:
    """A chair's table view shows its own hand, dummy's after the lead, and the cards on the table: no more."""
    allowed = set(view["hand"]) | set(view["widow"] or []) | cards_in(view["last_trick"])
    allowed |= cards_in(view["current_trick"])
    if view["phase"] != "done":
        assert cards_in(view) <= allowed


def plain_percent(mine: int, others: list[int]) -> Fraction:
    """A board's matchpoint percentage from first principles: beaten and tied others over all others."""
    if not others:
        return Fraction(50)
    won = sum(Fraction(1) if o < mine else Fraction(1, 2) if o == mine else Fraction(0) for o in others)
    return 100 * won / len(others)


def test_daily_event_two_entrants_see_only_what_they_played(client):
    event_id = new_event(client, boards=3)
    listed = [e for e in client.get("/api/events").json()["events"] if not e["house"]]  # beside the house's daily
    assert [e["event_id"] for e in listed] == [event_id] and listed[0]["boards"] == 3
    ann_table, ann = enter(client, event_id, "Ann")

    # before any board: no traveller, and not one card of a board anywhere in the event's answer
    view = event_view(client, event_id, ann)
    assert view["me"]["name"] == "Ann" and view["travellers"] == [] and not cards_in(view)
    assert "table_id" not in str(view["entrants"])

    finished = []
    for board in range(1, 4):
        done = play_board(client, ann_table, ann, check=own_cards_only)
        finished.append(done)
        assert done["event"] == {"event_id": event_id, "boards": 3, "over": board == 3}
        seen = event_view(client, event_id, ann)
        assert [t["board"] for t in seen["travellers"]] == list(range(1, board + 1))
        if board < 3:
            next_board(client, ann_table, ann)
    refused = client.post(f"/api/tables/{ann_table}/actions", headers=auth(ann), json={"type": "next"})
    assert refused.status_code == 400 and "all played" in refused.json()["error"]

    # a second entrant sees no traveller and no other table's result before playing the board
    bob_table, bob = enter(client, event_id, "Bob")
    assert bob_table != ann_table
    first = event_view(client, event_id, bob)
    assert first["me"]["name"] == "Bob" and first["travellers"] == [] and not cards_in(first)
    assert event_view(client, event_id)["travellers"] == []  # nor does a stranger
    assert client.get(f"/api/tables/{ann_table}/state", headers=auth(bob)).status_code == 403
    with client.websocket_connect(f"/api/tables/{bob_table}/ws") as ws:
        ws.send_text(ws_token_message(bob))
        pushed = ws.receive_json()
        assert pushed["deal_no"] == 1 and pushed["score_sheet"]["deals"] == []
        assert cards_in(pushed) <= set(pushed["hand"]) and len(pushed["hand"]) == 13
    play_board(client, bob_table, bob, check=own_cards_only)
    after_one = event_view(client, event_id, bob)
    assert [t["board"] for t in after_one["travellers"]] == [1]
    assert sorted(r["players"][0] for r in after_one["travellers"][0]["results"]) == ["Ann", "Bob"]
    for _ in range(2):
        next_board(client, bob_table, bob)
        play_board(client, bob_table, bob)

    # both see each other's results on every board, in the chair the daily form gives: (n - 1) mod 3
    travellers = event_view(client, event_id, ann)["travellers"]
    assert travellers == event_view(client, event_id, bob)["travellers"]
    histories = {
        name: client.get(f"/api/tables/{tid}/export.json", headers=auth(tok)).json()["deals"]
        for name, tid, tok in (("Ann", ann_table, ann), ("Bob", bob_table, bob))
    }
    percents = {"Ann": Fraction(0), "Bob": Fraction(0)}
    for traveller in travellers:
        number, chair = traveller["board"], (traveller["board"] - 1) % 3
        by_name = {r["players"][chair]: r for r in traveller["results"]}
        assert set(by_name) == {"Ann", "Bob"}
        for name, deals in histories.items():
            record = deals[number - 1]
            assert record["record"]["deal"] == histories["Ann"][number - 1]["record"]["deal"]  # the same board
            assert record["dealer"] == traveller["dealer"]
            assert by_name[name]["scores"][chair] == record["scores"]["per_chair"][0]  # the entrant sits in chair 0
        for name in percents:
            other = "Bob" if name == "Ann" else "Ann"
            percents[name] += plain_percent(by_name[name]["scores"][chair], [by_name[other]["scores"][chair]])
    standings = {s["name"]: s for s in event_view(client, event_id, bob)["standings"]}
    for name, total in percents.items():
        assert standings[name]["percent"] == pytest.approx(float(total / 3))
        assert standings[name]["boards"] == 3


def test_exports_and_the_close(client):
    event_id = new_event(client, boards=2)
    ann_table, ann = enter(client, event_id, "Ann")
    assert client.get(f"/api/events/{event_id}/export.json").status_code == 403
    play_board(client, ann_table, ann)
    own = client.get(f"/api/events/{event_id}/export.json", headers=auth(ann)).json()
    assert [t["board"] for t in own["travellers"]] == [1]
    pbn = client.get(f"/api/events/{event_id}/export.pbn", headers=auth(ann)).text
    assert pbn.count("[Board ") == 1 and "[ScoreTable " in pbn
    cid_table, cid = enter(client, event_id, "Cid")  # plays nothing

    close_event(client)
    assert [e for e in client.get("/api/events").json()["events"] if not e["house"]] == []
    assert post_entry(client, event_id, {"name": "Dee"}).status_code == 409
    # no board is played after the close: "next" answers with the event's end
    refused = client.post(f"/api/tables/{ann_table}/actions", headers=auth(ann), json={"type": "next"})
    assert refused.status_code == 409 and "has ended" in refused.json()["error"]
    public = event_view(client, event_id)
    assert public["closed"] and public["final"] and [t["board"] for t in public["travellers"]] == [1, 2]
    assert [len(t["results"]) for t in public["travellers"]] == [1, 0]
    standings = {s["name"]: s for s in public["standings"]}
    assert standings["Ann"]["unplayed"] == 1 and standings["Cid"]["unplayed"] == 2
    assert standings["Ann"]["percent"] == pytest.approx((50 + 40) / 2)  # a lone score is 50 %, unplayed 40 %
    assert standings["Cid"]["percent"] == pytest.approx(40) and standings["Cid"]["imps"] == -4
    everything = client.get(f"/api/events/{event_id}/export.pbn").text
    assert everything.count("[Board ") == 2 and "TotalScoreTable" in everything
    assert table_state(client, cid_table, cid)["deal_no"] == 1


def test_pbn_boards_keep_their_dealer_and_number(client):
    board_a, board_b = seeded_boards(5, 2)
    text = "\n".join(
        f'[Board "{number}"]\n[Dealer "{dealer}"]\n[Deal "{board.deal.to_pbn(int(board.dealer))}"]\n'
        for number, dealer, board in ((7, "W", board_a), (8, "S", board_b))
    )
    created = client.post("/api/events", json={"name": "Mine", "pbn": text, "filler": "random"}).json()
    event_id = created["event_id"]
    entry = post_entry(client, event_id, {"name": "Ann", "invite": created["invite"]}).json()
    table_id, token = entry["table_id"], entry["token"]
    view = table_state(client, table_id, token)
    assert view["dealer"] == "W" and view["my_seat"] == "W"  # board 7: chair (7 - 1) mod 3 = 0, the dealer
    assert view["hand"] and set(view["hand"]) == cards_in(view["hand"])
    play_board(client, table_id, token)
    view = next_board(client, table_id, token)
    assert view["dealer"] == "S" and view["my_seat"] == "W"  # board 8: chair 1, the dealer's left
    shown = event_view(client, event_id, token)["travellers"]
    assert [t["board"] for t in shown] == [7]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "x", "boards": 0}, "boards"),
        ({"name": "x", "boards": 3, "pbn": '[Board "1"]'}, "boards"),
        ({"name": "x", "boards": 3, "scheme": "nope"}, "scheme"),
        ({"boards": 3}, "name"),
        ({"name": "x", "boards": 3, "form": "swiss"}, "form"),
        ({"name": "x", "boards": 3, "closes_in_hours": 0}, "closes_in_hours"),
        ({"name": "x", "pbn": "not a pbn file"}, "pbn"),
        ({"name": "x", "boards": 3, "filler": "nobody"}, "filler"),
    ],
)
def test_bad_requests_name_the_field(client, body, field):
    r = client.post("/api/events", json=body)
    assert r.status_code == 400 and r.json()["error"].startswith(field), r.text


def test_limits_and_names(client):
    client.app.state.events.limits = EventLimits(creations_per_minute_per_client=2)
    event_id = new_event(client)
    new_event(client)
    r = client.post("/api/events", json={"name": "third", "boards": 1})
    assert r.status_code == 429 and "Retry-After" in r.headers
    enter(client, event_id, "Ann")
    assert post_entry(client, event_id, {"name": "ann"}).status_code == 409
    for bot_like in ("random bot 2", "Paper+Random Bot"):  # the bots' names as the table shows them
        assert post_entry(client, event_id, {"name": bot_like}).status_code == 400
    assert post_entry(client, event_id, {"name": "filler 1"}).status_code == 400
    assert post_entry(client, event_id, {}).status_code == 400
    assert client.get("/api/events/nothing-here").status_code == 404
