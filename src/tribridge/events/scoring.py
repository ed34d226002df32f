"""Duplicate scoring of an event from its travellers: matchpoints, Butler IMPs, team IMPs, standings.

A player's score on a board is its own points under the event's scheme (``DealState.points``). It
is compared only with the other scores **in the same chair on the same board** (the same cards):

- **Matchpoints**: 2 for every other score in the chair beaten, 1 for every tie; the top is
  ``2 (k - 1)`` for ``k`` scores in the chair, and the board's percentage is matchpoints / top × 100
  (50 % for a lone score). A player's event percentage is the mean of its boards' percentages, an
  unplayed board (a daily event's board not played) counting ``UNPLAYED_PERCENT``.
- **Butler IMPs**: the datum is the mean of the *other* scores in the chair, the highest and the
  lowest one dropped when there are five or more of them; the player gets ``imps(score - datum)``
  on the WBF scale (``rules.imps``; 0 when nobody else held the chair). An unplayed board counts
  ``UNPLAYED_IMPS``.
- **Team IMPs** (three teams, each holding every chair once on every board, ``events.movement``):
  a team's points on a board are its members' scores added up; each *pair* of teams is compared,
  and a team's IMPs on the board are ``sum over the other teams Y of imps(points - points of Y)``.
  So the three teams' IMPs on a board add up to zero.

Filler bots' scores stand in their chairs' fields like any other (they are results on the board
with those cards), but fillers are never ranked. Ranks: ties share the better rank, written with
``=`` (``"3="``); values tie only when exactly equal (percentages are compared as exact fractions).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Literal

from tribridge.errors import InvalidInput
from tribridge.events.results import Entrant, Standing, TableResult, TeamBoard, TeamMatch, Traveller
from tribridge.rules.imps import imps

__all__ = [
    "UNPLAYED_IMPS",
    "UNPLAYED_PERCENT",
    "RankBy",
    "butler_datum",
    "butler_imps",
    "individual_standings",
    "matchpoints",
    "rank_labels",
    "score_traveller",
    "team_imps",
    "team_match",
]

UNPLAYED_PERCENT = 40
"""The percentage an unplayed board of a daily event scores (a little below average)."""
UNPLAYED_IMPS = -2
"""The Butler IMPs an unplayed board of a daily event scores."""

RankBy = Literal["matchpoints", "imps"]


def matchpoints(field: Sequence[int]) -> list[int]:
    """Each score's matchpoints against the rest of ``field``: 2 per score beaten, 1 per tie."""
    return [sum(2 if s < score else 1 if s == score else 0 for s in field) - 1 for score in field]


def butler_datum(others: Sequence[int]) -> Fraction | None:
    """The mean of ``others``, its top and bottom dropped when there are five or more; None when empty."""
    if not others:
        return None
    kept = sorted(others)[1:-1] if len(others) >= 5 else list(others)
    return Fraction(sum(kept), len(kept))


def butler_imps(score: int, others: Sequence[int]) -> int:
    """IMPs of ``score`` against the Butler datum of ``others`` (0 without others)."""
    datum = butler_datum(others)
    return 0 if datum is None else imps(score - datum)


def score_traveller(traveller: Traveller) -> Traveller:
    """The traveller with every table's matchpoints, tops and Butler IMPs filled in from the scores."""
    results = list(traveller.results)
    figures: list[list[list[int]]] = [[[0, 0, 0] for _ in range(3)] for _ in results]  # [table][kind][chair]
    for chair in range(3):
        field = traveller.field(chair)
        for table, mp in enumerate(matchpoints(field)):
            others = field[:table] + field[table + 1 :]
            figures[table][0][chair] = mp
            figures[table][1][chair] = 2 * len(others)
            figures[table][2][chair] = butler_imps(field[table], others)
    scored = tuple(
        replace(result, matchpoints=_three(mp), tops=_three(top), imps=_three(butler))
        for result, (mp, top, butler) in zip(results, figures)
    )
    return replace(traveller, results=scored)


