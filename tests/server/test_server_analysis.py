"""Tests of the three-handed post-deal analysis and of the deal review (double dummy after each card)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.analysis import analyse, best_contract, capture_words, nt_verdict_words
from tribridge.cards import Card, Deal, Seat, random_deal
from tribridge.rules.auction import Contract, Denom
from tribridge.rules.deal import DealState, replay
from tribridge.rules.game import DealRecord
from tribridge.rules.scoring import get_scheme, score_deal
from tribridge.server.api.review import review_deal, review_record

endplay_types = pytest.importorskip("endplay.types")
endplay_dds = pytest.importorskip("endplay.dds")
EP_STRAINS = {
    "C": endplay_types.Denom.clubs,
    "D": endplay_types.Denom.diamonds,
    "H": endplay_types.Denom.hearts,
    "S": endplay_types.Denom.spades,
    "NT": endplay_types.Denom.nt,
}
EP_PLAYERS = [
    endplay_types.Player.north,
    endplay_types.Player.east,
    endplay_types.Player.south,
    endplay_types.Player.west,
]


def widow_opposite(deal: Deal, widow: Seat, declarer: Seat) -> Deal:
    """The deal with the widow's hand swapped with the hand opposite ``declarer`` (written from docs/rules.md, not reseat)."""
    hands = list(deal.hands)
    opposite = declarer.partner
    hands[int(widow)], hands[int(opposite)] = hands[int(opposite)], hands[int(widow)]
    return Deal(tuple(hands))


def finished_deal(seed: int) -> DealState:
    """A deal bid 1NT by the dealer's left-hand opponent (so the widow moves), played out with the first legal card."""
    deal = random_deal(np.random.default_rng(seed))
    dealer = Seat(seed % 4)
    state = replay(deal, dealer, ["P", "1N", "P", "P"])
    while not state.is_terminal():
        state = state.apply(state.legal_actions()[0])
    return state


def test_declarer_tricks_equal_an_endplay_solve_with_the_widow_opposite() -> None:
    state = finished_deal(3)
    analysis = analyse(state, "classic")
    entries = analysis["declarer_tricks"]
    assert [e["chair"] for e in entries] == [0, 1, 2]
    assert [e["seat"] for e in entries] == [s.letter for s in state.players]
    assert analysis["widow"] == {"seat": state.widow.letter, "hand": state.deal[state.widow].to_pbn()}
    for entry in entries:
        declarer = Seat.parse(entry["seat"])
        assert entry["hand"] == state.deal[declarer].to_pbn()
        table = endplay_dds.calc_dd_table(
            endplay_types.Deal(widow_opposite(state.deal, state.widow, declarer).to_pbn())
        )
        for key, strain in EP_STRAINS.items():
            assert entry["tricks"][key] == table[strain, EP_PLAYERS[int(declarer)]], (entry["seat"], key)


def test_best_contract_comes_from_the_table_and_names_the_chair() -> None:
    state = finished_deal(8)
    names = ["Ann", "Bob", "Cy"]
    chairs = [state.players[1], state.players[2], state.players[0]]
    analysis = analyse(state, "classic", chair_seats=chairs, names=names)
    entries = analysis["declarer_tricks"]
    assert [e["name"] for e in entries] == names and [e["seat"] for e in entries] == [s.letter for s in chairs]
    best = analysis["best_contract"]
    assert best is not None
    entry = entries[best["declarer_chair"]]
    strain = best["contract"][1:].rstrip("X")
    assert best["tricks"] == entry["tricks"][strain]
    assert best["tricks"] >= int(best["contract"][0]) + 6
    assert best["name"] == names[best["declarer_chair"]]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 13), min_size=5, max_size=5), min_size=3, max_size=3),
    st.sampled_from(["classic", "tribridge"]),
)
def test_best_contract_is_the_highest_scoring_makeable_one(rows, scheme_name) -> None:
    entries = [
        {"chair": i, "name": f"c{i}", "seat": "NES"[i], "tricks": dict(zip(("C", "D", "H", "S", "NT"), row))}
        for i, row in enumerate(rows)
    ]
    best = best_contract(entries, scheme_name)
    scheme = get_scheme(scheme_name)
    makeable = [
        (int(score_deal(Contract(level, Denom(strain), 0, Seat(i)), row[strain], scheme).declarer), level)
        for i, row in enumerate(rows)
        for strain in range(5)
        for level in range(1, 8)
        if row[strain] >= level + 6
    ]
    if not makeable:
        assert best is None
        return
    top = max(score for score, _level in makeable)
    assert best["score"] == top
    assert int(best["contract"][0]) == max(level for score, level in makeable if score == top)
    assert best["tricks"] == rows[best["declarer_chair"]][("C", "D", "H", "S", "NT").index(best["contract"][1:])]


