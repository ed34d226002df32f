"""Tests of ``tribridge analyze``, ``train-estimator`` argument checks and the accuracy study on tiny sizes."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tribridge.cli.main import main

# Each seat holds one whole suit: N spades, E hearts, S diamonds, W clubs. By hand: the side holding
# the trump suit takes all 13 tricks; in NT the opening leader's side runs its suit, so declarer takes 0.
ONE_SUIT_EACH = "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"
# North-South hold every top card and nobody is void: N-S take all 13 tricks in any strain.
TOP_CARDS_NS = "N:AKQJ.AKQ.AKQ.AKQ 765.8765.876.765 T98.JT9.JT9.JT98 432.432.5432.432"


@pytest.fixture(autouse=True)
def _tmp_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TRIBRIDGE_DD_CACHE", str(tmp_path / "dd.sqlite"))
    monkeypatch.setenv("TRIBRIDGE_DD_WORKERS", "1")


def test_analyze_json_one_suit_each(capsys) -> None:
    assert main(["analyze", ONE_SUIT_EACH, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dd"]["N"] == {"C": 0, "D": 13, "H": 0, "S": 13, "NT": 0}
    assert out["dd"]["S"] == {"C": 0, "D": 13, "H": 0, "S": 13, "NT": 0}
    assert out["dd"]["E"] == {"C": 13, "D": 0, "H": 13, "S": 0, "NT": 0}
    assert out["dd"]["W"] == {"C": 13, "D": 0, "H": 13, "S": 0, "NT": 0}
    assert set(out["nt_call"]) == {"N", "E", "S", "W"}
    # a single 13-card suit leaves three suits with a leading gap of 13: condition A fails at every level
    assert set(out["nt_call"]["N"]["verdicts"].values()) == {"fail_a"}


def test_analyze_text_top_cards(capsys) -> None:
    assert main(["analyze", TOP_CARDS_NS]) == 0
    text = capsys.readouterr().out
    assert "♠ AKQJ" in text  # the diagram shows North's spades
    section = text.split("Double dummy")[1].split("\n\n")[0].splitlines()[2:]
    lines = {line.split()[0]: line.split()[1:] for line in section}
    assert lines["N"] == ["13"] * 5 and lines["S"] == ["13"] * 5
    assert lines["E"][4] == "0" and lines["W"][4] == "0"


def test_analyze_bad_deal_exits_2(capsys) -> None:
    assert main(["analyze", "N:AKQ.AKQ.AKQ.AKQ - - -"]) == 2
    assert "deal" in capsys.readouterr().err


def test_train_estimator_refuses_bad_hidden(capsys) -> None:
    assert main(["train-estimator", "--deals", "20", "--hidden", "a,b"]) == 2


def test_accuracy_study_tiny(tmp_path, capsys) -> None:
    plot = tmp_path / "cal.png"
    assert main(["study", "accuracy", "--deals", "6", "--layouts", "2", "--plot", str(plot), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    names = [r["estimator"] for r in out["rows"]]
    assert any(n.startswith("floor") for n in names)
    assert any(n.startswith("trick estimator") for n in names)
    assert sum(n.startswith("capture") for n in names) == 12
    assert len(out["actual"]) == 6 and plot.exists()
    floor = next(r for r in out["rows"] if r["estimator"].startswith("floor"))
    assert 0 <= floor["mae"] <= 13
    # the whole-trick twins are the rounded (estimator, HCP fit) or median (floor) of the same deals
    preds = {k: np.asarray(v) for k, v in out["predictions"].items()}
    whole = preds["trick estimator, whole tricks (rounded)"]
    assert np.array_equal(whole, np.floor(preds["trick estimator (estimators.tricks)"] + 0.5))
    assert np.all(whole == np.round(whole))
    assert any(n.startswith("floor, whole tricks (median") for n in names)
    row = next(r for r in out["rows"] if r["estimator"] == "trick estimator, whole tricks (rounded)")
    assert row["mae"] == pytest.approx(np.abs(whole - np.asarray(out["actual"])).mean())
