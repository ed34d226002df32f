"""The learned benchmark's matches: the bidder it names, and its pairing with SimulationBidder's margin."""

from __future__ import annotations

import json

import pytest
from benchmarks.bench_learned import main


def test_learned_sim_is_paired_with_simulation_on_the_same_deals(tmp_path, capsys) -> None:
    out = tmp_path / "learned.json"
    main(
        ["--bidder", "learned-sim", "--deals", "3", "--against", "paper", "--paired", "--timing-deals", "1"]
        + ["--out", str(out)]
    )
    got = json.loads(out.read_text())
    assert json.loads(capsys.readouterr().out) == got
    match = got["vs_paper"]
    assert match["bots"] == ["learned-sim+dd", "paper+dd", "paper+dd"] and match["deals"] == 3
    pairing = match["paired_with_simulation"]
    assert pairing["minus_simulation"] == pytest.approx(
        match["margin_learned_minus_other"] - pairing["simulation_margin"]
    )
    timing = got["time_per_call"]
    assert {"learned_s_per_call_median", "learned-sim_s_per_call_median", "simulation_s_per_call_median"} <= set(timing)


def test_an_unknown_bidder_is_refused(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--bidder", "nobody"])
    assert "--bidder" in capsys.readouterr().err


def test_pairing_without_a_match_against_paper_is_refused(capsys) -> None:
    with pytest.raises(SystemExit):
        main(["--paired", "--against", "simulation", "--deals", "2"])
    assert "--paired" in capsys.readouterr().err
