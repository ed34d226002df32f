"""``Prepared``: a table action checked against the rules and not yet installed (``table.Table.prepare``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tribridge.rules.deal import DealState
from tribridge.server.tables.wire import GameAction
from tribridge.server.tables.wire_view import DealRecordJson

if TYPE_CHECKING:
    from tribridge.server.tables.table import Table

__all__ = ["Prepared"]


@dataclass(frozen=True)
class Prepared:
    """A checked action's outcome: the new deal state, its number, the record if the deal just finished.

    ``actor`` and ``kind`` say who did what; ``action`` is the game action kept for an undo's replay
    (None for others); ``ready`` the chairs now ready for the next deal (None: unchanged);
    ``effect`` changes the table's other facts at install; ``counts`` is False for table talk and
    other side actions, which leave the game's version alone.
    """

    state: DealState
    deal_no: int
    record: DealRecordJson | None = None
    actor: int | None = None
    kind: str = ""
    action: GameAction | None = None
    ready: frozenset[int] | None = None
    effect: Callable[[Table], None] | None = None
    counts: bool = True
