"""Matchpoints, Butler IMPs and team IMPs recomputed from the travellers by a plain reference; ties; unplayed boards."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.cards import Seat, random_deal
from tribridge.dealing.streams import random_stream
from tribridge.events.boards import Board
from tribridge.events.results import Entrant, TableResult, Traveller
from tribridge.events.scoring import (
    UNPLAYED_IMPS,
    UNPLAYED_PERCENT,
    butler_datum,
    individual_standings,
    rank_labels,
    score_traveller,
    team_imps,
    team_match,
)

WBF = [(20, 1), (50, 2), (90, 3), (130, 4), (170, 5), (220, 6), (270, 7), (320, 8), (370, 9), (430, 10)]
WBF += [(500, 11), (600, 12), (750, 13), (900, 14), (1100, 15), (1300, 16), (1500, 17), (1750, 18)]
WBF += [(2000, 19), (2250, 20), (2500, 21), (3000, 22), (3500, 23), (4000, 24)]


def ref_imps(diff: Fraction) -> int:
    """The WBF table read from its largest step down (a separate reading of the scale)."""
    size = abs(diff)
    for step, value in reversed(WBF):
        if size >= step:
            return value if diff > 0 else -value
    return 0


def ref_matchpoints(mine: int, others: list[int]) -> int:
    beaten = len([s for s in others if s < mine])
    tied = len([s for s in others if s == mine])
    return 2 * beaten + tied


def ref_datum(others: list[int]) -> Fraction:
    kept = sorted(others)
    if len(kept) >= 5:
        kept = kept[1 : len(kept) - 1]
    return Fraction(sum(kept)) / len(kept)


BOARD = Board(1, Seat.N, random_deal(random_stream(0, 1)))
SCORES = st.sampled_from([0, 0, 6, 7, 18, 21, 36, 50, 50, 100, 125, 150, 200, 400, 800, 1600, 4500])


def traveller_of(rows: list[tuple[int, int, int]]) -> Traveller:
    results = tuple(
        TableResult(1, t + 1, (f"a{t}", f"b{t}", f"c{t}"), (False, False, False), (), None, None, None, row)
        for t, row in enumerate(rows)
    )
    return Traveller(BOARD, results)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(SCORES, SCORES, SCORES), min_size=1, max_size=9))
def test_matchpoints_and_butler_match_the_reference(rows):
    scored = score_traveller(traveller_of(rows))
    for t, result in enumerate(scored.results):
        for chair in range(3):
            mine = rows[t][chair]
            others = [row[chair] for j, row in enumerate(rows) if j != t]
            assert result.matchpoints[chair] == ref_matchpoints(mine, others)
            assert result.tops[chair] == 2 * len(others)
            expected = ref_imps(mine - ref_datum(others)) if others else 0
            assert result.imps[chair] == expected
    for chair in range(3):  # matchpoints of a field add up to k(k-1)
        k = len(rows)
        assert sum(r.matchpoints[chair] for r in scored.results) == k * (k - 1)


def test_butler_drops_top_and_bottom_from_five_others():
    assert butler_datum([0, 10, 20, 30, 1000]) == Fraction(60, 3)
    assert butler_datum([0, 10, 20, 1000]) == Fraction(1030, 4)
    assert butler_datum([]) is None


def test_ties_share_the_matchpoints_and_the_rank():
    scored = score_traveller(traveller_of([(50, 0, 0), (50, 0, 0), (0, 0, 0)]))
    assert [r.matchpoints[0] for r in scored.results] == [3, 3, 0]
    assert [r.percent(0) for r in scored.results] == [75.0, 75.0, 0.0]
    assert rank_labels([5, 3, 3, 3, 1]) == ["1", "2=", "2=", "2=", "5"]
    assert rank_labels([2, 2]) == ["1=", "1="]


def test_unplayed_boards_score_the_set_fraction():
    board2 = Board(2, Seat.E, random_deal(random_stream(0, 2)))
    rows = [(100, 0, 0), (0, 0, 0), (50, 0, 0)]
    results = tuple(
        TableResult(1, t + 1, (name, "f1", "f2"), (False, True, True), (), None, None, None, row)
        for t, (name, row) in enumerate(zip(["x", "y", "z"], rows))
    )
    first = score_traveller(Traveller(BOARD, results))
    second = score_traveller(Traveller(board2, results[:2]))  # z did not play board 2
    entrants = [Entrant("x", "bot"), Entrant("y", "bot"), Entrant("z", "bot")]
    standings = {s.name: s for s in individual_standings([first, second], entrants)}
    z = standings["z"]
    assert (z.boards, z.unplayed) == (1, 1)
    assert z.percent == (50 + UNPLAYED_PERCENT) / 2
    assert z.imps == first.results[2].imps[0] + UNPLAYED_IMPS
    assert standings["x"].percent == 100.0  # beat both on board 1, beat y on board 2
    assert standings["x"].rank == "1"


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(SCORES, SCORES, SCORES), min_size=3, max_size=3))
def test_team_imps_compare_every_pair_of_teams(rows):
    # three tables; team k holds chair (k + t) % 3 at table t, so each team holds every chair once
    teams = [(f"T{k}", [f"T{k}.{t}" for t in range(3)]) for k in range(3)]
    results = []
    for t, row in enumerate(rows):
        players = ["", "", ""]
        for k in range(3):
            players[(k + t) % 3] = f"T{k}.{t}"
        results.append(TableResult(1, t + 1, tuple(players), (False,) * 3, (), None, None, None, row))
    match = team_match(1, 1, [Traveller(BOARD, tuple(results))], teams)
    points = [sum(rows[t][(k + t) % 3] for t in range(3)) for k in range(3)]
    assert list(match.boards[0].points) == points
    expected = [sum(ref_imps(Fraction(points[k] - points[j])) for j in range(3) if j != k) for k in range(3)]
    assert list(match.boards[0].imps) == expected == team_imps(points)
    assert sum(expected) == 0
    best = max(range(3), key=lambda k: (expected[k], points[k], -k))
    assert match.winner == f"T{best}"
