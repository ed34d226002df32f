"""The PostgreSQL store when the database drops its connections (before a transaction, during ``COMMIT``) or
refuses them for a moment, and a process's ``Peers`` (leases, change notices) riding that out.

A commit whose connection is cut off in flight has an unknown outcome; the row it wrote decides. The
two outcomes are made real: a commit that waits for a synchronous standby that never comes has
committed locally when its backend is terminated (the test's own PostgreSQL server, whose settings it
changes), and a deferred trigger that sleeps at commit is aborted with its backend.
"""

from __future__ import annotations

import asyncio
import threading
import time

import psycopg
import pytest
from pg_cuts import CONFIG, MOVE, SLOW_ONCE, backend_waiting, standby_that_never_comes

from tribridge.server.store import AsyncStore, LoggedAction, StoreUnavailable
from tribridge.server.store.postgres import PostgresStore
from tribridge.server.tables.peers import Peers

pytestmark = pytest.mark.slow


def in_thread(work) -> tuple[threading.Thread, list[BaseException]]:
    """Run ``work`` in a thread; the list gets its exception, if any."""
    raised: list[BaseException] = []

    def run() -> None:
        try:
            work()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            raised.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, raised


def test_dropped_pooled_connections_are_replaced_before_the_first_statement(pg_server):
    store = PostgresStore(pg_server.new_database(), pool_size=3)
    try:
        store.create_table("t", CONFIG)
        assert pg_server.drop_connections(store.url) >= 1
        store.append_action("t", 1, 0, MOVE)  # its pooled connection was dead: a fresh one takes the insert
        assert pg_server.drop_connections(store.url) >= 1
        assert store.load("t").actions == [LoggedAction(1, 0, MOVE)]
        assert store.set_token("t", 0, "secret") is True
    finally:
        store.close()


def test_a_commit_cut_off_after_it_committed_is_acknowledged_once():
    with standby_that_never_comes() as (url, store, admin):
        thread, raised = in_thread(lambda: store.append_action("t", 1, 0, MOVE))
        pid = backend_waiting(admin, url.rsplit("/", 1)[1], "SyncRep")  # committed here, waiting for a standby
        admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        thread.join(20)
        assert not thread.is_alive(), "the append still waits for the standby"
        assert raised == [], raised
        assert store.load("t").actions == [LoggedAction(1, 0, MOVE)]


def test_a_commit_cut_off_before_it_committed_is_written_once_more(pg_server):
    url = pg_server.new_database()
    store = PostgresStore(url)
    try:
        store.create_table("t", CONFIG)
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(SLOW_ONCE)
            thread, raised = in_thread(lambda: store.append_action("t", 1, 0, MOVE))
            pid = backend_waiting(admin, url.rsplit("/", 1)[1], "PgSleep")  # in COMMIT, in the deferred trigger
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
            thread.join(20)
        assert raised == [], raised
        assert store.load("t").actions == [LoggedAction(1, 0, MOVE)]
        assert store.check_log("t") == []
    finally:
        store.close()


def until_it_commits(store: PostgresStore, seconds: float = 20.0) -> None:
    """Wait until the store commits again (``can_commit``), at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while store.can_commit() is not None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert store.can_commit() is None


def test_a_database_that_refuses_connections_is_unavailable_not_an_error(pg_server):
    url = pg_server.new_database()
    store = PostgresStore(url, wait_timeout=0.5)
    try:
        with pg_server.refusing(url):
            started = time.monotonic()
            with pytest.raises(StoreUnavailable) as caught:
                store.actions_since("t", 0)
            assert time.monotonic() - started < 5
            assert "retry" in str(caught.value)
            assert store.can_commit() is not None
        until_it_commits(store)
    finally:
        store.close()


def test_leases_and_change_notices_outlast_a_store_that_refuses_connections(pg_server):
    url = pg_server.new_database()
    store = PostgresStore(url, wait_timeout=0.3)
    heard: list[str] = []

    facade = AsyncStore(store)

    async def on_change(notice: str) -> None:  # reads the store, as the manager's does
        await facade.table_ids()
        heard.append(notice)

    async def still_due() -> bool:  # reads the store, as the manager's does
        await facade.table_ids()
        return True

    async def scenario() -> str | None:
        peers = Peers(facade, on_change, dict, lease_seconds=1.0)
        with pg_server.refusing(url):
            await peers.hear("t:1")  # a notice the store cannot answer now
            work = asyncio.get_running_loop().create_task(peers.with_lease("k", _done, still_due))
            await asyncio.sleep(1.5)
            assert not work.done(), "the lease was given up while the store was away"
        result = await asyncio.wait_for(work, 20)
        deadline = time.monotonic() + 20
        while "*" not in heard and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        await peers.stop()
        return result

    try:
        assert asyncio.run(scenario()) == "done"  # the work ran once the lease could be taken
        assert heard == ["*"]  # the notice it could not read became a re-read of everything, once it could
    finally:
        store.close()


async def _done() -> str:
    """The work done under the lease."""
    return "done"
