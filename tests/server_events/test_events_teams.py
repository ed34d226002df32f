"""The live teams form on both store backends: teams entered, the knockout stage by stage, the movement's chairs,
each bot named as its table names it."""

from __future__ import annotations

import re
import time

from event_helpers import event_view, move_clock, post_entry, step

BOT_NAME = re.compile(r"^random bot( [123])?$")  # how a table names a random bot's chair


def play_knockout(client, event_id: str, tokens: dict[str, str], tables: dict | None = None) -> dict:
    """Every person plays whatever table it has until the knockout has its final standings; the last view.
    ``tables`` (if given) gets, per person, the names its tables' views give their chairs (in the order played)."""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        for name, token in tokens.items():
            view = event_view(client, event_id, token)
            if view["team_standings"]:
                return view
            if view["me"]["table_id"]:
                seen = step(client, view["me"])
                if tables is not None:
                    chairs = [c["label"] or c["name"] for c in seen["chairs"]]
                    tables.setdefault(name, {}).setdefault(view["me"]["table_id"], chairs)
        time.sleep(0.01)
    raise AssertionError("the knockout did not end")


def enter(client, event_id: str, name: str, team: str) -> str:
    r = post_entry(client, event_id, {"name": name, "team": team})
    assert r.status_code == 200, r.text
    return r.json()["token"]


def check_team_movement(view: dict) -> None:
    """On every board of every match each person holds a chair at one table, the people of a team different
    chairs; every bot is named as a table names it, no two chairs of a table alike."""
    team_of = {name: t["name"] for t in view["teams"] for name in t["members"]}
    for traveller in view["travellers"]:
        assert len(traveller["results"]) == 3, traveller["section"]
        chairs: dict[str, list[int]] = {}
        for result in traveller["results"]:
            assert len(set(result["players"])) == 3, result["players"]
            for chair, name in enumerate(result["players"]):
                if name in team_of:
                    chairs.setdefault(team_of[name], []).append(chair)
                else:
                    assert BOT_NAME.match(name), name
        assert all(len(set(c)) == len(c) for c in chairs.values()), chairs


def check_bots_named_as_at_the_table(view: dict, tables: dict[str, dict[str, list[str]]]) -> None:
    """Each person's result rows name the chairs as its table did in that round (its tables come round by round)."""
    for name, seen in tables.items():
        by_round = list(seen.values())
        rows = [r for t in view["travellers"] for r in t["results"] if name in r["players"]]
        assert rows, name
        for row in rows:
            assert row["players"] == by_round[row["round"] - 1], (name, row, by_round)


def test_two_teams_play_a_match_with_the_bots_team(client):
    body = {"form": "teams", "name": "Teams", "boards": 3, "teams": 2, "filler": "random", "starts_in_minutes": 5}
    event_id = client.post("/api/events", json=body).json()["event_id"]
    tokens = {"Ann": enter(client, event_id, "Ann", "Red"), "Bob": enter(client, event_id, "Bob", "Blue")}
    assert post_entry(client, event_id, {"name": "Cid"}).status_code == 400  # no team named
    waiting = event_view(client, event_id, tokens["Ann"])
    assert waiting["event"]["stages_started"] == 0 and waiting["me"]["table_id"] is None
    assert post_entry(client, event_id, {"name": "Eve", "team": "bots"}).status_code == 400  # the bots' team's name
    move_clock(client, 3600)
    assert post_entry(client, event_id, {"name": "Dee", "team": "Red"}).status_code == 409
    tables: dict[str, dict[str, list[str]]] = {}
    final = play_knockout(client, event_id, tokens, tables)
    (match,) = final["matches"]
    assert match["teams"] == ["Red", "Blue", "Bots"] and match["winner"] in ("Red", "Blue")
    for board in match["boards"]:
        assert sum(board["imps"]) == 0
    seen = event_view(client, event_id, tokens["Bob"])
    check_team_movement(seen)
    check_bots_named_as_at_the_table(seen, tables)
    # Bob's table of each round: with Ann and the Bots' member ("random bot"), then with two bots ("random bot 3")
    assert [sum(bool(BOT_NAME.match(n)) for n in chairs) for chairs in tables["Bob"].values()] == [1, 2, 2]
    assert "random bot" in list(tables["Bob"].values())[0]
    ranks = {s["team"]: s["rank"] for s in final["team_standings"]}
    assert ranks[match["winner"]] == "1" and set(ranks) == {"Red", "Blue"}
    members = {s["team"]: s["members"] for s in final["team_standings"]}
    assert members == {"Red": ["Ann", "random bot", "random bot"], "Blue": ["Bob", "random bot", "random bot"]}


def test_four_teams_byes_then_a_final(client):
    body = {"form": "teams", "name": "Cup", "boards": 1, "teams": 4, "filler": "random", "starts_in_minutes": 5}
    event_id = client.post("/api/events", json=body).json()["event_id"]
    people = {"Ann": "A", "Bob": "B", "Cid": "C", "Dee": "D"}
    tokens = {name: enter(client, event_id, name, team) for name, team in people.items()}
    move_clock(client, 3600)
    first = event_view(client, event_id, tokens["Ann"])
    assert first["event"]["stages_started"] == 1
    assert first["me"]["table_id"] is None  # seeds 1 and 2 (A, B) have a bye in stage 1
    assert event_view(client, event_id, tokens["Cid"])["me"]["table_id"]
    final = play_knockout(client, event_id, tokens)
    stage_one, stage_two = final["matches"]
    assert stage_one["teams"] == ["C", "D", "Bots"] and stage_one["stage"] == 1
    assert (
        stage_two["stage"] == 2
        and stage_two["teams"][:2] == ["A", "B"]
        and stage_two["teams"][2] == stage_one["winner"]
    )
    # Ann (a bye) played board 2 only, so she sees only its traveller; once the event has closed everybody
    # sees everything: stage 1 played board 1, stage 2 the next board
    assert {t["board"] for t in event_view(client, event_id, tokens["Ann"])["travellers"]} == {2}
    move_clock(client, 15 * 24 * 3600)
    public = event_view(client, event_id)
    assert public["closed"] and sorted((t["board"], t["section"]) for t in public["travellers"]) == [
        (1, "stage 1 match 1"),
        (2, "stage 2 match 1"),
    ]
    ranks = {s["team"]: s["rank"] for s in final["team_standings"]}
    loser = ({"C", "D"} - {stage_one["winner"]}).pop()
    assert ranks[stage_two["winner"]] == "1" and ranks[loser] == "4"