def _three(values: list[int]) -> tuple[int, int, int]:
    return values[0], values[1], values[2]


def team_imps(points: Sequence[int]) -> list[int]:
    """Each team's IMPs on a board from the teams' points: the sum of its IMPs against every other team."""
    return [sum(imps(mine - theirs) for j, theirs in enumerate(points) if j != i) for i, mine in enumerate(points)]


def team_match(
    stage: int,
    index: int,
    travellers: Sequence[Traveller],
    teams: Sequence[tuple[str, Sequence[str]]],
    filler: str | None = None,
) -> TeamMatch:
    """A team match from its travellers: ``teams`` are (name, member names), a ``filler`` team's name last if any.

    The winner has the most IMPs (then the most points, then the earlier place in ``teams``); a filler
    team never wins.
    """
    boards = []
    for traveller in travellers:
        points = [0] * len(teams)
        for k, (_name, members) in enumerate(teams):
            for result in traveller.results:
                points[k] += sum(score for player, score in zip(result.players, result.scores) if player in members)
        boards.append(TeamBoard(traveller.board.number, tuple(points), tuple(team_imps(points))))
    draft = TeamMatch(stage, index, tuple(name for name, _ in teams), filler, tuple(boards), "")
    imps_total, points_total = draft.imps, draft.points
    entered = [k for k, (name, _) in enumerate(teams) if name != filler]
    best = max(entered, key=lambda k: (imps_total[k], points_total[k], -k))
    return replace(draft, winner=teams[best][0])


def rank_labels(keys: Sequence[object]) -> list[str]:
    """Rank labels for ``keys`` already sorted best first: ``"1"``, ``"2="``, ``"2="``, ``"4"``, ..."""
    labels = []
    for i, key in enumerate(keys):
        first = i
        while first > 0 and keys[first - 1] == key:
            first -= 1
        tied = (i > 0 and keys[i - 1] == key) or (i + 1 < len(keys) and keys[i + 1] == key)
        labels.append(f"{first + 1}{'=' if tied else ''}")
    return labels


def individual_standings(
    travellers: Sequence[Traveller], entrants: Sequence[Entrant], rank_by: RankBy = "matchpoints"
) -> list[Standing]:
    """Every entrant's totals over the scored ``travellers``, ranked by percentage (or by Butler IMPs), ties shown."""
    if rank_by not in ("matchpoints", "imps"):
        raise InvalidInput("rank_by", f"expected 'matchpoints' or 'imps', got {rank_by!r}")
    rows = []
    for entrant in entrants:
        played = [(r, r.chair_of(entrant.name)) for t in travellers for r in t.results if entrant.name in r.players]
        board_numbers = {t.board.number for t in travellers for r in t.results if entrant.name in r.players}
        unplayed = len(travellers) - len(board_numbers)
        percent = sum((_percent(r, c) for r, c in played if c is not None), Fraction(0))
        percent += unplayed * UNPLAYED_PERCENT
        mean = percent / len(travellers) if travellers else Fraction(0)
        total_imps = sum(r.imps[c] for r, c in played if c is not None) + unplayed * UNPLAYED_IMPS
        mps = sum(r.matchpoints[c] for r, c in played if c is not None)
        top = sum(r.tops[c] for r, c in played if c is not None)
        key = mean if rank_by == "matchpoints" else Fraction(total_imps)
        standing = Standing("", entrant.name, entrant.bot, len(played), unplayed, mps, top, float(mean), total_imps)
        rows.append((key, standing))
    rows.sort(key=lambda row: row[0], reverse=True)  # stable: equal keys keep the entrants' order
    labels = rank_labels([key for key, _ in rows])
    return [replace(standing, rank=label) for label, (_, standing) in zip(labels, rows)]


def _percent(result: TableResult, chair: int) -> Fraction:
    """A chair's board percentage as an exact fraction (50 for a lone score)."""
    top = result.tops[chair]
    return Fraction(100 * result.matchpoints[chair], top) if top else Fraction(50)
