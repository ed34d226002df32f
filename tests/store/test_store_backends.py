"""The store interface on both backends (a fresh SQLite file, a fresh database on a real PostgreSQL)."""

from __future__ import annotations

import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tribridge.errors import InvalidInput
from tribridge.server.store import (
    LoggedAction,
    SeqTaken,
    StoredTable,
    is_postgres_url,
    open_store,
    sqlite_path,
    store_label,
    token_hash,
)
from tribridge.server.store.sql import ACTIVITY_STEP_SECONDS

CONFIG = {"chairs": [{"kind": "human"}] * 3, "scheme": "classic", "deals": {"seed": 5}}


def test_a_table_round_trips_with_tokens_names_and_actions(store):
    store.create_table("t1", CONFIG, "10.0.0.1")
    assert store.set_token("t1", 0, "secret-0", "Ann")
    assert store.set_token("t1", 2, "secret-2")
    assert not store.set_token("t1", 0, "another"), "a taken chair stays taken"
    store.append_action("t1", 1, 0, {"type": "call", "call": "P"})
    store.append_action("t1", 2, None, {"type": "next"})
    loaded = store.load("t1")
    assert loaded is not None
    assert loaded.config == CONFIG
    assert loaded.creator == "10.0.0.1"
    assert loaded.token_hashes == {0: token_hash("secret-0"), 2: token_hash("secret-2")}
    assert loaded.names == {0: "Ann"}
    assert loaded.actions == [
        LoggedAction(1, 0, {"type": "call", "call": "P"}),
        LoggedAction(2, None, {"type": "next"}),
    ]
    assert store.load("nope") is None
    assert store.action_counts() == {"t1": 2}
    assert store.check_log("t1") == []


def test_a_taken_seq_raises_seq_taken_and_keeps_the_first(store):
    store.create_table("t", CONFIG)
    store.append_action("t", 1, 0, {"type": "call", "call": "1C"})
    with pytest.raises(SeqTaken) as info:
        store.append_action("t", 1, 1, {"type": "call", "call": "1D"})
    assert (info.value.table_id, info.value.seq) == ("t", 1)
    assert store.actions_since("t", 0) == [LoggedAction(1, 0, {"type": "call", "call": "1C"})]


def test_an_action_for_an_unknown_table_is_refused_but_not_as_seq_taken(store):
    with pytest.raises(Exception) as info:
        store.append_action("ghost", 1, 0, {"type": "next"})
    assert not isinstance(info.value, SeqTaken)
    assert store.action_counts() == {}


def test_actions_since_and_check_log_see_gaps(store):
    store.create_table("t", CONFIG)
    for seq in (1, 2, 4):
        store.append_action("t", seq, 0, {"type": "play", "card": f"S{seq}"})
    assert [a.seq for a in store.actions_since("t", 1)] == [2, 4]
    assert store.actions_since("t", 4) == []
    assert store.check_log("t") == ["t: action 3 missing or out of order (found seq 4)"]


def test_actions_after_reads_several_tables_at_once(store):
    for name in ("a", "b", "c"):
        store.create_table(name, CONFIG)
    for seq in (1, 2, 3):
        store.append_action("a", seq, 0, {"type": "play", "card": f"S{seq}"})
    store.append_action("b", 1, None, {"type": "next"})
    assert store.actions_after({"a": 1, "b": 1, "c": 0, "ghost": 0}) == {
        "a": [LoggedAction(2, 0, {"type": "play", "card": "S2"}), LoggedAction(3, 0, {"type": "play", "card": "S3"})]
    }
    assert store.actions_after({"b": 0}) == {"b": [LoggedAction(1, None, {"type": "next"})]}
    assert store.actions_after({}) == {}


def test_table_ids_are_oldest_first(store):
    for name in ("b", "a", "c"):
        store.create_table(name, CONFIG)
        time.sleep(0.01)
    assert store.table_ids() == ["b", "a", "c"]


def test_recent_tables_give_creator_and_activity(store):
    store.create_table("old", CONFIG, "x")
    cut = time.time()
    time.sleep(0.02)
    store.create_table("new", CONFIG, "y")
    assert [(t.table_id, t.creator) for t in store.recent_tables(cut)] == [("new", "y")]
    store.touch("old")
    recent = {t.table_id: t for t in store.recent_tables(cut)}
    assert set(recent) == {"old", "new"}
    assert recent["old"].last_active >= cut > recent["old"].created


def test_an_action_moves_last_active_once_it_is_a_step_old(store):
    store.create_table("fresh", CONFIG)
    created = store.recent_tables(0)[0].last_active
    store.append_action("fresh", 1, 0, {"type": "call", "call": "P"})
    assert store.recent_tables(0)[0].last_active == created, "moved by an action within the step"
    long_ago = time.time() - 2 * ACTIVITY_STEP_SECONDS
    store.import_table(StoredTable("old", CONFIG, {}, [], created=long_ago))
    store.append_action("old", 1, 0, {"type": "call", "call": "P"})
    old = {t.table_id: t for t in store.recent_tables(0)}["old"]
    assert old.last_active >= time.time() - 5 > long_ago == old.created


