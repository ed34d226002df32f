"""Movements: who sits at which table, in which chair, in each round of an event.

A *chair* is a player's place relative to the board's dealer: chair 0 holds the dealer's hand,
chair 1 the hand at the dealer's left, chair 2 the hand at the dealer's right (the three players of
``DealState`` in calling order; the widow opposite the dealer is nobody's). Every table of a round
plays the same boards (``round_boards``), so on a board the results in one chair are comparable.

**Individual movement** (``individual_movement(players, rounds)``, 3 to 30 players). Each round
seats everybody at ``T = ceil(players / 3)`` tables of three; ``3T - players`` (0, 1 or 2) chairs go
to filler bots, numbered ``players, players + 1`` (they are people of the movement like any other,
but they are not ranked). It guarantees, for every number of players and rounds:

1. every player (and filler) sits at exactly one table, in exactly one chair, in every round;
2. no table holds two fillers;
3. **chairs**: over the event the numbers of rounds a player spends in chairs 0, 1 and 2 differ by
   at most 1 (they are ``floor(rounds / 3)`` or ``ceil(rounds / 3)``);
4. **meetings**: the tables of round ``r`` are a *local optimum* of the round's meeting cost given
   rounds ``1 .. r - 1``: no exchange of two people between two tables lowers it. The cost of a
   round is the sum, over the pairs it seats together, of ``3**m - 1`` where ``m`` is the number of
   times the pair met before (so a new pair costs 0, a second meeting 2, a third 8; two fillers
   together cost ``FILLERS_TOGETHER``). A round therefore seats a pair again only when no single
   exchange avoids it, and spreads repeats over many pairs rather than repeating one.
5. it is deterministic: the same (players, rounds) always gives the same movement, and the tables
   of the first ``r`` rounds do not depend on how many rounds follow (the chairs may).

How: each round is seated greedily from ``RESTARTS`` orders of the people (drawn from the stream
``(players, round)``), each improved by exchanges until none helps; the cheapest is kept (the
first on a tie). Chairs are given afterwards, for the whole event at once: the tables and the
people form a bipartite graph (an edge for each person at each table of each round) and the chairs
are an *equitable* 3-edge-colouring of it (de Werra): a table gets each chair once, a person each
chair ``floor(k/3)`` or ``ceil(k/3)`` times of its ``k`` rounds. It is built by starting from any
colouring and, while some person holds one chair two rounds more than another, recolouring the
edges of those two chairs along Euler circuits (every vertex then holds them equally, within one),
which strictly lowers the sum of squared chair counts, so it ends.

**Teams of three** (``teams_seating(round)``): three teams A, B, C of three members at three
tables; table ``t`` holds member ``(t - k * round) mod 3`` of team ``k``, in chair ``(k + t) mod 3``.
So on every board each team holds each of the three chairs at one of the tables (a complete
duplicate among three teams), and over three rounds each member of a team meets each member of the
other teams.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from tribridge.dealing.streams import random_stream
from tribridge.errors import InvalidInput

__all__ = [
    "FILLERS_TOGETHER",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "RESTARTS",
    "IndividualMovement",
    "TeamSeat",
    "equitable_chairs",
    "individual_movement",
    "meeting_cost",
    "round_boards",
    "round_cost",
    "teams_seating",
]

MIN_PLAYERS = 3
MAX_PLAYERS = 30
RESTARTS = 12
FILLERS_TOGETHER = 10**6
"""The cost of seating two fillers at one table (it never happens while a table without one is free)."""

Table = tuple[int, int, int]  # the people in chairs 0, 1, 2


@dataclass(frozen=True)
class IndividualMovement:
    """An individual movement: ``rounds[r][t]`` is table ``t`` of round ``r``, its people by chair.

    People ``0 .. players - 1`` are the players; ``players .. 3T - 1`` are filler bots.
    """

    players: int
    rounds: tuple[tuple[Table, ...], ...]

    @property
    def tables(self) -> int:
        """Tables in each round."""
        return len(self.rounds[0]) if self.rounds else 0

    @property
    def people(self) -> int:
        """Players and fillers."""
        return 3 * self.tables

    def is_filler(self, person: int) -> bool:
        """True for a filler bot's number."""
        return person >= self.players

    def chair_counts(self, person: int) -> tuple[int, int, int]:
        """Rounds ``person`` spends in chairs 0, 1, 2."""
        counts = [0, 0, 0]
        for tables in self.rounds:
            for table in tables:
                if person in table:
                    counts[table.index(person)] += 1
        return counts[0], counts[1], counts[2]

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict: ``players`` and ``rounds`` (lists of tables, each the people by chair)."""
        return {"players": self.players, "rounds": [[list(t) for t in tables] for tables in self.rounds]}


def round_boards(boards: int, rounds: int) -> list[range]:
    """The board positions (0-based) of each round: ``boards`` split into ``rounds`` runs, sizes within one."""
    if rounds < 1 or boards < rounds:
        raise InvalidInput("rounds", f"expected 1 to {boards} rounds for {boards} boards, got {rounds}")
    return [range(r * boards // rounds, (r + 1) * boards // rounds) for r in range(rounds)]


def meeting_cost(times_met: int) -> int:
    """The cost of seating a pair together that has met ``times_met`` times before: ``3**m - 1``."""
    return 3**times_met - 1


def _pair_cost(met: list[list[int]], players: int, a: int, b: int) -> int:
    if a >= players and b >= players:
        return FILLERS_TOGETHER
    return meeting_cost(met[a][b])


def round_cost(met: list[list[int]], players: int, tables: Sequence[Sequence[int]]) -> int:
    """The meeting cost of a round's tables given ``met[a][b]``, the meetings before it (module docstring)."""
    return sum(_table_cost(met, players, table) for table in tables)


