"""An action whose request is cancelled while its commit is on the store's threads is installed all the same:
the table in memory never falls behind its log (a bot task cancelled because a seat was taken mid-commit)."""

import asyncio

from tribridge.server.tables.manager import TableManager

HUMANS = {"chairs": [{"kind": "human"}] * 3, "take": 0}


def run(coro):
    return asyncio.run(coro)


def test_a_cancelled_commit_is_installed_and_the_table_goes_on(tmp_path):
    async def scenario():
        manager = TableManager(tmp_path / "cancel.sqlite", bot_delay=0)
        await manager.start()
        try:
            table, _token = await manager.create(HUMANS)
            for chair in (1, 2):
                await manager.take_seat(table, chair)
            cancelled_mid_commit = 0
            for step in range(6):
                state = table.current()
                chair = table.chair_of_player(state.turn)
                call = "1N" if step == 0 else "P"
                before = table.log_len
                task = asyncio.ensure_future(manager.act(table, chair, {"type": "call", "call": call}))
                for _ in range(3):  # let the action reach the store's thread, then cancel its caller
                    await asyncio.sleep(0)
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
                logged = (await manager.store.load(table.table_id)).actions
                assert len(logged) == table.log_len, "the table in memory differs from its log"
                if table.log_len == before:
                    continue  # cancelled before it was judged: nothing logged, nothing installed
                assert str(table.current().auction.calls[-1]) == call
                cancelled_mid_commit += task.cancelled()
                if table.current().phase != "auction":
                    break
            assert cancelled_mid_commit >= 1, "no caller was cancelled while its commit was on the store's thread"
            chair = table.chair_of_player(table.current().turn)
            await manager.act(table, chair, {"type": "play", "card": str(table.current().legal_actions()[0])})
            assert len((await manager.store.load(table.table_id)).actions) == table.log_len
        finally:
            await manager.stop()

    run(scenario())
