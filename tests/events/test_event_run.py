"""Events of fast bots end to end: the boards dealt, the results consistent with the rules, JSON, PBN and the CLI."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from tribridge.cli.main import main
from tribridge.events.boards import pbn_boards, seeded_boards
from tribridge.events.event import EventResult
from tribridge.events.export import SCORE_COLUMNS, event_pbn
from tribridge.events.run import EventSpec, run_event
from tribridge.rules.auction import AuctionState, Call
from tribridge.rules.pbn import read_boards
from tribridge.rules.scoring import score_deal

FAST = ("random", "paper+random", "random+dd")


def check_against_rules(result: EventResult, boards) -> None:
    """Every table dealt one of the event's boards, and its contract and scores follow from its auction and tricks."""
    by_number = {b.number: b for b in boards}
    for traveller in result.travellers:
        assert traveller.board == by_number[traveller.board.number]
        for r in traveller.results:
            auction = AuctionState.from_calls(traveller.board.dealer, tuple(Call.parse(c) for c in r.auction))
            assert auction.is_over
            contract = auction.contract
            assert (None if contract is None else str(contract)) == r.contract
            if contract is None:
                assert r.scores == (0, 0, 0)
                continue
            chairs = auction.bidders
            assert chairs[r.declarer] == contract.declarer
            score = score_deal(contract, r.tricks, result.scheme)
            expected = [0, 0, 0]
            expected[r.declarer] = score.declarer
            for c in range(3):
                if c != r.declarer:
                    expected[c] = score.each_defender
            assert list(r.scores) == expected


def test_individual_event_deals_its_boards_and_totals_add_up():
    spec = EventSpec("individual", ("random",) * 3 + FAST + ("random",), 6, seed=4, filler="random", rounds=3)
    result = run_event(spec)
    boards = seeded_boards(4, 6)
    check_against_rules(result, boards)
    assert sorted({t.board.number for t in result.travellers}) == [1, 2, 3, 4, 5, 6]
    assert all(len(t.results) == 3 for t in result.travellers)  # 7 players: three tables, two fillers
    for standing in result.standings:
        mine = [
            (r, r.players.index(standing.name))
            for t in result.travellers
            for r in t.results
            if standing.name in r.players
        ]
        assert standing.boards == 6 and standing.unplayed == 0
        assert standing.matchpoints == sum(r.matchpoints[c] for r, c in mine)
        assert standing.imps == sum(r.imps[c] for r, c in mine)
        assert standing.percent == pytest.approx(sum(r.percent(c) for r, c in mine) / 6)
    assert EventResult.from_json(json.loads(json.dumps(result.to_json()))) == result


def test_daily_event_compares_every_entrant_in_one_chair():
    result = run_event(EventSpec("daily", FAST, 4, seed=2, filler="random"))
    check_against_rules(result, seeded_boards(2, 4))
    for traveller in result.travellers:
        chair = (traveller.board.number - 1) % 3
        assert [r.players[chair] for r in traveller.results] == list(FAST)
        assert all(not r.fillers[chair] and sum(r.fillers) == 2 for r in traveller.results)


def test_teams_knockout_of_four_and_workers_do_not_change_results():
    spec = EventSpec(
        "teams", ("random", "paper+random", "random/random+dd/random", "random+dd"), 3, seed=5, filler="random"
    )
    one = run_event(spec)
    check_against_rules(one, seeded_boards(5, 6))
    assert [m.stage for m in one.matches] == [1, 2]
    assert one.matches[0].filler == "filler" and len(one.matches[1].teams) == 3
    assert sorted(s.team for s in one.team_standings) == ["T1", "T2", "T3", "T4"]
    assert one.team_standings[0].rank == "1" and one.team_standings[0].team == one.matches[-1].winner
    assert run_event(spec, workers=2) == one


def test_cli_json_and_pbn(capsys, tmp_path):
    command = (
        "event run --form individual --bots random,paper+random,random+dd,random --boards 3 --seed 3 --filler random"
    )
    assert main(shlex.split(command) + ["--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {"standings", "travellers"} <= set(data)
    assert [t["board"] for t in data["travellers"]] == [1, 2, 3]
    table = data["travellers"][0]["results"][0]
    assert set(table) >= {"players", "contract", "declarer", "tricks", "scores", "matchpoints"}
    assert main(shlex.split(command) + ["--pbn"]) == 0
    text = capsys.readouterr().out
    games = read_boards(text, "event.pbn")
    assert [g.number for g in games] == ["1", "2", "3"]
    assert "TotalScoreTable" in games[0].tags and "ScoreTable" in games[0].tags
    columns = [c.split("\\")[0] for c in games[0].tags["ScoreTable"].split(";")]
    assert columns == [name for name, _ in SCORE_COLUMNS]
    path = tmp_path / "boards.pbn"
    path.write_text(text, encoding="utf-8")
    again = pbn_boards(path.read_text(encoding="utf-8"))
    assert [b.to_json() for b in again] == [{k: t[k] for k in ("board", "dealer", "deal")} for t in data["travellers"]]


def test_cli_text_output_and_bad_input(capsys):
    assert main(shlex.split("event run --form daily --bots random,random+dd --boards 2 --filler random")) == 0
    out = capsys.readouterr().out
    assert "random+dd" in out and "board 2" in out
    assert main(shlex.split("event run --form individual --bots random,random --boards 2")) == 2
    assert "bots" in capsys.readouterr().err


def score_tables(text: str) -> list[list[list[str]]]:
    """Each ScoreTable's rows, split as PBN tokens (quoted text whole)."""
    tables, rows = [], None
    for line in text.splitlines():
        if line.startswith("[ScoreTable "):
            rows = []
            tables.append(rows)
        elif rows is not None and line and not line.startswith("["):
            rows.append(shlex.split(line))
        else:
            rows = None
    return tables


def test_pbn_export_rows_hold_the_travellers_figures():
    result = run_event(EventSpec("daily", FAST, 2, seed=8, filler="random"))
    tables = score_tables(event_pbn(result))
    assert len(tables) == len(result.travellers)
    for rows, traveller in zip(tables, result.travellers):
        seats = (traveller.board.dealer, traveller.board.dealer.lho, traveller.board.dealer.rho)
        for row, r in zip(rows, traveller.results, strict=True):
            declarer = "-" if r.declarer is None else seats[r.declarer].letter
            expected = [str(r.round), str(r.table), *r.players, r.contract or "Pass", declarer]
            expected += ["-" if r.tricks is None else str(r.tricks)]
            expected += [str(v) for v in (*r.scores, *r.matchpoints, *r.imps)]
            assert row == expected


def test_cli_accepts_a_plugin_strategy(capsys, tmp_path, monkeypatch):
    """A strategy from a file outside the package enters an event by its spec, as in ``tribridge match``."""
    example = Path(__file__).resolve().parents[2] / "docs" / "examples" / "greedy_bot.py"
    outside = tmp_path / "mine" / "greedy_bot.py"
    outside.parent.mkdir()
    outside.write_text(example.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    command = "event run --form daily --bots mine/greedy_bot.py:make,random --boards 2 --seed 5 --filler random --json"
    assert main(shlex.split(command)) == 0
    data = json.loads(capsys.readouterr().out)
    assert {s["name"] for s in data["standings"]} >= {"mine/greedy_bot.py:make", "random"}
