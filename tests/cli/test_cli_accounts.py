"""``tribridge accounts``: list, disable, enable and reset-password on a real store, both backends."""

from __future__ import annotations

import time

import pytest
from argon2 import PasswordHasher

from tribridge.cli.main import main
from tribridge.server.store import open_store, token_hash
from tribridge.server.store.accounts import AccountSession


@pytest.fixture()
def store_with_anna(db_url):
    store = open_store(db_url)
    store.create_account("a1", "Anna", "anna", PasswordHasher().hash("old password here"))
    store.create_session(AccountSession("s1", "a1", time.time(), time.time() + 60, "c", "b"), token_hash("k"))
    store.close()
    return db_url


def test_list_disable_enable(store_with_anna, capsys):
    db = store_with_anna
    assert main(["accounts", "list", "--db", db]) == 0
    assert capsys.readouterr().out.split("\t")[0] == "Anna"
    assert main(["accounts", "disable", "ANNA", "--db", db]) == 0
    store = open_store(db)
    assert store.account_by_id("a1").disabled and store.sessions_of("a1") == []
    store.close()
    assert main(["accounts", "enable", "anna", "--db", db]) == 0
    store = open_store(db)
    assert not store.account_by_id("a1").disabled
    store.close()


def test_reset_password_prints_a_new_one_that_verifies(store_with_anna, capsys):
    db = store_with_anna
    assert main(["accounts", "reset-password", "anna", "--db", db]) == 0
    password = capsys.readouterr().out.split("new password ")[1].split()[0]
    store = open_store(db)
    try:
        stored = store.account_by_id("a1").password_hash
        assert PasswordHasher().verify(stored, password)
        assert store.sessions_of("a1") == []
    finally:
        store.close()


def test_an_unknown_username_is_named(store_with_anna, capsys):
    assert main(["accounts", "disable", "nobody", "--db", store_with_anna]) != 0
    assert "username: no account 'nobody'" in capsys.readouterr().err
