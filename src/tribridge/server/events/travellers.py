"""An event's travellers built from its tables' finished deals, and the standings from them (``events.scoring``).

On a board the chairs of the event are counted from the dealer (0 the dealer's hand, 1 the dealer's left, 2
the dealer's right); a table's record gives the dealer's chair, so table chair ``t`` holds event chair
``(t - dealer chair) mod 3``. Each table's people are named by table chair (``people_of``): an entrant's name,
or the bot's name as the table shows it (``tables.config.bot_label``: ``random bot``, ``random bot 2``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from tribridge.events.boards import Board
from tribridge.events.results import Entrant, Standing, TableResult, Traveller
from tribridge.events.scoring import individual_standings, rank_labels, score_traveller
from tribridge.server.tables.config import bot_label
from tribridge.server.tables.table import Table

__all__ = [
    "PERSON",
    "PlayedTable",
    "boards_played",
    "people_of",
    "running_standings",
    "table_result",
    "travellers_of",
]

PERSON = "person"
"""The ``bot`` of an entrant who is a person (``events.results.Entrant.bot``)."""


@dataclass(frozen=True)
class PlayedTable:
    """One of the event's tables: its round and number, its people by table chair, the boards it plays, in order
    (positions in the event's boards), and how many of its deals count (all finished ones, or fewer once frozen)."""

    round: int
    number: int
    people: tuple[str, str, str]
    boards: tuple[int, ...]
    table: Table
    counted: int
    section: str = ""  # the field it belongs to when a board has several (a match of a knockout)


def people_of(chairs: Sequence[Mapping[str, Any]]) -> tuple[str, str, str]:
    """The names at an event's table by chair, from the chair specs it was created with: a person's ``name``, a
    bot's name as the table shows it (so a stand-in does not rename the person whose place it plays)."""
    names = [str(spec["name"]) if spec["kind"] == "human" else bot_label(chairs, c) for c, spec in enumerate(chairs)]
    return names[0], names[1], names[2]


def table_result(record: Mapping[str, Any], table: PlayedTable) -> TableResult:
    """One finished deal of ``table`` as a row of the board's traveller, in the event's chairs."""
    dealer_chair = int(record["dealer_chair"])
    table_chairs = [(dealer_chair + c) % 3 for c in range(3)]  # the table chair in each event chair
    names = [table.people[t] for t in table_chairs]
    fillers = [table.table.is_bot(t) for t in table_chairs]
    per_chair = record["scores"]["per_chair"]
    scores = [int(per_chair[t]) for t in table_chairs]
    declarer = record["declarer_chair"]
    contract = record["contract"]
    return TableResult(
        round=table.round,
        table=table.number,
        players=(names[0], names[1], names[2]),
        fillers=(fillers[0], fillers[1], fillers[2]),
        auction=tuple(str(c) for c in record["record"]["auction"]),
        contract=None if contract is None else str(contract),
        declarer=None if declarer is None else (int(declarer) - dealer_chair) % 3,
        tricks=None if contract is None else int(record["declarer_tricks"]),
        scores=(scores[0], scores[1], scores[2]),
    )


def travellers_of(boards: Sequence[Board], tables: Sequence[PlayedTable]) -> list[Traveller]:
    """Every board's scored traveller from the counted deals of ``tables``, by section (in the order the tables
    come) and board; a board of the unsectioned field with no result yet has an empty traveller."""
    rows: dict[tuple[str, int], list[TableResult]] = {}
    if not any(t.section for t in tables):
        rows = {("", position): [] for position in range(len(boards))}
    for table in tables:
        for position in table.boards:
            rows.setdefault((table.section, position), [])
        for record in table.table.history[: table.counted]:
            rows[(table.section, table.boards[int(record["deal_no"]) - 1])].append(table_result(record, table))
    return [
        score_traveller(Traveller(boards[position], tuple(results), section))
        for (section, position), results in rows.items()
    ]


def boards_played(travellers: Sequence[Traveller], name: str) -> int:
    """How many boards ``name`` has a counted result on."""
    return sum(1 for t in travellers if any(name in r.players for r in t.results))


def running_standings(travellers: Sequence[Traveller], entrants: Sequence[Entrant]) -> list[Standing]:
    """Standings while the event runs: each entrant over the boards it has played (none unplayed yet), ranked."""
    rows = []
    for entrant in entrants:
        mine = [t for t in travellers if any(entrant.name in r.players for r in t.results)]
        if mine:
            (standing,) = individual_standings(mine, [entrant])
        else:
            standing = Standing("", entrant.name, entrant.bot, 0, 0, 0, 0, 0.0, 0)
        rows.append(standing)
    rows.sort(key=lambda s: (s.boards > 0, s.percent), reverse=True)
    labels = rank_labels([(s.boards > 0, s.percent) for s in rows])
    return [replace(s, rank=label) for label, s in zip(labels, rows)]
