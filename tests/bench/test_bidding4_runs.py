"""The bidding4 benchmark's run bookkeeping: progress lines, per-deal losses saved and paired."""

import json

import numpy as np
import pytest
from benchmarks import bidding4_runs


def test_deal_progress_reports_a_long_run_and_keeps_a_short_one_quiet(monkeypatch, capsys):
    quick = bidding4_runs.DealProgress("natural4", 3)
    for done in (1, 2, 3):
        quick(done)
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(bidding4_runs, "PROGRESS_SECONDS", 0.0)
    slow = bidding4_runs.DealProgress("natural4-search", 2)
    slow(1)
    slow(2)
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(" deals")[0] for line in lines] == [
        "bidding4: natural4-search, 1/2",
        "bidding4: natural4-search, 2/2",
    ]


def test_a_run_is_paired_deal_by_deal_with_the_saved_one(tmp_path):
    saved = tmp_path / "before.json"
    before = {"natural4": np.array([3.0, 0.0, 5.0, 2.0]), "previous": np.array([1.0, 1.0, 1.0, 1.0])}
    bidding4_runs.save_per_deal(saved, 59, 4, 0, before)
    after = {"natural4": np.array([3.0, 1.0, 2.0, 2.0]), "natural4-search": np.zeros(4)}
    paired = bidding4_runs.paired_with(saved, 59, 4, 0, after)
    assert list(paired) == ["natural4"]  # only the bidders both runs bid
    diff = np.array([0.0, -1.0, 3.0, 0.0])
    half = 1.96 * diff.std(ddof=1) / 2
    assert paired["natural4"] == {
        "mean": 0.5,
        "ci95": [round(0.5 - half, 3), round(0.5 + half, 3)],
        "deals_changed": 2,
    }
    assert json.loads(saved.read_text())["imps_lost"]["previous"] == [1.0, 1.0, 1.0, 1.0]


def test_pairing_with_a_file_of_other_deals_names_the_field(tmp_path):
    saved = tmp_path / "before.json"
    bidding4_runs.save_per_deal(saved, 59, 4, 0, {"natural4": np.zeros(4)})
    with pytest.raises(SystemExit, match="has seed 59, this run 61"):
        bidding4_runs.paired_with(saved, 61, 4, 0, {"natural4": np.zeros(4)})
    with pytest.raises(SystemExit, match="cannot read"):
        bidding4_runs.paired_with(tmp_path / "missing.json", 59, 4, 0, {"natural4": np.zeros(4)})
