"""Tests of whole deals: policies and views, reseating in play, DealRecord JSON and PBN."""

import json
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.cards import Card, Deal, Seat, random_deal
from tribridge.errors import IllegalAction, InvalidInput
from tribridge.rules.auction import PASS, AuctionOptions, Call, bid, reseat
from tribridge.rules.game import (
    DealRecord,
    play_deal_record,
    play_random_deal,
    random_bid_policy,
    random_play_policy,
)
from tribridge.rules.scoring import get_scheme, honours_held, score_deal
from tribridge.rules.view import SeatView


@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from(list(Seat)),
    st.sampled_from(["contract", "value"]),
    st.booleans(),
    st.sampled_from(["classic", "tribridge"]),
)
@settings(max_examples=60, deadline=None)
def test_record_json_round_trip(seed, dealer, ranking, must_bid, scheme):
    record = play_random_deal(seed, scheme, dealer, AuctionOptions(ranking, must_bid))
    text = json.dumps(record.to_json())
    back = DealRecord.from_json(text)
    assert back == record
    assert DealRecord.from_json(json.loads(text)) == record
    if record.contract is not None:
        assert record.declarer_tricks == back.play_state().declarer_tricks
        assert record.score == score_deal(record.contract, record.declarer_tricks, scheme)


def _pbn_tags(text):
    tags = {}
    sections = {}
    current = None
    for line in text.splitlines():
        if line.startswith("["):
            name, value = line[1:-1].split(" ", 1)
            tags[name] = value.strip('"')
            current = name
            sections[name] = []
        elif line.startswith("{"):
            continue
        elif current:
            sections[current].extend(line.split())
    return tags, sections


@given(st.integers(0, 2**32 - 1), st.sampled_from(list(Seat)))
@settings(max_examples=40, deadline=None)
def test_pbn_export_is_consistent(seed, dealer):
    record = play_random_deal(seed, "classic", dealer)
    tags, sections = _pbn_tags(record.to_pbn())
    assert tags["Dealer"] == dealer.letter
    play_deal = Deal.from_pbn(tags["Deal"])
    assert play_deal == record.play_deal
    # the auction: calls in PBN spelling, four-handed in play seats, "Pass =1=" at the dummy's (widow's) turns
    auction = [t for t in sections["Auction"] if t != "=1="]
    noted = [i for i, t in enumerate(sections["Auction"]) if t == "=1="]
    dummy = record.seat_map[record.widow]
    columns = [(dealer + i) % 4 for i in range(len(auction))]
    assert [i - k - 1 for k, i in enumerate(noted)] == [i for i, col in enumerate(columns) if col == dummy]
    assert all(tok == "Pass" for tok, col in zip(auction, columns) if col == dummy)
    assert [t for t, col in zip(auction, columns) if col != dummy] == [c.to_pbn() for c in record.calls]
    if record.contract is None:
        assert tags["Contract"] == "Pass" and tags["Declarer"] == ""
        return
    assert tags["Declarer"] == record.declarer.letter
    assert tags["Contract"] == str(record.contract)
    assert int(tags["Result"]) == record.declarer_tricks
    # the play: columns from the opening leader; each card held by that column's seat in play seats
    leader = Seat.parse(tags["Play"])
    assert leader == record.declarer.lho
    cards = [t for t in sections["Play"] if t != "*"]
    assert len(cards) == 52
    for i, tok in enumerate(cards):
        seat = (leader + i % 4) % 4
        assert Card.parse(tok).index in play_deal[seat].cards
    assert sorted(Card.parse(t) for t in cards) == sorted(record.play)


