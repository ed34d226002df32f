"""An event's results out: PBN with score tables (PBN 2.1 ``ScoreTable`` / ``TotalScoreTable``) and JSON.

PBN: one game a traveller (``Event``, ``Board``, ``Dealer``, ``Deal``, the 3PAB widow comment,
``Scoring``, ``Section`` when the board has several fields), then a ``ScoreTable`` section: the tag's
value names the columns, each with its width and alignment (``Name\\12L``), and one line a table
follows. Chairs are named from the dealer: ``Dealer``, ``Left``, ``Right`` (the players at the
dealer's left and right); ``Declarer`` is the declarer's seat. The first game also carries the
``TotalScoreTable`` (the standings). Text values are quoted; a missing value is ``-``.

JSON: ``EventResult.to_json()`` as one indented object (``event_json``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from tribridge.cards import Seat
from tribridge.events.event import EventResult
from tribridge.events.results import TableResult, Traveller
from tribridge.rules.pbn_write import deal_board_pbn, pbn_tag

__all__ = ["CHAIR_NAMES", "event_json", "event_pbn", "pbn_table", "score_table_rows", "total_score_rows"]

CHAIR_NAMES = ("Dealer", "Left", "Right")
Cell = str | int | float | None


def pbn_table(tag: str, columns: Sequence[tuple[str, str]], rows: Sequence[Sequence[Cell]]) -> str:
    """A PBN table section: ``[tag "Col\\<width><R|L>;..."]`` then the rows; ``columns`` are (name, "L" or "R")."""
    cells = [[_cell(value) for value in row] for row in rows]
    widths = [max([len(name), *(len(row[i]) for row in cells)]) for i, (name, _) in enumerate(columns)]
    spec = ";".join(f"{name}\\{width}{align}" for (name, align), width in zip(columns, widths))
    lines = [f'[{tag} "{spec}"]']
    for row in cells:
        parts = [
            text.ljust(width) if align == "L" else text.rjust(width)
            for text, width, (_, align) in zip(row, widths, columns)
        ]
        lines.append(" ".join(parts).rstrip())
    return "\n".join(lines)


def _cell(value: Cell) -> str:
    if value is None:
        return "-"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.2f}"
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


SCORE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("Round", "R"),
    ("Table", "R"),
    *((f"Player_{c}", "L") for c in CHAIR_NAMES),
    ("Contract", "L"),
    ("Declarer", "R"),
    ("Result", "R"),
    *((f"Score_{c}", "R") for c in CHAIR_NAMES),
    *((f"MP_{c}", "R") for c in CHAIR_NAMES),
    *((f"IMP_{c}", "R") for c in CHAIR_NAMES),
)


def score_table_rows(traveller: Traveller) -> list[list[Cell]]:
    """One ``ScoreTable`` row a table of the traveller, in ``SCORE_COLUMNS`` order."""
    return [_score_row(traveller.board.dealer, r) for r in traveller.results]


def _score_row(dealer: Seat, result: TableResult) -> list[Cell]:
    seats = (dealer, dealer.lho, dealer.rho)
    declarer = None if result.declarer is None else seats[result.declarer].letter
    return [
        result.round,
        result.table,
        *result.players,
        result.contract or "Pass",
        declarer,
        result.tricks,
        *result.scores,
        *result.matchpoints,
        *result.imps,
    ]


def total_score_rows(result: EventResult) -> tuple[list[tuple[str, str]], list[list[Cell]]]:
    """The ``TotalScoreTable`` columns and rows: the standings (of the teams in the teams form)."""
    if result.form == "teams":
        columns = [("Rank", "L"), ("Team", "L"), ("Bots", "L"), ("Stage", "R"), ("IMP", "R"), ("Points", "R")]
        rows: list[list[Cell]] = [
            [t.rank, t.team, "/".join(t.bots), t.stage, t.imps, t.points] for t in result.team_standings
        ]
        return columns, rows
    columns = [
        ("Rank", "L"),
        ("Name", "L"),
        ("Bot", "L"),
        ("Boards", "R"),
        ("TotalScoreMP", "R"),
        ("Top", "R"),
        ("TotalPercentage", "R"),
        ("TotalIMP", "R"),
    ]
    rows = [[s.rank, s.name, s.bot, s.boards, s.matchpoints, s.top, s.percent, s.imps] for s in result.standings]
    return columns, rows


def event_pbn(result: EventResult, event: str | None = None) -> str:
    """The event as PBN: a game a traveller with its ``ScoreTable``; the first also with the ``TotalScoreTable``."""
    title = event or f"tribridge {result.form}"
    games = []
    for i, traveller in enumerate(result.travellers):
        board = traveller.board
        lines = [pbn_tag("Event", title), deal_board_pbn(board.deal, board.dealer, board.number).rstrip("\n")]
        lines.append(pbn_tag("Scoring", result.scheme))
        if traveller.section:
            lines.append(pbn_tag("Section", traveller.section))
        if i == 0:
            columns, rows = total_score_rows(result)
            lines.append(pbn_table("TotalScoreTable", columns, rows))
        lines.append(pbn_table("ScoreTable", SCORE_COLUMNS, score_table_rows(traveller)))
        games.append("\n".join(lines) + "\n")
    return "\n".join(games)


def event_json(result: EventResult) -> str:
    """The event as one indented JSON object (``EventResult.to_json``)."""
    return json.dumps(result.to_json(), indent=2)
