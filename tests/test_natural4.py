"""Tests of the basic natural four-handed bidder behind /apis/brill/bid."""

import numpy as np
import pytest

from tribridge.bots.natural4 import Bid4View, bid, candidates, decide
from tribridge.cards import Hand, random_deal
from tribridge.rules.bridge4 import Auction4


def view(hand_pbn, calls=(), seat=0, dealer=0):
    auction = Auction4.from_calls(dealer, list(calls))
    return Bid4View(seat, dealer, "None", tuple(Hand.from_pbn(hand_pbn).cards), auction)


def bid_deal(deal, dealer):
    auction = Auction4(dealer)
    while not auction.is_over:
        seat = auction.turn
        call = bid(Bid4View(seat, dealer, "None", tuple(deal[seat].cards), auction))
        assert auction.is_legal(call) is None, (auction.calls, call)
        auction = auction.apply(call)
        assert len(auction.calls) <= 40
    return auction


def test_openings():
    assert bid(view("AQ2.KJ4.KT98.A62")) == "1N"  # 17 balanced
    assert bid(view("AKJ52.K4.Q98.762")) == "1S"  # 13, five spades
    assert bid(view("AKJ52.K4.T98.762")) == "P"  # 11 and rule of 20 not met
    assert bid(view("KQ2.AJ4.T98.K762")) == "1C"  # 13, no five-card major, clubs longer
    assert bid(view("KQT982.K4.T98.62")) == "2S"  # weak two, 8 HCP
    assert bid(view("9832.543.T98.762")) == "P"


def test_responses_reach_game_with_values():
    # partner opened 1NT (15-17); 10 balanced points opposite: game in no-trump
    assert bid(view("K32.QJ4.KJ98.762", ["1N", "P"], seat=2)) == "3N"
    # a weak hand passes 1NT
    assert bid(view("932.854.T98.7632", ["1N", "P"], seat=2)) == "P"
    # a fit and values for a major game
    assert bid(view("KJ92.A54.T982.62", ["1S", "P"], seat=2)) in ("3S", "4S")


def test_deterministic_and_candidates_lead_with_the_call():
    v = view("K32.QJ4.KT98.762", ["1N", "P"], seat=2)
    assert [decide(v) for _ in range(3)] == [decide(v)] * 3
    assert candidates(v)[0] == (bid(v), 1.0)


def test_random_deals_legal_and_mostly_makeable():
    pytest.importorskip("endplay")
    from tribridge.dd import dd_tables_array

    rng = np.random.default_rng(77)
    deals, contracts = [], []
    for k in range(40):
        deal = random_deal(rng)
        auction = bid_deal(deal, k % 4)
        if auction.contract is not None:
            deals.append(deal)
            contracts.append(auction.contract)
    assert len(contracts) >= 30  # few deals are passed out
    tables = dd_tables_array(deals, cache=False, workers=1)
    margin = np.array([int(tables[i, c.declarer, c.strain]) - (c.level + 6) for i, c in enumerate(contracts)])
    games = [c.level >= 3 and (c.strain == 4 or c.level >= 4) for c in contracts]
    # sensible, if basic: not overbidding by a trick on average, a good share of contracts making
    # double dummy (games are bid at about even money, so many go one down), and games are bid
    assert margin.mean() >= -1.0, margin.mean()
    assert (margin >= 0).mean() >= 0.4, (margin >= 0).mean()
    assert np.mean(games) >= 0.15
