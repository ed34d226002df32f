"""Accounts in the store on both backends: accounts, sessions, login failures, held seats, deletion, migration 3."""

from __future__ import annotations

import time

from store_games import HUMANS, played_table

from account_helpers import every_cell
from tribridge.server.store import open_store, token_hash
from tribridge.server.store import postgres as pg_backend
from tribridge.server.store import sqlite as sqlite_backend
from tribridge.server.store.accounts import AccountSession

CONFIG = {"chairs": [{"kind": "human"}] * 3, "scheme": "classic", "deals": {"seed": 5}}


def session(account_id: str, session_id: str, expires: float) -> AccountSession:
    return AccountSession(session_id, account_id, time.time(), expires, "10.0.0.1", "test browser")


def test_an_account_round_trips_and_its_folded_name_is_unique(store):
    assert store.create_account("a1", "Anna", "anna", "$argon2id$x")
    assert not store.create_account("a2", "ANNA", "anna", "$argon2id$y"), "one person per folded name"
    found = store.account_by_key("anna")
    assert found is not None and (found.account_id, found.username, found.password_hash) == (
        "a1",
        "Anna",
        "$argon2id$x",
    )
    assert not found.disabled
    assert store.account_by_key("bob") is None and store.account_by_id("a2") is None
    store.set_password_hash("a1", "$argon2id$z")
    assert store.account_by_id("a1").password_hash == "$argon2id$z"
    assert [a.account_id for a in store.list_accounts()] == ["a1"]


def test_sessions_are_found_by_their_hash_until_they_expire_and_end_one_or_all(store):
    store.create_account("a1", "Anna", "anna", "h")
    store.create_account("b1", "Bob", "bob", "h")
    now = time.time()
    store.create_session(session("a1", "s1", now + 100), token_hash("secret-1"))
    store.create_session(session("a1", "s2", now + 100), token_hash("secret-2"))
    store.create_session(session("a1", "old", now + 50), token_hash("secret-old"))
    store.create_session(session("b1", "s3", now + 100), token_hash("secret-3"))
    assert store.session_by_hash(token_hash("secret-1"), now).session_id == "s1"
    assert store.session_by_hash(token_hash("secret-old"), now + 60) is None, "an expired session is no session"
    assert store.session_by_hash("secret-1", now) is None, "the secret itself is not the key"
    assert not store.delete_session("a1", "s3"), "an account cannot end another account's session"
    assert store.delete_session("a1", "s2")
    assert [s.session_id for s in store.sessions_of("a1")] == ["s1", "old"]
    assert store.delete_sessions("a1", keep_hash=token_hash("secret-1")) == 1
    assert [s.session_id for s in store.sessions_of("a1")] == ["s1"]
    assert store.delete_sessions("a1") == 1
    assert store.sessions_of("a1") == [] and [s.session_id for s in store.sessions_of("b1")] == ["s3"]


def test_disabling_ends_the_sessions(store):
    store.create_account("a1", "Anna", "anna", "h")
    store.create_session(session("a1", "s1", time.time() + 100), token_hash("k"))
    store.set_disabled("a1", True)
    assert store.account_by_id("a1").disabled and store.sessions_of("a1") == []
    store.set_disabled("a1", False)
    assert not store.account_by_id("a1").disabled


def test_login_failures_are_counted_per_key_in_a_window(store):
    store.record_login_failure(["account:anna", "client:1"], 100.0)
    store.record_login_failure(["account:anna"], 200.0)
    store.record_login_failure(["account:bob", "client:1"], 300.0)
    assert store.login_failures("account:anna", 0.0) == [100.0, 200.0]
    assert store.login_failures("account:anna", 150.0) == [200.0]
    assert store.login_failures("client:1", 0.0) == [100.0, 300.0]
    store.clear_login_failures("account:anna")
    assert store.login_failures("account:anna", 0.0) == []
    store.prune_login_failures(250.0)
    assert store.login_failures("client:1", 0.0) == [300.0]


def test_an_account_holds_seats(store):
    store.create_account("a1", "Anna", "anna", "h")
    store.create_table("t1", CONFIG)
    store.hold_seat("a1", "t1", 2)
    store.hold_seat("a1", "t1", 2)
    assert [(s.table_id, s.chair) for s in store.seats_of("a1")] == [("t1", 2)]


def test_a_deleted_account_leaves_no_row_in_any_table(store):
    store.create_table("t1", CONFIG)
    store.create_account("acct-anna", "AnnaXYZ", "annaxyz", "hash-of-anna")
    store.create_account("acct-bob", "Bob", "bob", "hash-of-bob")
    store.create_session(session("acct-anna", "sess-anna", time.time() + 100), token_hash("s"))
    store.record_login_failure(["account:annaxyz"], time.time())
    store.hold_seat("acct-anna", "t1", 1)
    assert any("acct-anna" in c for c in every_cell(store))
    store.delete_account("acct-anna", "annaxyz")
    left = every_cell(store)
    assert not [c for c in left if "anna" in c.lower() or c == token_hash("s")]
    assert "acct-bob" in left and "t1" in left


def test_a_store_made_before_accounts_opens_keeps_its_games_and_gains_them(db_url, monkeypatch):
    games = {f"t{i}": played_table(f"t{i}", HUMANS, 25 + 11 * i, seed=i) for i in range(2)}
    backend = pg_backend if "://" in db_url else sqlite_backend
    with monkeypatch.context() as patched:
        patched.setattr(backend, "MIGRATIONS", backend.MIGRATIONS[:2])  # the schema of the store before accounts
        old = open_store(db_url)
        assert old.schema_version() == 2
        for table_id, (_table, log) in games.items():
            old.create_table(table_id, HUMANS)
            for seq, chair, action in log:
                old.append_action(table_id, seq, chair, action)
        old.close()
    store = open_store(db_url)
    try:
        assert store.schema_version() == len(backend.MIGRATIONS) == 5
        assert store.table_ids() == list(games)
        for table_id, (_table, log) in games.items():
            assert store.load(table_id).actions == log
        assert store.create_account("a1", "Anna", "anna", "h")
    finally:
        store.close()


def test_a_held_seat_takes_a_new_token_and_a_deleted_account_leaves_a_neutral_name(store):
    store.create_account("a1", "Anna", "anna", "h")
    store.create_table("t1", CONFIG)
    store.set_token("t1", 0, "first", "Anna Smith")
    store.set_token("t1", 1, "other", "Bob")
    assert not store.replace_seat_token("a1", "t1", 0, token_hash("second")), "not held yet"
    store.hold_seat("a1", "t1", 0)
    assert store.replace_seat_token("a1", "t1", 0, token_hash("second"))
    assert not store.replace_seat_token("a1", "t1", 1, token_hash("x")), "a chair the account does not hold"
    assert store.seats("t1").token_hashes == {0: token_hash("second"), 1: token_hash("other")}
    store.delete_account("a1", "anna")
    assert store.seats("t1").names == {0: "former player", 1: "Bob"}


def test_a_new_session_ends_the_expired_ones_and_the_oldest_beyond_those_kept(store):
    store.create_account("a1", "Anna", "anna", "h")
    now = time.time()
    store.create_session(AccountSession("gone", "a1", now - 10, now - 1, "c", "b"), token_hash("gone"))
    for n in range(6):
        store.create_session(AccountSession(f"s{n}", "a1", now + n, now + 100, "c", "b"), token_hash(f"k{n}"), keep=4)
    assert [s.session_id for s in store.sessions_of("a1")] == ["s2", "s3", "s4", "s5"]
