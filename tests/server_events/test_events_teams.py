"""The live teams form on both store backends: teams entered, the knockout stage by stage, the movement's chairs."""

from __future__ import annotations

import time

from event_helpers import event_view, move_clock, post_entry, step


def play_knockout(client, event_id: str, tokens: dict[str, str]) -> dict:
    """Every person plays whatever table it has until the knockout has its final standings; the last view."""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        for token in tokens.values():
            view = event_view(client, event_id, token)
            if view["team_standings"]:
                return view
            if view["me"]["table_id"]:
                step(client, view["me"])
        time.sleep(0.01)
    raise AssertionError("the knockout did not end")


def enter(client, event_id: str, name: str, team: str) -> str:
    r = post_entry(client, event_id, {"name": name, "team": team})
    assert r.status_code == 200, r.text
    return r.json()["token"]


def check_team_movement(view: dict) -> None:
    """On every board of every match each team holds each chair at one of the three tables."""
    members = {t["name"]: t["members"] for t in view["teams"]}
    for traveller in view["travellers"]:
        teams_of = {}
        for team, names in members.items():
            for name in [*names, *(f"filler of {team} {k + 1}" for k in range(len(names), 3))]:
                teams_of[name] = team
        for k in range(1, 4):
            teams_of[f"filler {k}"] = "filler"
        assert len(traveller["results"]) == 3, traveller["section"]
        chairs: dict[str, list[int]] = {}
        for result in traveller["results"]:
            for chair, name in enumerate(result["players"]):
                chairs.setdefault(teams_of[name], []).append(chair)
        assert len(chairs) == 3 and all(sorted(c) == [0, 1, 2] for c in chairs.values()), chairs


def test_two_teams_play_a_match_with_the_bots_team(client):
    body = {"form": "teams", "name": "Teams", "boards": 3, "teams": 2, "filler": "random", "starts_in_minutes": 5}
    event_id = client.post("/api/events", json=body).json()["event_id"]
    tokens = {"Ann": enter(client, event_id, "Ann", "Red"), "Bob": enter(client, event_id, "Bob", "Blue")}
    assert post_entry(client, event_id, {"name": "Cid"}).status_code == 400  # no team named
    waiting = event_view(client, event_id, tokens["Ann"])
    assert waiting["event"]["stages_started"] == 0 and waiting["me"]["table_id"] is None
    move_clock(client, 3600)
    assert post_entry(client, event_id, {"name": "Dee", "team": "Red"}).status_code == 409
    final = play_knockout(client, event_id, tokens)
    (match,) = final["matches"]
    assert match["teams"] == ["Red", "Blue", "filler"] and match["winner"] in ("Red", "Blue")
    for board in match["boards"]:
        assert sum(board["imps"]) == 0
    check_team_movement(event_view(client, event_id, tokens["Bob"]))
    ranks = {s["team"]: s["rank"] for s in final["team_standings"]}
    assert ranks[match["winner"]] == "1" and set(ranks) == {"Red", "Blue"}


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
    assert stage_one["teams"] == ["C", "D", "filler"] and stage_one["stage"] == 1
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
