"""Run a duplicate event of bots: daily, individual (the movement) or teams of three (a knockout).

Forms (``EventSpec.form``):

- ``daily``: every entrant plays every board at a table of its own, with two filler bots; on board
  ``n`` every entrant holds chair ``(n - 1) mod 3``, so all entrants are compared in the same chair.
- ``individual``: 3 to 30 entrants in the individual movement (``events.movement``) over
  ``rounds`` rounds (default: the fewest rounds in which a player could meet every other, rounded up
  to a multiple of three so the chairs come out even, and at most one round a board); the boards
  are split into runs, one a round, and every table of a round plays that round's run.
- ``teams``: each entry of ``bots`` is a team, one bot name (three copies of it) or three names
  joined by ``/``; two teams or more play a knockout (``events.bracket``); three teams play one
  match. Stage ``s`` of the knockout plays boards ``(s - 1) N + 1 .. s N``; a match is played in
  ``min(3, N)`` rounds of the team movement (``movement.teams_seating``).

Each deal is a ``DealState`` bid and played by the bots (``bots.get_bot``) through ``rules.game``'s
``bid_to_end`` and ``play_to_end``. Bots are deterministic given what they see, so a board's tables
that seat the same bots in the same chairs are played once, and the results do not depend on the
number of worker processes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, replace
from multiprocessing import get_context
from typing import cast

from tribridge.bots import Bot, bot_parts, get_bot
from tribridge.cards import Deal, Seat
from tribridge.errors import InvalidInput
from tribridge.events.boards import Board, seeded_boards
from tribridge.events.bracket import BracketMatch, KnockoutResult, run_knockout
from tribridge.events.event import FORMS, EventResult, Form
from tribridge.events.movement import (
    MAX_PLAYERS,
    MIN_PLAYERS,
    TeamSeat,
    individual_movement,
    round_boards,
    teams_seating,
)
from tribridge.events.results import Entrant, TableResult, TeamMatch, TeamStanding, Traveller
from tribridge.events.scoring import RankBy, individual_standings, rank_labels, score_traveller, team_match
from tribridge.rules.deal import DealState
from tribridge.rules.game import PlayPolicy, bid_to_end, play_to_end
from tribridge.rules.scoring import get_scheme

__all__ = [
    "DEFAULT_FILLER",
    "EventSpec",
    "Played",
    "default_rounds",
    "play_table",
    "planned_tasks",
    "run_event",
    "team_standings",
]

DEFAULT_FILLER = "paper+random"
"""The bot that fills empty chairs unless told otherwise."""


@dataclass(frozen=True)
class EventSpec:
    """What to run: the form, the entrants' (or teams') bots, the number of boards, seed, scheme, filler, rounds."""

    form: Form
    bots: tuple[str, ...]
    boards: int
    seed: int = 1
    scheme: str = "classic"
    filler: str = DEFAULT_FILLER
    rounds: int | None = None
    rank_by: RankBy = "matchpoints"


@dataclass(frozen=True)
class Played:
    """One deal played at one table: the calls, contract, declarer's chair, tricks and each chair's points."""

    auction: tuple[str, ...]
    contract: str | None
    declarer: int | None
    tricks: int | None
    scores: tuple[int, int, int]


@dataclass(frozen=True)
class _Seating:
    """A table to play on a board: round, table, the people by chair, their bots, which are fillers."""

    round: int
    table: int
    players: tuple[str, str, str]
    bots: tuple[str, str, str]
    fillers: tuple[bool, bool, bool]


_BOTS: dict[str, Bot] = {}  # built once per process


def _bot(name: str) -> Bot:
    if name not in _BOTS:
        _BOTS[name] = get_bot(name)
    return _BOTS[name]


def play_table(deal: Deal, dealer: Seat, bots: Sequence[str], scheme: str) -> Played:
    """Bid and play one deal with ``bots`` in chairs 0, 1, 2 (dealer, dealer's left, dealer's right)."""
    state = DealState.start(deal, dealer)
    by_seat = {seat: _bot(bots[chair]) for chair, seat in enumerate(state.players)}
    state = bid_to_end(state, {seat: bot.bid for seat, bot in by_seat.items()})
    # the card player itself is the policy (as in sim.match): it is callable and ``checked_card`` reads its
    # ``sees_all`` to give the double-dummy player every hand
    state = play_to_end(state, {seat: cast(PlayPolicy, bot.player) for seat, bot in by_seat.items()})
    points = state.points(scheme)
    scores = (points[state.players[0]], points[state.players[1]], points[state.players[2]])
    calls = tuple(str(c) for c in state.auction.calls)
    contract = state.contract
    if contract is None:
        return Played(calls, None, None, None, scores)
    return Played(calls, str(contract), state.players.index(contract.declarer), state.declarer_tricks, scores)


def _play_board(args: tuple[str, int, tuple[tuple[str, str, str], ...], str]) -> list[Played]:
    """(deal PBN, dealer, each table's bots by chair, scheme): the tables played; equal seatings played once."""
    deal_text, dealer, tables, scheme = args
    deal = Deal.from_pbn(deal_text)
    done: dict[tuple[str, str, str], Played] = {}
    for bots in tables:
        if bots not in done:
            done[bots] = play_table(deal, Seat(dealer), bots, scheme)
    return [done[bots] for bots in tables]


class _Player:
    """Plays boards' tables in this process or in worker processes, reporting progress per board."""

    def __init__(self, scheme: str, pool: Executor | None, on_progress: Callable[[int], None] | None) -> None:
        self.scheme = scheme
        self.pool = pool
        self.on_progress = on_progress

    def travellers(self, work: Sequence[tuple[Board, Sequence[_Seating], str]]) -> list[Traveller]:
        """Each (board, its seatings, section) played and scored."""
        tasks = [
            (b.deal.to_pbn(), int(b.dealer), tuple(s.bots for s in seatings), self.scheme) for b, seatings, _ in work
        ]
        played = map(_play_board, tasks) if self.pool is None else self.pool.map(_play_board, tasks)
        out = []
        for (board, seatings, section), results in zip(work, played):
            rows = tuple(
                TableResult(
                    s.round, s.table, s.players, s.fillers, p.auction, p.contract, p.declarer, p.tricks, p.scores
                )
                for s, p in zip(seatings, results)
            )
            out.append(score_traveller(Traveller(board, rows, section)))
            if self.on_progress:
                self.on_progress(1)
        return out


@contextmanager
def _pool(workers: int) -> Iterator[Executor | None]:
    if workers == 1:
        yield None
        return
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        yield pool


def entrant_names(bots: Sequence[str]) -> list[str]:
    """Unique names: a bot's name, with its place in the list (from 1) when two entrants share it."""
    return [f"{b} ({i + 1})" if bots.count(b) > 1 else b for i, b in enumerate(bots)]


def default_rounds(players: int, boards: int) -> int:
    """The individual form's rounds: ceil((players - 1) / 2) rounded up to a multiple of 3, at most ``boards``."""
    meet_all = max(1, math.ceil((players - 1) / 2))
    return max(1, min(boards, 3 * math.ceil(meet_all / 3)))


def _check(spec: EventSpec, boards: Sequence[Board] | None) -> None:
    if spec.form not in FORMS:
        raise InvalidInput("form", f"expected one of {', '.join(FORMS)}, got {spec.form!r}")
    if spec.boards < 1:
        raise InvalidInput("boards", f"expected at least one board, got {spec.boards}")
    get_scheme(spec.scheme)
    for spec_bot in (*spec.bots, spec.filler):
        for name in spec_bot.split("/") if spec.form == "teams" else [spec_bot]:
            bot_parts(name)
    count = len(spec.bots)
    if spec.form == "individual" and not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise InvalidInput("bots", f"the individual form takes {MIN_PLAYERS} to {MAX_PLAYERS} entrants, got {count}")
    if spec.form == "teams" and count < 2:
        raise InvalidInput("bots", f"the teams form needs two teams or more, got {count}")
    if spec.form == "daily" and count < 1:
        raise InvalidInput("bots", "the daily form needs an entrant")
    if boards is not None and len(boards) < spec.boards * _stages(spec):
        raise InvalidInput("boards", f"{len(boards)} boards given, {spec.boards * _stages(spec)} needed")


def _stages(spec: EventSpec) -> int:
    if spec.form != "teams":
        return 1
    return len(run_knockout(len(spec.bots), lambda match: match.teams[0]).stages)


def planned_tasks(spec: EventSpec) -> int:
    """How many board-fields the event plays (the progress total): boards, times the matches for teams."""
    if spec.form != "teams":
        return spec.boards
    knockout = run_knockout(len(spec.bots), lambda match: match.teams[0])
    return spec.boards * sum(len(stage.matches) for stage in knockout.stages)


def run_event(
    spec: EventSpec,
    workers: int = 1,
    on_progress: Callable[[int], None] | None = None,
    boards: Sequence[Board] | None = None,
) -> EventResult:
    """Run the event; ``boards`` (e.g. from a PBN file) replace the seeded boards; ``workers`` processes."""
    spec = EventSpec(
        spec.form,
        tuple(b.strip().lower() for b in spec.bots),
        spec.boards,
        spec.seed,
        spec.scheme,
        spec.filler.strip().lower(),
        spec.rounds,
        spec.rank_by,
    )
    if workers < 1:
        raise InvalidInput("workers", f"expected at least one worker, got {workers}")
    _check(spec, boards)
    seed = None if boards is not None else spec.seed
    with _pool(workers) as pool:
        player = _Player(get_scheme(spec.scheme).name, pool, on_progress)
        if spec.form == "daily":
            return _daily(spec, seed, player, _boards(spec, boards, 1))
        if spec.form == "individual":
            return _individual(spec, seed, player, _boards(spec, boards, 1))
        return _teams(spec, seed, player, boards)


def _boards(spec: EventSpec, given: Sequence[Board] | None, stage: int) -> list[Board]:
    """The boards of ``stage`` (1 for a one-stage event): seeded, or the next run of the given ones."""
    first = (stage - 1) * spec.boards
    if given is not None:
        return list(given[first : first + spec.boards])
    return seeded_boards(spec.seed, spec.boards, first + 1)


def _daily(spec: EventSpec, seed: int | None, player: _Player, boards: list[Board]) -> EventResult:
    names = entrant_names(spec.bots)
    entrants = tuple(Entrant(n, b) for n, b in zip(names, spec.bots))
    work = []
    for board in boards:
        chair = (board.number - 1) % 3
        seatings = []
        for t, entrant in enumerate(entrants):
            people = ["filler 1", "filler 2"]
            people.insert(chair, entrant.name)
            bots = [spec.filler, spec.filler]
            bots.insert(chair, entrant.bot)
            fillers = tuple(c != chair for c in range(3))
            seatings.append(_Seating(1, t + 1, _three(people), _three(bots), _three_bool(fillers)))
        work.append((board, seatings, ""))
    travellers = player.travellers(work)
    standings = individual_standings(travellers, entrants, spec.rank_by)
    return EventResult("daily", spec.scheme, seed, spec.filler, 1, entrants, tuple(travellers), tuple(standings))


def _three(values: Sequence[str]) -> tuple[str, str, str]:
    return values[0], values[1], values[2]


def _three_bool(values: Sequence[bool]) -> tuple[bool, bool, bool]:
    return values[0], values[1], values[2]


def _individual(spec: EventSpec, seed: int | None, player: _Player, boards: list[Board]) -> EventResult:
    names = entrant_names(spec.bots)
    entrants = tuple(Entrant(n, b) for n, b in zip(names, spec.bots))
    rounds = spec.rounds if spec.rounds is not None else default_rounds(len(entrants), spec.boards)
    movement = individual_movement(len(entrants), rounds)
    runs = round_boards(len(boards), rounds)

    def who(person: int) -> tuple[str, str, bool]:
        if movement.is_filler(person):
            return f"filler {person - movement.players + 1}", spec.filler, True
        return entrants[person].name, entrants[person].bot, False

    work = []
    for r, (tables, run) in enumerate(zip(movement.rounds, runs)):
        seatings = []
        for t, table in enumerate(tables):
            people = [who(p) for p in table]
            seatings.append(
                _Seating(
                    r + 1,
                    t + 1,
                    _three([p[0] for p in people]),
                    _three([p[1] for p in people]),
                    _three_bool([p[2] for p in people]),
                )
            )
        work += [(boards[i], seatings, "") for i in run]
    travellers = player.travellers(work)
    standings = individual_standings(travellers, entrants, spec.rank_by)
    return EventResult(
        "individual", spec.scheme, seed, spec.filler, rounds, entrants, tuple(travellers), tuple(standings)
    )


def _teams(spec: EventSpec, seed: int | None, player: _Player, given: Sequence[Board] | None) -> EventResult:
    teams = [_team(i, text) for i, text in enumerate(spec.bots)]
    filler_team = ("filler", tuple(f"filler.{m + 1}" for m in range(3)), (spec.filler,) * 3)
    entrants = tuple(Entrant(member, bot, name) for name, members, bots in teams for member, bot in zip(members, bots))
    rounds = min(3, spec.boards)
    travellers: list[Traveller] = []
    matches: list[TeamMatch] = []

    def decide(match: BracketMatch) -> int:
        playing = [teams[k] for k in match.teams] + ([filler_team] if match.needs_filler else [])
        stage_boards = _boards(spec, given, match.stage)
        section = f"stage {match.stage} match {match.index + 1}"
        work = []
        for r, run in enumerate(round_boards(len(stage_boards), rounds)):
            seatings = [_team_seating(r, t, table, playing) for t, table in enumerate(teams_seating(r))]
            work += [(stage_boards[i], seatings, section) for i in run]
        played = player.travellers(work)
        travellers.extend(played)
        result = team_match(
            match.stage,
            match.index + 1,
            played,
            [(name, members) for name, members, _ in playing],
            filler_team[0] if match.needs_filler else None,
        )
        matches.append(result)
        return next(k for k in match.teams if teams[k][0] == result.winner)

    knockout = run_knockout(len(teams), decide)
    standings = team_standings(knockout, teams, matches)
    return EventResult(
        "teams",
        spec.scheme,
        seed,
        spec.filler,
        rounds,
        entrants,
        tuple(travellers),
        team_standings=tuple(standings),
        matches=tuple(matches),
    )


Team = tuple[str, tuple[str, ...], tuple[str, ...]]  # name, member names, their bots


def _team(index: int, text: str) -> Team:
    bots = [b.strip() for b in text.split("/")]
    if len(bots) == 1:
        bots *= 3
    if len(bots) != 3 or not all(bots):
        raise InvalidInput("bots", f"a team is one bot or three joined by '/', got {text!r}")
    name = f"T{index + 1}"
    return name, tuple(f"{name}.{m + 1}" for m in range(3)), tuple(bots)


def _team_seating(round_index: int, table: int, seats: Sequence[TeamSeat], playing: Sequence[Team]) -> _Seating:
    people, bots, fillers = [], [], []
    for seat in seats:
        name, members, member_bots = playing[seat.team]
        people.append(members[seat.member])
        bots.append(member_bots[seat.member])
        fillers.append(name == "filler")
    return _Seating(round_index + 1, table + 1, _three(people), _three(bots), _three_bool(fillers))


def team_standings(knockout: KnockoutResult, teams: Sequence[Team], matches: Sequence[TeamMatch]) -> list[TeamStanding]:
    """Teams ranked by the stage they went out in; the final's teams by their IMPs in it."""
    last_stage = len(knockout.stages)
    rows = []
    for k, (name, members, bots) in enumerate(teams):
        out = knockout.eliminated_in(k)
        last = [m for m in matches if name in m.teams][-1]
        place = last.teams.index(name)
        imps, points = last.imps[place], last.points[place]
        key = (out, imps if out >= last_stage else 0)
        rows.append((key, TeamStanding("", name, members, bots, last.stage, imps, points)))
    rows.sort(key=lambda row: row[0], reverse=True)  # stable: equal keys keep the seed order
    labels = rank_labels([key for key, _ in rows])
    return [replace(standing, rank=label) for label, (_, standing) in zip(labels, rows)]
