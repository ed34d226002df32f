"""The curl examples of docs/events.md ("In the server") run as written against a fresh `tribridge serve`,
and print what the document says they print."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from live_server import start_server

DOC = Path(__file__).resolve().parents[2] / "docs" / "events.md"


def examples() -> tuple[str, list[str]]:
    """The bash blocks of the server part as one script, and the outputs they show (``# ...`` lines)."""
    server_part = DOC.read_text(encoding="utf-8").split("## In the server", 1)[1]
    blocks = re.findall(r"```bash\n(.*?)```", server_part, flags=re.S)
    assert len(blocks) >= 4
    shown = [line[2:] for block in blocks for line in block.splitlines() if line.startswith("# ")]
    return "set -euo pipefail\n" + "\n".join(blocks), shown


def test_event_curl_examples_print_what_they_say(db_url):
    script, shown = examples()
    proc, url = start_server(db_url, bot_delay=0.0)
    try:
        run = subprocess.run(
            ["bash", "-c", script.replace("localhost:8080", url.removeprefix("http://"))],
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        proc.terminate()
        proc.wait(30)
    assert run.returncode == 0, (run.stdout[-3000:], run.stderr[-3000:])
    printed = run.stdout.splitlines()
    assert len(printed) == len(shown), (printed, shown)
    for got, expected in zip(printed, shown):
        pattern = re.escape(expected).replace(r"\.\.\.", '[^"]+')
        assert re.fullmatch(pattern, got), (got, expected)
