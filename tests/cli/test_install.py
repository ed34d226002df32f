"""A plain ``pip install`` of the repository into a fresh virtual environment runs the main job and the analysis.

Slow (pip resolves and installs every core dependency; it may reach the package index): marked ``slow``.
"""

import json
import os
import select
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEAL = "N:AKQ2.J54.T98.762 JT9.AKQ.765.AKQ3 876.T987.AKQ.JT9 543.632.J432.854"
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def plain_venv(tmp_path_factory):
    """A new virtual environment with ``pip install REPO`` (no extras); yields its ``bin`` folder."""
    venv = tmp_path_factory.mktemp("plain") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", str(ROOT)], capture_output=True, text=True
    )
    assert pip.returncode == 0, pip.stderr[-3000:]
    return venv / "bin"


def tribridge(bin_dir: Path, *argv: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "TRIBRIDGE_DD_CACHE": str(bin_dir.parent / "dd.sqlite"), "COLUMNS": "200"}
    return subprocess.run(
        [str(bin_dir / "tribridge"), *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=bin_dir.parent,
    )


def test_the_extras_are_really_missing(plain_venv):
    proc = subprocess.run([str(plain_venv / "python"), "-c", "import dask"], capture_output=True, text=True)
    assert proc.returncode != 0  # so the one-line message below is tested against a real absence
    proc = subprocess.run(
        [str(plain_venv / "python"), "-c", "import endplay, fastapi, uvicorn, numba"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr


def test_serve_answers_healthz(plain_venv, tmp_path):
    server = subprocess.Popen(
        [
            str(plain_venv / "tribridge"),
            "serve",
            "--port",
            "0",
            "--host",
            "127.0.0.1",
            "--db",
            str(tmp_path / "games.sqlite"),
            "--no-access-log",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ready, _, _ = select.select([server.stdout], [], [], 120)
        assert ready, "the server printed no URL within 120 s"
        line = server.stdout.readline()
        assert line.startswith("tribridge serving on http://127.0.0.1:"), line + server.stderr.read()
        url = line.split()[3].rstrip("/")
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=5) as answer:
                    assert answer.status == 200
                    break
            except OSError:
                assert time.monotonic() < deadline, "no answer from /healthz within 60 s"
                time.sleep(0.5)
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_analyze_and_match(plain_venv):
    proc = tribridge(plain_venv, "analyze", DEAL, "--json", "--no-cache")
    assert proc.returncode == 0, proc.stderr
    table = json.loads(proc.stdout)["dd"]
    assert set(table) == {"N", "E", "S", "W"} and all(0 <= v <= 13 for row in table.values() for v in row.values())
    proc = tribridge(plain_venv, "match", "--bots", "dd,random,random", "--deals", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["deals"] == 2 and result["games"] == 12


def test_a_missing_extra_is_one_line(plain_venv):
    proc = tribridge(plain_venv, "study", "game", "--deals", "100", "--runs", "1", "--backend", "dask")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines() == [
        "tribridge study: needs the 'sim' extra: pip install 'tribridge[sim]' (dask is missing)"
    ]
