"""Numba kernels of the game study: the NT call test per hand, the paper's auction, the fused estimator pass, tallies.

Readable counterparts live in :mod:`tribridge.sim.game_reference`; ``tests/sim/test_sim_game.py`` checks that
both agree on random deals.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tribridge.estimators.capture import capture_pair_kernel
from tribridge.estimators.nt_call_kernels import classify_hand_kernel

__all__ = [
    "MAX_LEVEL",
    "YES_CODE",
    "complete_fourth_hand_kernel",
    "game_auction_kernel",
    "game_estimator_kernel",
    "game_tally_kernel",
    "masks_to_owners_kernel",
    "qualify_bits_kernel",
]

MAX_LEVEL = 7


# The NT estimator's scalar numba classifier (code, count_of_one, remaining) of one hand at one level.
_classify_hand = classify_hand_kernel
YES_CODE = 1


# The capture estimator's scalar numba kernel (captures, status, budget) on declarer / partner suit masks.
_capture_hand_pair = capture_pair_kernel
_TRAILING_ZEROS = np.array([((m & -m).bit_length() - 1) if m else 13 for m in range(1 << 13)], dtype=np.int64)


@njit(cache=True)
def _hand_bits(m0, m1, m2, m3):
    """Bit L-1 set when the hand passes the NT call test at level L (levels above 7 - Δ fail Condition A)."""
    delta = _TRAILING_ZEROS[m0] + _TRAILING_ZEROS[m1] + _TRAILING_ZEROS[m2] + _TRAILING_ZEROS[m3]
    bits = 0
    for level in range(1, 8 - min(delta, 7)):
        code, _count, _remaining = _classify_hand(m0, m1, m2, m3, level)
        if code == YES_CODE:
            bits |= 1 << (level - 1)
    return bits


@njit(cache=True)
def _paper_auction(deal_bits, dealer, highest, seats):
    """The paper's NT auction of one deal: ``(level, declarer seat)``.

    ``deal_bits[seat]`` has bit L-1 set when that hand qualifies at level L; the bidders are the dealer,
    left and right (the widow opposite the dealer never calls); each bids the next NT level while it is
    within its highest qualifying level; the auction ends after a bid and two passes, or three passes
    (holder -1). ``highest`` and ``seats`` are int64[3] scratch arrays.
    """
    seats[0] = dealer
    seats[1] = (dealer + 1) % 4
    seats[2] = (dealer + 3) % 4
    for k in range(3):
        highest[k] = _highest_level(deal_bits[seats[k]])
    current = 0
    holder = -1
    passes = 0
    turn = 0
    while True:
        k = turn % 3
        if current + 1 <= highest[k]:
            current += 1
            holder = seats[k]
            passes = 0
        else:
            passes += 1
        if (holder < 0 and passes == 3) or (holder >= 0 and passes == 2):
            return current, holder
        turn += 1


@njit(cache=True)
def game_estimator_kernel(
    masks, first_deal, limit_code, live_gap, replacements, bits, levels, declarers, widow_ok, tricks
):
    """The whole protocol with the capture-estimator outcome, fused in one pass over ``int64[n, 4, 4]`` masks."""
    n = masks.shape[0]
    highest = np.zeros(3, dtype=np.int64)
    seats = np.zeros(3, dtype=np.int64)
    for i in range(n):
        for seat in range(4):
            bits[i, seat] = _hand_bits(masks[i, seat, 0], masks[i, seat, 1], masks[i, seat, 2], masks[i, seat, 3])
        dealer = (first_deal + i) % 3
        current, holder = _paper_auction(bits[i], dealer, highest, seats)
        levels[i] = current if holder >= 0 else 0
        declarers[i] = holder
        widow_ok[i] = 0
        tricks[i] = 0
        if holder >= 0:
            widow = dealer ^ 2
            widow_ok[i] = (bits[i, widow] >> (current - 1)) & 1
            total, _status, _budget = _capture_hand_pair(
                masks[i, holder], masks[i, widow], limit_code, live_gap, replacements
            )
            tricks[i] = min(total, 13)


@njit(cache=True)
def qualify_bits_kernel(masks):
    """``int16[n, 4]``: bit ``L-1`` set when the seat's hand passes the NT call test at level ``L`` (all 7 levels)."""
    n = masks.shape[0]
    out = np.zeros((n, 4), dtype=np.int16)
    for i in range(n):
        for seat in range(4):
            bits = 0
            for level in range(1, MAX_LEVEL + 1):
                code, _count, _remaining = _classify_hand(
                    masks[i, seat, 0], masks[i, seat, 1], masks[i, seat, 2], masks[i, seat, 3], level
                )
                if code == YES_CODE:
                    bits |= 1 << (level - 1)
            out[i, seat] = bits
    return out


