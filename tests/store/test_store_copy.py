"""``tribridge store copy``: every table and its history reach the destination, and replay to the same views."""

from __future__ import annotations

from store_games import HUMANS, chair_views, played_table

from tribridge.cli.main import main
from tribridge.server.store import open_store
from tribridge.server.tables.manager import replay_table


def fill(path):
    """An SQLite store with four played tables (seats taken, one name) and an event."""
    store = open_store(path)
    for i in range(4):
        table_id = f"tab{i}"
        _table, log = played_table(table_id, HUMANS, 25 * i + 3, seed=40 + i)
        store.create_table(table_id, HUMANS, f"10.0.0.{i}")
        for chair in range(3):
            store.set_token(table_id, chair, f"tok-{i}-{chair}", "Bea" if chair == 2 else None)
        for seq, chair, action in log:
            store.append_action(table_id, seq, chair, action)
    store.put_event("ev1", '{"name": "club night", "tables": ["tab0", "tab1"]}')
    store.close()


def views_of(url):
    store = open_store(url)
    try:
        return {t: chair_views(replay_table(store.load(t))) for t in store.table_ids()}, store.load_event("ev1")
    finally:
        store.close()


def test_copy_keeps_every_table_and_its_views(tmp_path, db_url, capsys):
    source = tmp_path / "source.sqlite"
    fill(source)
    before = views_of(str(source))
    assert main(["store", "copy", "--from", str(source), "--to", db_url]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"copied 4 tables ({sum(25 * i + 3 for i in range(4))} actions) and 1 events from ")
    after = views_of(db_url)
    assert after == before and len(after[0]) == 4
    assert main(["store", "copy", "--from", str(source), "--to", db_url]) == 0, "a second run copies nothing"
    assert "copied 0 tables (0 actions) and 0 events" in capsys.readouterr().out
    dest = open_store(db_url)
    assert [dest.load(t).creator for t in dest.table_ids()] == [f"10.0.0.{i}" for i in range(4)]
    dest.append_action("tab0", 4, 0, {"type": "call", "call": "P"})
    dest.close()
    assert main(["store", "copy", "--from", str(source), "--to", db_url]) == 2
    assert "table tab0 is already there with a different history" in capsys.readouterr().err


def test_copy_refuses_a_missing_source(tmp_path, capsys):
    assert main(["store", "copy", "--from", str(tmp_path / "nope.sqlite"), "--to", str(tmp_path / "x.sqlite")]) == 2
    assert "no store file" in capsys.readouterr().err
