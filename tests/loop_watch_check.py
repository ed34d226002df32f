"""Nothing blocks a server's event loop: the modules marked ``loop_watch`` run their servers with asyncio's debug
mode and a 50 ms slow-callback threshold (``server.loop_watch``), and each such module fails at its end when a
callback held a server's loop longer.

The marked modules are the tables' API, the pushes, the events (both stores) and two processes on one
PostgreSQL. Their servers, in-process and ``tribridge serve`` alike, read the threshold from the environment
(set for the whole module, before its first server starts) and append each slow callback to one report file
of the module. Over the whole session at most ``TOLERATED`` callbacks may have held a loop between the
threshold and twice it (a 2-core machine's hiccups: the interpreter lock held by a store thread, a page
fault); none may have held one longer.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tribridge.server.loop_watch import REPORT_ENV, SLOW_CALLBACK_ENV

THRESHOLD_MS = 50
TOLERATED = 2  # callbacks held between 50 and 100 ms in the whole session (each one is named in the failure)
MARKER = "loop_watch"
_tolerated_so_far: list[str] = []  # the hiccups already tolerated in this session


def held_seconds(line: str) -> float:
    """The seconds a report line says its callback held the loop ("<pid> held <seconds> s (queued ...) ...")."""
    return float(line.split()[2])


def check_report(report: Path, module: str) -> None:
    """Fail when the module's report names a callback held past twice the threshold, or too many past it."""
    slow = report.read_text(encoding="utf-8").splitlines() if report.exists() else []
    too_long = [line for line in slow if held_seconds(line) >= 2 * THRESHOLD_MS / 1000]
    _tolerated_so_far.extend(line for line in slow if line not in too_long)
    message = (
        f"{module}: {len(slow)} callbacks held a server's event loop past {THRESHOLD_MS} ms "
        f"({len(_tolerated_so_far)} between {THRESHOLD_MS} and {2 * THRESHOLD_MS} ms this session, "
        f"{TOLERATED} tolerated):\n" + "\n".join((too_long + _tolerated_so_far)[:20])
    )
    assert not too_long and len(_tolerated_so_far) <= TOLERATED, message


def watched_module(request: pytest.FixtureRequest, folder: Path) -> Iterator[None]:
    """Run a marked module's servers with the slow-callback watch on; check its report when the module ends."""
    if request.node.get_closest_marker(MARKER) is None:
        yield
        return
    report = folder / "slow_callbacks.txt"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(SLOW_CALLBACK_ENV, str(THRESHOLD_MS))
        patch.setenv(REPORT_ENV, str(report))
        yield
    check_report(report, request.node.nodeid)
