"""Which finished deals the rating service looks at: only an account against two bots is rated there, so a table
where two or three people sit costs the store nothing when its deals end."""

import asyncio

from tribridge.server.accounts.rating_service import RatingService
from tribridge.server.tables.manager import TableManager

BOT = {"kind": "bot", "bot": "pimc"}
PERSON = {"kind": "human"}


def test_only_a_table_of_one_person_and_two_bots_asks_the_store_for_its_accounts(tmp_path):
    async def scenario() -> dict[str, int]:
        manager = TableManager(tmp_path / "rating.sqlite", bot_delay=0)
        await manager.start()
        asked: dict[str, int] = {}
        assert manager.store is not None
        real_call = manager.store.call

        async def counting_call(fn, *args):
            if fn.__name__ == "holders_of":
                asked[args[0]] = asked.get(args[0], 0) + 1
            return await real_call(fn, *args)

        manager.store.call = counting_call  # type: ignore[method-assign]
        service = RatingService(manager)
        try:
            tables = {}
            for name, chairs in (
                ("alone", [PERSON, BOT, BOT]),
                ("two", [PERSON, PERSON, BOT]),
                ("three", [PERSON] * 3),
            ):
                table, _token = await manager.create({"chairs": chairs, "take": 0})
                tables[name] = table
                service.deal_done(table)
            await asyncio.gather(*service.tasks)
            assert [len(tables[n].people) for n in ("alone", "two", "three")] == [1, 2, 3]
            return {name: asked.get(table.table_id, 0) for name, table in tables.items()}
        finally:
            await manager.stop()

    assert asyncio.run(scenario()) == {"alone": 1, "two": 0, "three": 0}
