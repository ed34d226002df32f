"""Bot matches: every deal played with all six assignments of three bots to the three bidding chairs.

Positions are the three bidders in calling order from the dealer (0 = dealer, 1 = dealer's LHO,
2 = dealer's RHO; the widow never bids). The six assignments form two *rotation sets*: the three
cyclic shifts of (A, B, C) and the three of (A, C, B); within each set every bot holds every
position's cards exactly once, so luck of the cards cancels. A bot's score on a deal is its mean
over the six assignments; the match reports the mean of that over the deals with a 95 %
confidence interval (normal approximation, deals independent), how often it declared, made %,
and the tricks its declarer play lost against double dummy at the start of play.

Deal ``i`` is drawn from the stream ``(seed, i)`` (``dealing.streams``), so the results do not depend on the number
of worker processes.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from multiprocessing import get_context
from typing import Any

import numpy as np

from tribridge.bots import bot_parts, get_bot
from tribridge.cards import Deal, Seat, random_deal
from tribridge.dd import dd_declarer_tricks
from tribridge.dealing.streams import random_stream
from tribridge.errors import InvalidInput
from tribridge.rules.deal import DealState
from tribridge.rules.game import bid_to_end, play_to_end
from tribridge.rules.scoring import get_scheme, score_deal

ROTATION_SETS: tuple[tuple[tuple[int, int, int], ...], ...] = (
    ((0, 1, 2), (1, 2, 0), (2, 0, 1)),
    ((0, 2, 1), (2, 1, 0), (1, 0, 2)),
)
"""``assignment[position] = bot index``; two sets of three cyclic rotations, six assignments in all."""


def assignments() -> list[tuple[int, int, int]]:
    """The six assignments of bots to positions, rotation set by rotation set."""
    return [a for rotation_set in ROTATION_SETS for a in rotation_set]


@dataclass
class GameResult:
    """One deal played under one assignment."""

    assignment: tuple[int, int, int]
    contract: str | None
    declarer_bot: int | None
    declarer_tricks: int | None
    dd_tricks: int | None
    made: bool | None
    bot_scores: tuple[int, int, int]  # score of bot 0, 1, 2 on this game
    calls: tuple[str, ...] = ()


_BOT_CACHE: dict[str, list[Any]] = {}


def _bots(names: Sequence[str], options: dict[str, dict] | None = None) -> list[Any]:
    """The bots of a match (built once per process); ``options[name]`` may hold ``bidder``/``player`` kwargs."""
    options = options or {}
    key = repr((tuple(names), sorted((k, sorted(v.items())) for k, v in options.items())))
    if key not in _BOT_CACHE:
        _BOT_CACHE[key] = [
            get_bot(n, options.get(n, {}).get("bidder"), options.get(n, {}).get("player")) for n in names
        ]
    return _BOT_CACHE[key]


def _dd_start(play_deal_obj: Deal, declarer: int, denom: int) -> int:
    """Double-dummy tricks of the declarer at the start of play."""
    return int(dd_declarer_tricks(play_deal_obj.to_owners()[None, :], declarer, denom, cache=False, workers=1)[0])


def play_game(
    deal: Deal,
    dealer: int,
    bots: Sequence[Any],
    assignment: tuple[int, int, int],
    scheme: str,
    dd_cache: dict | None = None,
) -> GameResult:
    """Bid and play one deal with ``bots[assignment[p]]`` at position p; scores per bot."""
    state = DealState.start(deal, dealer)
    seat_bot = {int(seat): assignment[p] for p, seat in enumerate(state.players)}
    state = bid_to_end(state, {Seat(seat): bots[bot].bid for seat, bot in seat_bot.items()})
    calls = tuple(str(c) for c in state.auction.calls)
    contract = state.contract
    if contract is None or state.play is None:
        return GameResult(assignment, None, None, None, None, None, (0, 0, 0), calls)
    declarer = int(contract.declarer)
    key = (declarer, int(contract.denom))
    if dd_cache is not None and key in dd_cache:
        dd_tricks = dd_cache[key]
    else:
        dd_tricks = _dd_start(state.play.deal, declarer, int(contract.denom))
        if dd_cache is not None:
            dd_cache[key] = dd_tricks
    player_at_play_seat = {int(play): int(dealt) for dealt, play in state.seats.items()}
    players = {s: bots[b].player for s, b in seat_bot.items()}
    # The play depends only on the auction and on which player sits where; deterministic players
    # with equal cache keys replay identically, so a rotation that repeats an auction reuses the play.
    play_key = _play_cache_key(calls, player_at_play_seat, players)
    if all(getattr(p, "sees_all", False) for p in players.values()):
        tricks = dd_tricks  # every seat plays double dummy: the result is the double-dummy value
    elif dd_cache is not None and play_key is not None and play_key in dd_cache:
        tricks = dd_cache[play_key]
    else:
        tricks = int(play_to_end(state, {Seat(s): p for s, p in players.items()}).declarer_tricks)
        if dd_cache is not None and play_key is not None:
            dd_cache[play_key] = tricks
    score = score_deal(contract, tricks, scheme)
    per_seat = {
        declarer: score.declarer,
        player_at_play_seat[(declarer + 1) % 4]: score.defenders[0],
        player_at_play_seat[(declarer + 3) % 4]: score.defenders[1],
    }
    bot_scores = [0, 0, 0]
    for seat, bot in seat_bot.items():
        bot_scores[bot] += int(per_seat.get(seat, 0))
    return GameResult(
        assignment,
        str(contract),
        seat_bot[declarer],
        tricks,
        dd_tricks,
        bool(tricks >= contract.tricks_needed),
        (bot_scores[0], bot_scores[1], bot_scores[2]),
        calls,
    )


def _play_cache_key(
    calls: tuple[str, ...], player_at_play_seat: dict[int, int], players: dict[int, Any]
) -> tuple | None:
    """Key of a game's card play: the calls and each play seat's player configuration (None: not cacheable)."""
    keys: list[Any] = []
    for play_seat in range(4):
        person = player_at_play_seat.get(play_seat)
        if person not in players:
            keys.append(None)  # dummy: played by the declarer's player
            continue
        key_fn = getattr(players[person], "cache_key", None)
        if key_fn is None:
            return None
        keys.append(key_fn())
    return ("play", calls, tuple(keys))


def deal_for(seed: int, index: int, n_deals: int) -> tuple[Deal, int]:
    """Deal ``index`` of a match and its dealer (seat ``index % 4``)."""
    return random_deal(random_stream(seed, index)), index % 4


def _run_deal(args: tuple) -> list[GameResult]:
    """(names, seed, index, n_deals, scheme, options[, (PBN deal, dealer) to play instead of the seeded one])."""
    names, seed, index, n_deals, scheme, options, *rest = args
    given = rest[0] if rest else None
    deal, dealer = deal_for(seed, index, n_deals) if given is None else (Deal.from_pbn(given[0]), given[1])
    bots = _bots(names, options)
    cache: dict = {}
    configs = [repr((n, sorted((options or {}).get(n, {}).items()))) for n in names]
    played: dict[tuple[str, ...], GameResult] = {}
    out = []
    for a in assignments():
        # bots are deterministic, so two assignments that seat the same configurations in the same
        # chairs (e.g. A,B,B against A,B,B swapped) play the very same game: play it once
        key = tuple(configs[b] for b in a)
        if key in played:
            out.append(relabel(played[key], a))
        else:
            played[key] = play_game(deal, dealer, bots, a, scheme, cache)
            out.append(played[key])
    return out


def relabel(game: GameResult, assignment: tuple[int, int, int]) -> GameResult:
    """The same game credited to ``assignment``, whose chairs hold bots configured like ``game``'s."""
    scores = [0, 0, 0]
    declarer_bot = None
    for position, bot in enumerate(assignment):
        old = game.assignment[position]
        scores[bot] = game.bot_scores[old]
        if game.declarer_bot == old:
            declarer_bot = bot
    return replace(game, assignment=assignment, declarer_bot=declarer_bot, bot_scores=(scores[0], scores[1], scores[2]))


