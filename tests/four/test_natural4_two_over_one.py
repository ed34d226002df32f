"""2/1 game forcing beside SAYC: each listed difference, read the same way it is bid."""

import pytest

from tribridge.cards import Hand
from tribridge.four import natural4
from tribridge.four.natural4 import Bid4View, read_auction, side_systems, system_for
from tribridge.four.natural4.core import HandInfo
from tribridge.four.rules import Auction4

SAYC, TWO = ("SAYC", "SAYC"), ("2/1", "2/1")


def decide(hand, calls, systems, dealer=0):
    auction = Auction4.from_calls(dealer, calls)
    return natural4.decide_call(
        Bid4View(auction.turn, dealer, "None", tuple(Hand.from_pbn(hand).cards), auction, systems)
    )


@pytest.mark.parametrize("name", ["2/1", "2/1 GF", "2-over-1", "Two over One", "GIB 2/1", "BEN 2/1"])
def test_the_names_clients_send_choose_two_over_one(name):
    assert system_for(name) == ("2/1", None)
    assert system_for("SAYC") == ("SAYC", None) and system_for("Acol")[1] is not None
    assert side_systems(1, "2/1", "SAYC") == ("SAYC", "2/1")


def test_two_over_one_forces_to_game():
    # 11 HCP and five diamonds over 1S: SAYC's 2D (11+), in 2/1 too weak for a game force, so the forcing 1NT
    eleven = "85.K62.AQ983.K72"
    assert decide(eleven, ["1S", "P"], SAYC).call == "2D"
    forcing_nt = decide(eleven, ["1S", "P"], TWO)
    assert forcing_nt.call == "1N" and forcing_nt.alert and "forcing 1NT" in forcing_nt.explanation
    # 13 HCP: 2D in both, shown as game forcing in 2/1
    thirteen = "85.K62.AQ983.KJ2"
    sayc, two = decide(thirteen, ["1S", "P"], SAYC), decide(thirteen, ["1S", "P"], TWO)
    assert sayc.call == two.call == "2D"
    assert "forcing to game" in two.explanation and "forcing to game" not in sayc.explanation
    assert two.meaning.lo == 13 and sayc.meaning.lo == 11


def test_a_passed_hand_does_not_force_to_game():
    # the same 11 HCP after passing first: a passed hand's two-level response is as in SAYC in both systems
    calls = ["P", "P", "1S", "P"]
    assert (
        decide("85.K62.AQ983.K72", calls, TWO, dealer=2).call
        == decide("85.K62.AQ983.K72", calls, SAYC, dealer=2).call
        == "2D"
    )
    assert "forcing to game" not in decide("85.K62.AQ983.K72", calls, TWO, dealer=2).explanation


def test_opener_does_not_pass_the_forcing_1nt():
    # a minimum 5-3-3-2 opener passes 1NT in SAYC; in 2/1 he bids his longer minor, here three diamonds
    hand = "AKJ82.K62.Q93.72"
    calls = ["1S", "P", "1N", "P"]
    assert decide(hand, calls, SAYC).call == "P"
    two = decide(hand, calls, TWO)
    assert two.call == "2D" and HandInfo.of(Hand.from_pbn(hand).cards).lens[1] == 3
    assert decide("AKJ82.K62.93.Q72", calls, TWO).call == "2C"  # three clubs, two diamonds
    # after a passed partner's 1NT the response was not forcing: opener may pass
    assert decide(hand, ["P", "P", "1S", "P", "1N", "P"], TWO, dealer=2).call == "P"


def test_their_system_reads_the_opponents_calls():
    # East-West play 2/1: East's 2C response to West's 1S is read as 13+, North-South's own calls by SAYC
    auction = Auction4.from_calls(3, ["1S", "P", "2C"])
    shown_two, _ = read_auction(auction, "None", ("SAYC", "2/1"))
    shown_sayc, _ = read_auction(auction, "None", SAYC)
    assert shown_two[1].lo == 13 and shown_sayc[1].lo == 11
