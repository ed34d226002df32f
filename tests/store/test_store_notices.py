"""Action notices on PostgreSQL: a notice carries its action, so neither the process that logged it nor another one
reads it back; a notice without it (too long) or after a gap makes the other process read the tables with news
together, in one query at a time (the notices that come meanwhile make the next one); a process hears only the
notice groups of the tables it follows."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.server.store import LoggedAction, action_notice, interface, notice_group, open_store, parse_action_notice
from tribridge.server.store.sql import action_json
from tribridge.server.tables.manager import TableManager
from tribridge.server.tables.table import Table

pytestmark = pytest.mark.slow

HUMANS = {"chairs": [{"kind": "human"}] * 3, "take": 0}


def counted_reads(manager: TableManager, gate: asyncio.Event | None = None) -> list[dict[str, int]]:
    """Record the manager's reads of the log from here on (what each asked for: table id -> number read after); with
    ``gate``, each read waits until it is set."""
    store = manager.store
    assert store is not None
    reads: list[dict[str, int]] = []
    since_one, since_many = store.actions_since, store.actions_after

    async def one(table_id: str, seq: int) -> Any:
        reads.append({table_id: seq})
        return await since_one(table_id, seq)

    async def many(since: dict[str, int]) -> Any:
        reads.append(dict(since))
        if gate is not None:
            await asyncio.wait_for(gate.wait(), 10)
        return await since_many(since)

    store.actions_since = one  # type: ignore[method-assign]
    store.actions_after = many  # type: ignore[method-assign]
    return reads


@asynccontextmanager
async def two_processes(url: str) -> AsyncIterator[tuple[TableManager, TableManager]]:
    """Two server processes' table managers on the database ``url``, started, and stopped on leaving."""
    first, second = TableManager(url, bot_delay=0), TableManager(url, bot_delay=0)
    await first.start()
    await second.start()
    try:
        yield first, second
    finally:
        await second.stop()
        await first.stop()


def heard_only(manager: TableManager, keep: Callable[[str], bool], heard: list[str] | None = None) -> None:
    """From here on ``manager`` handles only the commit notices ``keep`` accepts (each one it hears is added to
    ``heard``, if given)."""
    assert manager.peers is not None
    hear = manager.peers.on_change

    async def filtered(notice: str) -> None:
        if heard is not None:
            heard.append(notice)
        if keep(notice):
            await hear(notice)

    manager.peers.on_change = filtered  # type: ignore[method-assign]


async def until(condition: Any, seconds: float = 10.0) -> None:
    """Wait until ``condition()`` holds (fail after ``seconds``)."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        await asyncio.sleep(0.01)


class Socket:
    """A chair's WebSocket as the manager uses it: the views sent to it."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(text)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        return None


async def seated(first: TableManager, second: TableManager) -> tuple[Table, Table]:
    """A table of three people made on ``first``, and the same table as ``second`` knows it once it has the seats,
    with a socket on ``second`` (a process follows the log of a table whose sockets it holds)."""
    table, _token = await first.create(HUMANS)
    for chair in (1, 2):
        await first.take_seat(table, chair)
    mirror = await second.find_or_404(table.table_id)
    await second.subscribe(mirror, 0, Socket())
    await until(lambda: mirror.version == table.version)
    return table, mirror


async def unwatched(first: TableManager, second: TableManager) -> tuple[Table, Table]:
    """A table of three people made on ``first``, and the same table as ``second`` knows it, with no socket there
    (``second`` does not follow it), once the seats' notices are heard."""
    table, _token = await first.create(HUMANS)
    for chair in (1, 2):
        await first.take_seat(table, chair)
    mirror = await second.find_or_404(table.table_id)
    await asyncio.sleep(0.5)
    return table, mirror


async def opening(manager: TableManager, table: Table, call: str) -> None:
    """The chair on turn calls ``call``."""
    await manager.act(table, table.chair_of_player(table.current().turn), {"type": "call", "call": call})


