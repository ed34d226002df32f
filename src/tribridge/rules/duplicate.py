"""Duplicate scoring of ordinary four-handed bridge (the four-handed bidder's pricing and its benchmark).

Pure module. A contract is a level 1-7, a strain index (0-3 the suits C D H S, 4 no-trump) and a doubling
(0 undoubled, 1 doubled, 2 redoubled); the score is the declarer's side's, from the tricks it took.
Trick points: 20 a trick in the minors, 30 in the majors and in no-trump (40 for the first no-trump
trick), doubled and redoubled twice and four times over. A game (100 trick points or more) earns 300
non-vulnerable or 500 vulnerable, a partscore 50; a small slam adds 500 / 750, a grand slam 1000 / 1500;
50 (100 redoubled) for making a doubled contract. Undertricks: 50 / 100 each undoubled; doubled
non-vulnerable 100, 200, 200, then 300 each; doubled vulnerable 200, then 300 each; redoubled twice that.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

__all__ = ["duplicate_score", "score_table"]


def _undertricks(down: int, doubling: int, vulnerable: bool) -> int:
    """The penalty for ``down`` undertricks."""
    if doubling == 0:
        return (100 if vulnerable else 50) * down
    if vulnerable:
        penalty = 200 + 300 * (down - 1)
    else:
        penalty = sum(100 if i == 0 else 200 if i < 3 else 300 for i in range(down))
    return penalty * doubling


def duplicate_score(level: int, strain: int, doubling: int, vulnerable: bool, tricks: int) -> int:
    """The declaring side's duplicate score for ``level``/``strain`` with ``doubling`` taking ``tricks``."""
    if not (1 <= level <= 7 and 0 <= strain <= 4 and 0 <= doubling <= 2 and 0 <= tricks <= 13):
        raise ValueError(f"no such contract or trick count: {level=} {strain=} {doubling=} {tricks=}")
    need = level + 6
    if tricks < need:
        return -_undertricks(need - tricks, doubling, vulnerable)
    multiplier = (1, 2, 4)[doubling]
    per_trick = 20 if strain < 2 else 30
    trick_points = (per_trick * level + (10 if strain == 4 else 0)) * multiplier
    score = trick_points + 50 * doubling
    score += (500 if vulnerable else 300) if trick_points >= 100 else 50
    if level == 6:
        score += 750 if vulnerable else 500
    elif level == 7:
        score += 1500 if vulnerable else 1000
    over = tricks - need
    score += over * (per_trick if doubling == 0 else (200 if vulnerable else 100) * doubling)
    return score


@lru_cache(maxsize=2)
def score_table(vulnerable: bool) -> np.ndarray:
    """Every score at once: ``int64[8, 5, 3, 14]`` by level (index 0 unused), strain, doubling and tricks."""
    out = np.zeros((8, 5, 3, 14), dtype=np.int64)
    for level in range(1, 8):
        for strain in range(5):
            for doubling in range(3):
                for tricks in range(14):
                    out[level, strain, doubling, tricks] = duplicate_score(level, strain, doubling, vulnerable, tricks)
    out.setflags(write=False)
    return out
