"""What the tests of a PostgreSQL store whose connections are cut share: a table, a move, a commit that sleeps
once (a deferred trigger), a server whose commits wait for a standby that never comes, waiting for a backend in a
wait event, waiting for a reloaded setting."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest

from tribridge.server.store.postgres import PostgresStore
from tribridge.testing import MISSING_REASON, PgServer, pg_bin_dir

CONFIG = {"chairs": [{"kind": "human"}] * 3}
MOVE = {"type": "call", "call": "1N"}
SLOW_ONCE = """
CREATE SEQUENCE slow_once;
CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF nextval('slow_once') = 1 THEN PERFORM pg_sleep(60); END IF;
    RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON actions DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION slow_commit();
"""


def backend_waiting(admin: psycopg.Connection, database: str, wait_event: str, seconds: float = 20.0) -> int:
    """The pid of the database's backend once it waits on ``wait_event``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        row = admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND wait_event = %s", (database, wait_event)
        ).fetchone()
        if row is not None:
            return int(row[0])
        time.sleep(0.02)
    raise AssertionError(f"no backend of {database} waited on {wait_event} within {seconds} s")


def wait_for_setting(store: PostgresStore, name: str, value: str, seconds: float = 20.0) -> None:
    """Wait until the store's connection has taken in a reloaded setting (backends read it between commands)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with store.transaction() as tx:
            if tx.execute(f"SHOW {name}").fetchone()[0] == value:
                return
        time.sleep(0.02)
    raise AssertionError(f"{name} is not {value!r} after {seconds} s")


@contextmanager
def standby_that_never_comes() -> Iterator[tuple[str, PostgresStore, psycopg.Connection]]:
    """A PostgreSQL server of its own (the setting applies to the whole server) whose commits wait for a synchronous
    standby that never comes: its database's URL, a store with table ``t`` (one connection, shown the setting) and
    an admin connection; the setting is reset when the block ends."""
    bin_dir = pg_bin_dir()
    if bin_dir is None:
        pytest.skip(MISSING_REASON)
    server = PgServer(bin_dir).start()
    try:
        url = server.new_database()
        store = PostgresStore(url, pool_size=1)
        store.create_table("t", CONFIG)
        with psycopg.connect(server.url(), autocommit=True) as admin:
            admin.execute("ALTER SYSTEM SET synchronous_standby_names = 'nobody'")
            admin.execute("SELECT pg_reload_conf()")
            wait_for_setting(store, "synchronous_standby_names", "nobody")
            try:
                yield url, store, admin
            finally:
                admin.execute("ALTER SYSTEM RESET synchronous_standby_names")
                admin.execute("SELECT pg_reload_conf()")
        store.close()
    finally:
        server.stop()