def test_the_other_process_installs_the_action_a_notice_carries_without_reading(pg_server):
    url = pg_server.new_database()

    async def scenario() -> None:
        async with two_processes(url) as (first, second):
            table, mirror = await seated(first, second)
            await asyncio.sleep(0.3)  # (the seats' notices, which each process reads the table's seats on, are heard)
            own, others = counted_reads(first), counted_reads(second)
            socket = next(iter(second.watchers(mirror.table_id))).websocket
            for call in ("1N", "P", "P"):
                pushed = len(socket.sent)
                await opening(first, table, call)
                await until(lambda pushed=pushed: mirror.log_len == table.log_len and len(socket.sent) > pushed)
            await asyncio.sleep(0.2)  # (any late read would have been made by now)
            assert own == [] and others == []
            assert mirror.version == table.version and mirror.current().phase == "play"

    asyncio.run(scenario())


def test_notices_without_the_action_make_the_other_process_read_them_together(pg_server, monkeypatch):
    monkeypatch.setattr(interface, "ACTION_NOTICE_BYTES", 0)  # every action too long to be carried
    url = pg_server.new_database()

    async def scenario() -> None:
        async with two_processes(url) as (first, second):
            tables = [await seated(first, second) for _ in range(4)]
            await asyncio.sleep(0.3)  # (the seats' notices, which each process reads the table's seats on, are heard)
            gate = asyncio.Event()
            gate.set()
            own, others = counted_reads(first), counted_reads(second, gate)
            table, mirror = tables[0]
            for call in ("1N", "P", "P"):
                await opening(first, table, call)
                await until(lambda: mirror.log_len == table.log_len)
            await asyncio.sleep(0.2)  # (any late notice would have been handled by now)
            assert own == [], "a process read back its own actions"
            assert others and all(set(read) == {table.table_id} for read in others)
            assert mirror.version == table.version and mirror.current().phase == "play"

            others.clear()
            gate.clear()  # the other process's reads wait
            await opening(first, tables[1][0], "1N")
            await until(lambda: others != [])
            for table, _mirror in tables[2:]:  # their notices come while a read is in flight: one read for both
                await opening(first, table, "1N")
            await asyncio.sleep(0.3)
            gate.set()
            await until(lambda: all(m.log_len == t.log_len for t, m in tables))
            assert others == [{tables[1][0].table_id: 0}, {t.table_id: 0 for t, _m in tables[2:]}]

    asyncio.run(scenario())


def test_a_process_without_the_tables_sockets_reads_its_log_only_when_asked(pg_server):
    """Table affinity: the process that holds none of a table's sockets does no work for its actions (a proxy that
    keeps each table on one process makes the others idle for it), and still serves it, caught up, when asked."""
    url = pg_server.new_database()

    async def scenario() -> None:
        async with two_processes(url) as (first, second):
            table, mirror = await unwatched(first, second)
            reads = counted_reads(second)
            for call in ("1N", "P", "P"):
                await opening(first, table, call)
            await asyncio.sleep(0.5)  # (the notices of the three actions have reached the second process)
            assert reads == [] and mirror.log_len < table.log_len
            asked = await second.get(table.table_id)  # a request reaching the second process
            assert asked is mirror and mirror.version == table.version and len(reads) == 1

    asyncio.run(scenario())


def ids_in_two_groups() -> tuple[str, str]:
    """Two table ids of different notice groups."""
    first = "table-a"
    other = next(f"table-{n}" for n in range(1000) if notice_group(f"table-{n}") != notice_group(first))
    return first, other


def test_a_listener_hears_only_the_groups_it_asks_for_and_every_new_table(pg_server):
    url = pg_server.new_database()
    heard_table, other_table = ids_in_two_groups()
    wanted = {notice_group(heard_table)}
    listener, sender = open_store(url), open_store(url)

    def announce(table_id: str, what: str) -> None:
        with sender.transaction() as tx:
            sender.announce(tx, table_id, what)

    async def scenario() -> list[str]:
        heard: list[str] = []
        notices = listener.listen(lambda: wanted)
        assert await anext(notices) == "*"

        async def hear() -> None:
            async for notice in notices:
                heard.append(notice)

        task = asyncio.get_running_loop().create_task(hear())
        try:
            for table_id in (heard_table, other_table):
                announce(table_id, "1")
            announce("table-new", "new")
            await until(lambda: len(heard) >= 2)
            await asyncio.sleep(0.5)  # (a notice of the other group would have come by now)
            assert heard == [f"{heard_table}:1", "table-new:new"]
            wanted.add(notice_group(other_table))  # this process begins following a table of the other group
            await until(lambda: f"*:{notice_group(other_table)}" in heard)
            announce(other_table, "2")
            await until(lambda: f"{other_table}:2" in heard)
            return heard
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    try:
        asyncio.run(scenario())
    finally:
        listener.close()
        sender.close()


