"""CLI tests of nt-call, capture, study nt and study capture."""

import json

from tribridge.cli.main import main


def test_nt_call_json_and_text(capsys):
    assert main(["nt-call", "K84.AJ85.AK6.AKQ", "--level", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "yes" and out["count_of_one"] == 9 and out["delta"] == 1
    assert main(["nt-call", "K84.AJ85.AK6.AKQ", "--level", "3"]) == 0
    assert "3NT (single hand): NO" in capsys.readouterr().out


def test_nt_call_file_mode_and_bad_input(tmp_path, capsys):
    f = tmp_path / "hands.txt"
    f.write_text("K84.AJ85.AK6.AKQ\nQJT9.QJT9.QJT.QJ\nnot-a-hand\n")
    assert main(["nt-call", "--file", str(f), "--level", "1"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x.get("verdict") for x in lines[:2]] == ["yes", "fail_a"] and "error" in lines[2]
    assert main(["nt-call", "K84.AJ85.AK6.AKQ", "--level", "9"]) == 2


def test_capture_json(capsys):
    deal = "N:AKQ2.KJ4.T98.762 JT9.AQ2.AKQ.AKQJ 8765.T98.J76.T98 43.7653.5432.543"
    assert main(["capture", deal, "--declarer", "E", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(["captures", "status", "budget_left"]) <= set(out) and out["status"] == "fail_b"


def test_studies_small(capsys):
    assert main(["study", "nt", "--hands", "2000", "--runs", "2", "--seed", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["results"]) == 2 and sum(out["results"][0]["single"]["1"].values()) == 2000
    assert main(["study", "capture", "--deals", "2000", "--runs", "2", "--seed", "3", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    run = out["readings"]["max/static/1"]["results"][0]
    assert sum(run["status"].values()) == 2000 and sum(run["captures_histogram"]) == run["status"]["qualified"]


def test_file_mode_missing_file_is_a_clear_error(tmp_path, capsys):
    """A --file that cannot be read exits 2 with one line naming --file, for both commands."""
    from tribridge.cli.main import main

    missing = str(tmp_path / "nope.txt")
    assert main(["nt-call", "--level", "1", "--file", missing]) == 2
    assert "--file" in capsys.readouterr().err
    assert main(["capture", "--file", missing]) == 2
    assert "--file" in capsys.readouterr().err
