"""The results of an event as data: a table's result on a board, a board's traveller, a line of the standings.

Everything here is a frozen dataclass with ``to_json()`` / ``from_json()``, so an event can be stored
as JSON and read back; the figures (matchpoints, IMPs) are filled in by ``events.scoring`` from the
scores alone, so they can always be recomputed from the travellers. Chairs are numbered as in
``events.movement``: 0 the dealer's hand, 1 the dealer's left, 2 the dealer's right.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypedDict, TypeVar

from tribridge.errors import InvalidInput, quote
from tribridge.events.boards import Board, BoardJson

__all__ = [
    "Entrant",
    "EntrantJson",
    "Standing",
    "StandingJson",
    "TableResult",
    "TableResultJson",
    "TeamBoard",
    "TeamBoardJson",
    "TeamMatch",
    "TeamMatchJson",
    "TeamStanding",
    "TeamStandingJson",
    "Traveller",
    "TravellerJson",
    "reading",
]

Three = tuple[int, int, int]


@contextmanager
def reading(what: str) -> Iterator[None]:
    """While reading ``what`` from JSON, a missing key or a wrong type becomes ``InvalidInput`` naming it."""
    try:
        yield
    except InvalidInput:
        raise
    except KeyError as exc:
        raise InvalidInput(f"{what}.{exc.args[0]}", "missing") from None
    except (TypeError, ValueError, AttributeError) as exc:
        raise InvalidInput(what, f"malformed {what}: {exc}") from None


T = TypeVar("T")
U = TypeVar("U")


class TableResultJson(TypedDict):
    """``TableResult.to_json``."""

    round: int
    table: int
    players: list[str]
    fillers: list[bool]
    auction: list[str]
    contract: str | None
    declarer: int | None
    tricks: int | None
    scores: list[int]
    matchpoints: list[int]
    tops: list[int]
    imps: list[int]


class TravellerJson(BoardJson):
    """``Traveller.to_json``: the board's fields, the field's ``section`` and every table's result."""

    section: str
    results: list[TableResultJson]


class StandingJson(TypedDict):
    """``Standing.to_json``."""

    rank: str
    name: str
    bot: str
    boards: int
    unplayed: int
    matchpoints: int
    top: int
    percent: float
    imps: int


@dataclass(frozen=True)
class TableResult:
    """One table's result on one board: the people by chair, the auction and play, each chair's figures.

    ``declarer`` is the declarer's chair (None when thrown in); ``tricks`` the declarer's side's.
    ``scores`` are each chair's own points (``DealState.points``); ``matchpoints`` and ``tops`` (the
    most matchpoints the chair's field allowed), and ``imps`` (Butler, against the datum of the chair)
    are 0 until ``events.scoring`` fills them in.
    """

    round: int
    table: int
    players: tuple[str, str, str]
    fillers: tuple[bool, bool, bool]
    auction: tuple[str, ...]
    contract: str | None
    declarer: int | None
    tricks: int | None
    scores: Three
    matchpoints: Three = (0, 0, 0)
    tops: Three = (0, 0, 0)
    imps: Three = (0, 0, 0)

    def percent(self, chair: int) -> float:
        """The chair's matchpoints as a percentage of its top (50 when the chair had no other score)."""
        top = self.tops[chair]
        return 100.0 * self.matchpoints[chair] / top if top else 50.0

    def chair_of(self, name: str) -> int | None:
        """The chair ``name`` held at this table, or None."""
        return self.players.index(name) if name in self.players else None

    def to_json(self) -> TableResultJson:
        """A JSON-ready dict."""
        return {
            "round": self.round,
            "table": self.table,
            "players": list(self.players),
            "fillers": list(self.fillers),
            "auction": list(self.auction),
            "contract": self.contract,
            "declarer": self.declarer,
            "tricks": self.tricks,
            "scores": list(self.scores),
            "matchpoints": list(self.matchpoints),
            "tops": list(self.tops),
            "imps": list(self.imps),
        }

    @classmethod
    def from_json(cls, data: TableResultJson) -> TableResult:
        """Inverse of ``to_json`` (types checked)."""
        with reading("result"):
            return cls(
                int(data["round"]),
                int(data["table"]),
                _three(data["players"], str, "players"),
                _three(data["fillers"], bool, "fillers"),
                tuple(str(c) for c in data["auction"]),
                None if data["contract"] is None else str(data["contract"]),
                None if data["declarer"] is None else int(data["declarer"]),
                None if data["tricks"] is None else int(data["tricks"]),
                _three(data["scores"], int, "scores"),
                _three(data["matchpoints"], int, "matchpoints"),
                _three(data["tops"], int, "tops"),
                _three(data["imps"], int, "imps"),
            )


