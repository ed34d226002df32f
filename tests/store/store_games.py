"""Games for the store tests: a table played by random legal actions, its log, and every chair's view."""

from __future__ import annotations

import random
from typing import Any

from tribridge.cards import Card
from tribridge.rules.auction import Call
from tribridge.server.store import LoggedAction
from tribridge.server.tables.table import Table
from tribridge.server.tables.views import view_for

__all__ = ["HUMANS", "chair_views", "played_table"]

HUMANS: dict[str, Any] = {
    "chairs": [{"kind": "human"}, {"kind": "human"}, {"kind": "human"}],
    "scheme": "classic",
    "deals": {"secret": "ab" * 32},
    "options": {"ranking": "contract", "dealer_must_bid": False},
}


def _json_action(table: Table, rng: random.Random) -> tuple[int | None, dict[str, Any]]:
    state = table.current()
    if state.phase == "done":
        return None, {"type": "next"}
    turn = state.turn
    choice = rng.choice([a for a in state.legal_actions(turn) if isinstance(a, (Call, Card))])
    if state.phase == "auction":
        return table.chair_of_player(turn), {"type": "call", "call": str(choice)}
    chair = table.chair_of_player(turn)
    if chair is None:  # the widow's card: its declarer plays it
        assert state.contract is not None
        chair = table.chair_of_player(state.contract.declarer)
    return chair, {"type": "play", "card": str(choice)}


def played_table(table_id: str, config: dict[str, Any], actions: int, seed: int) -> tuple[Table, list[LoggedAction]]:
    """A table after ``actions`` random legal actions, and its log as the store holds it."""
    rng = random.Random(seed)
    table = Table(table_id, config)
    table.begin()
    log: list[LoggedAction] = []
    for seq in range(1, actions + 1):
        chair, action = _json_action(table, rng)
        table.install(table.prepare(chair, action))
        log.append(LoggedAction(seq, chair, action))
    return table, log


def chair_views(table: Table) -> list[dict[str, Any]]:
    """The view of each of the three chairs."""
    return [view_for(table, chair) for chair in range(3)]
