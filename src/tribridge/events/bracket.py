"""A knockout of teams of three: matches of three teams, the winner of each advancing, byes in the first stage.

Teams are numbered by seed (0 the first). Each match eliminates two of its three teams, so from
``c`` teams the first stage leaves ``P``, the largest power of three below ``c``: it plays
``m = (c - P - d) / 2`` three-team matches and ``d = (c - P) mod 2`` matches of two teams (a team
count with no power-of-three path needs one), and gives the ``b = c - 3m - 2d`` best seeds a bye.
Every later stage plays full matches of three. A two-team match is played with a third team of
filler bots, which cannot win. Within a stage the playing teams, in seed order ``L`` of length
``n``, form match ``j`` of ``M`` from ``L[j], L[j + M], L[j + 2M]`` (the last of these missing
from the two-team match), so the best seeds meet the weakest. The teams of the next stage are
the byes and the winners, in seed order.

So 4 teams: a two-team match (seeds 3 and 4, with a filler team) and two byes, then a final of
three; 9 teams: three matches, then a final of the three winners.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tribridge.errors import InvalidInput

__all__ = ["BracketMatch", "BracketStage", "KnockoutResult", "advancing", "plan_stage", "run_knockout"]


@dataclass(frozen=True)
class BracketMatch:
    """One match of a stage: its ``teams`` (seed numbers; two when a filler team completes it)."""

    stage: int
    index: int
    teams: tuple[int, ...]

    @property
    def needs_filler(self) -> bool:
        """True when only two teams entered, so a filler team plays the third place."""
        return len(self.teams) == 2


@dataclass(frozen=True)
class BracketStage:
    """One stage: its number (from 1), its matches and the teams with a bye."""

    number: int
    matches: tuple[BracketMatch, ...]
    byes: tuple[int, ...]


@dataclass(frozen=True)
class KnockoutResult:
    """A knockout played to the end: every stage, each match's winner, the champion."""

    stages: tuple[BracketStage, ...]
    winners: dict[tuple[int, int], int]  # (stage, match index) -> winning team
    champion: int

    def eliminated_in(self, team: int) -> int:
        """The stage in which ``team`` lost (one past the last stage for the champion)."""
        for stage in self.stages:
            for match in stage.matches:
                if team in match.teams and self.winners[(stage.number, match.index)] != team:
                    return stage.number
        return len(self.stages) + 1


def _largest_power_below(count: int) -> int:
    power = 1
    while power * 3 < count:
        power *= 3
    return power


def plan_stage(teams: Sequence[int], number: int) -> BracketStage:
    """The matches and byes of stage ``number`` for ``teams`` (two or more, in seed order)."""
    alive = sorted(teams)
    if len(alive) < 2:
        raise InvalidInput("teams", f"a knockout stage needs two teams or more, got {len(alive)}")
    target = _largest_power_below(len(alive))
    two_team = (len(alive) - target) % 2
    full = (len(alive) - target - two_team) // 2
    byes = len(alive) - 3 * full - 2 * two_team
    playing = alive[byes:]
    count = full + two_team
    matches = tuple(
        BracketMatch(number, j, tuple(playing[j + k * count] for k in range(3) if j + k * count < len(playing)))
        for j in range(count)
    )
    return BracketStage(number, matches, tuple(alive[:byes]))


def advancing(stage: BracketStage, winners: dict[tuple[int, int], int]) -> list[int]:
    """The teams of the next stage: the byes and each match's winner, in seed order."""
    out = list(stage.byes)
    for match in stage.matches:
        winner = winners[(stage.number, match.index)]
        if winner not in match.teams:
            raise InvalidInput("winner", f"team {winner} did not play match {match.index} of stage {stage.number}")
        out.append(winner)
    return sorted(out)


def run_knockout(teams: int, decide: Callable[[BracketMatch], int]) -> KnockoutResult:
    """Play a knockout of ``teams`` teams (two or more) to the end; ``decide(match)`` plays a match, gives its winner."""
    if teams < 2:
        raise InvalidInput("teams", f"a knockout needs two teams or more, got {teams}")
    alive = list(range(teams))
    stages: list[BracketStage] = []
    winners: dict[tuple[int, int], int] = {}
    while len(alive) > 1:
        stage = plan_stage(alive, len(stages) + 1)
        for match in stage.matches:
            winners[(stage.number, match.index)] = decide(match)
        stages.append(stage)
        alive = advancing(stage, winners)
    return KnockoutResult(tuple(stages), winners, alive[0])