@njit(cache=True)
def masks_to_owners_kernel(masks):
    """``uint8[n, 52]`` owner seats from ``int64[n, 4, 4]`` suit masks."""
    n = masks.shape[0]
    out = np.zeros((n, 52), dtype=np.uint8)
    for i in range(n):
        for seat in range(4):
            for suit in range(4):
                m = masks[i, seat, suit]
                for rank in range(13):
                    if (m >> rank) & 1:
                        out[i, suit * 13 + rank] = seat
    return out


@njit(cache=True)
def _highest_level(bits):
    level = 0
    for lv in range(1, 8):
        if (bits >> (lv - 1)) & 1:
            level = lv
    return level


@njit(cache=True)
def game_auction_kernel(qualify_bits, first_deal):
    """Auction of a batch: ``(level int8[n], declarer int8[n], widow_ok int8[n])``; level 0 = thrown in.

    ``widow_ok`` is 1 when the widow's own hand passes the NT call test at the contract level.
    """
    n = qualify_bits.shape[0]
    levels = np.zeros(n, dtype=np.int8)
    declarers = np.full(n, -1, dtype=np.int8)
    widow_ok = np.zeros(n, dtype=np.int8)
    highest = np.zeros(3, dtype=np.int64)
    seats = np.zeros(3, dtype=np.int64)
    for i in range(n):
        dealer = (first_deal + i) % 3
        current, holder = _paper_auction(qualify_bits[i], dealer, highest, seats)
        if holder >= 0:
            levels[i] = current
            declarers[i] = holder
            widow = dealer ^ 2
            widow_ok[i] = (qualify_bits[i, widow] >> (current - 1)) & 1
    return levels, declarers, widow_ok


@njit(cache=True)
def game_tally_kernel(levels, declarers, dealers, widow_ok, tricks, scores, first_deal):
    """Integer tallies of a batch (see :func:`game_chunk` for the names) and per-deal net points ``int64[n, S]``."""
    n = levels.shape[0]
    n_schemes = scores.shape[0]
    opened = np.zeros(MAX_LEVEL + 1, dtype=np.int64)
    made = np.zeros(MAX_LEVEL + 1, dtype=np.int64)
    both_opened = np.zeros(MAX_LEVEL + 1, dtype=np.int64)
    both_made = np.zeros(MAX_LEVEL + 1, dtype=np.int64)
    lost_widow_not_ok = np.zeros(MAX_LEVEL + 1, dtype=np.int64)
    by_position = np.zeros(3, dtype=np.int64)
    tricks_hist = np.zeros(14, dtype=np.int64)
    level_tricks = np.zeros((MAX_LEVEL + 1, 14), dtype=np.int64)
    net = np.zeros(n_schemes, dtype=np.int64)
    deal_net = np.zeros((n, n_schemes), dtype=np.int64)
    for i in range(n):
        level = levels[i]
        if level == 0:
            continue
        t = tricks[i]
        opened[level] += 1
        tricks_hist[t] += 1
        level_tricks[level, t] += 1
        ok = t >= level + 6
        if ok:
            made[level] += 1
        if widow_ok[i]:
            both_opened[level] += 1
            if ok:
                both_made[level] += 1
        elif not ok:
            lost_widow_not_ok[level] += 1
        position = (declarers[i] - dealers[i]) % 4  # 0 dealer, 1 left, 3 right
        by_position[0 if position == 0 else (1 if position == 1 else 2)] += 1
        for k in range(n_schemes):
            deal_net[i, k] = scores[k, level, t]
            net[k] += scores[k, level, t]
    return (
        opened,
        made,
        both_opened,
        both_made,
        lost_widow_not_ok,
        by_position,
        tricks_hist,
        level_tricks,
        net,
        deal_net,
    )


@njit(cache=True)
def complete_fourth_hand_kernel(three, out):
    """Fill ``out[n, 4, 4]`` with the three hands of ``three`` and the rest of the pack as the fourth hand."""
    for i in range(three.shape[0]):
        for suit in range(4):
            held = np.int64(0)
            for seat in range(3):
                out[i, seat, suit] = three[i, seat, suit]
                held |= three[i, seat, suit]
            out[i, 3, suit] = np.int64(8191) ^ held
