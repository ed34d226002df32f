"""Helpers for driving a real tribridge server from tests, benchmarks and scripts.

``start_server`` runs ``tribridge serve`` in a child process on a free loopback port and waits until
``/healthz`` answers; ``CHROMIUM`` and ``CHROMIUM_ARGS`` are how the browser checks start Debian's
Chromium headless.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import httpx

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def start_server(
    db: Path | str, *extra: str, bot_delay: float = 0.0, log_level: str | None = None, wait_s: float = 20.0
) -> tuple[subprocess.Popen, str]:
    """Start ``tribridge serve`` on ``db`` (a file or a store URL) with ``extra`` arguments; the process and its URL
    once /healthz answers."""
    command = [sys.executable, "-m", "tribridge.cli.main", "serve", "--port", "0", "--db", str(db)]
    command += ["--bot-delay", str(bot_delay), "--no-access-log"]
    if log_level:
        command += ["--log-level", log_level]
    proc = subprocess.Popen([*command, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    if "http://" not in line:
        proc.kill()
        raise RuntimeError(f"the server did not start: {line!r} (exit status {proc.poll()})")
    url = line.split()[3].rstrip("/")
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("the server did not answer /healthz")
