"""Schema migrations: a store written before schema versions opens with every game it holds, on SQLite."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest
from store_games import HUMANS, chair_views, played_table

from tribridge.server.store import StoreTooNew, open_store, token_hash
from tribridge.server.store.sqlite import MIGRATIONS
from tribridge.server.tables.manager import replay_table

# The schema the store wrote before it had versions (the tables, written out here independently).
UNVERSIONED_SCHEMA = """
CREATE TABLE game_tables (table_id TEXT PRIMARY KEY, created REAL NOT NULL, config TEXT NOT NULL);
CREATE TABLE seat_tokens (
    table_id TEXT NOT NULL REFERENCES game_tables(table_id), chair INTEGER NOT NULL,
    token_hash TEXT NOT NULL, created REAL NOT NULL, name TEXT, PRIMARY KEY (table_id, chair));
CREATE TABLE actions (
    table_id TEXT NOT NULL REFERENCES game_tables(table_id), seq INTEGER NOT NULL, chair INTEGER,
    action TEXT NOT NULL, created REAL NOT NULL, PRIMARY KEY (table_id, seq));
"""


def write_unversioned_store(path, games, with_names=True):
    """An SQLite file as the store wrote it before schema versions: rows of ``games`` (table id -> (table, log))."""
    schema = UNVERSIONED_SCHEMA if with_names else UNVERSIONED_SCHEMA.replace(", name TEXT", "")
    conn = sqlite3.connect(path)
    conn.executescript(schema)
    for n, (table_id, (_table, log)) in enumerate(games.items()):
        now = 1_700_000_000.0 + n
        conn.execute("INSERT INTO game_tables VALUES (?, ?, ?)", (table_id, now, json.dumps(HUMANS, sort_keys=True)))
        for chair in range(3):
            row = [table_id, chair, token_hash(f"{table_id}-{chair}"), now]
            if with_names:
                row.append("Ann" if chair == 1 else None)
            conn.execute(f"INSERT INTO seat_tokens VALUES ({', '.join('?' * len(row))})", row)
        for seq, chair, action in log:
            conn.execute(
                "INSERT INTO actions VALUES (?, ?, ?, ?, ?)",
                (table_id, seq, chair, json.dumps(action, sort_keys=True), now),
            )
    conn.commit()
    conn.close()


@pytest.mark.parametrize("with_names", [True, False])
def test_an_unversioned_store_opens_and_keeps_its_games(tmp_path, with_names):
    games = {f"t{i}": played_table(f"t{i}", HUMANS, 30 + 37 * i, seed=i) for i in range(3)}
    path = tmp_path / "old.sqlite"
    write_unversioned_store(path, games, with_names)
    store = open_store(path)
    try:
        assert store.schema_version() == len(MIGRATIONS)
        assert store.table_ids() == ["t0", "t1", "t2"]
        for table_id, (table, log) in games.items():
            stored = store.load(table_id)
            assert stored is not None and stored.actions == log and stored.creator is None
            assert stored.names == ({1: "Ann"} if with_names else {})
            table.token_hashes = {c: token_hash(f"{table_id}-{c}") for c in range(3)}
            table.taken_names = dict(stored.names)
            assert chair_views(replay_table(stored)) == chair_views(table)
            assert store.check_log(table_id) == []
        assert {t.table_id for t in store.recent_tables(0)} == set(games), "old tables were active when created"
        store.create_table("new", HUMANS, "me")
        store.append_action("new", 1, 0, {"type": "call", "call": "P"})
    finally:
        store.close()
    again = open_store(path)  # a second start migrates nothing and finds everything
    try:
        assert again.schema_version() == len(MIGRATIONS)
        assert again.table_ids() == ["t0", "t1", "t2", "new"]
        assert again.action_counts()["new"] == 1
    finally:
        again.close()


def test_versions_are_recorded_once_each(tmp_path):
    path = tmp_path / "v.sqlite"
    open_store(path).close()
    open_store(path).close()
    rows = sqlite3.connect(path).execute("SELECT version FROM schema_version ORDER BY version").fetchall()
    assert [r[0] for r in rows] == list(range(1, len(MIGRATIONS) + 1))


def test_a_store_from_a_newer_version_is_refused(db_url):
    open_store(db_url).close()
    newer = open_store(db_url)
    with newer.transaction() as tx:
        tx.execute("INSERT INTO schema_version (version, applied) VALUES (?, ?)", (len(MIGRATIONS) + 5, time.time()))
    newer.close()
    with pytest.raises(StoreTooNew, match=f"schema version {len(MIGRATIONS) + 5}"):
        open_store(db_url)
