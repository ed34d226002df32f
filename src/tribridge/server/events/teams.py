"""The live teams form: teams of three people (bots in missing places) in a knockout (``events.bracket``).

People enter naming their team (the first to name it creates it; a team has three members, in the order they
entered). The knockout starts when every team is full or at ``starts_at`` (with two teams or more); the teams
are then numbered by seed (``seed_teams``, from their ratings: ``seeding``), team 0 the best. Each match
is played at three tables in ``rounds`` rounds of the team movement (``events.movement.teams_seating``), a
round starting when the three tables of the one before have played their boards; a match of two teams is
completed by a team of the event's bots (``BOTS_TEAM``), which cannot win. When every match of a stage has
its winner (``events.scoring.team_match``), the next stage starts with the byes and the winners, on the next
``stage_boards`` boards drawn from the event's secret seed. A member who has not entered is played by the
event's bot. Every bot is named as its table names it (``travellers.people_of``); a team's points are counted
by the places its members hold at each table, never by name. At every table the dealer holds chair 0 on every
board.
"""

from __future__ import annotations

from dataclasses import replace

from tribridge.events.boards import Board, seeded_boards
from tribridge.events.bracket import BracketStage, KnockoutResult, advancing, plan_stage
from tribridge.events.movement import round_boards, teams_seating
from tribridge.events.results import TableResult, TeamMatch, TeamStanding, Traveller
from tribridge.events.run import team_standings
from tribridge.events.scoring import team_match
from tribridge.server.errors import Conflict
from tribridge.server.events.documents import EventDocument, MatchJson
from tribridge.server.events.individual import entrant_seats
from tribridge.server.events.travellers import PERSON, PlayedTable, people_of, travellers_of
from tribridge.server.tables.config import bot_name_label, event_table_config
from tribridge.server.tables.manager import TableManager
from tribridge.server.tables.wire import ChairConfig

__all__ = [
    "BOTS_TEAM",
    "FILLER_TEAM",
    "advance",
    "current_tables",
    "final_standings",
    "join_team",
    "knockout_due",
    "match_results",
    "person_table",
    "seed_teams",
    "tables_of",
]

FILLER_TEAM = -1
"""The team number of the bots' team that completes a match of two teams."""
BOTS_TEAM = "Bots"
"""The name of that team (no entrant's team may take it)."""


def join_team(document: EventDocument, person: int, name: str) -> None:
    """Put entry ``person`` in the team ``name``, creating it (409 when it is full, or no team may be added)."""
    for team in document["teams"]:
        if team["name"].lower() == name.lower():
            if len(team["members"]) >= 3:
                raise Conflict(f"team {team['name']!r} is full")
            team["members"].append(person)
            return
    if len(document["teams"]) >= document["max_teams"]:
        raise Conflict(f"the event has its {document['max_teams']} teams: join one of them")
    document["teams"].append({"name": name, "members": [person]})


def _team_name(document: EventDocument, team: int) -> str:
    return BOTS_TEAM if team == FILLER_TEAM else document["teams"][team]["name"]


def member_names(document: EventDocument, team: int) -> tuple[str, str, str]:
    """The names of an entered team's three places: its members', the bot's (``paper+random bot``) for an empty one."""
    entry = document["teams"][team]
    names = [
        document["entries"][entry["members"][m]]["name"]
        if m < len(entry["members"])
        else bot_name_label(document["filler"])
        for m in range(3)
    ]
    return names[0], names[1], names[2]


def _seats(match: MatchJson, round_index: int, table: int) -> list[tuple[int, int]]:
    """(team, member) by chair at a table of a match's round."""
    playing = match["teams"] + ([FILLER_TEAM] if len(match["teams"]) == 2 else [])
    return [(playing[seat.team], seat.member) for seat in teams_seating(round_index)[table]]


def _is_person(document: EventDocument, team: int, member: int) -> bool:
    return team != FILLER_TEAM and member < len(document["teams"][team]["members"])


def _table_chairs(document: EventDocument, match: MatchJson, round_index: int, table: int) -> list[ChairConfig]:
    """The chairs of a table of a match's round: each member who entered (a person, named), else the event's bot."""
    return [
        {"kind": "human", "name": document["entries"][document["teams"][team]["members"][member]]["name"]}
        if _is_person(document, team, member)
        else {"kind": "bot", "bot": document["filler"]}
        for team, member in _seats(match, round_index, table)
    ]


