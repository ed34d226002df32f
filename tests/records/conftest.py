"""Played 3PAB deals for the hand-record tests: random legal calls and cards through ``DealState``, with claims."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from endplay.types import ContractBid, Penalty, PenaltyBid, Player

from tribridge.cards import Card, Seat, random_deal
from tribridge.dealing.streams import random_stream
from tribridge.rules.auction import PASS, AuctionOptions, Call
from tribridge.rules.deal import DealState
from tribridge.rules.game import DealRecord
from tribridge.rules.view import AgreeClaim, MakeClaim

PENALTY = {Penalty.passed: "P", Penalty.doubled: "X", Penalty.redoubled: "XX"}
DENOM = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S", "nt": "N"}


def endplay_call(bid: ContractBid | PenaltyBid) -> str:
    """endplay's call in tribridge's spelling."""
    if isinstance(bid, ContractBid):
        return f"{bid.level}{DENOM[bid.denom.name]}"
    return PENALTY[bid.penalty]


def seat_of(player: Player) -> Seat:
    """endplay's player as a tribridge seat."""
    return Seat.parse(player.name)


def random_game(seed: int, claim_chance: float = 0.3) -> DealRecord:
    """One deal played by random legal actions; sometimes a player claims during the play and the others agree."""
    rng = random_stream(seed)
    deal = random_deal(rng)
    options = AuctionOptions("value" if rng.random() < 0.3 else "contract", bool(rng.random() < 0.3))
    state = DealState.start(deal, Seat(int(rng.integers(4))), options)
    claim_after = int(rng.integers(52)) if rng.random() < claim_chance else None
    while not state.is_terminal():
        play = state.play
        if play is not None and claim_after is not None and len(play.played) >= claim_after:
            claimer = state.players[int(rng.integers(3))]
            state = state.apply(MakeClaim(int(rng.integers(play.tricks_left + 1))), claimer)
            while state.claim is not None:
                state = state.apply(AgreeClaim(), state.awaiting[0])
            break
        actions = [a for a in state.legal_actions() if isinstance(a, (Call, Card))]
        if PASS in actions and rng.random() < 0.55:
            state = state.apply(PASS)
        else:
            state = state.apply(actions[int(rng.integers(len(actions)))])
    return DealRecord.from_state(state, "tribridge" if rng.random() < 0.3 else "classic")


@pytest.fixture
def play_game() -> Callable[[int], DealRecord]:
    """``random_game`` for the tests."""
    return random_game
