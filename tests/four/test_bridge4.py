"""Tests of the four-handed bridge rules used by the robot API (four/rules.py)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.cards import Card, Deal, random_deal
from tribridge.errors import IllegalAction, InvalidInput
from tribridge.four.rules import (
    Auction4,
    Contract4,
    legal_cards,
    parse_call,
    parse_ctx,
    to_brill,
    trace_play,
)
from tribridge.rules.auction import Contract, Denom
from tribridge.rules.play import PlayState


def test_ctx_forms_agree():
    assert parse_ctx("1S--2HDbRd") == ["1S", "P", "2H", "X", "XX"]
    assert parse_ctx("1S-P-2H-X-XX") == ["1S", "P", "2H", "X", "XX"]
    assert parse_ctx("1NT--") == ["1N", "P"]
    assert parse_ctx("1nt-p-3nt-pass") == ["1N", "P", "3N", "P"]
    assert parse_ctx("") == []
    assert [to_brill(c) for c in parse_ctx("1S-P-2H-X-XX")] == ["1S", "--", "2H", "Db", "Rd"]


@pytest.mark.parametrize("bad", ["1S-", "1SZZ", "8C", "1S--2", "1S-Q", "--1"])
def test_bad_ctx_names_the_field(bad):
    with pytest.raises(InvalidInput) as err:
        parse_ctx(bad)
    assert str(err.value).startswith("ctx:")


def test_call_aliases():
    assert parse_call("Pass") == "P" and parse_call("--") == "P"
    assert parse_call("db") == "X" and parse_call("RD") == "XX"
    assert parse_call("7nt") == "7N"


def test_auction_rules_doubles_and_declarer():
    a = Auction4.from_calls(0, ["1H", "P", "2H", "X"])  # N 1H, E P, S 2H, W X
    assert a.turn == 0 and a.doubling() == 1
    assert a.is_legal("XX")  # N redoubles the opponents' double
    assert not a.is_legal("X")
    b = a.apply("P")
    assert not b.is_legal("XX")  # E may not redouble its own side's double
    done = Auction4.from_calls(0, ["1H", "P", "2H", "X", "P", "P", "P"])
    assert done.is_over and str(done.contract) == "2HX" and done.contract.declarer == 0  # N named hearts first
    assert Auction4.from_calls(0, ["1H"]).is_legal("X")  # E may double N's bid
    assert Auction4(0).apply("P").apply("P").apply("P").apply("P").passed_out


def test_own_side_double_is_illegal():
    with pytest.raises(IllegalAction) as err:
        Auction4.from_calls(0, ["1H", "P", "X"])
    assert "call 3" in str(err.value)


def test_over_after_three_passes_not_before():
    a = Auction4.from_calls(1, ["P", "P", "P"])
    assert not a.is_over and a.turn == 0
    assert Auction4.from_calls(1, ["1C", "P", "P", "P"]).is_over


@st.composite
def played_deals(draw):
    """A random deal, contract and a random legal play prefix from the rules engine."""
    seed = draw(st.integers(0, 2**31))
    rng = np.random.default_rng(seed)
    deal = random_deal(rng)
    declarer = int(rng.integers(4))
    denom = int(rng.integers(5))
    contract = Contract(1 + int(rng.integers(7)), Denom(denom), 0, declarer)
    state = PlayState.start(deal, contract)
    n = draw(st.integers(0, 51))
    for _ in range(n):
        legal = state.legal_cards()
        state = state.apply(legal[int(rng.integers(len(legal)))])
    return deal, contract, state


@given(played_deals())
@settings(max_examples=80, deadline=None)
def test_trace_agrees_with_rules_engine(case):
    deal, contract, state = case
    c4 = Contract4(contract.level, int(contract.denom), 0, int(contract.declarer))
    viewer = int(contract.declarer)
    known = {viewer: deal[viewer].cards, c4.dummy: deal[c4.dummy].cards}
    trace = trace_play(c4, [c.index for c in state.played], known)
    assert trace.turn == (None if state.is_over else int(state.turn))
    assert trace.declarer_tricks == state.declarer_tricks
    assert trace.trick_winners == [int(w) for _, _, w in state.tricks]
    if not state.is_over and int(state.turn) in known:
        assert legal_cards(trace, known[int(state.turn)]) == sorted(c.index for c in state.legal_cards())


def test_trace_refuses_impossible_cards():
    deal = Deal.from_pbn("N:AKQJ.T98.765.432 T987.AKQ.432.765 6543.J76.AKQ.JT9 2.5432.JT98.AKQ8")
    c4 = Contract4(3, 4, 0, 0)  # 3NT by N, E leads
    known = {0: deal[0].cards, 2: deal[2].cards}
    with pytest.raises(IllegalAction, match="in N's hand"):
        trace_play(c4, [Card.parse("SA").index], {0: deal[0].cards})  # E leads N's card
    with pytest.raises(IllegalAction, match="does not hold it"):
        trace_play(c4, [Card.parse("SA").index], {1: deal[1].cards})  # E's known hand lacks it
    # E leads a heart, S (dummy, known) must follow with a heart
    e_heart = Card.parse("HA").index
    with pytest.raises(IllegalAction, match="revokes"):
        trace_play(c4, [e_heart, Card.parse("DA").index], known)
    with pytest.raises(IllegalAction, match="already played"):
        trace_play(c4, [e_heart, e_heart], known)
