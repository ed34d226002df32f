"""Robot-API work runs on the solver pool, off the page's path: under a flood of slow robot requests the page and
the table API answer at once, and the robot API answers 503 with Retry-After once its queue is full (live server)."""

import statistics
import threading
import time

import httpx
import pytest

from live_server import start_server
from tribridge.cli.main import main

pytestmark = pytest.mark.slow

SLOW_BID = "/apis/3pab/bid?seat=N&dealer=N&ctx=&hand=AKQ2.KJ4.T98.762&model=simulation"  # about a second a call
FLOOD = 12


def wait_ready(url):
    deadline = time.monotonic() + 120
    while not httpx.get(url + "/healthz", timeout=10).json()["solvers_ready"]:
        assert time.monotonic() < deadline, "solver processes never became ready"
        time.sleep(0.2)


def test_a_robot_flood_gets_503_and_never_slows_the_page(tmp_path):
    proc, url = start_server(tmp_path / "flood.sqlite", "--robot-queue", "2")
    try:
        wait_ready(url)
        table = httpx.post(url + "/api/tables", json={"take": 0}, timeout=30).json()["table_id"]
        answers: list[httpx.Response] = []

        def ask():
            answers.append(httpx.get(url + SLOW_BID, timeout=120))

        flood = [threading.Thread(target=ask) for _ in range(FLOOD)]
        for thread in flood:
            thread.start()
        time.sleep(0.3)  # the flood is queued or running
        page, lobby = [], []
        with httpx.Client(base_url=url, timeout=30) as client:
            for _ in range(5):
                start = time.perf_counter()
                assert client.get("/").status_code == 200
                page.append(time.perf_counter() - start)
                start = time.perf_counter()
                assert client.get(f"/api/tables/{table}").status_code == 200
                lobby.append(time.perf_counter() - start)
        for thread in flood:
            thread.join(120)
        busy = [r for r in answers if r.status_code == 503]
        assert busy, [r.status_code for r in answers]
        assert all(int(r.headers["retry-after"]) >= 1 and "busy" in r.json()["error"] for r in busy)
        assert any(r.status_code == 200 and r.json()["model"] == "simulation" for r in answers)
        # each robot answer takes about a second; the page and the table API do not wait behind them
        assert statistics.median(page) < 0.25 and statistics.median(lobby) < 0.25, (page, lobby)
    finally:
        proc.terminate()
        proc.wait(60)


def test_a_robot_answer_past_its_deadline_is_503_with_retry_after(tmp_path):
    proc, url = start_server(tmp_path / "deadline.sqlite", "--robot-deadline", "0.05")
    try:
        wait_ready(url)
        late = httpx.get(url + SLOW_BID, timeout=60)  # about a second of work against a 50 ms deadline
        assert late.status_code == 503, late.text
        assert int(late.headers["retry-after"]) >= 1
        assert "no robot answer within 0.05 s" in late.json()["error"]
        quick = httpx.get(url + "/apis/brill", timeout=30)  # the server goes on answering
        assert quick.status_code == 200
    finally:
        proc.terminate()
        proc.wait(60)


def test_serve_refuses_a_robot_deadline_that_is_not_positive(capsys):
    assert main(["serve", "--port", "0", "--robot-deadline", "0"]) != 0
    assert "--robot-deadline" in capsys.readouterr().err
