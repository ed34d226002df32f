"""Strings written into PBN tags and score tables come back from our reader as written and never add a tag."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.cards import Seat, random_deal
from tribridge.dealing.streams import random_stream
from tribridge.events.export import pbn_table
from tribridge.rules.pbn import read_boards
from tribridge.rules.pbn_write import deal_board_pbn, pbn_tag

# any printable text: no control characters (pbn_tag writes those as spaces), no lone surrogates
PRINTABLE = st.text(st.characters(blacklist_categories=("Cc", "Cs")), max_size=60)
DEAL = deal_board_pbn(random_deal(random_stream(3, 1)), Seat.N, 1)


@settings(max_examples=300, deadline=None)
@given(PRINTABLE)
def test_a_tag_value_round_trips_and_adds_no_tag(value):
    (board,) = read_boards(pbn_tag("Event", value) + "\n" + DEAL)
    assert board.tags["Event"] == value
    assert set(board.tags) == {"Event", "Board", "Dealer", "Deal"}


@settings(max_examples=200, deadline=None)
@given(PRINTABLE)
def test_a_name_in_a_score_table_adds_no_tag(name):
    text = DEAL + pbn_table("TotalScoreTable", [("Rank", "R"), ("Name", "L")], [[1, name]]) + "\n"
    (board,) = read_boards(text)
    assert set(board.tags) == {"Board", "Dealer", "Deal", "TotalScoreTable"}


def test_an_injected_tag_stays_in_its_value():
    (board,) = read_boards(pbn_tag("Event", 'Ev"] [Result "13') + "\n" + DEAL)
    assert board.tags["Event"] == 'Ev"] [Result "13' and "Result" not in board.tags


def test_control_characters_are_written_as_spaces():
    assert pbn_tag("Event", "a\nb\r\tc") == '[Event "a b  c"]'
