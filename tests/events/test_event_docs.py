"""docs/events.md: the worked scoring example and the movement's table agree with the code."""

from __future__ import annotations

import itertools
import re
from fractions import Fraction
from pathlib import Path

from test_docs import table_rows  # tests/ is on the path (its conftest)
from tribridge.events.movement import individual_movement
from tribridge.events.scoring import butler_datum, butler_imps, matchpoints, team_imps

DOC = (Path(__file__).resolve().parents[2] / "docs" / "events.md").read_text(encoding="utf-8")


def number(text: str) -> Fraction:
    return Fraction(text.replace("−", "-").replace("+", ""))


def test_worked_example_recomputes():
    rows = table_rows(DOC, "| table | score | beaten |")
    scores = [int(r[1]) for r in rows]
    mps = matchpoints(scores)
    for i, (_t, score, beaten, tied, mp, pct, others, datum, diff, got) in enumerate(rows):
        rest = scores[:i] + scores[i + 1 :]
        assert [int(x) for x in others.split(", ")] == rest
        assert int(beaten) == sum(s < int(score) for s in rest) and int(tied) == rest.count(int(score))
        assert mps[i] == int(mp) and Fraction(100 * mps[i], 2 * len(rest)) == int(pct)
        assert butler_datum(rest) == number(datum)
        assert int(score) - butler_datum(rest) == number(diff)
        assert butler_imps(int(score), rest) == int(number(got))
    assert butler_imps(1000, [0, 10, 20, 30, 40]) == 14 and "980 is 14 IMPs" in DOC
    assert team_imps([300, 250, 100]) == [7, 2, -9] and "= 2 + 5 = 7" in DOC and "= −5 − 4 = −9" in DOC


def first_repeat(players: int) -> int:
    movement = individual_movement(players, (players - 1) // 2 + 2)
    met: set = set()
    for r, seating in enumerate(movement.rounds, 1):
        for table in seating:
            for a, b in itertools.combinations(table, 2):
                if a < players and b < players:
                    if frozenset((a, b)) in met:
                        return r
                    met.add(frozenset((a, b)))
    raise AssertionError("no repeat")


def test_movement_table_is_what_the_movement_does():
    header, repeats, bounds = (r for r in [DOC.splitlines()[i] for i in _table_lines("| players |")])
    sizes = [int(x) for x in re.findall(r"\d+", header)]
    stated = [int(x) for x in re.findall(r"\d+", repeats)]
    bound = [int(x) for x in re.findall(r"\d+", bounds)]
    assert bound == [(n - 1) // 2 + 1 for n in sizes]
    assert stated == [first_repeat(n) for n in sizes]


def _table_lines(header_start: str) -> list[int]:
    lines = DOC.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    return [start, start + 2, start + 3]
