"""Layouts of the three hidden hands that agree with a four-handed auction, for the searching bidder.

Each hidden seat's constraints are what its calls showed by natural4's reading (``read_auction``: an HCP
range, suit-length ranges, balanced or not) and, after a Blackwood reply, its number of aces. Layouts are
drawn by rejection: the 39 unseen cards are shuffled into three hands in batches, and a layout is kept when
every hidden hand meets every constraint. When too few fit within the draw budget the rest are the drawn
layouts that miss the constraints by the least (HCP, cards and aces missed, one for a hand not balanced),
flagged ``relaxed`` and counted. A layout is ``uint8[52]``: the owner seat of each card (as ``tribridge.dd``).

The constraints are natural4's ranges, looser than its rules: a hand can fit them and still not be one natural4
would have called that way with. :func:`replay_misses` counts, per layout, the hidden seats' calls natural4
holding the layout's hands would not have made, and :func:`prefer_replayed` keeps the layouts that replay the
auction best.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from tribridge.four import natural4
from tribridge.four.natural4 import BOTH_SAYC, Bid4View, read_auction
from tribridge.four.natural4.core import MAX_HCP, CallKind, Shown
from tribridge.four.rules import Auction4

__all__ = [
    "BATCH",
    "MAX_DRAWS",
    "LayoutSample",
    "SeatConstraint",
    "auction_constraints",
    "hand_features",
    "layout_hands",
    "prefer_replayed",
    "replay_misses",
    "sample_layouts",
    "violations",
]

BATCH = 1000  # layouts drawn at a time
MAX_DRAWS = 20_000  # layouts drawn at most per sample, before the relaxed fallback
CARD_HCP = np.maximum(0, 4 - np.arange(52) % 13).astype(np.int64)
ACE = (np.arange(52) % 13 == 0).astype(np.int64)
# The aces a Blackwood reply shows (5C: none or all four).
REPLY_ACES: Mapping[str, tuple[int, ...]] = {"5C": (0, 4), "5D": (1,), "5H": (2,), "5S": (3,)}
ANY_ACES = (0, 1, 2, 3, 4)


@dataclass(frozen=True)
class SeatConstraint:
    """What a hidden hand must hold: an HCP range, suit-length ranges (C D H S), balanced, the aces allowed."""

    lo: int = 0
    hi: int = MAX_HCP
    min_len: tuple[int, int, int, int] = (0, 0, 0, 0)
    max_len: tuple[int, int, int, int] = (13, 13, 13, 13)
    balanced: bool = False
    aces: tuple[int, ...] = ANY_ACES

    @classmethod
    def of(cls, shown: Shown, aces: tuple[int, ...] = ANY_ACES) -> SeatConstraint:
        """The constraint of a seat's shown picture (and the aces it showed)."""
        return cls(shown.lo, shown.hi, tuple(shown.min_len), tuple(shown.max_len), shown.balanced, aces)  # type: ignore[arg-type]


@dataclass(frozen=True)
class LayoutSample:
    """Layouts ``uint8[k, 52]`` (owner of each card), which of them are relaxed, and how many were drawn."""

    layouts: np.ndarray
    relaxed: np.ndarray
    draws: int

    @property
    def relaxed_count(self) -> int:
        """How many layouts miss some constraint (the fallback when too few fit)."""
        return int(self.relaxed.sum())


def auction_constraints(
    auction: Auction4, vul: str, seats: Sequence[int], systems: tuple[str, str] = BOTH_SAYC
) -> dict[int, SeatConstraint]:
    """Each of ``seats``' constraints from the auction as natural4 reads it, each side's calls by its system of
    ``systems`` (North-South, East-West); Blackwood replies give aces."""
    shown, meanings = read_auction(auction, vul, systems)
    aces: dict[int, tuple[int, ...]] = {}
    for i, (call, meaning) in enumerate(zip(auction.calls, meanings)):
        if meaning.kind == CallKind.BLACKWOOD_REPLY and call in REPLY_ACES:
            aces[(auction.dealer + i) % 4] = REPLY_ACES[call]
    return {s: SeatConstraint.of(shown[s], aces.get(s, ANY_ACES)) for s in seats}