def _table_cost(met: list[list[int]], players: int, table: Sequence[int]) -> int:
    a, b, c = table
    return _pair_cost(met, players, a, b) + _pair_cost(met, players, a, c) + _pair_cost(met, players, b, c)


def _greedy_tables(met: list[list[int]], players: int, order: Sequence[int], tables: int) -> list[list[int]]:
    """Each person in ``order`` joins the open table where it adds the least cost (the first on a tie)."""
    out: list[list[int]] = [[] for _ in range(tables)]
    for person in order:
        open_tables = [t for t in range(tables) if len(out[t]) < 3]
        best = min(open_tables, key=lambda t: sum(_pair_cost(met, players, person, q) for q in out[t]))
        out[best].append(person)
    return out


def _improve(met: list[list[int]], players: int, tables: list[list[int]]) -> None:
    """Exchange two people of different tables while an exchange lowers the cost (in place)."""
    changed = True
    while changed:
        changed = False
        for i in range(len(tables)):
            for j in range(i + 1, len(tables)):
                for x in range(3):
                    for y in range(3):
                        before = _table_cost(met, players, tables[i]) + _table_cost(met, players, tables[j])
                        tables[i][x], tables[j][y] = tables[j][y], tables[i][x]
                        after = _table_cost(met, players, tables[i]) + _table_cost(met, players, tables[j])
                        if after < before:
                            changed = True
                        else:
                            tables[i][x], tables[j][y] = tables[j][y], tables[i][x]


def _seat_round(met: list[list[int]], players: int, tables: int, round_index: int) -> list[list[int]]:
    """The cheapest of ``RESTARTS`` greedy seatings improved by exchanges, each table sorted."""
    rng = random_stream(players, round_index)
    best: list[list[int]] | None = None
    best_cost = 0
    for _ in range(RESTARTS):
        order = [int(p) for p in rng.permutation(3 * tables)]
        seated = _greedy_tables(met, players, order, tables)
        _improve(met, players, seated)
        cost = round_cost(met, players, seated)
        if best is None or cost < best_cost:
            best, best_cost = seated, cost
    assert best is not None
    return sorted(sorted(table) for table in best)


def individual_movement(players: int, rounds: int) -> IndividualMovement:
    """The individual movement of ``players`` (3 to 30) over ``rounds`` rounds (module docstring)."""
    if not isinstance(players, int) or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise InvalidInput("players", f"expected {MIN_PLAYERS} to {MAX_PLAYERS} players, got {players!r}")
    if not isinstance(rounds, int) or rounds < 1:
        raise InvalidInput("rounds", f"expected at least one round, got {rounds!r}")
    tables = math.ceil(players / 3)
    people = 3 * tables
    met = [[0] * people for _ in range(people)]
    seatings: list[list[list[int]]] = []
    for r in range(rounds):
        seated = _seat_round(met, players, tables, r)
        for table in seated:
            for a in table:
                for b in table:
                    if a != b:
                        met[a][b] += 1
        seatings.append(seated)
    chairs = equitable_chairs([table for seated in seatings for table in seated])
    flat = iter(chairs)
    return IndividualMovement(players, tuple(tuple(next(flat) for _ in seated) for seated in seatings))


