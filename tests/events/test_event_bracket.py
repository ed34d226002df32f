"""Knockouts of teams of three run to the end: matches of three, byes, a filler team when only two meet."""

from __future__ import annotations

import pytest

from tribridge.events.bracket import plan_stage, run_knockout


def is_power_of_three(n: int) -> bool:
    while n % 3 == 0:
        n //= 3
    return n == 1


@pytest.mark.parametrize("teams", [2, 3, 4, 5, 8, 9, 10, 27, 28])
@pytest.mark.parametrize("rule", ["best seed", "worst seed", "middle"])
def test_knockout_runs_to_one_champion(teams, rule):
    def decide(match):
        ordered = sorted(match.teams)
        return {"best seed": ordered[0], "worst seed": ordered[-1], "middle": ordered[len(ordered) // 2]}[rule]

    result = run_knockout(teams, decide)
    lost = [
        t
        for stage in result.stages
        for m in stage.matches
        for t in m.teams
        if result.winners[(stage.number, m.index)] != t
    ]
    assert sorted(lost + [result.champion]) == list(range(teams))  # everybody but the champion loses once
    two_team = [m for stage in result.stages for m in stage.matches if len(m.teams) == 2]
    assert len(two_team) == (teams - 1) % 2  # one two-team match exactly when the count is even
    for stage in result.stages[1:]:
        assert stage.byes == () and all(len(m.teams) == 3 for m in stage.matches)
    if len(result.stages) > 1:
        alive = len(result.stages[0].byes) + len(result.stages[0].matches)
        assert is_power_of_three(alive)
    for stage in result.stages:
        seated = [t for m in stage.matches for t in m.teams] + list(stage.byes)
        assert len(seated) == len(set(seated))


def test_four_teams_two_byes_then_a_final():
    result = run_knockout(4, lambda match: max(match.teams))
    first, final = result.stages
    assert first.byes == (0, 1) and [m.teams for m in first.matches] == [(2, 3)]
    assert first.matches[0].needs_filler
    assert final.matches[0].teams == (0, 1, 3) and result.champion == 3
    assert [result.eliminated_in(t) for t in range(4)] == [2, 2, 1, 3]


def test_nine_teams_three_matches_then_a_final():
    result = run_knockout(9, lambda match: min(match.teams))
    first, final = result.stages
    assert [m.teams for m in first.matches] == [(0, 3, 6), (1, 4, 7), (2, 5, 8)]  # best seeds meet the weakest
    assert final.matches[0].teams == (0, 1, 2) and result.champion == 0


def test_plan_needs_two_teams():
    with pytest.raises(ValueError):
        plan_stage([0], 1)
