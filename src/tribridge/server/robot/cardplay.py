"""Card choice for robot-API positions: the four-handed PIMC of ``tribridge.four.play`` over a checked position."""

from __future__ import annotations

import math

from tribridge.four.play import pimc_decide_four_handed
from tribridge.server.robot.params import PlayPosition


def choose_card(pos: PlayPosition, layouts: int, seed: int | None = None) -> tuple[int, list[tuple[int, float | None]]]:
    """(card, [(card, mean double-dummy tricks or None)]) for the seat on turn; dummy's card when declarer asks.

    The opening leader does not see dummy, so dummy's hand is only used once a card is played.
    PIMC seeds itself from the position as the seat sees it (``seed`` is accepted for symmetry).
    """
    dummy = pos.dummy if pos.played else None
    decision = pimc_decide_four_handed(
        pos.hand, pos.seat, pos.contract.declarer, pos.contract.trump, pos.played, dummy, layouts=layouts
    )
    cands = [
        (int(c), None if m is None or (isinstance(m, float) and math.isnan(m)) else float(m))
        for c, m in decision.candidates
    ]
    return int(decision.card), cands
