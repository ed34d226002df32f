"""PBN files on the command line: ``analyze --file`` and ``match --deals-file``; readable output; refusals."""

import json

import pytest

from tribridge.cards import Seat
from tribridge.cli.main import build_parser, main
from tribridge.rules.game import play_random_deal
from tribridge.rules.pbn_write import deal_board_pbn
from tribridge.sim.match import deal_for

TOURNAMENT = """[Event "Club night"]
[Board "4"]
[Dealer "W"]
[Vulnerable "All"]
[Deal "W:QJT9.A54.KQ2.A32 AK2.QJ3.T98.7654 543.T92.J543.T98 876.K876.A76.KQJ"]
[Declarer "E"]
[Contract "3NT"]
[Result "9"]
[Auction "W"]
1NT Pass 3NT AP
"""


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_analyze_file_gives_one_json_object_per_board(tmp_path, capsys):
    record = play_random_deal(11)
    path = tmp_path / "mixed.pbn"
    path.write_text(TOURNAMENT + "\n" + record.to_pbn(board=9), encoding="utf-8")
    code, out, err = run(capsys, "analyze", "--file", str(path), "--json", "--no-cache")
    assert code == 0 and err == ""
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["board"] for r in rows] == ["4", "9"]
    dealt = [
        "W:QJT9.A54.KQ2.A32 AK2.QJ3.T98.7654 543.T92.J543.T98 876.K876.A76.KQJ",
        record.deal.to_pbn(int(record.dealer)),
    ]  # the 3PAB record: its hands as dealt, not reseated
    for row, deal in zip(rows, dealt):
        code, single, _ = run(capsys, "analyze", deal, "--json", "--no-cache")
        assert code == 0
        assert {k: v for k, v in row.items() if k != "board"} == json.loads(single)


def test_analyze_file_reports_a_bad_board_and_goes_on(tmp_path, capsys):
    path = tmp_path / "bad.pbn"
    path.write_text('[Board "1"]\n[Deal "N:AKQ"]\n\n' + TOURNAMENT, encoding="utf-8")
    code, out, _ = run(capsys, "analyze", "--file", str(path), "--json", "--no-cache")
    rows = [json.loads(line) for line in out.splitlines()]
    assert code == 0 and rows[0]["board"] == "1" and "bad.pbn:2" in rows[0]["error"] and rows[1]["board"] == "4"


def test_analyze_file_unreadable_pbn_exits_2_with_the_line(tmp_path, capsys):
    path = tmp_path / "broken.pbn"
    path.write_text('[Board "1"]\n[Deal "N:..."\n', encoding="utf-8")
    code, out, err = run(capsys, "analyze", "--file", str(path))
    assert code == 2 and out == "" and "broken.pbn:2" in err and len(err.strip().splitlines()) == 1


def test_match_plays_the_deals_of_a_file(tmp_path, capsys):
    """The match's own seeded deals written to a file and played from it give the same table."""
    boards = []
    for index in range(2):
        deal, dealer = deal_for(3, index, 2)
        boards.append(deal_board_pbn(deal, Seat(dealer), index + 1))
    path = tmp_path / "deals.pbn"
    path.write_text("\n".join(boards), encoding="utf-8")
    code, from_file, _ = run(
        capsys, "match", "--bots", "random,dd,random", "--deals-file", str(path), "--seed", "3", "--json"
    )
    assert code == 0
    code, seeded, _ = run(capsys, "match", "--bots", "random,dd,random", "--deals", "2", "--seed", "3", "--json")
    from_file, seeded = json.loads(from_file), json.loads(seeded)
    assert from_file.pop("deals_file") == str(path)
    assert from_file == seeded
    assert [row["label"] for row in seeded["summary"]] == ["random (A)", "dd", "random (C)"]


def test_match_text_tells_duplicate_bots_apart_and_has_no_nan(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # the table's width, so that no label is wrapped
    code, out, _ = run(capsys, "match", "--bots", "random,random,dd", "--deals", "1")
    assert code == 0
    assert "random (A)" in out and "random (B)" in out and "nan" not in out.lower()
    code, out, _ = run(capsys, "match", "--bots", "random,random,dd", "--deals", "1", "--json")
    assert all(row["ci95"] is None for row in json.loads(out)["summary"])  # JSON has no NaN


def _command_lines(parser, prefix=()):
    """Every command line ``[command, subcommand...]`` reachable in the parser."""
    groups = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]  # noqa: SLF001
    for group in groups:
        for name, child in group.choices.items():
            yield [*prefix, name]
            yield from _command_lines(child, (*prefix, name))


def test_every_help_text_is_clean(capsys):
    """No '%%' or unexpanded '%(' in any help page (argparse expands % only in argument help)."""
    lines = list(_command_lines(build_parser()))
    assert ["study", "game"] in lines and ["shuffle", "deal"] in lines
    for argv in [[]] + lines:
        with pytest.raises(SystemExit):
            main([*argv, "--help"])
        text = capsys.readouterr().out
        assert "usage:" in text and "%%" not in text and "%(" not in text, argv
        if not argv:  # the top-level help lists every command
            assert all(f"    {line[0]} " in text or f"    {line[0]}\n" in text for line in lines if len(line) == 1)


def test_serve_refuses_a_missing_db_directory(tmp_path, capsys):
    target = tmp_path / "no" / "such" / "games.sqlite"
    code, _, err = run(capsys, "serve", "--db", str(target), "--port", "0")
    assert code == 2 and "does not exist" in err and not (tmp_path / "no").exists()


def test_quiet_turns_progress_off_and_is_refused_where_there_is_none(capsys):
    code, out, err = run(capsys, "deal", "--count", "2", "--seed", "1", "--quiet")
    assert code == 0 and err == "" and out.count("[Board") == 2
    with pytest.raises(SystemExit):
        main(["score", "--contract", "4S", "--tricks", "10", "--quiet"])
