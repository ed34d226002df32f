"""The curl examples of docs/server.md run as written against a fresh `tribridge serve`."""

import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "server.md"


def start_server(db):
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tribridge.cli.main",
            "serve",
            "--port",
            "0",
            "--db",
            str(db),
            "--bot-delay",
            "0",
            "--no-access-log",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline()
    assert "http://" in line, line
    url = line.split()[3].rstrip("/")
    for _ in range(200):
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
    proc.kill()
    raise AssertionError("server did not answer /healthz")


def doc_script() -> str:
    blocks = re.findall(r"```bash\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 8
    return "set -euo pipefail\n" + "\n".join(blocks)


@pytest.mark.slow
def test_curl_examples_work_as_written(tmp_path):
    proc, url = start_server(tmp_path / "docs.sqlite")
    try:
        hostport = url.removeprefix("http://")
        script = doc_script().replace("localhost:8080", hostport)
        r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=300)
    finally:
        proc.terminate()
        proc.wait(30)
    assert r.returncode == 0, (r.stdout[-3000:], r.stderr[-3000:])
    out = r.stdout
    assert '"bid":"1C"' in out.replace(" ", "")
    assert "seat: E is not on turn: N calls next" in out
    assert "played: card 2 (D4): S revokes, holding C6 in the suit led" in out
    assert "\n403\n" in out
    assert '"card"' in out and '"ok":true' in out.replace(" ", "")
    assert "[Event" in out or "% PBN" in out
