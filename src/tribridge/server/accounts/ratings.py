"""Ratings: openskill's Plackett-Luce model over pairwise games, one bot held fixed as the anchor (pure code).

A rated game is two entities (``acct:<id>`` or ``bot:<name>``) and an outcome for the first: 1 a win, 0.5
a tie, 0 a loss. At a table of one account and two bots, each finished deal is two games: the person's
deal score against each bot's (a higher score wins). In a duplicate event, two accounts' results in the same
chair of a board are a game too, won by the better matchpoints (``duplicate_games``). Every game updates both
ratings at once
(``update``); the anchor bot (``ANCHOR``) never moves, so the numbers keep their meaning over time.
``replay`` recomputes every rating from the games in their order: what ``tribridge ratings rebuild`` does,
and equal to the ratings kept game by game. A rating is shown as ``mu`` with its uncertainty ``sigma``;
the leaderboard orders by the conservative ``mu - 3 sigma``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from openskill.models import PlackettLuce

from tribridge.events.results import Traveller
from tribridge.events.scoring import matchpoints
from tribridge.server.tables.wire_view import ChairJson, DealRecordJson

__all__ = [
    "ANCHOR",
    "FIELD_OPPONENTS",
    "MODEL",
    "Game",
    "HeadToHead",
    "Rating",
    "bot_table_games",
    "duplicate_games",
    "field_pairs",
    "head_to_head",
    "rating_svg",
    "replay",
    "update",
]

MODEL = PlackettLuce()
ANCHOR = "bot:paper"  # held fixed at the model's starting rating
FIELD_OPPONENTS = 22  # the most other results of a chair one result is rated against (the work stays bounded)


@dataclass(frozen=True)
class Rating:
    """One entity's rating: ``mu``, its uncertainty ``sigma``, and the games it has."""

    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    games: int = 0

    @property
    def conservative(self) -> float:
        """``mu - 3 sigma``: the leaderboard's order (a new player starts at 0)."""
        return self.mu - 3 * self.sigma


@dataclass(frozen=True)
class Game:
    """A pairwise rated game: ``a`` against ``b``, ``outcome`` for ``a`` (1 win, 0.5 tie, 0 loss), its unique key."""

    key: str
    a: str
    b: str
    outcome: float


def update(a: Rating, b: Rating, outcome: float, a_fixed: bool = False, b_fixed: bool = False) -> tuple[Rating, Rating]:
    """Both ratings after one game (a fixed one, the anchor, keeps its numbers but counts the game)."""
    ranks: list[float] = [1.0, 2.0] if outcome > 0.5 else ([1.0, 1.0] if outcome == 0.5 else [2.0, 1.0])
    one, two = MODEL.rating(mu=a.mu, sigma=a.sigma), MODEL.rating(mu=b.mu, sigma=b.sigma)
    (new_a,), (new_b,) = MODEL.rate([[one], [two]], ranks=ranks)
    after_a = a if a_fixed else Rating(new_a.mu, new_a.sigma, a.games)
    after_b = b if b_fixed else Rating(new_b.mu, new_b.sigma, b.games)
    return Rating(after_a.mu, after_a.sigma, a.games + 1), Rating(after_b.mu, after_b.sigma, b.games + 1)


def replay(games: Iterable[Game]) -> tuple[dict[str, Rating], list[tuple[str, int, Rating]]]:
    """Every rating from the games in order, and each entity's rating after each of its games (entity, game index)."""
    ratings: dict[str, Rating] = {}
    history: list[tuple[str, int, Rating]] = []
    for n, game in enumerate(games, start=1):
        a, b = update(
            ratings.get(game.a, Rating()),
            ratings.get(game.b, Rating()),
            game.outcome,
            game.a == ANCHOR,
            game.b == ANCHOR,
        )
        ratings[game.a], ratings[game.b] = a, b
        history += [(game.a, n, a), (game.b, n, b)]
    return ratings, history


def bot_table_games(
    table_id: str, record: DealRecordJson, chair: int, entity: str, chairs: list[ChairJson]
) -> list[Game]:
    """The games of one finished deal at a table where ``entity`` holds ``chair`` and the other chairs are bots."""
    scores = record["scores"]["per_chair"]
    games = []
    for other, seat in enumerate(chairs):
        if other == chair or seat.get("kind") != "bot":
            continue
        mine, theirs = scores[chair], scores[other]
        outcome = 1.0 if mine > theirs else (0.5 if mine == theirs else 0.0)
        key = f"{table_id}:{record['deal_no']}:{chair}:{other}"
        games.append(Game(key, entity, f"bot:{seat.get('bot', 'bot')}", outcome))
    return games


