"""Start-up: the light commands do not load the compiler stack; a missing extra is one line and exit 2."""

import importlib.util
import os
import pty
import select
import subprocess
import sys

import pytest

from tribridge.cli import common
from tribridge.cli.main import main

HEAVY = ("numba", "llvmlite", "endplay", "uvicorn", "fastapi")
PROBE = """
import sys
from tribridge.cli.main import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
loaded = sorted({name.split(".")[0] for name in sys.modules} & set(%r))
print("LOADED", ",".join(loaded), file=sys.stderr)
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["--version"],
        ["--help"],
        ["score", "--contract", "4S", "--tricks", "10"],
        ["deal", "--count", "2"],
        ["nt-call", "K84.AJ85.AK6.AKQ"],
        ["nt-call", "K84.AJ85.AK6.AKQ", "--level", "3", "--json"],
        ["play-random", "--seed", "2"],
        ["match", "--help"],
        ["analyze", "--help"],
    ],
)
def test_light_commands_do_not_load_the_compiler_stack(argv):
    proc = subprocess.run([sys.executable, "-c", PROBE % (HEAVY,), *argv], capture_output=True, text=True, check=True)
    loaded = proc.stderr.strip().splitlines()[-1]
    assert loaded == "LOADED", loaded


def test_a_command_needing_the_compiler_does_load_it():
    """The probe above can fail: a command that needs numba shows it."""
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            PROBE % (HEAVY,),
            "capture",
            "N:AKQ2.KJ4.T98.762 J543.AQ2.KQ.AKQ T976.T985.J76.J4 8.763.A5432.T9853",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "numba" in proc.stderr.strip().splitlines()[-1]


def test_missing_extra_is_one_line_and_exit_2(monkeypatch, capsys, tmp_path):
    original = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name.split(".")[0] == "matplotlib" else original(name, *a)
    )
    code = main(
        [
            "shuffle",
            "deal",
            "--players",
            "2",
            "--hand-size",
            "4",
            "--shuffles",
            "1-2",
            "--plot",
            str(tmp_path / "x.png"),
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1
    assert err[0].startswith("tribridge shuffle: needs the 'sim' extra: pip install 'tribridge[sim]'")
    assert main(["reproduce", "--out", str(tmp_path / "r")]) == 2
    assert "needs the 'sim' extra" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_an_import_error_of_an_extra_found_late_is_also_one_line(monkeypatch, capsys):
    from tribridge.cli import shuffle_run

    def needs_dask(args):
        raise ModuleNotFoundError("No module named 'dask'", name="dask.distributed")

    monkeypatch.setattr(shuffle_run, "run_tv", needs_dask)
    assert main(["shuffle", "tv"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["tribridge shuffle: needs the 'sim' extra: pip install 'tribridge[sim]' (dask is missing)"]
    message = common.missing_extra_message(ModuleNotFoundError("No module named 'pyarrow'", name="pyarrow.parquet"))
    assert message == "needs the 'sim' extra: pip install 'tribridge[sim]' (pyarrow is missing)"
    assert common.missing_extra_message(ModuleNotFoundError("x", name="numpy")) is None
    assert common.missing_extra_message(ValueError("x")) is None


def _run_with_terminal_stderr(*argv: str) -> tuple[bytes, bytes]:
    """Run ``tribridge ARGV`` with stderr on a pseudo-terminal and stdout on a pipe; (stdout, stderr)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "tribridge.cli.main", *argv], stdout=subprocess.PIPE, stderr=slave)
    os.close(slave)
    out = proc.stdout.read()
    proc.wait(timeout=120)
    err = b""
    while select.select([master], [], [], 0.2)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the terminal's other side is closed: all read
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    return out, err


def test_progress_goes_to_a_terminal_stderr_and_quiet_turns_it_off():
    out, err = _run_with_terminal_stderr("deal", "--count", "2000", "--seed", "1")
    assert b"dealing" in err and b"/2000" in err
    assert out.count(b"[Board") == 2000 and b"\x1b[" not in out  # stdout holds only the result
    out, err = _run_with_terminal_stderr("deal", "--count", "2000", "--seed", "1", "--quiet")
    assert err == b"" and out.count(b"[Board") == 2000