def test_declarer_plays_dummy_and_views_show_what_they_should():
    rng = np.random.default_rng(11)
    deal = random_deal(rng)
    dealer = Seat.E  # widow W; bidders E, S, N
    calls = {Seat.E: ["1S", "P"], Seat.S: ["P", "P"], Seat.N: ["2C", "P"]}

    def scripted(seat):
        def policy(view: SeatView) -> Call:
            assert view.seat == seat and view.hand == deal[seat] and view.dealer == dealer
            return Call.parse(calls[seat].pop(0))

        return policy

    seen: dict[Seat, list[SeatView]] = {s: [] for s in (Seat.E, Seat.S, Seat.N)}

    def recorder(person):
        inner = random_play_policy(np.random.default_rng(int(person)))

        def policy(view: SeatView) -> Card:
            seen[person].append(view)
            return inner(view)

        return policy

    record = play_deal_record(deal, dealer, {s: scripted(s) for s in seen}, {s: recorder(s) for s in seen})
    # N bid 2C last, followed by two passes: N declares; the widow (W) is dummy at S; S's player moves to W
    assert str(record.contract) == "2C" and record.declarer == Seat.N
    assert record.seat_map == reseat(Seat.E, Seat.N) == {Seat.N: Seat.N, Seat.E: Seat.E, Seat.S: Seat.W, Seat.W: Seat.S}
    assert record.play_deal[Seat.S] == deal[Seat.W]
    # the declarer (N) decided for N and for dummy (S); the player dealt S plays at W
    assert {v.to_play for v in seen[Seat.N]} == {Seat.N, Seat.S}
    assert {v.to_play for v in seen[Seat.S]} == {Seat.W}
    assert {v.to_play for v in seen[Seat.E]} == {Seat.E}
    assert len(seen[Seat.N]) == 26 and len(seen[Seat.S]) == 13 and len(seen[Seat.E]) == 13
    for person, views in seen.items():
        for v in views:
            assert v.player == person and v.hand == deal[person]
            assert v.seat == record.seat_map[person] and v.turn == person
            assert v.all_hands is None  # a player's view never holds the hidden hands
            assert (v.dummy is None) == (len(v.played) == 0)
            if v.dummy is not None:
                assert v.dummy == deal[Seat.W]
    first = seen[Seat.E][0]
    assert first.to_play == Seat.E and first.dummy is None  # E (declarer's LHO) leads before dummy is exposed


def test_thrown_in_deal():
    deal = random_deal(np.random.default_rng(3))
    passer = lambda view: PASS  # noqa: E731
    record = play_deal_record(deal, "S", {s: passer for s in Seat}, {})
    assert record.passed_out and record.contract is None and record.play == ()
    assert record.score.declarer == 0 and record.score.net == 0
    assert DealRecord.from_json(record.to_json()) == record
    tags, sections = _pbn_tags(record.to_pbn())
    assert tags["Contract"] == "Pass" and sections["Auction"] == ["Pass", "Pass", "Pass", "=1=", "Pass"]


def test_illegal_policy_choices_are_refused():
    deal = random_deal(np.random.default_rng(4))
    bidders = {s: (lambda view: bid(1, "C")) for s in Seat}
    with pytest.raises(IllegalAction, match="does not outrank"):
        play_deal_record(deal, "N", bidders, {})
    opener = {
        Seat.N: lambda v: bid(1, "NT") if not v.auction.calls else PASS,
        Seat.E: lambda v: PASS,
        Seat.W: lambda v: PASS,
    }
    bad_player = lambda view: Card(min(set(range(52)) - view.held - {c.index for c in view.played_cards}))  # noqa: E731
    with pytest.raises(IllegalAction, match="does not hold"):
        play_deal_record(deal, "N", opener, {s: bad_player for s in Seat})
    with pytest.raises(InvalidInput, match="no card-play policy"):
        play_deal_record(deal, "N", opener, {Seat.N: bad_player})


def test_from_json_rejects_inconsistent_records():
    record = next(r for r in (play_random_deal(seed, "classic", "N") for seed in range(100)) if r.contract)
    data = record.to_json()
    with pytest.raises(InvalidInput, match="contract"):
        DealRecord.from_json({**data, "contract": "7NTXX" if data["contract"] != "7NTXX" else "1C"})
    with pytest.raises(InvalidInput, match="declarer_tricks"):
        DealRecord.from_json({**data, "declarer_tricks": (data["declarer_tricks"] + 1) % 14})
    with pytest.raises(InvalidInput):
        DealRecord.from_json({**data, "play": data["play"][1:] + data["play"][:1]})
    with pytest.raises(InvalidInput, match="record.deal"):
        DealRecord.from_json({k: v for k, v in data.items() if k != "deal"})
    with pytest.raises(InvalidInput, match="JSON"):
        DealRecord.from_json("{not json")


def test_honours_scheme_counts_honours_from_the_deal():
    scheme = replace(get_scheme("classic"), honours=True)
    rng = np.random.default_rng(21)
    for _ in range(20):
        deal = random_deal(rng)
        seats = (Seat.N, Seat.E, Seat.W)
        record = play_deal_record(
            deal, "N", {s: random_bid_policy(rng) for s in seats}, {s: random_play_policy(rng) for s in seats}, scheme
        )
        if record.contract is None:
            continue
        held = honours_held(record.play_deal, record.contract)
        assert record.score == score_deal(record.contract, record.declarer_tricks, scheme, held)
        assert "honours_declarer" in record.score.breakdown