def field_pairs(count: int, most: int = FIELD_OPPONENTS) -> Iterator[tuple[int, int]]:
    """The pairs (i, j) of ``count`` results that are rated: every pair when each has at most ``most`` others, else
    each result with the ``most // 2`` after it, round the circle (so each meets ``most`` others)."""
    if count - 1 <= most:
        yield from ((i, j) for i in range(count) for j in range(i + 1, count))
        return
    for i in range(count):
        for step in range(1, most // 2 + 1):
            yield i, (i + step) % count


def duplicate_games(prefix: str, traveller: Traveller, entity_of: Callable[[str], str | None]) -> list[Game]:
    """The games of a board's scored traveller: in each chair, each pair of rated results (``field_pairs``, in the
    traveller's order) is a win, tie or loss by their matchpoints against each other (``events.scoring``);
    ``entity_of`` names a player's rating entity (None: not rated). Keys start with ``prefix`` and name the two
    results by their places in the traveller (a closed event's travellers do not change)."""
    games = []
    for chair in range(3):
        rated = []  # (table's place in the traveller, entity, score): the place names the game, not the account
        for place, result in enumerate(traveller.results):
            entity = entity_of(result.players[chair])
            if entity is not None:
                rated.append((place, entity, result.scores[chair]))
        for i, j in field_pairs(len(rated)):
            (place_a, a, score_a), (place_b, b, score_b) = rated[i], rated[j]
            if a == b:  # one entity twice in a field (never in a movement): no game against itself
                continue
            mine, _theirs = matchpoints([score_a, score_b])
            key = f"{prefix}:{traveller.section}:{traveller.board.number}:{chair}:{place_a}:{place_b}"
            games.append(Game(key, a, b, mine / 2))
    return games


@dataclass(frozen=True)
class HeadToHead:
    """One entity's record against one opponent over their rated games: wins, ties and losses."""

    opponent: str
    wins: int
    ties: int
    losses: int


def head_to_head(entity: str, games: Iterable[Game]) -> list[HeadToHead]:
    """``entity``'s record against each opponent it met in ``games`` (from its side), most games first."""
    tally: dict[str, list[int]] = {}
    for game in games:
        if entity not in (game.a, game.b) or game.a == game.b:
            continue
        opponent, mine = (game.b, game.outcome) if game.a == entity else (game.a, 1.0 - game.outcome)
        counts = tally.setdefault(opponent, [0, 0, 0])
        counts[0 if mine > 0.5 else 1 if mine == 0.5 else 2] += 1
    records = [HeadToHead(opponent, *counts) for opponent, counts in tally.items()]
    return sorted(records, key=lambda r: (-(r.wins + r.ties + r.losses), r.opponent))


def rating_svg(points: list[Rating], width: int = 480, height: int = 160) -> str:
    """The rating graph as an SVG picture: ``mu`` after each game, with a band of +-2 sigma."""
    pad = 24
    if not points:
        points = [Rating()]
    lows = [p.mu - 2 * p.sigma for p in points]
    highs = [p.mu + 2 * p.sigma for p in points]
    bottom, top = min(lows), max(highs)
    span = (top - bottom) or 1.0
    step = (width - 2 * pad) / max(1, len(points) - 1)

    def xy(n: int, value: float) -> str:
        return f"{pad + n * step:.1f},{height - pad - (value - bottom) / span * (height - 2 * pad):.1f}"

    line = " ".join(xy(n, p.mu) for n, p in enumerate(points))
    band = " ".join([xy(n, v) for n, v in enumerate(highs)] + [xy(n, v) for n, v in reversed(list(enumerate(lows)))])
    last = points[-1]
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="rating after each game">'
        f'<rect width="{width}" height="{height}" fill="#fff"/>'
        f'<polygon points="{band}" fill="#cde" stroke="none"/>'
        f'<polyline points="{line}" fill="none" stroke="#135" stroke-width="2"/>'
        f'<text x="{pad}" y="16" font-size="12" font-family="sans-serif">'
        f"{last.mu:.1f} \u00b1 {2 * last.sigma:.1f} after {len(points) - 1 if last.games else 0} games</text>"
        "</svg>"
    )