# --- chairs: an equitable 3-edge-colouring of the table-person graph -------------------------------
def equitable_chairs(tables: Sequence[Sequence[int]]) -> list[Table]:
    """Each table's three people ordered by chair so that each person's chair counts differ by at most 1."""
    colour = [[0, 1, 2] for _ in tables]  # colour[t][i]: the chair of tables[t][i]
    while True:
        unbalanced = _unbalanced(tables, colour)
        if unbalanced is None:
            break
        _rebalance(tables, colour, *unbalanced)
    out: list[Table] = []
    for table, chairs in zip(tables, colour):
        by_chair = [0, 0, 0]
        for person, chair in zip(table, chairs):
            by_chair[chair] = person
        out.append((by_chair[0], by_chair[1], by_chair[2]))
    return out


def _unbalanced(tables: Sequence[Sequence[int]], colour: list[list[int]]) -> tuple[int, int] | None:
    """Two chairs (most held, least held) of the first person whose counts differ by 2 or more, or None."""
    counts: dict[int, list[int]] = {}
    for table, chairs in zip(tables, colour):
        for person, chair in zip(table, chairs):
            counts.setdefault(person, [0, 0, 0])[chair] += 1
    for person in sorted(counts):
        c = counts[person]
        if max(c) - min(c) >= 2:
            return c.index(max(c)), c.index(min(c))
    return None


def _rebalance(tables: Sequence[Sequence[int]], colour: list[list[int]], a: int, b: int) -> None:
    """Recolour the chair-``a`` and chair-``b`` edges along Euler circuits: every vertex holds them within one."""
    edges = [(t, i) for t in range(len(tables)) for i in range(3) if colour[t][i] in (a, b)]
    # vertices: ("t", table) and ("p", person); a virtual table vertex joins the persons of odd degree
    ends = [(("t", t), ("p", tables[t][i])) for t, i in edges]
    degree: dict[tuple[str, int], int] = {}
    for _, person in ends:
        degree[person] = degree.get(person, 0) + 1
    virtual = ("v", 0)
    ends += [(virtual, person) for person in sorted(degree) if degree[person] % 2]
    for index, colour_of_edge in enumerate(_alternating_circuits(ends)):
        if index < len(edges):
            t, i = edges[index]
            colour[t][i] = a if colour_of_edge == 0 else b


def _alternating_circuits(ends: list[tuple[tuple[str, int], tuple[str, int]]]) -> list[int]:
    """0/1 for each edge of an even-degree bipartite multigraph, alternating along Euler circuits (Hierholzer)."""
    adjacency: dict[tuple[str, int], list[int]] = {}
    for index, (u, v) in enumerate(ends):
        adjacency.setdefault(u, []).append(index)
        adjacency.setdefault(v, []).append(index)
    used = [False] * len(ends)
    out = [0] * len(ends)
    pointer = {vertex: 0 for vertex in adjacency}
    for start in adjacency:
        stack: list[tuple[tuple[str, int], int | None]] = [(start, None)]
        circuit: list[int] = []
        while stack:
            vertex, via = stack[-1]
            edges = adjacency[vertex]
            while pointer[vertex] < len(edges) and used[edges[pointer[vertex]]]:
                pointer[vertex] += 1
            if pointer[vertex] == len(edges):
                stack.pop()
                if via is not None:
                    circuit.append(via)
                continue
            edge = edges[pointer[vertex]]
            used[edge] = True
            u, v = ends[edge]
            stack.append((v if u == vertex else u, edge))
        for position, edge in enumerate(circuit):
            out[edge] = position % 2
    return out


# --- teams of three -------------------------------------------------------------------------------
@dataclass(frozen=True)
class TeamSeat:
    """Who holds a chair in a team match: ``team`` (0, 1, 2) and its ``member`` (0, 1, 2)."""

    team: int
    member: int


def teams_seating(round_index: int) -> tuple[tuple[TeamSeat, TeamSeat, TeamSeat], ...]:
    """The three tables of a team match's round, each by chair (module docstring)."""
    tables = []
    for t in range(3):
        by_chair = []
        for chair in range(3):
            team = (chair - t) % 3
            by_chair.append(TeamSeat(team, (t - team * round_index) % 3))
        tables.append((by_chair[0], by_chair[1], by_chair[2]))
    return tuple(tables)
