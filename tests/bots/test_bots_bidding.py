"""Bidders: legal calls, the paper rule, candidate lists, the simulation bidder doubling a sure defeat."""

import numpy as np
import pytest

from tribridge.bots.bidding import PaperBidder, RandomBidder, SimulationBidder
from tribridge.cards import Hand, random_deal
from tribridge.dealing.streams import random_stream
from tribridge.errors import InvalidInput
from tribridge.estimators.nt_call import highest_nt_level_batch
from tribridge.rules.auction import AuctionState, Call
from tribridge.rules.deal import DealState
from tribridge.rules.game import bid_to_end
from tribridge.rules.view import SeatView, bidding_view


def _view(hand: Hand, calls: list[str], dealer: int = 0) -> SeatView:
    a = AuctionState.start(dealer)
    for c in calls:
        a = a.apply(Call.parse(c))
    return bidding_view(a.turn, hand, a)


def test_paper_bidder_follows_the_nt_rule():
    rng = np.random.default_rng(0)
    for _ in range(200):
        hand = random_deal(rng)[0]
        view = _view(hand, [])
        call = PaperBidder().bid(view)
        highest = int(highest_nt_level_batch(np.array([hand.masks()], dtype=np.int64))[0])
        assert call == (Call.parse("1N") if highest >= 1 else Call.parse("P"))
    strong = Hand.from_pbn("AKQJ.AKQ.AKQ.AKQ")
    assert PaperBidder().bid(_view(strong, [])) == Call.parse("1N")
    assert PaperBidder().bid(_view(strong, ["1S"])) == Call.parse("1N")  # 1NT outranks 1S and the hand qualifies
    cands = PaperBidder().candidates(_view(strong, []))
    assert cands[0] == (Call.parse("1N"), 1.0)


def test_random_bidder_is_legal_and_repeatable():
    rng = np.random.default_rng(1)
    for _ in range(20):
        view = _view(random_deal(rng)[0], ["1H"])
        call = RandomBidder().bid(view)
        assert view.auction.is_legal(call)
        assert RandomBidder().bid(view) == call


def test_simulation_bidder_doubles_a_sure_defeat():
    # N deals and opens 7NT; E holds all four aces: 7NT cannot make, doubling pays more than passing
    hand = Hand.from_pbn("A5432.A32.A2.A32")
    view = _view(hand, ["7N"], dealer=0)
    assert int(view.seat) == 1
    bidder = SimulationBidder(layouts=2, evaluator="dd")
    cands = dict((str(c), s) for c, s in bidder.candidates(view))
    assert set(cands) == {"P", "X"}
    assert cands["X"] > cands["P"] > 0
    assert bidder.bid(view) == Call.parse("X")
    assert bidder.last is not None and bidder.last.sample.dropped_facts  # 7NT qualification was relaxed


def test_simulation_bidder_returns_legal_calls_deterministically():
    rng = np.random.default_rng(4)
    hand = random_deal(rng)[1]
    view = _view(hand, ["1C"])
    a = SimulationBidder(layouts=2, evaluator="dd").candidates(view)
    b = SimulationBidder(layouts=2, evaluator="dd").candidates(view)
    assert a == b
    assert all(view.auction.is_legal(c) for c, _ in a)
    assert a[0][1] == max(s for _, s in a)


def test_estimate_bidder_bids_a_legal_denomination_it_expects_to_make():
    from tribridge.bots.bidding import EstimateBidder

    hand = Hand.from_pbn("AKQJT98.AK2.A2.2")  # long strong spades: some bid should beat passing
    view = _view(hand, [])
    bidder = EstimateBidder(layouts=2, evaluator="dd")
    cands = bidder.candidates(view)
    call = cands[0][0]
    assert view.auction.is_legal(call)
    assert {str(c) for c, _ in cands} >= {"1C", "1D", "1H", "1S", "1N", "P"}
    assert call.is_bid  # with 7 spade tricks and three aces on its own, it does not pass


def _self_bid(bidder: SimulationBidder, seed: int, index: int) -> list[str]:
    """The auction of deal ``index`` of a match seed with ``bidder`` in all three chairs."""
    state = DealState.start(random_deal(random_stream(seed, index)), index % 4)
    state = bid_to_end(state, {seat: bidder.bid for seat in state.players})
    return [str(c) for c in state.auction.calls]


def test_simulation_bidder_does_not_run_from_doubles_to_seven_no_trump():
    # deal 8 of match seed 2026: 1S X P XX P 2H X P 3C X ... when a doubled bidder priced running as undoubled,
    # the doubles and escapes went on up to 7NT doubled
    old = _self_bid(SimulationBidder(doubled_from=99), 2026, 8)
    assert old[-4:] == ["7N", "X", "P", "P"]
    calls = _self_bid(SimulationBidder(), 2026, 8)
    assert calls.count("X") <= 2 and not any(c.startswith("7") for c in calls)
    with pytest.raises(InvalidInput, match="doubled_from"):
        SimulationBidder(doubled_from=0)
