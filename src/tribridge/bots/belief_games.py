"""Games for the belief model: deals bid and played by a mix of our bidders and cheap card players.

Each game is recorded as plain data (:class:`GameRecord`: the deal as dealt, the dealer, the
calls, the cards played, and which bidder sat in each chair and which player at each play seat),
so positions can be cut from it and featurized again when the features change. Game ``i`` of a
run with seed ``s`` is dealt from the stream ``(s, i)`` and its bots are drawn from the stream
``(s, i, 1)`` (``dealing.streams``), so a run never depends on how work is split.

Positions (:func:`game_views`) are the views of each of the three players at a few moments:
the auction's end (before the opening lead, nobody sees the widow yet) and after given numbers of
cards played; with each comes the true play seat of every card.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from tribridge.bots import get_bidder, get_player
from tribridge.cards import Deal, Seat, random_deal
from tribridge.dealing.streams import random_stream
from tribridge.errors import InvalidInput
from tribridge.rules.deal import DealState, replay
from tribridge.rules.game import bid_to_end, play_to_end
from tribridge.rules.view import SeatView

__all__ = [
    "BIDDER_MIX",
    "PLAYER_MIX",
    "SNAPSHOTS",
    "GameRecord",
    "game_views",
    "generate_games",
    "load_games",
    "play_recorded_game",
    "save_games",
]

# Bidder in each chair, drawn independently with these weights (random stands in for people who bid as they like).
BIDDER_MIX: tuple[tuple[str, float], ...] = (("simulation", 0.4), ("paper", 0.3), ("estimate", 0.15), ("random", 0.15))
# Card player at each of the three players' play seats: double dummy, or a cheap PIMC (4 layouts; 2 in trick one).
PLAYER_MIX: tuple[tuple[str, float], ...] = (("dd", 0.5), ("pimc-lite", 0.5))
PIMC_LITE = {"layouts": 4, "early_layouts": (2,)}
# Cards played at the moments positions are taken (0: the auction's end, before the opening lead).
SNAPSHOTS: tuple[int, ...] = (0, 1, 3, 6, 10, 15, 21, 28, 36, 44)


@dataclass(frozen=True)
class GameRecord:
    """One game as plain data: deal (PBN, dealing seats), dealer, calls, cards played, the bots used."""

    index: int
    deal: str
    dealer: int
    calls: tuple[str, ...]
    cards: tuple[str, ...]
    bidders: tuple[str, ...]  # per dealing seat (the widow's entry is "")
    players: tuple[str, ...]  # per play seat ("" for dummy and for a passed-out deal)

    @property
    def passed_out(self) -> bool:
        """Whether nobody bid (no play)."""
        return not self.cards


def _draw(rng: np.random.Generator, mix: Sequence[tuple[str, float]]) -> str:
    """One name from a weighted mix."""
    names = [n for n, _ in mix]
    weights = np.array([w for _, w in mix], dtype=float)
    return names[int(rng.choice(len(names), p=weights / weights.sum()))]


def _player(name: str) -> Any:
    """A card player by mix name."""
    return get_player("pimc", **PIMC_LITE) if name == "pimc-lite" else get_player(name)


def play_recorded_game(seed: int, index: int) -> GameRecord:
    """Deal, bid and play game ``index`` of the run ``seed`` (bots drawn from the mixes) and record it."""
    deal = random_deal(random_stream(seed, index))
    dealer = index % 4
    rng = random_stream(seed, index, 1)
    state = DealState.start(deal, dealer)
    bidder_names = {int(p): _draw(rng, BIDDER_MIX) for p in state.players}
    bidders = {p: get_bidder(n) for p, n in bidder_names.items()}
    state = bid_to_end(state, {Seat(p): bidder.bid for p, bidder in bidders.items()})
    calls = tuple(str(c) for c in state.auction.calls)
    per_dealing = tuple(bidder_names.get(s, "") for s in range(4))
    if state.play is None or state.contract is None:
        return GameRecord(index, deal.to_pbn(), dealer, calls, (), per_dealing, ("", "", "", ""))
    dummy = int(state.contract.declarer) ^ 2
    player_names = {s: _draw(rng, PLAYER_MIX) for s in range(4) if s != dummy}
    by_player = {p: _player(player_names[int(state.seat_of(p))]) for p in state.players}
    state = play_to_end(state, by_player)
    assert state.play is not None
    cards = tuple(str(card) for card in state.play.played)
    names = tuple(player_names.get(s, "") for s in range(4))
    return GameRecord(index, deal.to_pbn(), dealer, calls, cards, per_dealing, names)


def _game_job(args: tuple[int, int]) -> GameRecord:
    return play_recorded_game(*args)


def generate_games(
    deals: int,
    seed: int,
    workers: int = 1,
    first: int = 0,
    on_progress: Callable[[int], None] | None = None,
) -> list[GameRecord]:
    """Games ``first .. first+deals-1`` of the run ``seed``; ``workers`` processes (1 = here)."""
    if deals < 1:
        raise InvalidInput("deals", f"expected at least one deal, got {deals}")
    if workers < 1:
        raise InvalidInput("workers", f"expected at least one worker, got {workers}")
    jobs = [(int(seed), i) for i in range(first, first + deals)]
    out: list[GameRecord] = []
    if workers == 1:
        for job in jobs:
            out.append(_game_job(job))
            if on_progress:
                on_progress(1)
        return out
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
        for record in pool.map(_game_job, jobs, chunksize=2):
            out.append(record)
            if on_progress:
                on_progress(1)
    return out


def save_games(records: Sequence[GameRecord], path: str | Path) -> None:
    """Write games as JSON lines."""
    with open(path, "w") as fh:
        for r in records:
            fh.write(json.dumps(asdict(r)) + "\n")


def load_games(path: str | Path) -> list[GameRecord]:
    """Read games written by :func:`save_games`."""
    out = []
    with open(path) as fh:
        for n, line in enumerate(fh):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
                out.append(
                    GameRecord(
                        int(d["index"]),
                        str(d["deal"]),
                        int(d["dealer"]),
                        tuple(d["calls"]),
                        tuple(d["cards"]),
                        tuple(d["bidders"]),
                        tuple(d["players"]),
                    )
                )
            except (KeyError, TypeError, ValueError) as exc:
                raise InvalidInput("games", f"line {n + 1} of {path} is not a game record: {exc}") from None
    return out


def game_views(record: GameRecord, snapshots: Sequence[int] = SNAPSHOTS) -> Iterator[tuple[SeatView, np.ndarray]]:
    """Each player's view at each snapshot of a played game, with the true play-seat owner of every card."""
    if record.passed_out:
        return
    deal = Deal.from_pbn(record.deal)
    for t in snapshots:
        if t >= len(record.cards):
            break
        state = replay(deal, record.dealer, record.calls, record.cards[:t])
        assert state.play is not None
        owners = state.play.deal.to_owners()
        for player in state.players:
            yield state.view(player), owners
