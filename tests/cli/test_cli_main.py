"""The CLI frame: every command has --help; bad paths and bad input exit 2 with one line."""

import pytest

from tribridge.cli.main import build_parser, main


def test_every_command_has_help(capsys):
    parser = build_parser()
    commands = [a for a in parser._subparsers._group_actions[0].choices]  # noqa: SLF001
    assert {"serve", "study", "deal", "score", "nt-call", "capture", "shuffle", "match", "analyze"} <= set(commands)
    for name in commands:
        with pytest.raises(SystemExit) as info:
            main([name, "--help"])
        assert info.value.code == 0
        assert "usage:" in capsys.readouterr().out


def test_unwritable_plot_path_exits_2_with_one_line(tmp_path, capsys):
    target = str(tmp_path / "missing-dir" / "x.png")
    assert main(["study", "capture", "--deals", "2000", "--runs", "1", "--plot", target]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "missing-dir" in err[0] and "Traceback" not in err[0]
