"""Action notices on PostgreSQL: another process installs the row a notice carries without reading the log, and a
process does not read back its own actions; a notice it cannot install from (a gap, no row) makes it read."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest

from tribridge.server.tables.follow import notice_row
from tribridge.server.tables.manager import TableManager
from tribridge.server.tables.store import LoggedAction

HUMANS = {"chairs": [{"kind": "human"}] * 3, "take": 0}


def test_a_notice_row_is_read_back_or_refused():
    assert notice_row(4, '0:{"call": "1N", "type": "call"}') == LoggedAction(4, 0, {"call": "1N", "type": "call"})
    assert notice_row(9, ':{"type": "next"}') == LoggedAction(9, None, {"type": "next"})
    for row in ("", "0:", "x:{}", "0:[1]", "0:{not json"):
        assert notice_row(1, row) is None


def counted_reads(manager: TableManager) -> list[int]:
    """Count the manager's reads of the log from here on (each call appends the number read after)."""
    assert manager.store is not None
    reads: list[int] = []
    read = manager.store.actions_since

    def counting(table_id: str, seq: int) -> Any:
        reads.append(seq)
        return read(table_id, seq)

    manager.store.actions_since = counting  # type: ignore[method-assign]
    return reads


async def until(condition: Any, seconds: float = 10.0) -> None:
    """Wait until ``condition()`` holds (fail after ``seconds``)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


@pytest.mark.slow
def test_actions_cross_processes_by_their_notices(pg_server):
    url = pg_server.new_database()

    async def scenario() -> None:
        first, second = TableManager(url, bot_delay=0), TableManager(url, bot_delay=0)
        await first.start()
        await second.start()
        try:
            table, _token = first.create(HUMANS)
            for chair in (1, 2):
                first.take_seat(table, chair)
            mirror = second.find_or_404(table.table_id)
            await until(lambda: mirror.version == table.version)
            await asyncio.sleep(0.3)  # (the seats' notices, which each process reads the table's seats on, are heard)
            own, others = counted_reads(first), counted_reads(second)
            moves = [{"type": "call", "call": call} for call in ("1N", "P", "P")] + [{"type": "play"}]
            for move in moves:
                state = table.current()
                if move["type"] == "play":
                    move["card"] = str(state.legal_actions()[0])
                await first.act(
                    table, table.chair_of_player(state.to_play if state.phase == "play" else state.turn), move
                )
                await until(lambda: mirror.log_len == table.log_len)
            await asyncio.sleep(0.2)  # (any late notice would have been handled by now)
            assert own == [], "a process read back its own actions"
            assert others == [], "the other process read what the notices carried"
            assert mirror.version == table.version and mirror.current().phase == "play"
            second.on_change(f"{table.table_id}:{table.log_len + 2}")  # a gap: read the log
            await until(lambda: others != [])
            assert others == [table.log_len]
        finally:
            await second.stop()
            await first.stop()

    asyncio.run(scenario())
