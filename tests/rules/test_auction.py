"""Tests of the three-player auction: seating, legality, end, contract, reseating, opening lead."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.cards import Deal, Seat, random_deal
from tribridge.errors import IllegalAction, InvalidInput
from tribridge.rules.auction import (
    DOUBLE,
    PASS,
    REDOUBLE,
    AuctionOptions,
    AuctionState,
    Call,
    Contract,
    Denom,
    bid,
    opening_leader,
    play_deal,
    reseat,
)


def test_call_parsing_spellings():
    assert Call.parse("1nt") == bid(1, Denom.NT) == Call.parse("1N")
    assert Call.parse("Pass") == PASS == Call.parse("--") == Call.parse("p")
    assert Call.parse("Db") == DOUBLE == Call.parse("x")
    assert Call.parse("rd") == REDOUBLE == Call.parse("XX")
    assert str(bid(7, Denom.NT)) == "7N" and bid(7, Denom.NT).to_brill() == "7N"
    assert [c.to_brill() for c in (PASS, DOUBLE, REDOUBLE)] == ["--", "Db", "Rd"]
    assert [str(c) for c in (PASS, DOUBLE, REDOUBLE)] == ["P", "X", "XX"]
    assert bid(3, "S").to_pbn() == "3S" and bid(3, "N").to_pbn() == "3NT"


@pytest.mark.parametrize("text", ["8C", "0S", "1Z", "", "XXX", "1 C D"])
def test_call_parse_rejects(text):
    with pytest.raises(InvalidInput) as info:
        Call.parse(text, field="call")
    assert info.value.field == "call"


@pytest.mark.parametrize(
    "dealer, bidders, widow",
    [("N", "NEW", "S"), ("E", "ESN", "W"), ("S", "SWE", "N"), ("W", "WNS", "E")],
)
def test_bidders_skip_the_widow(dealer, bidders, widow):
    a = AuctionState.start(dealer)
    assert "".join(s.letter for s in a.bidders) == bidders
    assert a.widow.letter == widow
    # the turn cycles over the three bidders
    seen = []
    for _ in range(6):
        seen.append(a.turn.letter)
        a = a.apply(bid(len(seen), Denom.C))
    assert "".join(seen) == bidders * 2


def test_contract_and_declarer_after_two_passes():
    a = AuctionState.from_calls("N", ["1S", "2H", "P"])  # N 1S, E 2H, W pass
    assert a.turn == Seat.N and not a.is_over
    a = a.apply("P")  # N passes: 2H followed by two passes
    assert a.is_over and a.turn is None
    assert a.contract == Contract(2, Denom.H, 0, Seat.E)
    assert a.declarer == Seat.E and str(a.contract) == "2H" and a.contract.tricks_needed == 8


def test_double_and_redouble_rules():
    a = AuctionState.from_calls("N", ["1S"])  # N holds 1S, E on turn
    assert a.is_legal(DOUBLE)
    assert "only the player holding" in a.illegal_reason(REDOUBLE)
    a = a.apply("P")  # W on turn: the other non-holder may double
    assert a.is_legal(DOUBLE)
    a = a.apply("X")
    assert a.doubling == 1 and a.turn == Seat.N
    assert "own bid" in a.illegal_reason(DOUBLE)
    assert "already doubled" in a.apply("P").illegal_reason(DOUBLE)  # E, a non-holder, may not double again
    a = a.apply("XX")
    assert a.doubling == 2
    assert "already redoubled" in a.illegal_reason(DOUBLE)  # E on turn
    a = a.apply("P").apply("P")
    assert a.is_over and a.contract == Contract(1, Denom.S, 2, Seat.N)


def test_cannot_double_own_bid_and_new_bid_clears_doubles():
    a = AuctionState.from_calls("E", ["1H", "X", "P"])  # E bids, S doubles, N passes; E on turn
    assert a.turn == Seat.E
    assert "own bid" in a.illegal_reason(DOUBLE)
    a = a.apply("2C")
    assert a.doubling == 0 and a.is_legal(DOUBLE)
    a = AuctionState.from_calls("E", ["1H", "P"])  # E holds 1H, S passed, N on turn
    assert not a.is_over and a.turn == Seat.N
    assert a.apply("P").is_over


def test_double_ends_after_two_passes():
    a = AuctionState.from_calls("S", ["1C", "X", "P", "P"])
    assert a.is_over and a.contract == Contract(1, Denom.C, 1, Seat.S)


def test_illegal_calls_rejected_with_reason():
    a = AuctionState.start("N")
    with pytest.raises(IllegalAction, match="no bid to double"):
        a.apply(DOUBLE)
    with pytest.raises(IllegalAction, match="no bid to redouble"):
        a.apply(REDOUBLE)
    a = a.apply("2S")
    with pytest.raises(IllegalAction, match="does not outrank"):
        a.apply("2H")
    with pytest.raises(IllegalAction, match="does not outrank"):
        a.apply("2S")
    over = AuctionState.from_calls("N", ["P", "P", "P"])
    with pytest.raises(IllegalAction, match="over"):
        over.apply(PASS)
    assert over.legal_calls() == []


def test_thrown_in_and_dealer_must_bid():
    a = AuctionState.from_calls("W", ["P", "P", "P"])
    assert a.is_over and a.passed_out and a.contract is None and a.declarer is None
    a = AuctionState.from_calls("W", ["P", "P", "1C", "P"])
    assert not a.is_over
    must = AuctionState.start("W", AuctionOptions(dealer_must_bid=True))
    assert PASS not in must.legal_calls()
    with pytest.raises(IllegalAction, match="must open"):
        must.apply(PASS)
    assert must.apply("1C").is_legal(PASS)


def test_ranking_value_orders_3s_above_4c():
    value = AuctionState.start("N", AuctionOptions(ranking="value")).apply("3S")  # 27
    assert not value.is_legal(bid(4, Denom.C))  # 24 < 27
    assert value.is_legal(bid(4, Denom.D))  # 28
    assert value.is_legal(bid(3, Denom.NT))  # 30
    contract = AuctionState.start("N").apply("3S")
    assert contract.is_legal(bid(4, Denom.C))  # level first
    v = AuctionState.start("N", AuctionOptions(ranking="value")).apply("4C")  # 24 = 3H
    assert not v.is_legal(bid(3, Denom.H))  # equal value, lower level loses
    # tie of value broken by level: 3H (24) then 4C (24) is legal
    assert AuctionState.start("N", AuctionOptions(ranking="value")).apply("3H").is_legal(bid(4, Denom.C))


def test_legal_calls_are_exactly_the_legal_ones():
    for ranking in ("contract", "value"):
        a = AuctionState.from_calls("N", ["2D", "X"], AuctionOptions(ranking=ranking))
        legal = set(a.legal_calls())
        every = [PASS, DOUBLE, REDOUBLE] + [bid(level, d) for level in range(1, 8) for d in Denom]
        for c in every:
            assert (c in legal) == (a.is_legal(c))


@st.composite
def random_auctions(draw):
    dealer = draw(st.sampled_from(list(Seat)))
    options = AuctionOptions(ranking=draw(st.sampled_from(["contract", "value"])), dealer_must_bid=draw(st.booleans()))
    state = AuctionState.start(dealer, options)
    steps = 0
    while not state.is_over:
        legal = state.legal_calls()
        assert legal, "a running auction always has a legal call"
        state = state.apply(draw(st.sampled_from(legal)))
        steps += 1
        assert steps < 400
    return state


@given(random_auctions())
@settings(max_examples=300, deadline=None)
def test_every_legal_sequence_ends(state):
    assert state.is_over and state.turn is None
    if state.passed_out:
        assert [str(c) for c in state.calls] == ["P", "P", "P"]
        assert not state.options.dealer_must_bid
    else:
        c = state.contract
        assert c.declarer in state.bidders and c.declarer != state.widow
        assert [x.kind for x in state.calls[-2:]] == ["pass", "pass"]
        assert state.highest_bid == Call("bid", c.level, c.denom)


@pytest.mark.parametrize(
    "dealer, declarer, expected",
    [
        # declarer = dealer: widow already opposite, nobody moves
        ("N", "N", {"N": "N", "E": "E", "S": "S", "W": "W"}),
        # dealer N (widow S), declarer E: widow -> W (opposite E), W's player -> S
        ("N", "E", {"N": "N", "E": "E", "S": "W", "W": "S"}),
        ("N", "W", {"N": "N", "E": "S", "S": "E", "W": "W"}),
        ("E", "S", {"N": "W", "E": "E", "S": "S", "W": "N"}),
        ("S", "W", {"N": "E", "E": "N", "S": "S", "W": "W"}),
    ],
)
def test_reseat_cases(dealer, declarer, expected):
    mapping = reseat(Seat.parse(dealer), Seat.parse(declarer))
    assert {a.letter: b.letter for a, b in mapping.items()} == expected
    assert mapping[Seat.parse(dealer).partner] == Seat.parse(declarer).partner  # widow -> dummy


def test_reseat_rejects_widow_declarer():
    with pytest.raises(InvalidInput):
        reseat(Seat.N, Seat.S)


def test_play_deal_moves_hands_and_opening_leader():
    deal = random_deal(np.random.default_rng(5))
    moved = play_deal(deal, Seat.N, Seat.E)
    assert moved[Seat.W] == deal[Seat.S]  # widow's hand is dummy opposite E
    assert moved[Seat.S] == deal[Seat.W]  # W's player moved to the widow's seat
    assert moved[Seat.N] == deal[Seat.N] and moved[Seat.E] == deal[Seat.E]
    assert isinstance(moved, Deal)
    assert opening_leader(Seat.E) == Seat.S
    assert opening_leader(Seat.W) == Seat.N
