"""The curl examples of docs/server.md run as written against a fresh `tribridge serve`."""

import re
import subprocess
from pathlib import Path

import pytest

from live_server import start_server

DOC = Path(__file__).resolve().parents[2] / "docs" / "server.md"


def doc_script() -> str:
    blocks = re.findall(r"```bash\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 8
    return "set -euo pipefail\n" + "\n".join(blocks)


@pytest.mark.slow
def test_curl_examples_work_as_written(db_url):
    proc, url = start_server(db_url)
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