def test_verdicts_and_capture_are_in_words() -> None:
    assert nt_verdict_words(2, "yes") == "qualifies up to 2NT"
    assert nt_verdict_words(0, "fail_a") == "too few top cards (condition A)"
    assert "condition B" in nt_verdict_words(0, "fail_b")
    assert capture_words(11, "qualified") == "counts 11 of 13"
    analysis = analyse(finished_deal(4), "classic")
    assert "not double-dummy tricks" in analysis["capture"]["label"]
    for entry in analysis["capture"]["per_chair"] + analysis["nt_calls"]:
        assert "fail_" not in entry["text"]


def test_passed_out_deal_is_analysed_from_the_dealt_hands() -> None:
    deal = random_deal(np.random.default_rng(12))
    state = replay(deal, Seat.E, ["P", "P", "P"])
    analysis = analyse(state, "classic")
    assert analysis["hands"]["W"] == [
        str(Card(c)) for c in sorted(deal[Seat.W].cards, key=lambda c: (-(c // 13), c % 13))
    ]
    assert len(analysis["declarer_tricks"]) == 3


def test_review_steps_every_card_with_double_dummy_marks() -> None:
    state = finished_deal(5)
    review = review_deal(state)
    cards = [c for trick in review["tricks"] for c in trick["cards"]]
    assert [c["card"] for c in cards] == [str(c) for c in state.play.played]
    assert len(review["tricks"]) == 13 and all(t["winner"] for t in review["tricks"])
    assert [a["call"] for a in review["auction"]] == ["P", "1N", "P", "P"]
    assert review["auction"][1]["player"] == state.players[1].letter
    # double dummy: the declaring side's total moves only by the tricks a card cost (its own side's loss)
    before = review["dd_start"]
    declaring = {review["declarer"], review["dummy"]}
    for card in cards:
        sign = -1 if card["seat"] in declaring else 1
        assert card["dd_after"] == before + sign * card["cost"]
        assert (card["cost"] == 0) == (card["best"] == [])
        before = card["dd_after"]
    assert before == state.declarer_tricks
    # the first value agrees with the double-dummy table of the deal as played
    table = endplay_dds.calc_dd_table(endplay_types.Deal(state.play.deal.to_pbn()))
    declarer = state.contract.declarer
    assert review["dd_start"] == table[endplay_types.Denom.nt, EP_PLAYERS[int(declarer)]]


def test_review_of_a_claimed_deal_stops_at_the_claim_and_is_cached() -> None:
    state = finished_deal(6)
    partial = replay(
        state.deal,
        state.dealer,
        [str(c) for c in state.auction.calls],
        list(state.play.played[:9]),
        claim=(state.contract.declarer, 2),
    )
    record = DealRecord.from_state(partial).to_json()
    review = review_record(record, [s.letter for s in partial.players], ["A", "B", "C"])
    assert sum(len(t["cards"]) for t in review["tricks"]) == 9
    assert review["claim"] == {"seat": state.contract.declarer.letter, "tricks": 2, "tricks_left": 11}
    assert review["chair_of_player"][partial.players[0].letter] == 0
    assert review_record(record)["tricks"] == review["tricks"]
