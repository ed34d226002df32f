"""Readable reference of the game study, one deal at a time, played through the game model.

The paper's NT auction is bid call by call on a ``rules.deal.DealState`` (the widow never calls; the
declarer's widow is reseated opposite by the model), the outcome (the capture estimator's count, or
the declarer's double-dummy NT tricks) is entered as the declarer's claim that both defenders accept,
and the deal is scored by ``DealState.score``. The batch path of :mod:`tribridge.sim.game_study` must
agree with it; ``tests/sim/test_sim_game.py`` checks that.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from tribridge.cards import Deal, Seat
from tribridge.dd import dd_nt_tricks
from tribridge.estimators.capture import capture
from tribridge.rules.auction import PASS, Call, Denom, bid, opening_leader
from tribridge.rules.deal import DealState
from tribridge.rules.game import bid_to_end
from tribridge.rules.view import AgreeClaim, MakeClaim, SeatView
from tribridge.sim.game_study import MAX_LEVEL, GameParams, dealer_of, nt_qualifies

__all__ = ["GameDealResult", "estimator_tricks_reference", "game_deal_reference", "highest_nt_level", "paper_call"]


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


def highest_nt_level(deal: Deal, seat: Seat) -> int:
    """The highest NT level (0..7) at which ``seat``'s hand passes the NT call test alone."""
    masks = deal[seat].masks()
    return max((level for level in range(1, MAX_LEVEL + 1) if nt_qualifies(masks, level)), default=0)


def paper_call(view: SeatView, highest: int) -> Call:
    """The paper's bidder: bid the next NT level while it is within the hand's highest qualifying level, else pass."""
    top = view.auction.highest_bid
    wanted = (top.level if top is not None else 0) + 1
    return bid(wanted, Denom.NT) if wanted <= highest else PASS


def game_deal_reference(
    owners: np.ndarray, deal_index: int, params: GameParams, tricks_fn: Any = None
) -> GameDealResult:
    """The protocol on one deal, written plainly with the game model and the scalar estimators."""
    deal = Deal.from_owners(owners)
    dealer = Seat(dealer_of(deal_index))
    state = DealState.start(deal, dealer)
    bidders = {
        player: functools.partial(paper_call, highest=highest_nt_level(deal, player)) for player in state.players
    }
    state = bid_to_end(state, bidders)
    calls = tuple(str(c) for c in state.auction.calls)
    contract = state.contract
    if contract is None or state.play is None:
        return GameDealResult(int(dealer), calls, 0, -1, -1, 0, False, False, tuple(0 for _ in params.schemes))
    declarer = contract.declarer
    if tricks_fn is not None:
        tricks = int(tricks_fn(deal, dealer, declarer))
    elif params.outcome == "estimator":
        tricks = estimator_tricks_reference(owners, int(declarer), int(state.widow), params)
    else:
        tricks = int(dd_nt_tricks([state.play.deal], int(declarer), cache=False, workers=1)[0])
    widow_ok = nt_qualifies(deal[state.widow].masks(), contract.level)
    # the outcome is the declarer's claim of that many tricks, agreed by both defenders
    state = state.apply(MakeClaim(tricks), declarer)
    for defender in state.awaiting:
        state = state.apply(AgreeClaim(), defender)
    net = tuple(int(state.score(name).net) for name in params.schemes)
    return GameDealResult(
        int(dealer),
        calls,
        contract.level,
        int(declarer),
        int(opening_leader(declarer)),
        tricks,
        tricks >= contract.level + 6,
        widow_ok,
        net,
    )


def estimator_tricks_reference(owners: np.ndarray, declarer: int, widow: int, params: GameParams) -> int:
    """Capture total for one deal from the scalar estimator: state 1 = declarer, 2 = widow, 0 = defenders."""
    state = np.zeros((4, 13), dtype=np.int8)
    for card in range(52):
        if owners[card] == declarer:
            state[card // 13, card % 13] = 1
        elif owners[card] == widow:
            state[card // 13, card % 13] = 2
    result = capture(state, limit=params.limit, gap=params.gap, replacements=params.replacements)
    return min(13, int(result.captures))
