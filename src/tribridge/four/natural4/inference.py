"""Card play that uses the auction: PIMC over layouts of the hidden cards that agree with what each hidden
hand's calls showed (its HCP range and suit lengths, read by this bidder's system)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

import numpy as np

from tribridge.bots.belief import sample_layouts
from tribridge.bots.layout_solve import dd_card_scores
from tribridge.bots.play import CardPosition, PimcDecision, layouts_for
from tribridge.dealing.streams import random_stream
from tribridge.four.natural4.core import Shown

__all__ = ["AUCTION_OVERSAMPLE", "auction_violations", "pimc_with_auction"]

# Layouts dealt per layout kept: the ones that fit the auction best are searched.
AUCTION_OVERSAMPLE = 32
CARD_HCP = np.maximum(0, 4 - np.arange(52) % 13)
CARD_SUIT = np.arange(52) // 13


def auction_violations(layouts: np.ndarray, shown: Sequence[Shown], seats: Iterable[int]) -> np.ndarray:
    """Per layout (``uint8[k, 52]`` owners), by how many HCP and cards the ``seats``' hands miss their shown
    ranges (0: every range holds)."""
    out = np.zeros(len(layouts), dtype=np.int64)
    for seat in seats:
        mask = np.asarray(layouts) == seat
        hcp = (mask * CARD_HCP).sum(axis=1)
        s = shown[seat]
        out += np.maximum(0, s.lo - hcp) + np.maximum(0, hcp - s.hi)
        for suit in range(4):
            n = mask[:, CARD_SUIT == suit].sum(axis=1)
            out += np.maximum(0, s.min_len[suit] - n) + np.maximum(0, n - s.max_len[suit])
    return out


def pimc_with_auction(position: CardPosition, shown: Sequence[Shown], layouts: int, seed: int) -> PimcDecision:
    """PIMC for ``position``: ``AUCTION_OVERSAMPLE`` times the layouts are dealt (respecting the cards seen
    and voids shown), the ones closest to the auction's ranges are solved double dummy; best mean wins
    (ties: the lowest card)."""
    legal = position.legal_cards()
    if len(legal) == 1:
        return PimcDecision(legal[0], [(legal[0], float("nan"))], searched=False)
    wanted = layouts_for(position, layouts)
    rng = random_stream(seed)
    sample = sample_layouts(position.knowledge(), wanted * AUCTION_OVERSAMPLE, rng)
    hidden = [s for s in range(4) if s not in dict(position.hands)]
    order = np.argsort(auction_violations(sample.layouts, shown, hidden), kind="stable")[:wanted]
    chosen = sample.layouts[order]
    cards, scores = dd_card_scores(chosen, position)
    means = scores.mean(axis=0) if len(scores) else np.zeros(len(cards))
    best = float(means.max())
    tied = [c for c, m in zip(cards, means) if m >= best - 1e-9]
    choice = min(tied, key=lambda c: (-(c % 13), c // 13))
    candidates = sorted(zip(cards, means.tolist()), key=lambda cm: (-cm[1], -(cm[0] % 13), cm[0] // 13))
    relaxed = sample.relaxed[order] if len(sample.relaxed) == len(sample.layouts) else np.zeros(len(chosen), bool)
    return PimcDecision(
        choice,
        [(c, float(m)) for c, m in candidates],
        searched=True,
        sample=replace(sample, layouts=chosen, requested=wanted, relaxed=relaxed),
    )
