"""Tests of cards, hands, deals and PBN I/O."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.cards import Card, Deal, Hand, Seat, owners_to_masks, random_deal
from tribridge.errors import InvalidInput


@st.composite
def deals(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    return random_deal(np.random.default_rng(seed))


@given(deals(), st.integers(0, 3))
@settings(max_examples=200)
def test_pbn_round_trip(deal, first):
    text = deal.to_pbn(first)
    assert Deal.from_pbn(text) == deal
    for seat in range(4):
        assert Hand.from_pbn(deal[seat].to_pbn()) == deal[seat]


@given(deals())
@settings(max_examples=100)
def test_owner_array_round_trip(deal):
    owners = deal.to_owners()
    assert owners.dtype == np.uint8 and owners.shape == (52,)
    assert Deal.from_owners(owners) == deal
    masks = owners_to_masks(owners)
    for seat in range(4):
        assert tuple(masks[seat]) == deal[seat].masks()


def test_hand_parse_variants():
    a = Hand.from_pbn("AKQ2.J54.T98.762")
    assert Hand.from_pbn("akq2_j54_1098_762") == a
    assert a.to_pbn() == "AKQ2.J54.T98.762"
    assert Card.parse("SA") in a and Card.parse("d10") in a
    assert a.suit_mask(3) == 0b1000000000111  # A K Q and 2 of spades
    assert a.hcp() == 9 + 1


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("AKQ2.J54.T98.76", "expected 13 cards"),
        ("AKQ2.J54.T98.7622", "appears twice"),
        ("AKQ2.J54.T98.76X", "bad character"),
        ("AKQ2.J54.T98", "4 suits"),
    ],
)
def test_bad_hands_name_the_field(text, fragment):
    with pytest.raises(InvalidInput) as info:
        Hand.from_pbn(text, field="hand")
    assert "hand" in str(info.value) and fragment in str(info.value)


def test_bad_deals():
    good = random_deal(np.random.default_rng(1)).to_pbn()
    with pytest.raises(InvalidInput, match="both"):
        parts = good[2:].split()
        Deal.from_pbn("N:" + " ".join([parts[0], parts[0], parts[2], parts[3]]))
    with pytest.raises(InvalidInput, match="4 hands"):
        Deal.from_pbn("N:" + " ".join(good[2:].split()[:3]))
    with pytest.raises(InvalidInput, match="deal"):
        Deal.from_pbn("X" + good[1:])


def test_seats():
    assert Seat.parse("n") == Seat.N and Seat.N.partner == Seat.S and Seat.W.lho == Seat.N
    with pytest.raises(InvalidInput, match="seat"):
        Seat.parse("Q")


def test_card_text():
    assert str(Card.of(3, 0)) == "SA" and Card.parse("AS") == Card.of(3, 0)
    assert Card.parse("c2").index == 12
    with pytest.raises(InvalidInput, match="card"):
        Card.parse("S1")
