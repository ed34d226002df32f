"""Readable reference of the game study, one deal at a time, with the rules engine and the scalar estimators.

The batch path of :mod:`tribridge.sim.game_study` must agree with it; ``tests/test_sim_game.py`` checks that.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tribridge.sim.game_study import MAX_LEVEL, GameParams, dealer_of, nt_qualifies

__all__ = ["GameDealResult", "estimator_tricks_reference", "game_deal_reference"]


@dataclass(frozen=True)
class GameDealResult:
    """What happened on one deal of the protocol."""

    dealer: int
    calls: tuple[str, ...]
    level: int  # 0 when thrown in
    declarer: int  # -1 when thrown in
    leader: int  # -1 when thrown in
    tricks: int
    made: bool
    widow_qualifies: bool
    net: tuple[int, ...]


def game_deal_reference(owners: np.ndarray, deal_index: int, params: GameParams,
                        tricks_fn: Any = None) -> GameDealResult:
    """The protocol on one deal, written plainly with the rules engine and the scalar estimators."""
    from tribridge.cards import Deal, Seat
    from tribridge.rules.auction import AuctionState, Contract, Denom, bid, opening_leader, PASS
    from tribridge.rules.scoring import get_scheme, score_deal

    deal = Deal.from_owners(owners)
    dealer = Seat(dealer_of(deal_index))
    hands = {seat: deal[seat].masks() for seat in Seat}
    highest = {}
    for seat in Seat:
        qualifying = [lv for lv in range(1, MAX_LEVEL + 1) if nt_qualifies(hands[seat], lv)]
        highest[seat] = max(qualifying, default=0)
    auction = AuctionState.start(dealer)
    while not auction.is_over:
        seat = auction.turn
        current = auction.highest_bid.level if auction.highest_bid is not None else 0
        wanted = current + 1
        auction = auction.apply(bid(wanted, Denom.NT) if wanted <= highest[seat] else PASS)
    calls = tuple(str(c) for c in auction.calls)
    contract = auction.contract
    if contract is None:
        return GameDealResult(int(dealer), calls, 0, -1, -1, 0, False, False, tuple(0 for _ in params.schemes))
    declarer = contract.declarer
    widow = dealer.partner
    if tricks_fn is not None:
        tricks = int(tricks_fn(deal, dealer, declarer))
    elif params.outcome == "estimator":
        tricks = estimator_tricks_reference(owners, int(declarer), int(widow), params)
    else:
        from tribridge.dd import dd_nt_tricks
        from tribridge.rules.auction import play_deal

        tricks = int(dd_nt_tricks([play_deal(deal, dealer, declarer)], int(declarer), cache=False, workers=1)[0])
    widow_ok = nt_qualifies(hands[widow], contract.level)
    scored = Contract(contract.level, Denom.NT, 0, declarer)
    net = tuple(int(score_deal(scored, tricks, get_scheme(name)).net) for name in params.schemes)
    return GameDealResult(int(dealer), calls, contract.level, int(declarer), int(opening_leader(declarer)),
                          tricks, tricks >= contract.level + 6, widow_ok, net)


def estimator_tricks_reference(owners: np.ndarray, declarer: int, widow: int, params: GameParams) -> int:
    """Capture total for one deal from the scalar estimator: state 1 = declarer, 2 = widow, 0 = defenders."""
    from tribridge.estimators.capture import capture

    state = np.zeros((4, 13), dtype=np.int8)
    for card in range(52):
        if owners[card] == declarer:
            state[card // 13, card % 13] = 1
        elif owners[card] == widow:
            state[card // 13, card % 13] = 2
    result = capture(state, limit=params.limit, gap=params.gap, replacements=params.replacements)
    return min(13, int(result.captures))