def _three(value: Sequence[T], kind: Callable[[T], U], field: str) -> tuple[U, U, U]:
    """Three values, one a chair, each converted by ``kind``."""
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != 3:
        raise InvalidInput(f"result.{field}", f"expected three values (one a chair), got {quote(value)}")
    return kind(value[0]), kind(value[1]), kind(value[2])


@dataclass(frozen=True)
class Traveller:
    """A board's traveller: the board (number, dealer, deal) and every table's result on it.

    ``section`` names the field when one board has several (each match of a knockout stage has its own).
    """

    board: Board
    results: tuple[TableResult, ...]
    section: str = ""

    def field(self, chair: int) -> list[int]:
        """Every score in ``chair`` on this board, table by table."""
        return [r.scores[chair] for r in self.results]

    def to_json(self) -> TravellerJson:
        """A JSON-ready dict: the board's ``board``, ``dealer``, ``deal`` and its ``results``."""
        board = self.board.to_json()
        return {**board, "section": self.section, "results": [r.to_json() for r in self.results]}

    @classmethod
    def from_json(cls, data: TravellerJson) -> Traveller:
        """Inverse of ``to_json``."""
        results = data.get("results")
        if not isinstance(results, list):
            raise InvalidInput("traveller.results", "expected a list of table results")
        return cls(
            Board.from_json(data), tuple(TableResult.from_json(r) for r in results), str(data.get("section", ""))
        )


@dataclass(frozen=True)
class Standing:
    """One line of the standings: rank (``"3="`` on a tie), name, its bot, and its totals.

    ``boards`` played and ``unplayed``; ``matchpoints`` won of ``top`` on the boards played;
    ``percent`` the mean over every board of the event of the board's percentage (an unplayed board
    counts ``scoring.UNPLAYED_PERCENT``); ``imps`` the IMPs (Butler for individuals, team IMPs for teams).
    """

    rank: str
    name: str
    bot: str
    boards: int
    unplayed: int
    matchpoints: int
    top: int
    percent: float
    imps: int

    def to_json(self) -> StandingJson:
        """A JSON-ready dict."""
        return {
            "rank": self.rank,
            "name": self.name,
            "bot": self.bot,
            "boards": self.boards,
            "unplayed": self.unplayed,
            "matchpoints": self.matchpoints,
            "top": self.top,
            "percent": self.percent,
            "imps": self.imps,
        }

    @classmethod
    def from_json(cls, data: StandingJson) -> Standing:
        """Inverse of ``to_json`` (types checked)."""
        with reading("standing"):
            return cls(
                str(data["rank"]),
                str(data["name"]),
                str(data["bot"]),
                int(data["boards"]),
                int(data["unplayed"]),
                int(data["matchpoints"]),
                int(data["top"]),
                float(data["percent"]),
                int(data["imps"]),
            )


class EntrantJson(TypedDict):
    """``Entrant.to_json``."""

    name: str
    bot: str
    team: str | None


@dataclass(frozen=True)
class Entrant:
    """Someone ranked in an event: a unique ``name``, the ``bot`` that plays it, its ``team`` (teams only)."""

    name: str
    bot: str
    team: str | None = None

    def to_json(self) -> EntrantJson:
        """A JSON-ready dict."""
        return {"name": self.name, "bot": self.bot, "team": self.team}

    @classmethod
    def from_json(cls, data: EntrantJson) -> Entrant:
        """Inverse of ``to_json``."""
        with reading("entrant"):
            team = data.get("team")
            return cls(str(data["name"]), str(data["bot"]), None if team is None else str(team))


