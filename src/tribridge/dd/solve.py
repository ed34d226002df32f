"""Solve positions: tricks the side on turn takes with each legal card (DDS ``SolveAllBoardsBin``).

Positions are solved in the calling process, DDS calls serialised by the one lock of
:mod:`tribridge.dd.pool`; inside a ``solving_at(priority)`` block they are solved by the solver
pool in that class instead (one job per call).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from tribridge.dd.dds import DDS_RANK_BIT, MAX_BOARDS, NT, UNKNOWN, dds_strain, fill_remain_cards, require_dds
from tribridge.dd.pool import DDS_LOCK, routed_priority, solver_pool
from tribridge.dd.position import Position, as_position

__all__ = ["solve_position", "solve_positions"]


def _fill_dds_deal(target: Any, pos: Position) -> None:
    """Write a Position into a DDS ``deal`` struct."""
    owners = np.full(52, UNKNOWN, dtype=np.uint8)
    for seat, cards in enumerate(pos.hands):
        for c in cards:
            owners[c] = seat
    fill_remain_cards(target.remainCards, owners)
    target.trump = dds_strain(NT if pos.trump is None else int(pos.trump))
    target.first = int(pos.leader)
    for i in range(3):
        if i < len(pos.trick):
            c = pos.trick[i]
            target.currentTrickSuit[i] = 3 - c // 13
            target.currentTrickRank[i] = 14 - c % 13  # DDS rank 2..14
        else:
            target.currentTrickSuit[i] = 0
            target.currentTrickRank[i] = 0


def _read_future_tricks(fut: Any) -> dict[int, int]:
    """``{card index: tricks}`` from a DDS ``futureTricks`` (expanding equivalent cards)."""
    out: dict[int, int] = {}
    for i in range(fut.cards):
        score = int(fut.score[i])
        if score < 0:
            continue
        suit = 3 - int(fut.suit[i])
        holding = (1 << int(fut.rank[i])) | int(fut.equals[i])
        for r in range(13):
            if holding & DDS_RANK_BIT[r]:
                out[suit * 13 + r] = score
    return out


def solve_position(position: Any) -> dict[int, int]:
    """Tricks the side on turn takes from the current trick on, for each legal card: ``{card index: tricks}``.

    ``position``: a :class:`Position` (see :func:`position_after`) or a ``PlayState``.
    """
    return solve_positions([position])[0]


def solve_positions(positions: Iterable[Any], best_only: bool = False) -> list[dict[int, int]]:
    """:func:`solve_position` for many positions (e.g. PIMC layouts), batched through DDS SolveAllBoards.

    With ``best_only`` each answer holds only the cards that reach the best score (DDS solutions=2,
    cheaper than scoring every card).
    """
    dds = require_dds()
    items = [as_position(p) for p in positions]
    for p in items:
        p.validate()
    priority = routed_priority()
    if priority is not None:  # inside a solving_at block: one job on the solver pool
        return solver_pool().call(solve_positions, items, best_only, priority=priority)
    results: list[dict[int, int]] = []
    for start in range(0, len(items), MAX_BOARDS):
        chunk = items[start : start + MAX_BOARDS]
        boards = dds.boards()
        boards.noOfBoards = len(chunk)
        for i, pos in enumerate(chunk):
            _fill_dds_deal(boards.deals[i], pos)
            boards.target[i] = -1
            boards.solutions[i] = 2 if best_only else 3
            boards.mode[i] = 1
        solved = dds.solvedBoards()
        with DDS_LOCK:
            dds.SolveAllBoardsBin(boards, solved)
        results.extend(_read_future_tricks(solved.solvedBoard[i]) for i in range(len(chunk)))
    return results
