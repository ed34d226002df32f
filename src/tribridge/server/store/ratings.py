"""Ratings in the game store: migration 4 (rated games, ratings, each rating's history) and their SQL.

``rating_games`` holds every rated game in the order it was applied (``seq``), each once (``game_key``);
``ratings`` each entity's current rating; ``rating_history`` each entity's rating after each of its games
(the profile's graph). ``apply_game`` writes all three in one transaction (``apply_games`` a board's games of
an event in one), so the stored order is the order
of application and ``replace_ratings`` (``tribridge ratings rebuild``) recomputes the same numbers. Like
``store.accounts`` this module imports nothing of the store package.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol

from tribridge.server.accounts.ratings import Game, Rating

__all__ = ["SCHEMA_V4", "SCHEMA_V5", "Ratings", "RatingsCopy", "RatingsSql"]

SCHEMA_V4 = """
CREATE TABLE rating_games (
    seq INTEGER PRIMARY KEY,
    game_key TEXT NOT NULL UNIQUE,
    a TEXT NOT NULL,
    b TEXT NOT NULL,
    outcome {time} NOT NULL,
    played {time} NOT NULL
);
CREATE TABLE ratings (entity TEXT PRIMARY KEY, mu {time} NOT NULL, sigma {time} NOT NULL, games INTEGER NOT NULL);
CREATE TABLE rating_history (
    entity TEXT NOT NULL,
    seq INTEGER NOT NULL,
    mu {time} NOT NULL,
    sigma {time} NOT NULL,
    PRIMARY KEY (entity, seq)
);
"""

SCHEMA_V5 = """
CREATE INDEX rating_games_a ON rating_games (a, seq);
CREATE INDEX rating_games_b ON rating_games (b, seq);
"""


@dataclass(frozen=True)
class RatingsCopy:
    """Every row of the three ratings tables as ``store copy`` takes them: the games (number, key, the two entities,
    outcome, time applied), the current ratings, and each rating's history (entity, game number, mu, sigma)."""

    games: tuple[tuple[int, str, str, str, float, float], ...]
    ratings: tuple[tuple[str, float, float, int], ...]
    history: tuple[tuple[str, int, float, float], ...]

    def __bool__(self) -> bool:
        return bool(self.games or self.ratings or self.history)


class _Tx(Protocol):
    def execute(self, sql: str, params: Sequence[Any] = ()) -> Any: ...


class Ratings(Protocol):
    """Rated games and ratings (``RatingsSql`` for both backends)."""

    def apply_game(self, game: Game, update: Callable[[Rating, Rating], tuple[Rating, Rating]]) -> bool:
        """Record a game once and apply ``update`` to both ratings in the same transaction; False if known."""

    def apply_games(self, games: Sequence[Game], rate: Callable[[Game, Rating, Rating], tuple[Rating, Rating]]) -> int:
        """Record each new game of ``games`` once, in order, numbered one after another, applying ``rate`` to both
        ratings, all in one transaction; how many were new (the known ones are skipped)."""

    def rating_games(self) -> list[Game]:
        """Every rated game, in the order applied."""

    def ratings(self) -> dict[str, Rating]:
        """Every entity's current rating."""

    def games_of(self, entity: str, most: int) -> list[Game]:
        """The newest ``most`` rated games ``entity`` played, newest first."""

    def rating_history(self, entity: str) -> list[tuple[int, Rating]]:
        """An entity's rating after each of its games (the game's number, the rating), in order."""

    def replace_ratings(self, ratings: dict[str, Rating], history: list[tuple[str, int, Rating]]) -> None:
        """Replace every rating and the whole history (a rebuild)."""

    def forget_entity(self, entity: str, neutral: str) -> None:
        """A deleted account: its games, rating and history name ``neutral`` instead (a rebuild still gives everyone
        else the same numbers)."""

    def export_ratings(self) -> RatingsCopy:
        """Every rated game, rating and history row, in order (for ``import_ratings``)."""

    def import_ratings(self, copy: RatingsCopy) -> None:
        """Write the rows of ``export_ratings`` as they are, in one transaction (copying between stores)."""