@dataclass
class BotSummary:
    """One bot's line in the match table."""

    name: str
    mean_score: float
    ci95: float
    declared: int
    made: int
    dd_loss_sum: int
    dd_loss_n: int
    contracts: Counter = field(default_factory=Counter)

    @property
    def made_pct(self) -> float | None:
        """Share of its contracts made, in percent."""
        return 100.0 * self.made / self.declared if self.declared else None

    @property
    def tricks_lost_vs_dd(self) -> float | None:
        """Mean double-dummy tricks minus tricks taken, over the deals it declared."""
        return self.dd_loss_sum / self.dd_loss_n if self.dd_loss_n else None

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return {
            "bot": self.name,
            "mean_score": self.mean_score,
            "ci95": self.ci95,
            "declared": self.declared,
            "made": self.made,
            "made_pct": self.made_pct,
            "tricks_lost_vs_dd": self.tricks_lost_vs_dd,
            "top_contracts": dict(self.contracts.most_common(8)),
        }


@dataclass
class MatchResult:
    """Everything a match measured."""

    bots: tuple[str, ...]
    deals: int
    seed: int
    scheme: str
    summaries: list[BotSummary]
    passed_out: int
    games: int
    per_deal: np.ndarray  # float[deals, 3]: each bot's mean score per deal

    def margins(self) -> list[tuple[float, float]]:
        """Each bot's paired margin: per deal, its mean score minus the other two bots' mean; (mean, 95 % CI ±)."""
        out = []
        for b in range(3):
            diff = self.per_deal[:, b] - np.delete(self.per_deal, b, axis=1).mean(axis=1)
            n = len(diff)
            ci = float(1.96 * diff.std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
            out.append((float(diff.mean()) if n else 0.0, ci))
        return out

    def to_json(self, labels: Sequence[str] | None = None) -> dict[str, object]:
        """A JSON-ready dict; ``labels`` (one per bot, as the table shows them) adds a ``label`` to each summary."""
        summary = [
            {**s.to_json(), "margin_vs_others": m, "margin_ci95": ci}
            for s, (m, ci) in zip(self.summaries, self.margins())
        ]
        if labels is not None:
            for row, label in zip(summary, labels):
                row["label"] = label
        return {
            "bots": list(self.bots),
            "deals": self.deals,
            "games": self.games,
            "seed": self.seed,
            "scheme": self.scheme,
            "passed_out": self.passed_out,
            "summary": summary,
        }


def summarise(names: Sequence[str], results: list[list[GameResult]], seed: int, scheme: str) -> MatchResult:
    """Aggregate per-deal game results into the match table."""
    n = len(results)
    per_deal = np.zeros((n, 3))
    summaries = [BotSummary(name, 0.0, 0.0, 0, 0, 0, 0) for name in names]
    passed_out = 0
    games = 0
    for i, deal_games in enumerate(results):
        for g in deal_games:
            games += 1
            per_deal[i] += g.bot_scores
            if g.contract is None:
                passed_out += 1
                continue
            s = summaries[g.declarer_bot]  # type: ignore[index]
            s.declared += 1
            s.made += int(bool(g.made))
            s.contracts[g.contract] += 1
            if g.dd_tricks is not None and g.declarer_tricks is not None:
                s.dd_loss_sum += g.dd_tricks - g.declarer_tricks
                s.dd_loss_n += 1
        per_deal[i] /= max(1, len(deal_games))
    for b, s in enumerate(summaries):
        s.mean_score = float(per_deal[:, b].mean()) if n else 0.0
        s.ci95 = float(1.96 * per_deal[:, b].std(ddof=1) / math.sqrt(n)) if n > 1 else float("nan")
    return MatchResult(tuple(names), n, seed, scheme, summaries, passed_out, games, per_deal)


def run_match(
    names: Sequence[str],
    deals: int,
    seed: int,
    scheme: str = "classic",
    workers: int = 1,
    on_progress: Callable[[int], None] | None = None,
    options: dict[str, dict] | None = None,
    given_deals: Sequence[tuple[Deal, Seat | int]] | None = None,
    done: dict[int, list[GameResult]] | None = None,
    on_deal: Callable[[int, list[GameResult]], None] | None = None,
) -> MatchResult:
    """Play ``deals`` deals × 6 assignments; ``workers`` processes (1 = in this process).

    ``options`` maps a bot name to ``{"bidder": {...}, "player": {...}}`` keyword arguments.
    ``given_deals`` (deal as dealt, dealer) replaces the seeded deals: the first ``deals`` of them are played.
    ``done`` holds deals already played (by index; a match log), which are not played again;
    ``on_deal(index, games)`` is called as each newly played deal finishes, in index order.
    """

    names = tuple(str(n).strip().lower() for n in names)
    if len(names) != 3:
        raise InvalidInput("bots", f"expected three bots A,B,C, got {len(names)}")
    for n in names:
        bot_parts(n)
    if deals < 1:
        raise InvalidInput("deals", f"expected at least one deal, got {deals}")
    if workers < 1:
        raise InvalidInput("workers", f"expected at least one worker, got {workers}")
    get_scheme(scheme)
    if given_deals is not None and len(given_deals) < deals:
        raise InvalidInput("deals", f"only {len(given_deals)} deals were given, not {deals}")
    given = [None] * deals if given_deals is None else [(d.to_pbn(), int(s)) for d, s in given_deals[:deals]]
    played = {i: games for i, games in (done or {}).items() if 0 <= i < deals}
    todo = [i for i in range(deals) if i not in played]
    tasks = [(names, int(seed), i, int(deals), scheme, options, given[i]) for i in todo]
    if on_progress and played:
        on_progress(len(played))

    def finished(index: int, games: list[GameResult]) -> None:
        played[index] = games
        if on_deal:
            on_deal(index, games)
        if on_progress:
            on_progress(1)

    if workers == 1 or not tasks:
        for index, t in zip(todo, tasks):
            finished(index, _run_deal(t))
    else:
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn")) as pool:
            for index, games in zip(todo, pool.map(_run_deal, tasks)):
                finished(index, games)
    return summarise(names, [played[i] for i in range(deals)], seed, scheme)
