"""The slow-callback watch itself: it reports a callback that blocks the loop, and a module's check fails on it.

The server suites run under the watch (the modules marked ``loop_watch``, checked by ``loop_watch_check``)."""

from __future__ import annotations

import asyncio
import os
import time

import pytest
from fastapi.testclient import TestClient

from loop_watch_check import THRESHOLD_MS, check_report
from tribridge.server.app import create_app
from tribridge.server.loop_watch import REPORT_ENV, SLOW_CALLBACK_ENV, slow_callback_seconds, watch_the_loop

pytestmark = pytest.mark.loop_watch


def test_the_watch_reports_a_blocking_callback(tmp_path, monkeypatch):
    """The report catches a callback that sleeps on the loop (so a watched module can fail)."""
    report = tmp_path / "slow.txt"
    monkeypatch.setenv(SLOW_CALLBACK_ENV, "20")
    monkeypatch.setenv(REPORT_ENV, str(report))

    async def blocks() -> None:
        watch_the_loop()
        await asyncio.sleep(0)
        time.sleep(0.06)  # a synchronous wait on the loop, as a store call made there would be

    asyncio.run(blocks())
    lines = report.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1 and "took" in lines[0]


def test_a_bad_threshold_names_the_setting(monkeypatch):
    monkeypatch.setenv(SLOW_CALLBACK_ENV, "fast")
    with pytest.raises(ValueError, match=SLOW_CALLBACK_ENV):
        slow_callback_seconds()


def test_a_module_fails_on_a_callback_held_past_twice_the_threshold(tmp_path):
    report = tmp_path / "slow.txt"
    report.write_text("41 held 0.120 s (queued 0.000 s) Executing <Task ...> took 0.120 seconds\n", encoding="utf-8")
    with pytest.raises(AssertionError, match="1 callbacks held a server's event loop past 50 ms"):
        check_report(report, "tests/server/test_x.py")


def test_a_module_without_slow_callbacks_passes(tmp_path):
    check_report(tmp_path / "absent.txt", "tests/server/test_x.py")


def test_a_marked_modules_servers_serve_in_debug_mode_at_the_threshold(tmp_path):
    assert os.environ[SLOW_CALLBACK_ENV] == str(THRESHOLD_MS) and os.environ[REPORT_ENV]
    with TestClient(create_app(db_path=tmp_path / "store.sqlite", bot_delay=0, log_requests=False)) as client:
        assert client.get("/healthz").status_code == 200
        loop_debug = client.portal.call(lambda: asyncio.get_running_loop().get_debug())
        threshold = client.portal.call(lambda: asyncio.get_running_loop().slow_callback_duration)
    assert loop_debug and threshold == THRESHOLD_MS / 1000
