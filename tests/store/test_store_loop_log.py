"""PostgreSQL's appends and log reads sent from the event loop (``store.postgres_loop``): committed and read
without a store thread, an append finished on the store's threads, once, when the loop's try has an unknown
outcome, a read made again there when it fails on the loop.

The two outcomes of a commit cut off in flight are made real as in ``test_store_reconnect``: a commit that waits
for a synchronous standby has committed locally when its backend is terminated; a deferred trigger that sleeps
at commit is aborted with its backend.
"""

from __future__ import annotations

import asyncio
import threading

import psycopg
import pytest
from pg_cuts import CONFIG, MOVE, SLOW_ONCE, backend_waiting, standby_that_never_comes

from tribridge.server.store import AsyncStore, LoggedAction, SeqTaken
from tribridge.server.store.postgres import PostgresStore

pytestmark = pytest.mark.slow

PASS = {"type": "call", "call": "P"}


def store_threads() -> list[str]:
    """The names of the store's threads alive now."""
    return [t.name for t in threading.enumerate() if t.name.startswith("tribridge-store")]


def test_appends_commit_from_the_loop_without_a_store_thread(pg_server):
    store = PostgresStore(pg_server.new_database())
    store.create_table("t", CONFIG)
    facade = AsyncStore(store)

    async def scenario() -> list[str]:
        await facade.append_action("t", 1, 0, MOVE)
        await facade.append_action("t", 2, 1, PASS)
        with pytest.raises(SeqTaken):
            await facade.append_action("t", 2, 2, PASS)  # the number is taken: the loop's try says so itself
        threads = store_threads()
        await facade.close()
        return threads

    before = store_threads()
    assert asyncio.run(scenario()) == before  # no store thread was started for them
    reread = PostgresStore(store.url)
    assert reread.load("t").actions == [LoggedAction(1, 0, MOVE), LoggedAction(2, 1, PASS)]
    reread.close()


def test_an_append_after_the_loops_connections_were_cut_commits_once(pg_server):
    store = PostgresStore(pg_server.new_database())
    store.create_table("t", CONFIG)
    facade = AsyncStore(store)

    async def scenario() -> None:
        await facade.append_action("t", 1, 0, MOVE)  # the loop's pool is open, its connection in it
        assert await asyncio.to_thread(pg_server.drop_connections, store.url) >= 1
        await facade.append_action("t", 2, 1, PASS)  # a dead connection: the threads' path writes it
        await facade.append_action("t", 3, 2, PASS)  # and the loop's pool has a fresh one again
        await facade.close()

    asyncio.run(scenario())
    reread = PostgresStore(store.url)
    assert [a.seq for a in reread.load("t").actions] == [1, 2, 3]
    assert reread.check_log("t") == []
    reread.close()


def test_log_reads_come_from_the_loop_and_from_the_threads_after_a_cut(pg_server, caplog):
    store = PostgresStore(pg_server.new_database())
    for table_id in ("a", "b"):
        store.create_table(table_id, CONFIG)
    store.append_action("a", 1, 0, MOVE)
    store.append_action("a", 2, 1, PASS)
    store.append_action("b", 1, 2, PASS)
    facade = AsyncStore(store)
    expected_a = [LoggedAction(2, 1, PASS)]

    async def scenario() -> tuple[list[str], list[LoggedAction], dict[str, list[LoggedAction]]]:
        since = await facade.actions_since("a", 1)
        after = await facade.actions_after({"a": 0, "b": 1})
        assert since == expected_a
        assert after == {"a": [LoggedAction(1, 0, MOVE), *expected_a]}  # b has nothing above 1: left out
        threads = store_threads()
        assert await asyncio.to_thread(pg_server.drop_connections, store.url) >= 1
        again = await facade.actions_since("a", 1), await facade.actions_after({"b": 0})  # a dead connection
        await facade.close()
        return threads, *again

    before = store_threads()
    threads, since_after_cut, after_after_cut = asyncio.run(scenario())
    assert threads == before  # the reads before the cut started no store thread
    assert "a read on the event loop failed" in caplog.text  # the read after the cut was made again on a thread
    assert since_after_cut == expected_a
    assert after_after_cut == {"b": [LoggedAction(1, 2, PASS)]}


def test_a_store_used_on_a_second_loop_appends_on_its_threads(pg_server):
    store = PostgresStore(pg_server.new_database())
    store.create_table("t", CONFIG)
    facade = AsyncStore(store)
    asyncio.run(facade.append_action("t", 1, 0, MOVE))  # opens the loop's pool on this (then closed) loop

    async def later() -> list[str]:
        await facade.append_action("t", 2, 1, PASS)
        return store_threads()

    assert asyncio.run(later()) != []  # the pool's loop is gone: the append ran on a store thread
    assert [a.seq for a in store.load("t").actions] == [1, 2]
    store.close()


def append_cut_in_commit(url: str, admin: psycopg.Connection, wait_event: str) -> list[BaseException]:
    """Append action 1 of table ``t`` through ``AsyncStore`` while its backend, once it waits on ``wait_event`` in
    its commit, is terminated; what the append raised."""
    store = PostgresStore(url)
    facade = AsyncStore(store)
    raised: list[BaseException] = []

    async def scenario() -> None:
        append = asyncio.get_running_loop().create_task(facade.append_action("t", 1, 0, MOVE))
        pid = await asyncio.to_thread(backend_waiting, admin, url.rsplit("/", 1)[1], wait_event)
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        try:
            await asyncio.wait_for(append, 20)
        except Exception as exc:  # noqa: BLE001 - handed to the test
            raised.append(exc)
        await facade.close()

    asyncio.run(scenario())
    return raised


LOOP_FAILED = "an append on the event loop failed"


def test_a_loop_commit_cut_off_after_it_committed_is_acknowledged_once(caplog):
    with standby_that_never_comes() as (url, store, _admin), psycopg.connect(url, autocommit=True) as admin_here:
        raised = append_cut_in_commit(url, admin_here, "SyncRep")  # committed, waiting for a standby
        assert LOOP_FAILED in caplog.text  # the loop's try was cut off: the threads' path decided
        assert raised == [], raised  # the row said the commit went through: not written again, not refused
        assert store.load("t").actions == [LoggedAction(1, 0, MOVE)]


def test_a_loop_commit_cut_off_before_it_committed_is_written_on_the_threads(pg_server, caplog):
    url = pg_server.new_database()
    setup = PostgresStore(url)
    setup.create_table("t", CONFIG)
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(SLOW_ONCE)
        raised = append_cut_in_commit(url, admin, "PgSleep")  # in COMMIT, in the deferred trigger
    assert LOOP_FAILED in caplog.text
    assert raised == [], raised
    assert setup.load("t").actions == [LoggedAction(1, 0, MOVE)]
    assert setup.check_log("t") == []
    setup.close()


def test_append_action_again_writes_only_what_is_not_there(pg_server):
    store = PostgresStore(pg_server.new_database())
    try:
        store.create_table("t", CONFIG)
        store.append_action_again("t", 1, 0, MOVE, 100.0)  # absent: written
        store.append_action_again("t", 1, 0, MOVE, 100.0)  # its own row (same time): nothing to do
        with pytest.raises(SeqTaken):
            store.append_action_again("t", 1, 1, PASS, 100.0)  # another action holds the number
        assert store.load("t").actions == [LoggedAction(1, 0, MOVE)]
    finally:
        store.close()