def _positions(document: EventDocument, stage: int, round_index: int) -> tuple[int, ...]:
    """The board positions a match's round plays (stage ``stage`` from 1)."""
    per_stage = document["stage_boards"]
    run = round_boards(per_stage, document["rounds"])[round_index]
    return tuple((stage - 1) * per_stage + i for i in run)


async def _start_match_round(document: EventDocument, match: MatchJson, manager: TableManager) -> None:
    """Create the three tables of a match's next round."""
    r = len(match["round_tables"])
    boards = [Board.from_json(document["boards"][i]) for i in _positions(document, match["stage"], r)]
    ids = []
    for t in range(3):
        chairs = _table_chairs(document, match, r, t)
        people: dict[int, int] = {}
        for chair, (team, member) in enumerate(_seats(match, r, t)):
            if _is_person(document, team, member):
                people[chair] = document["teams"][team]["members"][member]
        config = event_table_config(document["event_id"], boards, [0] * len(boards), chairs, document["scheme"])
        ids.append((await entrant_seats(document, manager, config, people)).table_id)
    match["round_tables"].append(ids)


async def _plan(document: EventDocument, alive: list[int], manager: TableManager) -> None:
    """Begin the next stage with the teams ``alive``: its boards drawn, its matches' first rounds started."""
    stage = len(document["stages"]) + 1
    document["stages"].append(alive)
    if len(document["boards"]) < stage * document["stage_boards"]:
        assert document["seed"] is not None
        first = len(document["boards"]) + 1
        document["boards"] += [b.to_json() for b in seeded_boards(document["seed"], document["stage_boards"], first)]
    for match in plan_stage(alive, stage).matches:
        entry: MatchJson = {
            "stage": stage,
            "index": match.index,
            "teams": list(match.teams),
            "round_tables": [],
            "winner": None,
        }
        document["matches"].append(entry)
        await _start_match_round(document, entry, manager)


def _stage_of(document: EventDocument, number: int) -> BracketStage:
    return plan_stage(document["stages"][number - 1], number)


def knockout_due(document: EventDocument, now: float) -> bool:
    """Whether the knockout starts now: not started, two teams or more, and every team full or the start time come."""
    teams = document["teams"]
    full = len(teams) == document["max_teams"] and all(len(t["members"]) == 3 for t in teams)
    return not document["stages"] and len(teams) >= 2 and (full or now >= document["starts_at"])


def seed_teams(document: EventDocument, values: list[float]) -> None:
    """Number the teams by seed before the knockout starts: the highest ``values`` (one a team) first, ties in the
    order the teams were created."""
    order = sorted(range(len(document["teams"])), key=lambda k: -values[k])  # stable: ties keep entry order
    document["teams"] = [document["teams"][k] for k in order]


async def advance(document: EventDocument, manager: TableManager, now: float) -> bool:
    """Start what is due (the knockout, a match's next round, a match's result, the next stage); True if changed."""
    if document["frozen"] is not None:
        return False
    if not document["stages"]:
        if knockout_due(document, now):
            await _plan(document, list(range(len(document["teams"]))), manager)  # team numbers are the seeds
            return True
        return False
    changed = False
    for match in document["matches"]:
        if match["winner"] is not None:
            continue
        if not all(table.boards_over for table in [await manager.get(t) for t in match["round_tables"][-1]]):
            continue
        changed = True
        if len(match["round_tables"]) < document["rounds"]:
            await _start_match_round(document, match, manager)
        else:
            match["winner"] = await _winner(document, match, manager)
    stage = len(document["stages"])
    current = [m for m in document["matches"] if m["stage"] == stage]
    if all(m["winner"] is not None for m in current):
        alive = advancing(_stage_of(document, stage), _winners(document, stage))
        if len(alive) > 1:
            await _plan(document, alive, manager)
            changed = True
    return changed


async def _match_tables(document: EventDocument, match: MatchJson, manager: TableManager) -> list[PlayedTable]:
    frozen = document["frozen"]
    section = f"stage {match['stage']} match {match['index'] + 1}"
    out = []
    for r, ids in enumerate(match["round_tables"]):
        for t, table_id in enumerate(ids):
            table = await manager.get(table_id)
            done = len(table.history) if frozen is None else min(len(table.history), frozen.get(table_id, 0))
            people = people_of(_table_chairs(document, match, r, t))
            positions = _positions(document, match["stage"], r)
            out.append(PlayedTable(r + 1, t + 1, people, positions, table, done, section))
    return out


