"""Start a real `tribridge serve` on a free loopback port for tests that need a live server."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx


def start_server(db: Path, *extra: str) -> tuple[subprocess.Popen, str]:
    """Start the server on ``db`` (bots without delay); return the process and its URL once /healthz answers."""
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
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert "http://" in line, (line, proc.poll())
    url = line.split()[3].rstrip("/")
    for _ in range(300):
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    raise AssertionError("server did not answer /healthz")
