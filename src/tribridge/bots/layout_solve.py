"""Double-dummy evaluation of one card-play position over many layouts (the solving half of PIMC).

:func:`dd_card_scores` gives every legal card's tricks in each layout (optionally only the layouts that fit a
time budget); :func:`play_inconsistencies` counts, per layout, the hidden cards played that were not
double-dummy best there (PIMC's play checks).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from tribridge.bots.position import CardPosition
from tribridge.dd import Position, solve_positions
from tribridge.rules.trick import legal_cards as trick_legal_cards

__all__ = [
    "BUDGET_CHUNK",
    "BUDGET_MIN_LAYOUTS",
    "dd_card_scores",
    "dd_positions",
    "hidden_plays",
    "play_inconsistencies",
]

# With a time budget (seconds a decision; off by default), layouts are solved BUDGET_CHUNK at a time and no
# chunk is started that the previous one's time says would end past the budget; at least BUDGET_MIN_LAYOUTS
# are solved. Measured in docs/bots.md (speed): it bounds most slow cards, at a cost in defence.
BUDGET_CHUNK, BUDGET_MIN_LAYOUTS = 2, 4


def dd_positions(layouts: np.ndarray, position: CardPosition) -> list[Any]:
    """The double-dummy facade's ``Position`` of the current position in each layout."""
    played = set(position.played)
    trick = tuple(c for _, c in position.current_trick)
    trump = None if position.trump is None else int(position.trump)
    leader = position.trick_leader
    out = []
    for layout in np.asarray(layouts):
        hands: list[set[int]] = [set() for _ in range(4)]
        for c, seat in enumerate(layout.tolist()):
            if c not in played:
                hands[seat].add(c)
        out.append(Position(tuple(frozenset(h) for h in hands), trump, leader, trick))  # type: ignore[arg-type]
    return out


def dd_card_scores(
    layouts: np.ndarray, position: CardPosition, time_budget: float | None = None
) -> tuple[list[int], np.ndarray]:
    """Tricks (from now, for the side to play) of each legal card in each layout: (cards, float[k, n]).

    With ``time_budget`` only the first k layouts that fit the budget are solved (see BUDGET_CHUNK).
    """
    cards = position.legal_cards()
    if len(layouts) == 0:
        return cards, np.zeros((0, len(cards)), dtype=np.float64)
    positions = dd_positions(layouts, position)
    solved = solve_positions(positions) if time_budget is None else _solve_within(positions, time_budget)
    scores = np.zeros((len(solved), len(cards)), dtype=np.float64)
    for row, tricks in enumerate(solved):
        for col, c in enumerate(cards):
            scores[row, col] = tricks[c]
    return cards, scores


def _solve_within(positions: list[Any], time_budget: float) -> list[dict[int, int]]:
    """Solve ``positions`` in order, BUDGET_CHUNK at a time, while the next chunk is expected to fit the budget."""
    start = time.perf_counter()
    solved: list[dict[int, int]] = []
    last_chunk = 0.0
    for first in range(0, len(positions), BUDGET_CHUNK):
        elapsed = time.perf_counter() - start
        if len(solved) >= BUDGET_MIN_LAYOUTS and elapsed + last_chunk > time_budget:
            break
        solved.extend(solve_positions(positions[first : first + BUDGET_CHUNK]))
        last_chunk = time.perf_counter() - start - elapsed
    return solved


def hidden_plays(position: CardPosition, last: int | None = None) -> list[int]:
    """Indices in ``position.played`` of cards played by seats the decider cannot see (the ``last`` few, or all)."""
    visible = {seat for seat, _ in position.hands}
    found = [i for i, (seat, _) in enumerate(position.trace) if seat not in visible]
    return found if last is None else found[len(found) - min(last, len(found)) :]


def play_inconsistencies(layouts: np.ndarray, position: CardPosition, plays: Sequence[int]) -> np.ndarray:
    """Per layout, how many of the given plays were not double-dummy best for their side in that layout.

    ``plays`` are indices into ``position.played``. A play is consistent with a layout when the card
    is among the cards that take the most tricks (DDS, all equal cards included) at that moment.
    """
    layouts = np.asarray(layouts)
    counts = np.zeros(len(layouts), dtype=np.int64)
    if len(layouts) == 0 or not plays:
        return counts
    trace = position.trace
    dd_items = []
    asked: list[tuple[int, int]] = []  # (row, card) per position sent to the solver
    for i in plays:
        seat, card = trace[i]
        prefix = replace(position, played=position.played[:i])
        led = trace[i - i % 4][1] // 13 if i % 4 else None
        before = set(position.played[:i])
        # a seat with a single legal card in a layout had no choice there: nothing to check
        rows = [row for row in range(len(layouts)) if _legal_count(layouts[row], seat, before, led) > 1]
        dd_items.extend(dd_positions(layouts[rows], prefix))
        asked.extend((row, card) for row in rows)
    best = solve_positions(dd_items, best_only=True) if dd_items else []
    for (row, card), cards in zip(asked, best):
        if card not in cards:
            counts[row] += 1
    return counts


def _legal_count(layout: np.ndarray, seat: int, played: set[int], led: int | None) -> int:
    """How many legal cards ``seat`` had in ``layout`` with ``played`` gone and suit ``led`` led (None: on lead)."""
    return len(trick_legal_cards([c for c in np.flatnonzero(layout == seat).tolist() if c not in played], led))
