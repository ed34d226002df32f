"""The fixed reference bidders the learned bidder trains against, computed in numpy on a whole ``BiddingBatch``."""

from __future__ import annotations

import numpy as np

from tribridge.errors import InvalidInput
from tribridge.estimators.nt_call import highest_nt_level_batch
from tribridge.selfplay import BiddingBatch
from tribridge.selfplay.actions import ACTION_PASS, FIRST_BID, N_CALLS
from tribridge.selfplay.contracts import POSITION_SEATS

__all__ = ["REFERENCES", "position_nt_levels", "reference_actions"]

REFERENCES = ("paper", "random")
_NT_BIDS = FIRST_BID + 5 * np.arange(7) + 4  # call numbers of 1NT .. 7NT


def position_nt_levels(batch: BiddingBatch) -> np.ndarray:
    """``int64[n, 3]``: each calling position's highest qualifying NT level (``estimators.nt_call``; 0 = none)."""
    n = batch.size
    bits = np.int64(1) << np.arange(13, dtype=np.int64)
    seats = POSITION_SEATS[batch.dealers]  # [n, 3]
    owners = batch.owners.reshape(n, 1, 4, 13).astype(np.int64)
    held = owners == seats[:, :, None, None]  # [n, 3, suit, rank]
    masks = (held * bits).sum(axis=3)  # [n, 3, 4]
    return highest_nt_level_batch(masks.reshape(3 * n, 4)).reshape(n, 3).astype(np.int64)


def reference_actions(batch: BiddingBatch, reference: str, levels: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """``int64[n]``: the reference bidder's call in every auction (pass where it is over).

    ``paper``: the cheapest legal NT bid when its level is at most the player's highest qualifying
    level, else pass (the cheapest legal bid when pass is illegal). ``random``: pass half the
    time when legal, else a uniformly random other legal call.
    """
    mask = batch.legal_mask()
    n = batch.size
    rows = np.arange(n)
    cheapest_bid = np.where(mask[:, FIRST_BID:].any(axis=1), FIRST_BID + np.argmax(mask[:, FIRST_BID:], axis=1), 0)
    quiet = np.where(mask[:, ACTION_PASS], ACTION_PASS, cheapest_bid)
    if reference == "paper":
        nt_open = mask[:, _NT_BIDS]
        first = np.argmax(nt_open, axis=1)
        player = np.maximum(batch.to_act, 0)
        bids = nt_open.any(axis=1) & (first + 1 <= levels[rows, player])
        return np.where(bids, _NT_BIDS[first], quiet).astype(np.int64)
    if reference == "random":
        others = mask.copy()
        others[:, ACTION_PASS] = False
        weights = others * rng.random((n, N_CALLS))
        pick = np.where(others.any(axis=1), np.argmax(weights, axis=1), quiet)
        passes = mask[:, ACTION_PASS] & (rng.random(n) < 0.5)
        return np.where(passes, ACTION_PASS, pick).astype(np.int64)
    raise InvalidInput("reference", f"expected one of {', '.join(REFERENCES)}, got {reference!r}")
