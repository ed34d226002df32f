"""Ratings kept after every deal: the games of each finished deal at an account's table of bots, applied once.

``RatingService`` listens to the table manager's finished deals (``TableManager.deal_listeners``); for each
account holding a chair at a table whose other chairs are all bots it records the deal's games
(``ratings.bot_table_games``) through the store, which numbers and applies each game once
(``Ratings.apply_game``). A chair tied to an account later (a guest who signs up) has its table's earlier
deals rated then (``rate_table``). Everything runs as tasks on the store's threads, never on the event loop.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from tribridge.server.accounts.ratings import ANCHOR, Game, Rating, bot_table_games, update
from tribridge.server.store import AsyncStore
from tribridge.server.tables.manager import TableManager
from tribridge.server.tables.table import Table

__all__ = ["RECENT_DEALS", "RatingService", "account_entity", "apply", "apply_many", "rate"]

RECENT_DEALS = 3  # the newest finished deals looked at when a deal ends (each game is applied once anyway)
log = logging.getLogger("tribridge.server.accounts")


def account_entity(account_id: str) -> str:
    """The rating entity of an account."""
    return f"acct:{account_id}"


class RatingService:
    """Rates the deals of accounts at tables of bots (see the module doc)."""

    def __init__(self, manager: TableManager) -> None:
        self.manager = manager
        self.tasks: set[asyncio.Task[Any]] = set()
        manager.deal_listeners.append(self.deal_done)

    def deal_done(self, table: Table) -> None:
        """A deal of ``table`` is finished: rate its newest deals in a task (none where not exactly one chair is a
        person's: only an account against bots is rated here, so a table of people asks the store nothing)."""
        if len(table.people) != 1 or self.manager.store is None:
            return
        task = asyncio.get_running_loop().create_task(self.rate_table(table, RECENT_DEALS))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def rate_table(self, table: Table, newest: int | None = None) -> int:
        """Apply the games of the table's finished deals (the ``newest`` only, given) for each account at it."""
        store = self.manager.store
        if store is None or len(table.people) != 1:
            return 0  # only an account against bots is rated here (people's tables are rated in events)
        records = list(table.history if newest is None else table.history[-newest:])
        applied = 0
        try:
            for account_id, chair in await store.call(store.sync.holders_of, table.table_id):
                if table.is_bot(chair):
                    continue  # (the one person's chair is the one rated)
                for record in records:
                    for game in bot_table_games(
                        table.table_id, record, chair, account_entity(account_id), table.chairs
                    ):
                        applied += await apply(store, game)
        except Exception:  # noqa: BLE001 - a rating that fails is logged; the table goes on
            log.exception("rating a deal failed", extra={"table_id": table.table_id})
        return applied


def rate(game: Game, a: Rating, b: Rating) -> tuple[Rating, Rating]:
    """Both ratings after ``game`` (the anchor held fixed): what every applied game does."""
    return update(a, b, game.outcome, game.a == ANCHOR, game.b == ANCHOR)


async def apply(store: AsyncStore, game: Game) -> int:
    """Apply one game through the store (1 if new, 0 if it was applied before)."""
    return await apply_many(store, [game])


async def apply_many(store: AsyncStore, games: list[Game]) -> int:
    """Apply games through the store in one transaction, numbered in order (how many were new)."""
    return int(await store.call(store.sync.apply_games, games, rate)) if games else 0
