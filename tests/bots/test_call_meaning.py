"""What a call shows (``bots.call_meaning``): ranges that hold, a bounded cache, repeatable, blind to the deal."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.bots import call_meaning, get_bidder
from tribridge.bots.call_meaning import SHARE, meaning_of, position_meanings, sample_position
from tribridge.cards import Deal, Hand, Seat
from tribridge.dealing.streams import random_stream
from tribridge.errors import InvalidInput
from tribridge.rules.auction import PASS, AuctionState, Call
from tribridge.rules.deal import DealState
from tribridge.rules.view import bidding_view
from tribridge.server.tables.bots import bot_action
from tribridge.server.tables.explain import explain_call

CHEAP = ["paper", "random", "learned"]


def _bid_auction(seed: int, calls: int, bidder) -> AuctionState:
    """Up to ``calls`` calls that ``bidder`` makes on a random deal, stopped before the auction is over (so every
    seat's earlier calls are ones the bidder makes with some hand)."""
    rng = random_stream(seed)
    deal = Deal.from_owners(rng.permutation(np.repeat(np.arange(4), 13)))
    state = AuctionState.start(Seat(int(rng.integers(4))))
    for _ in range(calls):
        seat = call_meaning.calling_seat(state)
        after = state.apply(bidder.bid(bidding_view(seat, deal[seat], state)))
        if after.is_over:
            break
        state = after
    return state


def _fits(meaning: call_meaning.CallMeaning, hand: Hand) -> bool:
    """The stated features of ``meaning`` checked on one hand with ``cards.Hand`` (not the module's own counts)."""
    if meaning.points is not None and not meaning.points[0] <= hand.hcp() <= meaning.points[1]:
        return False
    for suit, low, high in meaning.suits:
        length = hand.suit_length(suit)
        if (low is not None and length < low) or (high is not None and length > high):
            return False
    return True


@given(st.integers(0, 2**32 - 1), st.integers(0, 5), st.sampled_from(CHEAP))
@settings(max_examples=12, deadline=None)
def test_the_description_holds_for_the_stated_share_of_the_hands_that_make_the_call(seed, calls, name):
    bidder = get_bidder(name)
    auction = _bid_auction(seed, calls, bidder)
    position = sample_position(bidder, auction, name, seed=seed, runs=150)
    assert position.runs <= 150
    seat = call_meaning.calling_seat(auction)
    for call in set(position.calls):
        meaning = position.of(call)
        made = [Hand.from_cards(int(c) for c in row) for row, c in zip(position.hands, position.calls) if c == call]
        for hand in made:  # each hand makes this call here, and made the seat's earlier calls, under the bidder
            assert str(bidder.bid(bidding_view(seat, hand, auction))) == call
        share = np.mean([_fits(meaning, hand) for hand in made])
        assert share >= SHARE and share >= meaning.holds - 1e-9, (call, meaning)
        if meaning.points is not None or meaning.suits:
            assert f"in {int(np.floor(100 * meaning.holds))} % of the {len(made)} hands" in meaning.text


def test_the_hands_agree_with_the_seats_earlier_calls():
    """After the paper bidder opened 1NT, every hand sampled for its next turn qualifies for 1NT."""
    auction = AuctionState.from_calls("N", ["1N", "P", "2N"])
    bidder = get_bidder("paper")
    position = sample_position(bidder, auction, "paper", runs=3000)
    opening = AuctionState.start("N")
    assert len(position.hands) > 5
    for row in position.hands:
        assert bidder.bid(bidding_view(Seat.N, Hand.from_cards(int(c) for c in row), opening)) == Call.parse("1N")


def test_the_cache_is_bounded_and_reused():
    call_meaning.cache_clear()
    auction = AuctionState.start("E")
    for seed in range(call_meaning.CACHE_SIZE + 8):
        position_meanings("paper", auction, seed=seed, runs=2)
    info = call_meaning.cache_info()
    assert info.currsize == call_meaning.CACHE_SIZE == info.maxsize  # type: ignore[attr-defined]
    position_meanings("paper", auction, seed=call_meaning.CACHE_SIZE + 7, runs=2)
    assert call_meaning.cache_info().hits == 1  # type: ignore[attr-defined]


def test_the_same_seed_gives_the_same_words_and_another_seed_other_hands():
    auction = AuctionState.from_calls("S", ["P"])
    first = sample_position(get_bidder("learned"), auction, "learned", seed=3, runs=120)
    again = sample_position(get_bidder("learned"), auction, "learned", seed=3, runs=120)
    other = sample_position(get_bidder("learned"), auction, "learned", seed=4, runs=120)
    assert np.array_equal(first.hands, again.hands) and first.calls == again.calls
    assert [first.of(c).text for c in first.calls] == [again.of(c).text for c in again.calls]
    assert not np.array_equal(first.hands, other.hands)


def _deal_with(hand: Hand, seed: int) -> Deal:
    """A deal where North holds ``hand`` and the other 39 cards are shuffled by ``seed``."""
    rest = [c for c in range(52) if c not in hand.cards]
    rest = [rest[i] for i in random_stream(seed).permutation(len(rest))]
    return Deal((hand, Hand.from_cards(rest[:13]), Hand.from_cards(rest[13:26]), Hand.from_cards(rest[26:])))


@pytest.mark.parametrize("bot", ["paper", "random", "learned", "random+random"])
def test_an_explanation_never_depends_on_hidden_cards(bot):
    """The same view of the bot (its hand, the auction) with other hidden hands: the same call and the same words
    (how it chose them at once, what the call shows as the table works it out afterwards)."""
    hand = Hand.from_pbn("AKQ2.KJ4.Q73.A95")
    texts = set()
    for seed in range(3):
        state = DealState.start(_deal_with(hand, seed), Seat.N)
        action = bot_action(bot, state, Seat.N, 0)
        texts.add((action["explain"], explain_call(bot, Call.parse(action["call"]), state.auction)))
    assert len(texts) == 1, texts


def test_the_words_depend_on_the_position_only():
    """Two different hands that both pass as East's first call get the same words for that pass."""
    before = AuctionState.from_calls("N", ["P"])
    assert meaning_of("paper", PASS, before).text == meaning_of("paper", PASS, before).text
    texts, passes = set(), 0
    for seed in range(4):
        deal = Deal.from_owners(random_stream(seed).permutation(np.repeat(np.arange(4), 13)))
        state = DealState.start(deal, Seat.N).apply("P")
        action = bot_action("paper", state, Seat.E, 1)
        if action["call"] == "P":
            texts.add(explain_call("paper", PASS, state.auction))
            passes += 1
    assert passes >= 2 and len(texts) == 1, (passes, texts)


def test_a_bots_call_does_not_wait_for_what_it_shows():
    """A bot's call comes with how it was chosen and its words due: no position is sampled on the bot's turn."""
    call_meaning.cache_clear()
    state = DealState.start(_deal_with(Hand.from_pbn("AKQ2.KJ4.Q73.A95"), 0), Seat.N)
    action = bot_action("paper", state, Seat.N, 0)
    assert call_meaning.cache_info().misses == 0, "the bot's turn sampled its call's meaning"
    assert action["explain_due"] is True and "\n" not in action["explain"]
    assert action["explain"] == explain_call("paper", Call.parse(action["call"]), state.auction).split("\n")[1]


def test_an_auction_that_is_over_is_refused():
    with pytest.raises(InvalidInput, match="no seat is to call"):
        sample_position(get_bidder("paper"), AuctionState.from_calls("N", ["P", "P", "P"]), "paper", runs=5)
