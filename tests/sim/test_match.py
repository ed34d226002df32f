"""Match runner: rotations give each bot each hand once per rotation set; results aggregate correctly."""

import pytest

from tribridge.errors import InvalidInput
from tribridge.sim.match import ROTATION_SETS, assignments, run_match


def test_each_bot_holds_each_hand_once_per_rotation_set():
    assert len(assignments()) == 6 and len(set(assignments())) == 6
    for rotation_set in ROTATION_SETS:
        for position in range(3):
            assert sorted(a[position] for a in rotation_set) == [0, 1, 2]
        for a in rotation_set:
            assert sorted(a) == [0, 1, 2]


def test_small_match_runs_and_rotates():
    result = run_match(["dd", "random", "paper+dd"], deals=2, seed=4)
    assert result.games == 12
    assert result.per_deal.shape == (2, 3)
    # dd and paper+dd bid the same way and play the same way: identical scores
    assert result.summaries[0].mean_score == pytest.approx(result.summaries[2].mean_score)
    declared = sum(s.declared for s in result.summaries)
    assert declared + result.passed_out == 12
    # double-dummy declarers lose nothing against double dummy
    for s in (result.summaries[0], result.summaries[2]):
        if s.dd_loss_n:
            assert s.tricks_lost_vs_dd == 0


def test_paired_margins_are_each_bot_against_the_other_two():
    import numpy as np

    result = run_match(["dd", "random", "paper+dd"], deals=3, seed=5)
    per_deal = result.per_deal
    for b, (margin, ci) in enumerate(result.margins()):
        others = [o for o in range(3) if o != b]
        diff = per_deal[:, b] - per_deal[:, others].mean(axis=1)
        assert margin == pytest.approx(diff.mean())
        assert ci == pytest.approx(1.96 * diff.std(ddof=1) / np.sqrt(3))
    assert sum(m for m, _ in result.margins()) == pytest.approx(0.0, abs=1e-9)  # the margins balance out
    rows = result.to_json()["summary"]
    assert [r["margin_vs_others"] for r in rows] == [m for m, _ in result.margins()]


def test_match_rejects_bad_input():
    with pytest.raises(InvalidInput):
        run_match(["dd", "random"], deals=1, seed=1)
    with pytest.raises(InvalidInput):
        run_match(["dd", "random", "nosuchbot"], deals=1, seed=1)


def test_match_cli_json_and_bad_input(capsys):
    import json

    from tribridge.cli.main import main

    assert main(["match", "--bots", "dd,random,paper+dd", "--deals", "1", "--seed", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 6 and [s["bot"] for s in data["summary"]] == ["dd", "random", "paper+dd"]
    assert main(["match", "--bots", "dd,random", "--deals", "1"]) == 2
    assert "bots" in capsys.readouterr().err


def test_repeated_auctions_reuse_the_play_and_change_nothing():
    """The per-deal play cache: a rotation repeating an auction gets the very same result, from the cache."""
    from tribridge.sim.match import _bots, assignments, deal_for, play_game

    names = ("estimate+random", "estimate+random", "estimate+random")
    bots = _bots(names)
    checked = 0
    for index in range(3):
        deal, dealer = deal_for(11, index, 3)
        cache: dict = {}
        cached = [play_game(deal, dealer, bots, a, "classic", cache) for a in assignments()]
        fresh = [play_game(deal, dealer, bots, a, "classic", None) for a in assignments()]
        assert cached == fresh
        if cached[0].contract is not None:
            # same bidders everywhere: one auction, so one play stored for all six assignments
            assert sum(1 for k in cache if k[0] == "play") == 1
            checked += 1
    assert checked, "no deal of the sample reached a contract"


def test_identically_configured_chairs_share_one_game():
    """A,B,B: the two assignments that only swap the B bots are one game, credited to each seating."""
    from tribridge.sim.match import _bots, _run_deal, assignments, deal_for, play_game

    names = ("estimate+random", "paper+random", "paper+random")
    bots = _bots(names)
    for index in range(2):
        deal, dealer = deal_for(5, index, 2)
        shared = _run_deal((names, 5, index, 2, "classic", None))
        separate = [play_game(deal, dealer, bots, a, "classic", None) for a in assignments()]
        assert shared == separate


def test_match_cli_passes_pimc_options_to_the_player():
    """--pimc-layouts, --pimc-check-plays and --pimc-oversample reach PimcPlayer (checked through the options run_match gets)."""
    from unittest import mock

    from tribridge.cli.main import main

    with mock.patch("tribridge.sim.match.run_match", side_effect=RuntimeError("stop")) as runner:
        with pytest.raises(RuntimeError):
            main(
                [
                    "match",
                    "--bots",
                    "paper+pimc,random,dd",
                    "--deals",
                    "1",
                    "--pimc-layouts",
                    "6",
                    "--pimc-check-plays",
                    "2",
                    "--pimc-oversample",
                    "4",
                ]
            )
    options = runner.call_args.kwargs["options"]
    assert options == {"paper+pimc": {"player": {"layouts": 6, "check_plays": 2, "oversample": 4}}}
    from tribridge.bots import get_bot

    player = get_bot("paper+pimc", player_options=options["paper+pimc"]["player"]).player
    assert (player.layouts, player.check_plays, player.oversample) == (6, 2, 4)


def test_match_log_resumes_and_reports_the_same_match(tmp_path, capsys):
    import json

    from tribridge.cli.main import main

    log = tmp_path / "m.jsonl"
    base = ["match", "--bots", "paper,random,dd", "--seed", "6", "--json", "--quiet", "--log", str(log)]
    assert main([*base, "--deals", "2"]) == 0
    capsys.readouterr()
    lines = log.read_text().splitlines()
    assert len(lines) == 3 and json.loads(lines[0])["bots"] == ["paper", "random", "dd"]
    # a run killed while writing leaves a cut line: it is dropped and that deal played again
    log.write_text("\n".join(lines[:2]) + "\n" + lines[2][:25])
    assert main([*base, "--deals", "4"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    assert [json.loads(x)["deal"] for x in log.read_text().splitlines()[1:]] == [0, 1, 2, 3]
    assert main(["match", "--bots", "paper,random,dd", "--seed", "6", "--json", "--quiet", "--deals", "4"]) == 0
    fresh = json.loads(capsys.readouterr().out)
    assert resumed["summary"] == fresh["summary"]
    # only reporting: every deal is in the log, nothing is appended
    before = log.read_text()
    assert main([*base, "--deals", "3"]) == 0
    assert log.read_text() == before


def test_match_log_of_another_match_is_refused(tmp_path, capsys):
    from tribridge.cli.main import main

    log = tmp_path / "m.jsonl"
    assert main(["match", "--bots", "paper,random,dd", "--deals", "1", "--quiet", "--log", str(log)]) == 0
    before = log.read_text()
    assert (
        main(["match", "--bots", "paper,random,dd", "--deals", "1", "--seed", "9", "--quiet", "--log", str(log)]) == 2
    )
    err = capsys.readouterr().err
    assert "--log" in err and "seed" in err
    assert log.read_text() == before
    log.write_text("not json\n")
    assert main(["match", "--bots", "paper,random,dd", "--deals", "1", "--quiet", "--log", str(log)]) == 2