def _rating(row: Any) -> Rating:
    return Rating(float(row[0]), float(row[1]), int(row[2]))


class RatingsSql:
    """``Ratings`` as SQL over the backend's ``transaction`` and ``is_duplicate`` (mixed into ``SqlStore``)."""

    def transaction(self) -> AbstractContextManager[_Tx]:
        """The backend's transaction."""
        raise NotImplementedError

    def is_duplicate(self, exc: Exception) -> bool:
        """Whether ``exc`` is a unique violation."""
        raise NotImplementedError

    def apply_game(self, game: Game, update: Callable[[Rating, Rating], tuple[Rating, Rating]]) -> bool:
        """Record a game once and apply ``update`` to both ratings in the same transaction; False if known."""
        return self.apply_games([game], lambda _game, a, b: update(a, b)) == 1

    def apply_games(self, games: Sequence[Game], rate: Callable[[Game, Rating, Rating], tuple[Rating, Rating]]) -> int:
        """Record each new game of ``games`` once, in order, numbered one after another, applying ``rate`` to both
        ratings, all in one transaction; how many were new (the known ones are skipped)."""
        for _attempt in range(5):  # two processes may take the same next number: the loser tries again
            try:
                with self.transaction() as tx:
                    return sum(self._apply(tx, game, rate) for game in games)
            except Exception as exc:
                if not self.is_duplicate(exc):
                    raise
        raise RuntimeError(f"could not number the rated games {games[0].key}...")

    def _apply(self, tx: _Tx, game: Game, rate: Callable[[Game, Rating, Rating], tuple[Rating, Rating]]) -> bool:
        """One game inside the caller's transaction: numbered next, both ratings updated; False if known."""
        if tx.execute("SELECT 1 FROM rating_games WHERE game_key = ?", (game.key,)).fetchone():
            return False
        row = tx.execute("SELECT COALESCE(MAX(seq), 0) FROM rating_games").fetchone()
        seq = int(row[0]) + 1
        tx.execute(
            "INSERT INTO rating_games (seq, game_key, a, b, outcome, played) VALUES (?, ?, ?, ?, ?, ?)",
            (seq, game.key, game.a, game.b, game.outcome, time.time()),
        )
        before = []
        for entity in (game.a, game.b):
            found = tx.execute("SELECT mu, sigma, games FROM ratings WHERE entity = ?", (entity,)).fetchone()
            before.append(Rating() if found is None else _rating(found))
        for entity, after in zip((game.a, game.b), rate(game, before[0], before[1])):
            tx.execute(
                "INSERT INTO ratings (entity, mu, sigma, games) VALUES (?, ?, ?, ?) ON CONFLICT (entity) "
                "DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma, games = excluded.games",
                (entity, after.mu, after.sigma, after.games),
            )
            tx.execute(
                "INSERT INTO rating_history (entity, seq, mu, sigma) VALUES (?, ?, ?, ?)",
                (entity, seq, after.mu, after.sigma),
            )
        return True

    def rating_games(self) -> list[Game]:
        """Every rated game, in the order applied."""
        with self.transaction() as tx:
            rows = tx.execute("SELECT game_key, a, b, outcome FROM rating_games ORDER BY seq").fetchall()
        return [Game(str(k), str(a), str(b), float(o)) for k, a, b, o in rows]

    def games_of(self, entity: str, most: int) -> list[Game]:
        """The newest ``most`` rated games ``entity`` played, newest first."""
        with self.transaction() as tx:
            rows = tx.execute(
                "SELECT game_key, a, b, outcome FROM rating_games WHERE a = ? OR b = ? ORDER BY seq DESC LIMIT ?",
                (entity, entity, int(most)),
            ).fetchall()
        return [Game(str(k), str(a), str(b), float(o)) for k, a, b, o in rows]

    def ratings(self) -> dict[str, Rating]:
        """Every entity's current rating."""
        with self.transaction() as tx:
            rows = tx.execute("SELECT entity, mu, sigma, games FROM ratings").fetchall()
        return {str(r[0]): _rating(r[1:]) for r in rows}

    def rating_history(self, entity: str) -> list[tuple[int, Rating]]:
        """An entity's rating after each of its games (the game's number, the rating), in order."""
        with self.transaction() as tx:
            rows = tx.execute(
                "SELECT seq, mu, sigma FROM rating_history WHERE entity = ? ORDER BY seq", (entity,)
            ).fetchall()
        return [(int(s), Rating(float(m), float(g), n)) for n, (s, m, g) in enumerate(rows, start=1)]

    def replace_ratings(self, ratings: dict[str, Rating], history: list[tuple[str, int, Rating]]) -> None:
        """Replace every rating and the whole history (a rebuild)."""
        with self.transaction() as tx:
            tx.execute("DELETE FROM ratings")
            tx.execute("DELETE FROM rating_history")
            for entity, r in sorted(ratings.items()):
                tx.execute(
                    "INSERT INTO ratings (entity, mu, sigma, games) VALUES (?, ?, ?, ?)",
                    (entity, r.mu, r.sigma, r.games),
                )
            for entity, seq, r in history:
                tx.execute(
                    "INSERT INTO rating_history (entity, seq, mu, sigma) VALUES (?, ?, ?, ?)",
                    (entity, seq, r.mu, r.sigma),
                )

    def forget_entity(self, entity: str, neutral: str) -> None:
        """A deleted account: its games, rating and history name ``neutral`` instead (a rebuild still gives everyone
        else the same numbers)."""
        with self.transaction() as tx:
            tx.execute("UPDATE rating_games SET a = ? WHERE a = ?", (neutral, entity))
            tx.execute("UPDATE rating_games SET b = ? WHERE b = ?", (neutral, entity))
            tx.execute("UPDATE ratings SET entity = ? WHERE entity = ?", (neutral, entity))
            tx.execute("UPDATE rating_history SET entity = ? WHERE entity = ?", (neutral, entity))

    def export_ratings(self) -> RatingsCopy:
        """Every rated game, rating and history row, in order (for ``import_ratings``)."""
        with self.transaction() as tx:
            games = tx.execute("SELECT seq, game_key, a, b, outcome, played FROM rating_games ORDER BY seq").fetchall()
            ratings = tx.execute("SELECT entity, mu, sigma, games FROM ratings ORDER BY entity").fetchall()
            history = tx.execute("SELECT entity, seq, mu, sigma FROM rating_history ORDER BY entity, seq").fetchall()
        return RatingsCopy(
            tuple((int(q), str(k), str(a), str(b), float(o), float(p)) for q, k, a, b, o, p in games),
            tuple((str(e), float(m), float(s), int(n)) for e, m, s, n in ratings),
            tuple((str(e), int(q), float(m), float(s)) for e, q, m, s in history),
        )

    def import_ratings(self, copy: RatingsCopy) -> None:
        """Write the rows of ``export_ratings`` as they are, in one transaction (copying between stores)."""
        with self.transaction() as tx:
            for game in copy.games:
                tx.execute(
                    "INSERT INTO rating_games (seq, game_key, a, b, outcome, played) VALUES (?, ?, ?, ?, ?, ?)", game
                )
            for rating in copy.ratings:
                tx.execute("INSERT INTO ratings (entity, mu, sigma, games) VALUES (?, ?, ?, ?)", rating)
            for point in copy.history:
                tx.execute("INSERT INTO rating_history (entity, seq, mu, sigma) VALUES (?, ?, ?, ?)", point)
