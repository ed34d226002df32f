"""What a call shows, measured from the bidder's own policy: the hands that make it at this point of the auction.

Everyone at the table knows the auction and nothing of a bidder's cards, so the meaning of a call is a
property of the public position alone: sample hands for the calling seat uniformly from the whole pack,
keep those that would have made every earlier call of that seat in this auction (its own policy run at each
of its earlier turns), run the bidder at this turn, and describe the hands that make each call: a point
range (high-card points, A 4 K 3 Q 2 J 1) and suit lengths that hold *together* for a stated share of them.
A feature is stated only when it tells something: at most three quarters (points) or half (a suit length) of
all the hands sampled at this turn have it, so a call any hand makes "shows nothing". The
other players' calls are not used to condition the sample (their policies are not this bidder's).

Pure: the sample comes from the project's seed helper (``position_seed`` and ``random_stream``) keyed by
the position and ``seed``, so the text is the same on every run; the bidder sees only the sampled hand and
the auction, never a card of the deal being played. ``position_meanings`` is cached per position (bounded
LRU); the sample is bounded by ``runs``, the number of times the bidder is asked.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from tribridge.bots import get_bidder, plugins
from tribridge.bots.belief import position_seed
from tribridge.bots.protocols import Bidder
from tribridge.cards import Hand, Seat
from tribridge.dealing.streams import random_stream
from tribridge.errors import InvalidInput
from tribridge.rules.auction import AuctionState, Call
from tribridge.rules.view import bidding_view

__all__ = [
    "CACHE_SIZE",
    "RUNS",
    "SHARE",
    "CallMeaning",
    "HandStats",
    "RUNS_BY_BIDDER",
    "cache_clear",
    "cache_info",
    "calling_seat",
    "registry_bidder",
    "runs_for",
    "PositionMeanings",
    "describe",
    "hand_stats",
    "meaning_of",
    "position_meanings",
    "sample_position",
]

SHARE = 0.8  # the share of the hands that make a call for which the description must hold
RUNS = 600  # bidder runs per position (the sample budget), earlier turns of the seat included
CACHE_SIZE = 256  # positions kept
# A feature is stated only when at most this share of all the hands sampled at this turn have it too.
POINTS_TELL, SUIT_TELL = 0.75, 0.5
SUIT_WORDS = ("clubs", "diamonds", "hearts", "spades")  # suit 0..3 as cards.py numbers them
_HCP = np.array([4, 3, 2, 1] + [0] * 9)  # rank index 0 = ace, as cards.py numbers ranks within a suit


@dataclass(frozen=True)
class HandStats:
    """Points and suit lengths of sampled hands: ``points int[n]``, ``lengths int[n, 4]`` (♣ ♦ ♥ ♠)."""

    points: np.ndarray
    lengths: np.ndarray

    def __len__(self) -> int:
        return len(self.points)

    def rows(self, keep: np.ndarray) -> HandStats:
        """The hands where ``keep`` (bool[n]) holds."""
        return HandStats(self.points[keep], self.lengths[keep])


@dataclass(frozen=True)
class CallMeaning:
    """What a call shows: its features, the share of the hands making it that have them all, and in words.

    ``points`` is (low, high) or None when not stated; ``suits`` are (suit, low, high) with low/high None when
    open; ``holds`` is the share of the ``hands`` that make the call (of ``sampled`` at this turn) for which
    every stated feature holds.
    """

    call: str
    points: tuple[int, int] | None
    suits: tuple[tuple[int, int | None, int | None], ...]
    holds: float
    hands: int
    sampled: int
    text: str

    def fits(self, stats: HandStats) -> np.ndarray:
        """bool[n]: which hands have every stated feature."""
        ok = np.ones(len(stats), dtype=bool)
        if self.points is not None:
            ok &= (stats.points >= self.points[0]) & (stats.points <= self.points[1])
        for suit, low, high in self.suits:
            if low is not None:
                ok &= stats.lengths[:, suit] >= low
            if high is not None:
                ok &= stats.lengths[:, suit] <= high
        return ok


@dataclass(frozen=True)
class PositionMeanings:
    """The sampled hands of one position (``hands`` int[n, 13] card indices), their stats, the call each made."""

    hands: np.ndarray
    stats: HandStats
    calls: tuple[str, ...]
    runs: int

    def of(self, call: str) -> CallMeaning:
        """The meaning of ``call`` here."""
        keep = np.array([c == call for c in self.calls], dtype=bool)
        return describe(call, self.stats.rows(keep), self.stats)


def hand_stats(hands: np.ndarray) -> HandStats:
    """Stats of ``int[n, 13]`` card indices (card = 13·suit + rank index)."""
    hands = np.asarray(hands, dtype=np.int64).reshape(-1, 13)
    suits, ranks = hands // 13, hands % 13
    lengths = np.stack([(suits == s).sum(axis=1) for s in range(4)], axis=1)
    return HandStats(_HCP[ranks].sum(axis=1), lengths)


def _shortest_interval(values: np.ndarray, need: int) -> tuple[int, int]:
    """The narrowest [low, high] holding at least ``need`` of ``values`` (the lowest such on ties)."""
    v = np.sort(values)
    widths = v[need - 1 :] - v[: len(v) - need + 1]
    i = int(np.argmin(widths))
    return int(v[i]), int(v[i + need - 1])


def _features(
    stats: HandStats, level: float, prior: HandStats
) -> tuple[tuple[int, int] | None, tuple[tuple[int, int | None, int | None], ...]]:
    """Features that each hold for ``level`` of ``stats`` and that few enough of the ``prior`` hands have."""
    need = max(1, math.ceil(level * len(stats)))
    low_p, high_p = _shortest_interval(stats.points, need)
    points: tuple[int, int] | None = (low_p, high_p)
    if float(((prior.points >= low_p) & (prior.points <= high_p)).mean()) > POINTS_TELL:
        points = None
    suits = []
    for suit in range(4):
        col, prior_col = np.sort(stats.lengths[:, suit]), prior.lengths[:, suit]
        low, high = int(col[len(col) - need]), int(col[need - 1])  # >= low and <= high for ``need`` hands each
        shown_low = low if float((prior_col >= low).mean()) <= SUIT_TELL else None
        shown_high = high if float((prior_col <= high).mean()) <= SUIT_TELL else None
        if shown_low is not None or shown_high is not None:
            suits.append((suit, shown_low, shown_high))
    return points, tuple(suits)


def describe(call: str, made: HandStats, prior: HandStats, share: float = SHARE) -> CallMeaning:
    """The features the hands that ``made`` the call have together for at least ``share`` of them.

    Each feature is first taken at ``share`` of the hands; while their conjunction holds for fewer, every
    feature is widened (the level rises halfway to 1), so the loop ends by 1 at the latest, where every
    feature is the whole range.
    """
    if len(made) == 0:
        text = f"No hand of the {len(prior)} sampled here makes this call: it is rare for this bot here."
        return CallMeaning(call, None, (), 0.0, 0, len(prior), text)
    level = share
    while True:
        points, suits = _features(made, level, prior)
        meaning = CallMeaning(call, points, suits, 0.0, len(made), len(prior), "")
        holds = float(meaning.fits(made).mean())
        if holds >= share or level >= 1.0:
            break
        level = 1.0 if level > 0.999 else (level + 1.0) / 2
    return CallMeaning(
        call, points, suits, holds, len(made), len(prior), _words(points, suits, holds, len(made), len(prior))
    )


def _suit_words(suit: int, low: int | None, high: int | None) -> str:
    name = SUIT_WORDS[suit]
    if low is not None and high is not None:
        return f"{low}–{high} {name}" if low != high else f"{low} {name}"
    if low is not None:
        return f"{low}+ {name}"
    return f"at most {high} {name}" if high else f"no {name}"


def _words(
    points: tuple[int, int] | None,
    suits: tuple[tuple[int, int | None, int | None], ...],
    holds: float,
    made: int,
    sampled: int,
) -> str:
    share_made = f"{round(100 * made / sampled)} % of the {sampled} hands sampled here make it"
    parts = []
    if points is not None:
        parts.append(f"{points[0]}–{points[1]} points" if points[0] != points[1] else f"{points[0]} points")
    parts += [_suit_words(*s) for s in sorted(suits, key=lambda s: -s[0])]
    if not parts:
        return f"Shows nothing in points or suit lengths: {share_made}."
    percent = math.floor(100 * holds)
    return f"Shows {', '.join(parts)} in {percent} % of the {made} hands that make it ({share_made})."


def _earlier_turns(auction: AuctionState) -> list[tuple[AuctionState, Call]]:
    """(the auction before, the call) of each earlier call of the seat whose turn it is now."""
    seat = auction.turn
    out, state = [], AuctionState.start(auction.dealer, auction.options)
    for call in auction.calls:
        if state.turn == seat:
            out.append((state, call))
        state = state.apply(call)
    return out


def calling_seat(auction: AuctionState) -> Seat:
    """The seat to call now (an auction that is over is refused)."""
    if auction.turn is None:
        raise InvalidInput("auction", "the auction is over: no seat is to call")
    return auction.turn


def sample_position(
    bidder: Bidder, auction: AuctionState, key: str, seed: int = 0, runs: int = RUNS
) -> PositionMeanings:
    """Hands for the seat to call that agree with its earlier calls, and the call ``bidder`` makes with each.

    Stops when ``runs`` bidder runs are spent; ``key`` names the bidder in the seed.
    """
    seat = calling_seat(auction)
    earlier = _earlier_turns(auction)
    rng = random_stream(
        seed,
        position_seed("call-meaning", key, int(auction.dealer), str(auction.options), tuple(map(str, auction.calls))),
    )
    kept: list[np.ndarray] = []
    calls: list[str] = []
    spent = 0
    while spent < runs:
        cards = np.sort(rng.permutation(52)[:13])
        hand = Hand.from_cards(int(c) for c in cards)
        agrees = True
        for before, call in earlier:
            spent += 1
            if bidder.bid(bidding_view(seat, hand, before)) != call:
                agrees = False
                break
        if not agrees or spent >= runs:
            continue
        spent += 1
        kept.append(cards)
        calls.append(str(bidder.bid(bidding_view(seat, hand, auction))))
    hands = np.array(kept, dtype=np.int64).reshape(-1, 13)
    return PositionMeanings(hands, hand_stats(hands), tuple(calls), spent)


BidderFactory = Callable[[str], Bidder]
# Bidder runs per position by bidder, so that an uncached position costs about a second or less beside a bot's
# own call (the simulation bidder a few seconds): ``python -m benchmarks call_meaning`` measures it (docs/bots.md).
RUNS_BY_BIDDER = {"random": 1000, "paper": 600, "learned": 400, "estimate": 48, "learned-sim": 48, "simulation": 24}
PLUGIN_RUNS = 24


def registry_bidder(name: str) -> Bidder:
    """The bidder of a bidder name of the registry (``bots.BIDDER_NAMES``) or of an enabled plug-in spec."""
    if plugins.is_spec(name):
        return plugins.load_parts(name)[0]
    return get_bidder(name)


def runs_for(name: str) -> int:
    """The sample budget (bidder runs per position) of a bidder name."""
    return RUNS_BY_BIDDER.get(name, PLUGIN_RUNS)


@lru_cache(maxsize=CACHE_SIZE)
def _cached(name: str, auction: AuctionState, seed: int, runs: int, factory: BidderFactory) -> PositionMeanings:
    return sample_position(factory(name), auction, name, seed, runs)


def position_meanings(
    name: str, auction: AuctionState, seed: int = 0, runs: int | None = None, factory: BidderFactory = registry_bidder
) -> PositionMeanings:
    """``sample_position`` for the bidder ``factory(name)``, cached per (name, auction, seed, runs) (bounded LRU)."""
    return _cached(name, auction, seed, runs_for(name) if runs is None else runs, factory)


def meaning_of(
    name: str, call: Call, before: AuctionState, seed: int = 0, factory: BidderFactory = registry_bidder
) -> CallMeaning:
    """What ``call``, made in the auction ``before`` by the bidder ``name`` (see ``registry_bidder``), shows."""
    return position_meanings(name, before, seed, factory=factory).of(str(call))


def cache_info() -> object:
    """The position cache's ``functools`` statistics (hits, misses, maxsize, currsize)."""
    return _cached.cache_info()


def cache_clear() -> None:
    """Empty the position cache."""
    _cached.cache_clear()
