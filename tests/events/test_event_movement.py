"""The movements' stated properties: the individual movement for every size 3..30, the team match's complete duplicate."""

from __future__ import annotations

import itertools
import math

import pytest

from tribridge.events.movement import (
    FILLERS_TOGETHER,
    individual_movement,
    meeting_cost,
    round_boards,
    teams_seating,
)


def reference_cost(met: dict, players: int, tables) -> int:
    """The round's cost as the module docstring states it, recomputed plainly."""
    total = 0
    for table in tables:
        for a, b in itertools.combinations(table, 2):
            if a >= players and b >= players:
                total += FILLERS_TOGETHER
            else:
                total += 3 ** met.get(frozenset((a, b)), 0) - 1
    return total


@pytest.mark.parametrize("players", range(3, 31))
def test_individual_movement_properties(players):
    rounds = 7
    movement = individual_movement(players, rounds)
    tables = math.ceil(players / 3)
    met: dict = {}
    for seating in movement.rounds:
        assert len(seating) == tables
        people = [p for table in seating for p in table]
        assert sorted(people) == list(range(3 * tables))  # everybody exactly once a round
        assert all(sum(p >= players for p in table) <= 1 for table in seating)  # never two fillers together
        cost = reference_cost(met, players, seating)
        for i, j in itertools.combinations(range(tables), 2):  # no exchange between two tables helps
            for x, y in itertools.product(range(3), range(3)):
                swapped = [list(t) for t in seating]
                swapped[i][x], swapped[j][y] = swapped[j][y], swapped[i][x]
                assert reference_cost(met, players, swapped) >= cost
        for table in seating:
            for a, b in itertools.combinations(table, 2):
                met[frozenset((a, b))] = met.get(frozenset((a, b)), 0) + 1
    for person in range(3 * tables):
        counts = [0, 0, 0]
        for seating in movement.rounds:
            for table in seating:
                if person in table:
                    counts[table.index(person)] += 1
        assert max(counts) - min(counts) <= 1, (person, counts)
        assert counts == list(movement.chair_counts(person))


@pytest.mark.parametrize("players,rounds", [(4, 1), (9, 4), (10, 2), (17, 3), (30, 12), (5, 13)])
def test_chairs_balanced_for_other_lengths_and_deterministic(players, rounds):
    movement = individual_movement(players, rounds)
    for person in range(movement.people):
        counts = movement.chair_counts(person)
        assert max(counts) - min(counts) <= 1
    assert movement == individual_movement(players, rounds)
    longer = individual_movement(players, rounds + 2)  # the tables of a prefix do not depend on what follows
    assert [sorted(map(sorted, s)) for s in longer.rounds[:rounds]] == [sorted(map(sorted, s)) for s in movement.rounds]


def test_nine_players_meet_everybody_in_four_rounds():
    movement = individual_movement(9, 4)
    pairs = [frozenset(p) for seating in movement.rounds for t in seating for p in itertools.combinations(t, 2)]
    assert len(pairs) == len(set(pairs)) == 36


def test_meeting_cost_grows_with_each_meeting():
    assert [meeting_cost(m) for m in range(4)] == [0, 2, 8, 26]


@pytest.mark.parametrize("round_index", range(5))
def test_team_match_is_a_complete_duplicate(round_index):
    tables = teams_seating(round_index)
    for team in range(3):
        chairs = [c for table in tables for c, seat in enumerate(table) if seat.team == team]
        assert sorted(chairs) == [0, 1, 2]  # each team holds every hand of a board once
    for table in tables:
        assert sorted(seat.team for seat in table) == [0, 1, 2]  # one player of each team a table
    members = sorted((seat.team, seat.member) for table in tables for seat in table)
    assert members == [(t, m) for t in range(3) for m in range(3)]


def test_team_members_meet_every_opponent_over_three_rounds():
    met = set()
    for r in range(3):
        for table in teams_seating(r):
            for a, b in itertools.combinations(table, 2):
                met.add(frozenset(((a.team, a.member), (b.team, b.member))))
    assert len(met) == 27  # every pair of players of different teams


def test_round_boards_split_evenly():
    runs = round_boards(100, 6)
    assert [len(r) for r in runs] == [16, 17, 17, 16, 17, 17]
    assert [i for r in runs for i in r] == list(range(100))
