"""Tests of the reproduction report: sections, tables beside the published figures, PNG figures."""

from __future__ import annotations

import pytest

from tribridge.errors import InvalidInput
from tribridge.estimators.capture import CaptureReading
from tribridge.sim import report
from tribridge.sim.game_study import GameRun, GameStudyResult


def test_reproduce_small_scale_writes_tables_and_figures(tmp_path, monkeypatch):
    monkeypatch.setitem(
        report.SCALES,
        "quick",
        {"nt_hands": 3000, "capture_deals": 3000, "game_deals": 70_000, "runs": 2, "dd_deals": 0},
    )
    seen = []
    summary = report.reproduce(
        "quick", tmp_path, seed=3, workers=1, only=["nt", "capture", "game"], on_section=seen.append
    )
    assert seen == ["nt", "capture", "game"]
    text = (tmp_path / "report.md").read_text()
    assert "Table 3" in text and "5955 / 5992 / 5849" in text  # NT paper, published runs beside ours
    assert "Table II" in text and "27.90" in text  # capture paper
    assert "65.86 % / 66.00 % / 66.03 %" in text and "93.42 % / 93.50 % / 93.75 %" in text  # Table IV
    assert "unpublished" in text
    for name in ("nt_call.png", "capture_prequalification.png", "capture_histogram.png", "game_runs.png"):
        data = (tmp_path / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000
        assert f"]({name})" in text
    assert len(summary.figures) == 4


def test_reproduce_rejects_unknown_scale_and_section(tmp_path):
    with pytest.raises(InvalidInput) as exc:
        report.reproduce("huge", tmp_path)
    assert exc.value.field == "scale"
    with pytest.raises(InvalidInput) as exc:
        report.reproduce("quick", tmp_path, only=["poker"])
    assert exc.value.field == "only"


def test_game_table_has_one_column_per_run_and_the_paper():
    by_level = {f"{lv}NT": (4 if lv == 1 else 0) for lv in range(1, 8)}
    run = GameRun(
        deals=10,
        opened=4,
        opened_by_level=by_level,
        made=3,
        made_pct=75.0,
        made_by_level={f"{lv}NT": (3 if lv == 1 else 0) for lv in range(1, 8)},
        both_eligible=1,
        both_eligible_made=1,
        both_eligible_made_pct=100.0,
        losses=1,
        losses_widow_not_qualified=1,
        losses_widow_not_qualified_pct=100.0,
        declarer_position={"dealer": 4, "left": 0, "right": 0},
        tricks_histogram=(0,) * 6 + (1, 3) + (0,) * 6,
        tricks_by_level={lv: ((0,) * 6 + (1, 3) + (0,) * 6 if n else (0,) * 14) for lv, n in by_level.items()},
        net_points={"classic": -5, "tribridge": 7},
    )
    study = GameStudyResult(10, 2, 1, "estimator", CaptureReading(), ("classic", "tribridge"), (run, run))
    table = report.game_table_markdown(study)
    header = table.splitlines()[0]
    assert header.count("run ") == 2 and "paper" in header
    assert "75.00 %" in table and "| net points, scheme `tribridge` | 7 | 7 |" in table