async def tables_of(document: EventDocument, manager: TableManager) -> list[PlayedTable]:
    """Every started table of the knockout, match by match."""
    return [t for match in document["matches"] for t in await _match_tables(document, match, manager)]


def _place(team: int, member: int) -> str:
    """A team's place (team number, member) as ``_team_match`` writes it for ``team_match`` to count."""
    return f"#{team}.{member}"


def _by_place(match: MatchJson, result: TableResult) -> TableResult:
    """A match's result with its players written as the places they hold (event chair = table chair: the
    dealer holds chair 0)."""
    seats = _seats(match, result.round - 1, result.table - 1)
    places = [_place(team, member) for team, member in seats]
    return replace(result, players=(places[0], places[1], places[2]))


def _team_match(document: EventDocument, match: MatchJson, travellers: list[Traveller]) -> TeamMatch:
    """The match over ``travellers`` (of its section), each team's points counted by the places it holds."""
    playing = match["teams"] + ([FILLER_TEAM] if len(match["teams"]) == 2 else [])
    teams = [(_team_name(document, k), tuple(_place(k, m) for m in range(3))) for k in playing]
    filler = BOTS_TEAM if FILLER_TEAM in playing else None
    placed = [replace(t, results=tuple(_by_place(match, r) for r in t.results)) for t in travellers]
    return team_match(match["stage"], match["index"] + 1, placed, teams, filler)


async def _winner(document: EventDocument, match: MatchJson, manager: TableManager) -> int:
    boards = [Board.from_json(b) for b in document["boards"]]
    result = _team_match(document, match, travellers_of(boards, await _match_tables(document, match, manager)))
    return next(k for k in match["teams"] if _team_name(document, k) == result.winner)


def match_results(document: EventDocument, travellers: list[Traveller]) -> list[TeamMatch]:
    """Every match so far, its IMPs over the boards of ``travellers`` with results (those the asker may see), its
    winner once decided (the document's, decided on every board), else ""."""
    out = []
    for match in document["matches"]:
        section = f"stage {match['stage']} match {match['index'] + 1}"
        mine = [t for t in travellers if t.section == section and t.results]
        result = _team_match(document, match, mine)
        winner = "" if match["winner"] is None else _team_name(document, match["winner"])
        out.append(replace(result, winner=winner))
    return out


def _winners(document: EventDocument, stage: int | None = None) -> dict[tuple[int, int], int]:
    """(stage, match index) -> winning team, of the decided matches (of one stage, if given)."""
    return {
        (m["stage"], m["index"]): m["winner"]
        for m in document["matches"]
        if m["winner"] is not None and (stage is None or m["stage"] == stage)
    }


def final_standings(document: EventDocument, matches: list[TeamMatch]) -> list[TeamStanding]:
    """The teams ranked once the knockout is over (``events.run.team_standings``); empty before."""
    winners = _winners(document)
    if not document["stages"] or len(winners) < len(document["matches"]):
        return []
    last = len(document["stages"])
    if len(advancing(_stage_of(document, last), _winners(document, last))) > 1:
        return []
    stages = tuple(_stage_of(document, s) for s in range(1, last + 1))
    final = document["matches"][-1]
    knockout = KnockoutResult(stages, winners, winners[(final["stage"], final["index"])])
    teams = [(t["name"], member_names(document, k), (PERSON,) * 3) for k, t in enumerate(document["teams"])]
    return team_standings(knockout, teams, matches)


def current_tables(document: EventDocument) -> list[str]:
    """The tables of the matches' latest rounds (those a person may be keeping waiting)."""
    return [t for m in document["matches"] if m["winner"] is None and m["round_tables"] for t in m["round_tables"][-1]]


def person_table(document: EventDocument, person: int) -> tuple[str, int] | None:
    """(table id, chair) of ``person`` in its team's latest match round, or None."""
    team = next((k for k, t in enumerate(document["teams"]) if person in t["members"]), None)
    if team is None:
        return None
    member = document["teams"][team]["members"].index(person)
    for match in reversed(document["matches"]):
        if team in match["teams"] and match["round_tables"]:
            r = len(match["round_tables"]) - 1
            for t in range(3):
                for chair, seat in enumerate(_seats(match, r, t)):
                    if seat == (team, member):
                        return match["round_tables"][r][t], chair
    return None
