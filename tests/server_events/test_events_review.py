"""A finished deal's review for spectators (both store backends): anyone at an ordinary table, and at an open
event's table only an entrant who has finished that deal's board (the watching rule), by the deal asked for."""

from __future__ import annotations

from event_helpers import auth, enter, move_clock, new_event, next_board, play_board


def review_status(client, table_id: str, deal_no: int, token: str | None = None) -> int:
    """The status of ``GET .../deals/{deal_no}/review`` as the holder of ``token`` (None: no token)."""
    return client.get(f"/api/tables/{table_id}/deals/{deal_no}/review", headers=auth(token)).status_code


def test_a_spectator_reviews_a_finished_deal_of_an_ordinary_table(client):
    """No seat token: the review of a finished deal (not 403 "missing seat token"); an unfinished one is 404."""
    chairs = [{"kind": "human", "name": "Ann"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
    created = client.post("/api/tables", json={"chairs": chairs, "scheme": "classic", "take": 0}).json()
    play_board(client, created["table_id"], created["token"])
    r = client.get(f"/api/tables/{created['table_id']}/deals/1/review")
    assert r.status_code == 200, r.text
    assert r.json()["deal_no"] == 1 and r.json()["hands"]
    next_board(client, created["table_id"], created["token"])
    assert review_status(client, created["table_id"], 2) == 404


def test_an_open_events_deal_is_reviewed_only_by_who_finished_its_board(client):
    """A stranger may not review Ann's board 1 while the event runs; Bob may once he has played board 1, also after
    Ann's table moved on; board 2's review stays closed to him until he plays it; after the close anyone may."""
    event_id = new_event(client, boards=3)
    ann_table, ann = enter(client, event_id, "Ann")
    bob_table, bob = enter(client, event_id, "Bob")
    play_board(client, ann_table, ann)
    assert review_status(client, ann_table, 1) == 403
    assert review_status(client, ann_table, 1, bob) == 403
    assert review_status(client, ann_table, 1, ann) == 200  # her own chair
    play_board(client, bob_table, bob)
    next_board(client, ann_table, ann)
    play_board(client, ann_table, ann)
    assert review_status(client, ann_table, 1, bob) == 200
    assert review_status(client, ann_table, 2, bob) == 403
    move_clock(client, 15 * 24 * 3600)
    assert review_status(client, ann_table, 2) == 200
