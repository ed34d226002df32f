"""Tests of the rules commands: deal, score, play-random (output and exit codes)."""

import json
import subprocess
import sys

import pytest

from tribridge.cards import Deal
from tribridge.cli.main import main
from tribridge.rules.game import DealRecord


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_commands_are_listed(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for name in ("deal", "score", "play-random"):
        assert name in out


def test_score_text_and_json(capsys):
    code, out, _ = run(capsys, "score", "--contract", "4S", "--doubled", "--tricks", "11")
    assert code == 0
    lines = {
        line.rsplit(None, 1)[0].strip(): int(line.rsplit(None, 1)[1])
        for line in out.splitlines()[1:]
        if line.rsplit(None, 1)[-1].lstrip("-").isdigit()
    }
    assert lines["Declarer"] == 190 and lines["Each defender"] == 0
    assert lines["bonus for making a doubled contract"] == 100
    assert "_" not in out  # labels a bridge player reads, not raw keys
    code, out, _ = run(capsys, "score", "--contract", "3NT", "--tricks", "8", "--redoubled", "--json")
    data = json.loads(out)
    assert code == 0 and data["declarer"] == 0 and data["each_defender"] == 200 and data["net"] == -400
    assert data["breakdown"] == {"undertricks_each_defender": 200}
    code, out, _ = run(capsys, "score", "--contract", "3NT", "--tricks", "10", "--scheme", "tribridge", "--json")
    assert json.loads(out)["declarer"] == 50
    code, out, _ = run(capsys, "score", "--contract", "4S", "--tricks", "10", "--honours", "4,1,0", "--json")
    data = json.loads(out)
    assert data["declarer"] == 108 and data["defenders"] == [9, 0]


def test_score_with_toml_scheme(capsys, tmp_path):
    path = tmp_path / "s.toml"
    path.write_text("[undertricks]\neach_defender = 75\n")
    code, out, _ = run(capsys, "score", "--contract", "2H", "--tricks", "6", "--scheme", str(path), "--json")
    assert code == 0 and json.loads(out)["each_defender"] == 150
    path.write_text("[undertricks]\neach_defender = 'lots'\n")
    code, _, err = run(capsys, "score", "--contract", "2H", "--tricks", "6", "--scheme", str(path))
    assert code == 2 and "undertricks.each_defender" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "argv, field",
    [
        (["score", "--contract", "8S", "--tricks", "3"], "contract"),
        (["score", "--contract", "3S", "--tricks", "14"], "tricks"),
        (["score", "--contract", "3S", "--tricks", "9", "--scheme", "nope"], "scheme"),
        (["score", "--contract", "3NT", "--tricks", "9", "--honours", "3,1,1"], "honours"),
        (["score", "--contract", "3NT", "--tricks", "9", "--honours", "x"], "honours"),
        (["score", "--contract", "3SX", "--doubled", "--tricks", "9"], "contract"),
        (["deal", "--count", "-1"], "count"),
        (["deal", "--dealer", "Q"], "dealer"),
        (["play-random", "--dealer", "Z"], "dealer"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, field):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and field in err


def test_deal_is_seeded_and_parses(capsys):
    code, out1, _ = run(capsys, "deal", "--count", "3", "--seed", "9")
    code2, out2, _ = run(capsys, "deal", "--count", "3", "--seed", "9")
    assert code == code2 == 0 and out1 == out2
    deals = [line.split('"')[1] for line in out1.splitlines() if line.startswith("[Deal ")]
    assert len(deals) == 3 and len(set(deals)) == 3
    for text in deals:
        Deal.from_pbn(text)
    code, out, _ = run(capsys, "deal", "--count", "3", "--seed", "9", "--format", "json")
    data = json.loads(out)
    assert [d["deal"] for d in data] == deals and data[0]["widow"] == "S"
    code, out, _ = run(capsys, "deal", "--count", "0", "--json")
    assert json.loads(out) == []


def test_play_random_outputs(capsys):
    code, out, _ = run(capsys, "play-random", "--seed", "3", "--json")
    assert code == 0
    record = DealRecord.from_json(out)
    code, again, _ = run(capsys, "play-random", "--seed", "3", "--json")
    assert again == out  # seeded
    code, text, _ = run(capsys, "play-random", "--seed", "3")
    assert code == 0 and "widow" in text and "Auction:" in text
    assert "{" not in text  # readable text, not a Python dict
    code, pbn, _ = run(capsys, "play-random", "--seed", "3", "--pbn")
    assert code == 0 and f'[Deal "{record.play_deal.to_pbn(int(record.dealer))}"]' in pbn


def test_console_script_exit_code():
    """The installed entry point returns 2 on bad input (run as a real process)."""
    proc = subprocess.run(
        [sys.executable, "-m", "tribridge.cli.main", "score", "--contract", "3Q", "--tricks", "9"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and proc.stderr.startswith("tribridge score: error: contract")