def hand_features(layouts: np.ndarray, seat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per layout, ``seat``'s HCP ``int64[k]``, suit lengths ``int64[k, 4]`` and aces ``int64[k]``."""
    mask = (np.asarray(layouts) == seat).astype(np.int64)
    return mask @ CARD_HCP, mask.reshape(len(mask), 4, 13).sum(axis=2), mask @ ACE


def violations(layouts: np.ndarray, constraints: Mapping[int, SeatConstraint]) -> np.ndarray:
    """Per layout, by how much the seats' hands miss their constraints (0: every constraint holds)."""
    out = np.zeros(len(layouts), dtype=np.int64)
    for seat, c in constraints.items():
        hcp, lens, aces = hand_features(layouts, seat)
        out += np.maximum(0, c.lo - hcp) + np.maximum(0, hcp - c.hi)
        out += (np.maximum(0, np.asarray(c.min_len) - lens) + np.maximum(0, lens - np.asarray(c.max_len))).sum(axis=1)
        if c.balanced:
            flat = (lens.min(axis=1) >= 2) & (lens.max(axis=1) <= 5) & ((lens == 2).sum(axis=1) <= 1)
            out += ~flat
        if c.aces != ANY_ACES:
            allowed = np.asarray(c.aces)
            out += np.abs(aces[:, None] - allowed[None, :]).min(axis=1)
    return out


def _draw(seat: int, hand: np.ndarray, unseen: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` uniformly random layouts: ``hand`` is ``seat``'s, the unseen cards dealt 13 to each other seat."""
    others = np.array([s for s in range(4) if s != seat], dtype=np.uint8)
    rank = np.argsort(np.argsort(rng.random((count, len(unseen))), axis=1), axis=1)
    out = np.empty((count, 52), dtype=np.uint8)
    out[:, hand] = seat
    out[:, unseen] = others[rank // 13]
    return out


def sample_layouts(
    seat: int,
    hand: Sequence[int],
    constraints: Mapping[int, SeatConstraint],
    wanted: int,
    rng: np.random.Generator,
    max_draws: int = MAX_DRAWS,
) -> LayoutSample:
    """Up to ``wanted`` layouts with ``hand`` at ``seat`` whose other hands meet ``constraints`` (relaxed
    ones, flagged, fill the rest when fewer fit within ``max_draws`` draws)."""
    mine = np.array(sorted(int(c) for c in hand), dtype=np.int64)
    if len(mine) != 13 or len(set(mine.tolist())) != 13 or mine.min() < 0 or mine.max() > 51:
        raise ValueError(f"a hand is 13 distinct cards 0..51, got {hand!r}")
    unseen = np.setdiff1d(np.arange(52), mine)
    kept: list[np.ndarray] = []
    pool: list[np.ndarray] = []  # every layout drawn, for the fallback
    misses: list[np.ndarray] = []
    have, drawn = 0, 0
    while have < wanted and drawn < max_draws:
        batch = _draw(seat, mine, unseen, min(BATCH, max_draws - drawn), rng)
        miss = violations(batch, constraints)
        fit = batch[miss == 0][: wanted - have]
        kept.append(fit)
        have, drawn = have + len(fit), drawn + len(batch)
        pool.append(batch)
        misses.append(miss)
    layouts = np.concatenate(kept) if kept else np.zeros((0, 52), dtype=np.uint8)
    relaxed = np.zeros(len(layouts), dtype=bool)
    if have < wanted and pool:
        drawn_all, miss_all = np.concatenate(pool), np.concatenate(misses)
        order = np.argsort(miss_all, kind="stable")
        extra = drawn_all[order[miss_all[order] > 0][: wanted - have]]
        layouts = np.concatenate([layouts, extra])
        relaxed = np.concatenate([relaxed, np.ones(len(extra), dtype=bool)])
    return LayoutSample(layouts, relaxed, drawn)


def layout_hands(layout: np.ndarray) -> list[tuple[int, ...]]:
    """Each seat's cards in a layout (owner of each card)."""
    return [tuple(int(c) for c in np.flatnonzero(layout == s)) for s in range(4)]


def replay_misses(
    layouts: np.ndarray, auction: Auction4, vul: str, seats: Sequence[int], systems: tuple[str, str] = BOTH_SAYC
) -> np.ndarray:
    """Per layout ``int64[k]``, how many of ``seats``' calls in ``auction`` natural4 would not have made holding
    that layout's hand of the seat."""
    hidden = [(i, call) for i, call in enumerate(auction.calls) if (auction.dealer + i) % 4 in seats]
    prefixes = {i: Auction4(auction.dealer, auction.calls[:i]) for i, _ in hidden}
    out = np.zeros(len(layouts), dtype=np.int64)
    for j, layout in enumerate(np.asarray(layouts)):
        hands = layout_hands(layout)
        for i, call in hidden:
            seat = (auction.dealer + i) % 4
            view = Bid4View(seat, auction.dealer, vul, hands[seat], prefixes[i], systems)
            out[j] += natural4.bid(view) != call
    return out


def prefer_replayed(sample: LayoutSample, misses: np.ndarray, wanted: int) -> tuple[LayoutSample, np.ndarray]:
    """The ``wanted`` layouts of ``sample`` that miss fewest constraints, then fewest replayed calls
    (:func:`replay_misses`), best first (in drawing order among equals), with their misses."""
    order = np.lexsort((np.arange(len(misses)), misses, sample.relaxed))[:wanted]
    return LayoutSample(sample.layouts[order], sample.relaxed[order], sample.draws), misses[order]
