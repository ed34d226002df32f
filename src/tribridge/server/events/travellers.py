"""An event's travellers built from its tables' finished deals, and the standings from them (``events.scoring``).

Table chair 0 of every entry's table is the entrant; on a board the chairs of the event are counted from the
dealer (0 the dealer's hand, 1 the dealer's left, 2 the dealer's right), the table's record giving the
dealer's chair. The two bots of a table are ``filler 1`` and ``filler 2`` in the order of the event's chairs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from tribridge.events.boards import Board
from tribridge.events.results import Entrant, Standing, TableResult, Traveller
from tribridge.events.scoring import individual_standings, rank_labels, score_traveller
from tribridge.server.tables.table import Table

__all__ = ["PERSON", "finished_boards", "running_standings", "table_result", "travellers_of"]

PERSON = "person"
"""The ``bot`` of an entrant who is a person (``events.results.Entrant.bot``)."""


def finished_boards(table: Table, frozen: int | None = None) -> int:
    """How many of its boards a table has finished (at most ``frozen``, the count when the results froze)."""
    done = len(table.history)
    return done if frozen is None else min(done, frozen)


def table_result(record: Mapping[str, Any], entrant: str, number: int) -> TableResult:
    """One finished deal of entry ``number`` (from 1) as a row of the board's traveller, in the event's chairs."""
    dealer_chair = int(record["dealer_chair"])
    table_chairs = [(dealer_chair + c) % 3 for c in range(3)]  # the table chair in each event chair
    names, fillers = [], []
    for table_chair in table_chairs:
        fillers.append(table_chair != 0)
        names.append(entrant if table_chair == 0 else f"filler {sum(fillers)}")
    per_chair = record["scores"]["per_chair"]
    scores = tuple(int(per_chair[t]) for t in table_chairs)
    declarer = record["declarer_chair"]
    contract = record["contract"]
    return TableResult(
        round=1,
        table=number,
        players=(names[0], names[1], names[2]),
        fillers=(fillers[0], fillers[1], fillers[2]),
        auction=tuple(str(c) for c in record["record"]["auction"]),
        contract=None if contract is None else str(contract),
        declarer=None if declarer is None else (int(declarer) - dealer_chair) % 3,
        tricks=None if contract is None else int(record["declarer_tricks"]),
        scores=(scores[0], scores[1], scores[2]),
    )


def travellers_of(boards: Sequence[Board], entries: Sequence[tuple[str, Table, int]]) -> list[Traveller]:
    """Every board's scored traveller from ``entries`` (name, table, boards of it that count), in board order."""
    rows: list[list[TableResult]] = [[] for _ in boards]
    for number, (name, table, counted) in enumerate(entries, 1):
        for record in table.history[:counted]:
            rows[int(record["deal_no"]) - 1].append(table_result(record, name, number))
    return [score_traveller(Traveller(board, tuple(results))) for board, results in zip(boards, rows)]


def running_standings(travellers: Sequence[Traveller], entrants: Sequence[Entrant]) -> list[Standing]:
    """Standings while the event runs: each entrant over the boards it has played (none unplayed yet), ranked."""
    rows = []
    for entrant in entrants:
        mine = [t for t in travellers if any(entrant.name in r.players for r in t.results)]
        (standing,) = (
            individual_standings(mine, [entrant]) if mine else (Standing("", entrant.name, PERSON, 0, 0, 0, 0, 0.0, 0),)
        )
        rows.append(standing)
    rows.sort(key=lambda s: (s.boards > 0, s.percent), reverse=True)
    labels = rank_labels([(s.boards > 0, s.percent) for s in rows])
    return [replace(s, rank=label) for label, s in zip(labels, rows)]