def test_a_process_hears_no_notice_of_a_table_it_does_not_follow(pg_server):
    """With each table's sockets on one process, the others do not even wake for its actions (notice groups)."""
    url = pg_server.new_database()

    async def scenario() -> None:
        async with two_processes(url) as (first, second):
            table, mirror = await unwatched(first, second)
            assert notice_group(table.table_id) not in second.followed_groups()
            heard: list[str] = []
            heard_only(second, lambda _notice: True, heard)
            for call in ("1N", "P"):
                await opening(first, table, call)
            await asyncio.sleep(0.5)
            assert not any(n.startswith(table.table_id) for n in heard), heard
            await second.subscribe(mirror, 0, Socket())  # now it follows the table: it listens to its group
            await until(lambda: f"*:{notice_group(table.table_id)}" in heard)  # (its listener has the group now)
            await opening(first, table, "P")
            await until(lambda: any(n.startswith(f"{table.table_id}:{table.log_len}:") for n in heard))  # that action's
            await until(lambda: mirror.log_len == table.log_len)  # (installed without a request)

    asyncio.run(scenario())


def test_after_a_missed_notice_the_next_one_makes_the_process_read_the_log(pg_server):
    """A notice whose action is not the next one the table lacks (one was missed): the table follows the log."""
    url = pg_server.new_database()

    async def scenario() -> None:
        async with two_processes(url) as (first, second):
            table, mirror = await seated(first, second)
            await asyncio.sleep(0.3)
            missed = table.log_len + 1
            heard_only(second, lambda notice: not notice.startswith(f"{table.table_id}:{missed}:"))
            reads = counted_reads(second)
            await opening(first, table, "1N")
            await asyncio.sleep(0.3)
            assert mirror.log_len == missed - 1 and reads == []
            await opening(first, table, "P")
            await until(lambda: mirror.log_len == table.log_len)
            assert reads == [{table.table_id: missed - 1}] and mirror.version == table.version

    asyncio.run(scenario())


def test_a_group_listened_to_catches_up_its_tables(pg_server):
    """``*:<group>`` (notices of that group may have been lost before its ``LISTEN``) is not an action's notice: the
    followed tables of the group read the log."""
    url = pg_server.new_database()

    async def scenario() -> None:
        async with two_processes(url) as (first, second):
            table, mirror = await seated(first, second)
            await asyncio.sleep(0.3)
            heard_only(second, lambda notice: not notice.startswith(f"{table.table_id}:"))
            for call in ("1N", "P"):
                await opening(first, table, call)
            await asyncio.sleep(0.3)
            assert mirror.log_len < table.log_len
            await second.on_change(f"*:{notice_group(table.table_id)}")
            assert mirror.log_len == table.log_len and mirror.version == table.version

    asyncio.run(scenario())


@settings(max_examples=200, deadline=None)
@given(
    table_id=st.text(st.characters(blacklist_characters=":*"), min_size=1, max_size=20),
    seq=st.integers(1, 10**6),
    chair=st.one_of(st.none(), st.integers(0, 2)),
    action=st.dictionaries(st.text(max_size=8), st.one_of(st.text(max_size=30), st.integers(), st.none()), max_size=4),
)
def test_an_action_notice_reads_back_as_the_logged_action(table_id, seq, chair, action):
    text = action_json(action)
    notice = action_notice(table_id, seq, chair, text)
    assert parse_action_notice(notice) == (table_id, seq, LoggedAction(seq, chair, action))


def test_a_long_action_is_noticed_by_its_number_only():
    text = action_json({"type": "say", "text": "é" * interface.ACTION_NOTICE_BYTES})
    assert action_notice("t", 7, 1, text) == "t:7"
    assert parse_action_notice("t:7") == ("t", 7, None)
    for other in ("t:seat", "t:analysis:3", "t:new", "*", "*:5"):
        assert parse_action_notice(other) is None, other