class TeamBoardJson(TypedDict):
    """``TeamBoard.to_json``."""

    board: int
    points: list[int]
    imps: list[int]


@dataclass(frozen=True)
class TeamBoard:
    """One board of a team match: each team's points (its members' scores added) and its IMPs, by team."""

    board: int
    points: tuple[int, ...]
    imps: tuple[int, ...]

    def to_json(self) -> TeamBoardJson:
        """A JSON-ready dict."""
        return {"board": self.board, "points": list(self.points), "imps": list(self.imps)}

    @classmethod
    def from_json(cls, data: TeamBoardJson) -> TeamBoard:
        """Inverse of ``to_json``."""
        with reading("team board"):
            return cls(int(data["board"]), tuple(int(p) for p in data["points"]), tuple(int(i) for i in data["imps"]))


class TeamMatchJson(TypedDict):
    """``TeamMatch.to_json``."""

    stage: int
    match: int
    teams: list[str]
    filler: str | None
    boards: list[TeamBoardJson]
    imps: list[int]
    points: list[int]
    winner: str


@dataclass(frozen=True)
class TeamMatch:
    """A match of three teams: the teams (a filler team last when only two entered), each board, the totals."""

    stage: int
    match: int
    teams: tuple[str, ...]
    filler: str | None
    boards: tuple[TeamBoard, ...]
    winner: str

    @property
    def imps(self) -> tuple[int, ...]:
        """Each team's IMPs over the match."""
        return tuple(sum(b.imps[k] for b in self.boards) for k in range(len(self.teams)))

    @property
    def points(self) -> tuple[int, ...]:
        """Each team's points over the match."""
        return tuple(sum(b.points[k] for b in self.boards) for k in range(len(self.teams)))

    def to_json(self) -> TeamMatchJson:
        """A JSON-ready dict."""
        return {
            "stage": self.stage,
            "match": self.match,
            "teams": list(self.teams),
            "filler": self.filler,
            "boards": [b.to_json() for b in self.boards],
            "imps": list(self.imps),
            "points": list(self.points),
            "winner": self.winner,
        }

    @classmethod
    def from_json(cls, data: TeamMatchJson) -> TeamMatch:
        """Inverse of ``to_json`` (the totals are recomputed from the boards)."""
        with reading("match"):
            filler = data.get("filler")
            return cls(
                int(data["stage"]),
                int(data["match"]),
                tuple(str(t) for t in data["teams"]),
                None if filler is None else str(filler),
                tuple(TeamBoard.from_json(b) for b in data["boards"]),
                str(data["winner"]),
            )


class TeamStandingJson(TypedDict):
    """``TeamStanding.to_json``."""

    rank: str
    team: str
    members: list[str]
    bots: list[str]
    stage: int
    imps: int
    points: int


@dataclass(frozen=True)
class TeamStanding:
    """A team's line: rank (the winner first; teams out in the same stage of a knockout share a rank unless
    they met in the final), its members and their bots, the last ``stage`` it played, its IMPs and points there."""

    rank: str
    team: str
    members: tuple[str, ...]
    bots: tuple[str, ...]
    stage: int
    imps: int
    points: int

    def to_json(self) -> TeamStandingJson:
        """A JSON-ready dict."""
        return {
            "rank": self.rank,
            "team": self.team,
            "members": list(self.members),
            "bots": list(self.bots),
            "stage": self.stage,
            "imps": self.imps,
            "points": self.points,
        }

    @classmethod
    def from_json(cls, data: TeamStandingJson) -> TeamStanding:
        """Inverse of ``to_json``."""
        with reading("team standing"):
            return cls(
                str(data["rank"]),
                str(data["team"]),
                tuple(str(m) for m in data["members"]),
                tuple(str(b) for b in data["bots"]),
                int(data["stage"]),
                int(data["imps"]),
                int(data["points"]),
            )
