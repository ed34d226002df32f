"""The study results are dataclasses; their ``to_json()`` keeps the keys and key order of the commands' JSON."""

from __future__ import annotations

import json

from tribridge.estimators.capture import CaptureReading
from tribridge.sim.accuracy import AccuracyRow, AccuracyStudy, Metrics
from tribridge.sim.calibrate import CalibrationGame, CalibrationRow
from tribridge.sim.game_study import GameParams, run_game
from tribridge.sim.papers import capture_study, nt_study
from tribridge.sim.shuffling_results import FirstOrderRow, RepeatedValuesRow

GAME_RUN_KEYS = [
    "deals",
    "opened",
    "opened_by_level",
    "made",
    "made_pct",
    "made_by_level",
    "both_eligible",
    "both_eligible_made",
    "both_eligible_made_pct",
    "losses",
    "losses_widow_not_qualified",
    "losses_widow_not_qualified_pct",
    "declarer_position",
    "tricks_histogram",
    "tricks_by_level",
    "net_points",
]


def _round_trip(data: dict[str, object]) -> dict:
    return json.loads(json.dumps(data))


def test_game_study_json_keys_and_values_follow_the_attributes():
    result = run_game(3000, 2, 5, GameParams(schemes=("classic",)), workers=1)
    data = _round_trip(result.to_json())
    assert list(data) == ["study", "deals", "runs", "seed", "outcome", "capture_reading", "schemes", "results"]
    assert data["study"] == "game" and data["capture_reading"] == {"limit": "max", "gap": "static", "replacements": 1}
    for run, row in zip(result.results, data["results"]):
        assert list(row) == GAME_RUN_KEYS
        assert row["tricks_histogram"] == list(run.tricks_histogram) and row["net_points"] == run.net_points
    dd_params = GameParams(outcome="dd", schemes=("classic",))
    assert run_game(3, 1, 5, dd_params, workers=1).to_json()["capture_reading"] is None


def test_nt_and_capture_json_keys():
    nt = _round_trip(nt_study(500, 2, 3, levels=(1, 2)).to_json())
    assert list(nt) == ["study", "hands", "runs", "seed", "levels", "results", "table3", "table4"]
    assert list(nt["results"][0]) == ["run", "single", "with_partner"]
    assert list(nt["table4"][0]) == [
        "level",
        "column",
        "ours_per_100k",
        "published",
        "difference",
        "standard_error",
        "z",
    ]
    cap = _round_trip(capture_study(500, 2, 3, CaptureReading()).to_json())
    assert list(cap) == ["study", "deals", "runs", "seed", "readings", "closest_reading", "ranking"]
    reading = cap["readings"]["max/static/1"]
    assert list(reading) == ["results", "comparison"]
    assert list(reading["comparison"]) == ["table2", "table1", "distance", "histogram_pct_of_qualified"]
    assert cap["ranking"] == [{"reading": "max/static/1", "distance": reading["comparison"]["distance"]}]


def test_calibration_row_writes_table_iv_only_when_the_game_study_ran():
    bare = CalibrationRow("max/static/1", 90.0, 60.0, 0.5, 7.0, None, 7.0, rank=2)
    assert list(bare.to_json()) == [
        "reading",
        "t_8_11_pct",
        "t_9_10_pct",
        "t_le_6_pct",
        "table1_distance",
        "distance",
        "rank",
    ]
    game = CalibrationGame(66.0, None, 99.9, 1.5)
    full = CalibrationRow("max/static/1", 90.0, 60.0, 0.5, 7.0, game, 8.5, rank=1).to_json()
    assert list(full)[5:] == [
        "made_pct",
        "both_eligible_made_pct",
        "losses_widow_not_qualified_pct",
        "table4_distance",
        "distance",
        "rank",
    ]
    assert full["both_eligible_made_pct"] is None and full["table4_distance"] == 1.5


def test_accuracy_json_has_the_plot_last_and_only_once_drawn():
    row = AccuracyRow("HCP", Metrics(1.0, 0.0, 0.5, 4), Metrics(None, None, None, 0))
    study = AccuracyStudy(4, 1, 0, 0, 6.5, (row,), (), {"HCP": [1.0] * 4}, [2.0] * 4)
    assert "plot" not in study.to_json()
    keys = list(AccuracyStudy(**{**vars(study), "plot": "a.png"}).to_json())
    assert keys[-1] == "plot" and keys.count("plot") == 1
    assert list(row.to_json()) == [
        "estimator",
        "mae",
        "bias",
        "corr",
        "n",
        "mae_qualifying",
        "bias_qualifying",
        "corr_qualifying",
    ]


def test_shuffling_rows_write_keys_that_are_not_python_names():
    first = FirstOrderRow("cyclic", "ABCD", 1.5, "3/2", "exact", 3.9).to_json()
    assert first["riffles_for_first_order_tv_0.1"] == 3.9
    consts = {"ordered": 4.0, "cyclic": 2.0, "back-and-forth": 0.0}
    row = RepeatedValuesRow("colors", 4, 2, consts, 2.0, None, "back-and-forth = 0").to_json()
    assert list(row) == [
        "deck",
        "players",
        "hand_size",
        "ordered",
        "cyclic",
        "back-and-forth",
        "ordered/cyclic",
        "cyclic/back-and-forth",
        "published",
    ]
