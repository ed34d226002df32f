"""Tests of the double-dummy facade: conversion, tables against endplay, cache, position solves."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge import dd
from tribridge.cards import Card, Deal, random_deal
from tribridge.errors import InvalidInput

endplay_types = pytest.importorskip("endplay.types")
endplay_dds = pytest.importorskip("endplay.dds")
EpDeal, Denom, Player = endplay_types.Deal, endplay_types.Denom, endplay_types.Player
OUR_TO_EP_DENOM = [Denom.clubs, Denom.diamonds, Denom.hearts, Denom.spades, Denom.nt]

# Each seat holds one whole suit: N spades, E hearts, S diamonds, W clubs.
ONE_SUIT_EACH = Deal.from_pbn("N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432")
# North-South hold every card above the opponents' in every suit, and nobody is void.
TOP_CARDS_NS = Deal.from_pbn("N:AKQJ.AKQ.AKQ.AKQ 765.8765.876.765 T98.JT9.JT9.JT98 432.432.5432.432")


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_conversion_round_trips(seed: int) -> None:
    deal = random_deal(np.random.default_rng(seed))
    ep = dd.to_endplay(deal)
    assert dd.from_endplay(ep) == deal
    # endplay's own PBN parser agrees with our conversion
    assert EpDeal(deal.to_pbn()).to_pbn() == ep.to_pbn()
    assert dd.from_endplay(EpDeal(deal.to_pbn())) == deal


def test_to_endplay_sets_leader_and_trump() -> None:
    ep = dd.to_endplay(ONE_SUIT_EACH, first=1, trump=2)
    assert ep.first == Player.east
    assert ep.trump == Denom.hearts
    assert dd.to_endplay(ONE_SUIT_EACH).trump == Denom.nt


def test_full_tables_equal_endplay(tmp_path) -> None:
    rng = np.random.default_rng(11)
    deals = [random_deal(rng) for _ in range(5)]
    ours = dd.dd_tables_array(deals, cache=tmp_path / "dd.sqlite", workers=1)
    theirs = endplay_dds.calc_all_tables([EpDeal(d.to_pbn()) for d in deals])
    for i in range(len(deals)):
        for seat in range(4):
            for strain in range(5):
                assert ours[i, seat, strain] == theirs[i][OUR_TO_EP_DENOM[strain], Player(seat)]


def test_nt_tables_equal_endplay_and_parallel_agrees(tmp_path) -> None:
    rng = np.random.default_rng(12)
    deals = [random_deal(rng) for _ in range(12)]
    theirs = endplay_dds.calc_all_tables([EpDeal(d.to_pbn()) for d in deals], exclude=list(Denom.suits()))
    in_process = dd.dd_nt_tricks(deals, [0, 1, 2, 3] * 3, cache=False, workers=1)
    parallel = dd.dd_tables_array(deals, nt_only=True, cache=False, workers=2)
    for i in range(len(deals)):
        assert in_process[i] == theirs[i][Denom.nt, Player(i % 4)]
        for seat in range(4):
            assert parallel[i, seat, dd.NT] == theirs[i][Denom.nt, Player(seat)]
        assert (parallel[i, :, :4] == dd.UNKNOWN).all()


def test_known_deal_one_suit_each() -> None:
    table = dd.dd_table([ONE_SUIT_EACH], cache=False, workers=1)[0]
    # whoever's side holds the trump suit takes every trick; nobody makes a trick in NT
    for seat in "NS":
        assert table[seat] == {"C": 0, "D": 13, "H": 0, "S": 13, "NT": 0}
    for seat in "EW":
        assert table[seat] == {"C": 13, "D": 0, "H": 13, "S": 0, "NT": 0}


def test_known_deal_top_cards() -> None:
    table = dd.dd_table(TOP_CARDS_NS, cache=False, workers=1)[0]
    for seat in "NS":
        assert table[seat] == {"C": 13, "D": 13, "H": 13, "S": 13, "NT": 13}
    assert table["E"]["NT"] == 0 and table["W"]["NT"] == 0


def test_cache_hit_returns_stored_table(tmp_path) -> None:
    path = tmp_path / "cache.sqlite"
    deal = random_deal(np.random.default_rng(3))
    fresh = dd.dd_tables_array([deal], cache=path, workers=1)
    store = dd.DDCache(path)
    assert len(store) == 1
    assert (store.get(deal.to_owners()[None]) == fresh).all()
    # plant a table DDS could never produce; a hit must return it untouched
    planted = np.full((1, 4, 5), 7, dtype=np.uint8)
    planted[0, 0, 0] = 99
    store.put(deal.to_owners()[None], planted)
    again = dd.dd_tables_array([deal], cache=dd.DDCache(path), workers=1)
    assert (again == planted).all()
    assert dd.dd_table([deal], cache=dd.DDCache(path))[0]["N"]["C"] == 99


def test_one_deal_asked_for_several_cells_at_once_keeps_them_all(tmp_path) -> None:
    """A batch holding one deal several times, each with another cell, stores every cell (not the last one only)."""
    deal = random_deal(np.random.default_rng(4))
    declarers, strains = [0, 1, 2, 3, 0], [0, 1, 2, 3, 4]
    owners = np.repeat(deal.to_owners()[None], 5, axis=0)
    solved = dd.dd_declarer_tricks(owners, declarers, strains, cache=tmp_path / "c.sqlite", workers=1)
    stored = dd.DDCache(tmp_path / "c.sqlite").get(deal.to_owners()[None])[0]
    assert [int(stored[d, s]) for d, s in zip(declarers, strains)] == solved.tolist()
    again = dd.dd_declarer_tricks(owners, declarers, strains, cache=False, workers=1)
    assert again.tolist() == solved.tolist()


def test_nt_cache_entries_are_completed_by_a_full_request(tmp_path) -> None:
    path = tmp_path / "c.sqlite"
    deal = random_deal(np.random.default_rng(4))
    nt = dd.dd_tables_array([deal], nt_only=True, cache=path, workers=1)
    assert (dd.DDCache(path).get(deal.to_owners()[None])[0, :, :4] == dd.UNKNOWN).all()
    full = dd.dd_tables_array([deal], cache=path, workers=1)
    assert (full[0, :, dd.NT] == nt[0, :, dd.NT]).all()
    assert (dd.DDCache(path).get(deal.to_owners()[None]) == full).all()


def test_env_var_sets_default_cache(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("TRIBRIDGE_DD_CACHE", str(tmp_path / "env.sqlite"))
    assert dd.default_cache_path() == tmp_path / "env.sqlite"


def test_bad_deals_are_refused() -> None:
    with pytest.raises(InvalidInput):
        dd.dd_tables_array(np.zeros((1, 52), dtype=np.uint8), cache=False)
    with pytest.raises(InvalidInput):
        dd.dd_nt_tricks([ONE_SUIT_EACH], declarers=5, cache=False, workers=1)


def test_solve_position_opening_lead_matches_table_and_endplay() -> None:
    rng = np.random.default_rng(21)
    for _ in range(3):
        deal = random_deal(rng)
        declarer = int(rng.integers(4))
        leader = (declarer + 1) % 4
        result = dd.solve_position(dd.position_after(deal, None, leader, []))
        assert set(result) == set(deal[leader].cards)
        declarer_tricks = dd.dd_nt_tricks([deal], declarer, cache=False, workers=1)[0]
        assert max(result.values()) == 13 - declarer_tricks
        ep = dd.to_endplay(deal, first=leader)
        theirs = {dd.from_card(c): t for c, t in endplay_dds.solve_board(ep)}
        assert theirs == result


def test_solve_position_mid_trick_matches_endplay() -> None:
    rng = np.random.default_rng(22)
    deal = random_deal(rng)
    leader, trump = 1, 3  # East leads, spades are trumps
    ep = dd.to_endplay(deal, first=leader, trump=trump)
    played: list[int] = []
    for _ in range(6):  # one full trick and two cards of the next, chosen by endplay's legal moves
        card = ep.legal_moves()[0]
        played.append(dd.from_card(card))
        ep.play(card)
    pos = dd.position_after(deal, trump, leader, played)
    assert pos.turn == ep.curplayer
    assert len(pos.trick) == 2
    theirs = {dd.from_card(c): t for c, t in endplay_dds.solve_board(ep)}
    assert dd.solve_position(pos) == theirs
    batch = dd.solve_positions([pos, dd.position_after(deal, trump, leader, [])])
    assert batch[0] == theirs and len(batch) == 2


def test_position_refuses_revoke_and_foreign_card() -> None:
    # East holds only hearts; North leads a spade; East may discard (void), but North cannot play a heart
    with pytest.raises(InvalidInput):
        dd.position_after(ONE_SUIT_EACH, None, 0, [Card.parse("HA")])
    deal = TOP_CARDS_NS
    with pytest.raises(InvalidInput):  # East holds spades, must follow to the spade lead
        dd.position_after(deal, None, 0, [Card.parse("SA"), Card.parse("H8")])


def test_one_suit_each_endgame_by_hand() -> None:
    # N leads in NT: every spade wins (nobody else has one), so North takes all 13
    result = dd.solve_position(dd.position_after(ONE_SUIT_EACH, None, 0, []))
    assert set(result.values()) == {13} and len(result) == 13


def test_single_declarer_solves_match_the_full_tables() -> None:
    """dd_declarer_tricks (one DDS search per cell) equals the full table's cell, every strain and seat."""
    rng = np.random.default_rng(31)
    deals = [random_deal(rng) for _ in range(4)]
    tables = dd.dd_tables_array(deals, nt_only=False, cache=False, workers=1)
    seats = np.array([0, 1, 2, 3] * 5)
    strains = np.repeat(np.arange(5), 4)
    for i, deal in enumerate(deals):
        cells = dd.dd_declarer_tricks([deal] * 20, seats, strains, cache=False, workers=1)
        assert cells.tolist() == tables[i, seats, strains].tolist()
    with pytest.raises(InvalidInput, match="strains"):
        dd.dd_declarer_tricks(deals[:1], 0, 5, cache=False, workers=1)
