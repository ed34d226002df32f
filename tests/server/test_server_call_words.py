"""A bot's call shows at once; what it shows is worked out afterwards and reaches every view: the chair's and a
spectator's pushes, a fresh GET, and on PostgreSQL the views of another process serving the same table.

The bots are a plug-in whose bidder takes a moment for each call (``--plugin``): the bot's own call runs it once,
working out what the call shows runs it once for each of the plug-in's sample budget of hands
(``bots.call_meaning.PLUGIN_RUNS``), so the words cannot be ready when the call is.
"""

from __future__ import annotations

import asyncio
import json
import signal
import textwrap
import threading
import time
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from tribridge.bots.call_meaning import PLUGIN_RUNS
from tribridge.errors import InvalidInput
from tribridge.rules.auction import Call
from tribridge.server.tables.explain import MEANING_PENDING, explain_call
from tribridge.server.tables.manager import TableManager
from tribridge.testing import start_server, ws_token_message

RANDOM_BOTS = [{"kind": "bot", "bot": "random"}] * 2
PAUSE = 0.05  # seconds the plug-in's bidder takes for a call
SLOW_BIDDER = f"""
    import time

    from tribridge.rules.auction import PASS


    class SlowPasser:
        def bid(self, view):
            time.sleep({PAUSE})
            return PASS


    class FirstCard:
        def play(self, view):
            return view.legal_cards()[0]


    def make():
        return SlowPasser(), FirstCard()
"""


@pytest.fixture()
def servers(db_url, tmp_path: Path):
    """One server on SQLite, two on one PostgreSQL database, each with the slow bidder's plug-in enabled."""
    plugin = tmp_path / "slow_bidder.py"
    plugin.write_text(textwrap.dedent(SLOW_BIDDER))
    spec = f"{plugin}:make"
    procs = []
    try:
        for _ in range(2 if "://" in db_url else 1):
            proc, url = start_server(db_url, "--plugin", spec)
            threading.Thread(target=proc.stderr.read, daemon=True).start()  # a full pipe would stall the server
            procs.append((proc, url))
        yield spec.lower(), [url for _proc, url in procs]
    finally:
        for proc, _url in procs:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=30)


def _until(ws, done, seconds: float = 60.0) -> dict:
    """The first view pushed on ``ws`` for which ``done(view)`` holds."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        view = json.loads(ws.recv(timeout=deadline - time.monotonic()))
        if done(view):
            return view
    raise AssertionError("no such view was pushed")


def _explained(view: dict) -> bool:
    """Whether both bots' calls (auction entries 1 and 2) have their words."""
    auction = view["auction"]
    return len(auction) >= 3 and not auction[1]["explain_pending"] and not auction[2]["explain_pending"]


@pytest.mark.slow
def test_a_bots_call_shows_at_once_and_its_words_reach_every_view_afterwards(servers):
    bot, (here, there) = servers[0], (servers[1] * 2)[:2]
    chairs = [{"kind": "human"}, {"kind": "bot", "bot": bot}, {"kind": "bot", "bot": bot}]
    answer = httpx.post(f"{here}/api/tables", json={"chairs": chairs, "take": 0}, timeout=10)
    assert answer.status_code == 200, answer.text
    created = answer.json()
    table_id, token = created["table_id"], created["token"]
    headers = {"Authorization": f"Bearer {token}"}
    with (
        connect(there.replace("http://", "ws://") + f"/api/tables/{table_id}/ws", open_timeout=10) as mine,
        connect(here.replace("http://", "ws://") + f"/api/tables/{table_id}/ws?watch=1", open_timeout=10) as watcher,
    ):
        mine.send(ws_token_message(token))
        assert _until(mine, lambda v: v["my_turn"])["auction"] == []  # chair 0 deals deal 1
        r = httpx.post(f"{there}/api/tables/{table_id}/actions", headers=headers, json={"type": "call", "call": "1N"})
        assert r.status_code == 200, r.text
        called = _until(mine, lambda v: len(v["auction"]) >= 2)
        first = called["auction"][1]
        assert first["call"] == "P" and first["explain_pending"] is True, first  # the call came before its words
        shows, how = first["explain"].split("\n")
        assert shows == MEANING_PENDING and how  # meanwhile: how it was chosen, under the words being worked out
        pushed = _until(mine, _explained)
        watched = _until(watcher, _explained)
        for view in (pushed, watched):
            for entry in view["auction"][1:3]:
                words, chosen = entry["explain"].split("\n")
                assert words.startswith("Shows") and MEANING_PENDING not in words and chosen == how, entry
        for url in {here, there}:  # a fresh GET, on each process: the words are in the table's record
            state = httpx.get(f"{url}/api/tables/{table_id}/state", headers=headers, timeout=10).json()
            spectator = httpx.get(f"{url}/api/tables/{table_id}/watch", timeout=10).json()
            for view in (state, spectator):
                assert [e["explain"] for e in view["auction"][1:3]] == [e["explain"] for e in pushed["auction"][1:3]]
    assert PLUGIN_RUNS * PAUSE > 1.0  # (why the words cannot be ready when the call is)


