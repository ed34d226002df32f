"""Views of bidders part-way through random auctions, for the bidders' tests."""

from __future__ import annotations

import numpy as np

from tribridge.cards import random_deal
from tribridge.dealing.streams import random_stream
from tribridge.rules.auction import PASS
from tribridge.rules.deal import DealState
from tribridge.rules.view import SeatView


def random_view(seed: int, calls: int, pass_weight: float = 3.0) -> SeatView:
    """The view of the player on turn after up to ``calls`` random legal calls (fewer if the auction ends)."""
    rng = np.random.default_rng(seed)
    state = DealState.start(random_deal(random_stream(seed)), int(rng.integers(4)))
    for _ in range(calls):
        legal = state.legal_actions()
        weights = rng.random(len(legal)) * np.array([pass_weight if c == PASS else 1.0 for c in legal])
        after = state.apply(legal[int(np.argmax(weights))])
        if after.phase != "auction":
            break
        state = after
    assert state.turn is not None
    return state.view(state.turn)