def test_leases_have_one_holder_until_released_or_expired(store):
    assert store.acquire_lease("bot:t:3", "p1", 30)
    assert not store.acquire_lease("bot:t:3", "p2", 30)
    assert store.acquire_lease("bot:t:3", "p1", 30), "the holder renews"
    store.release_lease("bot:t:3", "p2")  # not p2's: no effect
    assert not store.acquire_lease("bot:t:3", "p2", 30)
    store.release_lease("bot:t:3", "p1")
    assert store.acquire_lease("bot:t:3", "p2", -1)  # taken, already expired
    assert store.acquire_lease("bot:t:3", "p1", 30), "an expired lease goes to whoever asks"
    assert store.acquire_lease("other", "p2", 30), "keys are independent"


def test_socket_counts_sum_over_fresh_processes(store):
    store.report_sockets("p1", {"t": 2, "u": 1})
    store.report_sockets("p2", {"t": 3})
    assert store.socket_count("t", 60) == 5
    assert store.socket_count("t", 60, other_than="p2") == 2, "a process asks for the others' sockets"
    assert store.socket_count("u", 60) == 1
    assert store.socket_count("t", -1) == 0, "a heartbeat older than the window is not counted"
    store.report_sockets("p1", {"u": 4})
    assert (store.socket_count("t", 60), store.socket_count("u", 60)) == (3, 4)


def test_reports_of_one_process_may_overlap(db_url):
    """A subscribe's report and the heartbeat's, from two threads at once, both commit (no duplicate key)."""
    stores = [open_store(db_url), open_store(db_url)]
    failures: list[BaseException] = []

    def report(store, counts) -> None:
        try:
            for _ in range(40):
                store.report_sockets("p1", counts)
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            failures.append(exc)

    try:
        threads = [threading.Thread(target=report, args=(s, {"t": 1 + i, "u": 2})) for i, s in enumerate(stores)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert failures == []
        assert stores[0].socket_count("t", 60) in (1, 2) and stores[0].socket_count("u", 60) == 2
        stores[0].report_sockets("p1", {})
        assert stores[1].socket_count("u", 60) == 0
    finally:
        for store in stores:
            store.close()


def test_analysis_and_event_documents(store):
    store.create_table("t", CONFIG)
    assert store.get_analysis("t", 1) is None
    store.put_analysis("t", 1, '{"dd": 1}')
    store.put_analysis("t", 1, '{"dd": 2}')
    store.put_analysis("t", 2, '{"dd": 3}')
    assert (store.get_analysis("t", 1), store.get_analysis("t", 2)) == ('{"dd": 2}', '{"dd": 3}')
    assert store.event_ids() == [] and store.load_event("e") is None
    store.put_event("e1", '{"name": "Monday pairs"}')
    time.sleep(0.01)
    store.put_event("e0", "{}")
    store.put_event("e1", '{"name": "Monday teams"}')
    assert store.event_ids() == ["e1", "e0"]
    assert store.load_event("e1") == '{"name": "Monday teams"}'


def test_two_connections_racing_for_one_seq_accept_exactly_one(db_url):
    stores = [open_store(db_url), open_store(db_url)]
    try:
        stores[0].create_table("race", CONFIG)
        for seq in range(1, 21):
            barrier = threading.Barrier(2)
            outcomes: list[str] = []

            def append(i: int, seq: int = seq, barrier: threading.Barrier = barrier, outcomes=outcomes) -> None:
                barrier.wait()
                try:
                    stores[i].append_action("race", seq, i, {"type": "call", "call": f"{i}"})
                    outcomes.append("ok")
                except SeqTaken:
                    outcomes.append("taken")

            threads = [threading.Thread(target=append, args=(i,)) for i in (0, 1)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert sorted(outcomes) == ["ok", "taken"]
        assert stores[1].check_log("race") == [] and stores[1].action_counts() == {"race": 20}
    finally:
        for s in stores:
            s.close()


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(attempts=st.lists(st.integers(1, 6), max_size=12), since=st.integers(0, 7))
def test_the_log_keeps_the_first_writer_of_each_seq(store, attempts, since):
    table_id = f"h{time.monotonic_ns()}"
    store.create_table(table_id, CONFIG)
    first: dict[int, int] = {}
    for i, seq in enumerate(attempts):
        try:
            store.append_action(table_id, seq, i % 3, {"type": "call", "call": str(i)})
            accepted = True
        except SeqTaken:
            accepted = False
        assert accepted == (seq not in first)
        first.setdefault(seq, i)
    expected = [
        LoggedAction(s, first[s] % 3, {"type": "call", "call": str(first[s])}) for s in sorted(first) if s > since
    ]
    assert store.actions_since(table_id, since) == expected


def test_urls_choose_the_backend(tmp_path):
    assert sqlite_path(str(tmp_path / "a.sqlite")) == str(tmp_path / "a.sqlite")
    assert sqlite_path(f"sqlite:///{tmp_path}/b.sqlite") == f"{tmp_path}/b.sqlite"
    assert sqlite_path("sqlite:///relative.sqlite") == "relative.sqlite"
    assert sqlite_path("postgresql://u@h:5432/db") is None and is_postgres_url("postgres://u@h/db")
    with pytest.raises(InvalidInput, match="unknown store 'mysql'"):
        sqlite_path("mysql://u@h/db")
    assert store_label("postgresql://u:hunter2@h:5432/db") == "postgresql://u:***@h:5432/db"
    assert store_label("postgresql://u@h/db") == "postgresql://u@h/db"
    s = open_store(f"sqlite:///{tmp_path}/c.sqlite")
    s.close()
    assert (tmp_path / "c.sqlite").stat().st_mode & 0o777 == 0o600