async def _words_after_a_restart(folder: Path) -> None:
    db = folder / "words.sqlite"
    first = TableManager(db, bot_delay=60.0)  # its bots never act: the test makes the bot's call itself
    await first.start()
    try:
        table, _token = await first.create({"chairs": [{"kind": "human"}, *RANDOM_BOTS], "take": 0, "seed": 3})
        await first.act(table, 0, {"type": "call", "call": "1N"})
        lie = {"type": "explain", "deal_no": 1, "auction": ["1N"], "explain": "Shows a bluff"}
        with pytest.raises(InvalidInput, match="only the server"):
            await first.act(table, 0, lie)  # only the server logs a call's words
        due = {"type": "call", "call": "P", "explain": "How it chose.", "explain_due": True}
        await first.act(table, 1, due, by_bot=True)  # a bot's call, its words due, and then the server stops
        version, logged = table.version, table.log_len
    finally:
        await first.stop()
    second = TableManager(db, bot_delay=60.0)
    await second.start()  # the call's words are still due: they are worked out now
    try:
        again = await second.get(table.table_id)
        deadline = time.monotonic() + 60
        while again.call_notes()[1][1]:
            assert time.monotonic() < deadline, "the words of the bot's call never came"
            await asyncio.sleep(0.05)
        words = again.call_notes()[1][0]
        before = again.start_deal(1).auction.apply(Call.parse("1N"))  # (the words of the position, anywhere)
        assert words == explain_call("random", Call.parse("P"), before) and words.startswith("Shows")
        assert (again.version, again.log_len) == (version, logged + 1)  # one entry of the log; the version as it was
    finally:
        await second.stop()
    third = TableManager(db, bot_delay=60.0)  # a reload replays the words from the log
    await third.start()
    try:
        assert (await third.get(table.table_id)).call_notes()[1] == (words, False)
    finally:
        await third.stop()


def test_a_restart_works_out_the_words_still_due_and_a_reload_keeps_them(tmp_path):
    asyncio.run(_words_after_a_restart(tmp_path))


class Watcher:
    """A subscriber stand-in: someone watching the table (its views are not read)."""

    closed = False

    def notify(self) -> None:
        """A change was announced."""

    async def close(self, code: int, reason: str) -> None:
        self.closed = True

    async def stop(self) -> None:
        self.closed = True


async def _paused_then_watched(folder: Path) -> None:
    manager = TableManager(folder / "paused.sqlite", bot_delay=60.0)  # its bots never act: the test calls for one
    await manager.start()
    try:
        table, _token = await manager.create({"chairs": [RANDOM_BOTS[0]] * 3, "seed": 4})
        due = {"type": "call", "call": "1C", "explain": "How it chose.", "explain_due": True}
        await manager.act(table, 0, due, by_bot=True)
        await asyncio.sleep(0.5)
        assert table.call_notes()[0][1], "nobody watches this table of bots: its words wait too"
        manager.subscribers[table.table_id] = {Watcher()}  # type: ignore[dict-item]
        manager.schedule_work(table)  # someone watches: it plays on, and its call's words are worked out
        deadline = time.monotonic() + 60
        while table.call_notes()[0][1]:
            assert time.monotonic() < deadline, "the words of the paused table's call never came"
            await asyncio.sleep(0.05)
        words = table.call_notes()[0][0]
        assert words == explain_call("random", Call.parse("1C"), table.start_deal(1).auction)
    finally:
        await manager.stop()


def test_a_paused_table_of_bots_works_out_its_words_when_watched_again(tmp_path):
    asyncio.run(_paused_then_watched(tmp_path))
