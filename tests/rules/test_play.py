"""Tests of trick play: trick winners, follow suit, 13 tricks of random play, claims."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.cards import Card, Deal, Seat, Suit, random_deal
from tribridge.errors import IllegalAction
from tribridge.rules.auction import Contract, Denom
from tribridge.rules.play import PlayState, trick_winner

# Hand-written cases: cards in play order from the leader, leader, trump, winner.
TRICK_CASES = [
    (["SA", "SK", "SQ", "SJ"], "N", None, "N"),
    (["S2", "SK", "SQ", "SA"], "N", None, "W"),
    (["S2", "S3", "S4", "S5"], "E", None, "N"),  # 5 by the fourth hand, E S W N -> N
    (["HT", "H9", "SA", "H8"], "S", None, "S"),  # discard of SA does not win in NT
    (["HT", "H9", "SA", "H8"], "S", Suit.SPADES, "N"),  # ...but ruffs with spades trumps
    (["HT", "C2", "S3", "HK"], "W", Suit.CLUBS, "N"),  # first ruff (C2 by N) wins over S3 discard
    (["HT", "C2", "C3", "HK"], "W", Suit.CLUBS, "E"),  # overruff C3 by E beats C2
    (["C5", "CA", "D2", "C4"], "E", Suit.DIAMONDS, "W"),  # trump D2 by W beats the CA
    (["DQ", "DK", "DA", "D2"], "N", Suit.HEARTS, "S"),  # no trump played: highest of suit led
    (["D3", "H2", "H3", "HA"], "S", Suit.HEARTS, "E"),  # highest trump wins: HA by E
    (["CT", "C9", "DA", "HA"], "W", None, "W"),
    (["C9", "CT", "DA", "HA"], "W", None, "N"),
]


@pytest.mark.parametrize("cards, leader, trump, winner", TRICK_CASES)
def test_trick_winner_table(cards, leader, trump, winner):
    assert trick_winner([Card.parse(c) for c in cards], Seat.parse(leader), trump) == Seat.parse(winner)


def _reference_winner(cards, leader, trump):
    """Independent restatement: best = highest trump if any trump, else highest of the led suit."""
    led = cards[0].suit

    def strength(c):
        if trump is not None and c.suit == trump:
            return 200 - c.rank
        if c.suit == led:
            return 100 - c.rank
        return 0

    pos = max(range(4), key=lambda i: strength(cards[i]))
    return Seat((leader + pos) % 4)


@st.composite
def random_plays(draw):
    deal = random_deal(np.random.default_rng(draw(st.integers(0, 2**32 - 1))))
    denom = draw(st.sampled_from(list(Denom)))
    declarer = draw(st.sampled_from(list(Seat)))
    state = PlayState.start(deal, Contract(draw(st.integers(1, 7)), denom, 0, declarer))
    choices = draw(st.lists(st.integers(0, 12), min_size=52, max_size=52))
    for i in range(52):
        legal = state.legal_cards()
        state = state.apply(legal[choices[i] % len(legal)])
    return state


@given(random_plays())
@settings(max_examples=150, deadline=None)
def test_random_play_thirteen_tricks(state):
    assert state.is_over and state.turn is None and state.legal_cards() == []
    assert state.declarer_tricks + state.defender_tricks == 13
    assert len(state.tricks) == 13
    declarer_side = 0
    previous_winner = Seat(state.contract.declarer).lho
    for leader, cards, winner in state.tricks:
        assert leader == previous_winner  # the winner leads next (declarer's LHO leads first)
        assert winner == _reference_winner(cards, leader, state.trump)
        declarer_side += (winner - state.contract.declarer) % 2 == 0
        previous_winner = winner
    assert declarer_side == state.declarer_tricks
    assert all(not state.remaining(s) for s in Seat)


def _state(pbn, denom=Denom.NT, declarer=Seat.S):
    return PlayState.start(Deal.from_pbn(pbn), Contract(1, denom, 0, declarer))


DEAL = "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"


def test_follow_suit_and_illegal_cards():
    s = _state(DEAL)  # declarer S, W leads
    assert s.turn == Seat.W and s.leader == Seat.W
    with pytest.raises(IllegalAction, match="does not hold"):
        s.apply(Card.parse("SA"))
    s = s.apply(Card.parse("S2"))  # W leads a spade
    assert s.turn == Seat.N
    with pytest.raises(IllegalAction, match="follow suit"):
        s.apply(Card.parse("HA"))
    assert s.legal_cards() == [Card.parse(c) for c in ("SA", "SK", "SQ", "SJ")]
    s = s.apply(Card.parse("SA")).apply(Card.parse("S7")).apply(Card.parse("S6"))
    assert s.tricks[0][2] == Seat.N and s.leader == Seat.N and s.turn == Seat.N
    # W is now void in spades: shown when it discards on a spade lead
    s = s.apply(Card.parse("SK")).apply(Card.parse("S8")).apply(Card.parse("S5")).apply(Card.parse("H2"))
    assert Suit.SPADES in s.voids_shown[Seat.W]
    assert s.declarer_tricks == 2 and s.defender_tricks == 0


def test_claim_top_winners_no_trump():
    s = _state(DEAL, Denom.NT, Seat.N)  # declarer N, E leads
    s = s.apply(Card.parse("ST")).apply(Card.parse("S6")).apply(Card.parse("S2")).apply(Card.parse("SA"))
    assert s.leader == Seat.N
    # N holds only top cards: certain of all 12 remaining tricks
    assert s.claim(Seat.N, 12)
    assert s.claim(Seat.S, 12)  # the same side
    assert not s.claim(Seat.E, 1)  # defenders are not on lead and hold no top card
    done = s.apply_claim(Seat.N, 12)
    assert done.is_over and done.declarer_tricks == 13 and done.defender_tricks == 0 and done.turn is None


def test_claim_refused_when_a_ruff_is_possible():
    # Hearts trumps; N (declarer) has top spades, but W holds a small trump and no spades.
    pbn = "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"
    s = _state(pbn, Denom.H, Seat.S)  # declarer S, W leads
    s = s.apply(Card.parse("S2")).apply(Card.parse("SA")).apply(Card.parse("S7")).apply(Card.parse("S6"))
    # N on lead: AKQ of trumps are sure; side winners could be ruffed while W has trumps
    assert s.claim(Seat.N, 3)
    assert not s.claim(Seat.N, 12)
    with pytest.raises(IllegalAction, match="play on"):
        s.apply_claim(Seat.S, 12)


def test_claim_concession_and_bounds():
    s = _state(DEAL, Denom.NT, Seat.S)
    assert s.claim(Seat.E, 0)  # conceding the rest is always allowed
    assert not s.claim(Seat.E, 14) and not s.claim(Seat.E, -1)
    assert not s.claim(Seat.N, 13)  # W is on lead; the top-winner rule does not apply to the other side


def _side_total(state, seat):
    """Tricks won so far by ``seat``'s side."""
    same = (seat - state.contract.declarer) % 2 == 0
    return state.declarer_tricks if same else state.defender_tricks


def _brute_force(state, seat):
    """Total tricks ``seat``'s side guarantees, by plain recursion over every legal card (no memo)."""
    if state.is_over:
        return _side_total(state, seat)
    values = [_brute_force(state.apply(c), seat) for c in state.legal_cards()]
    mine = (state.turn - seat) % 2 == 0
    return max(values) if mine else min(values)


@given(st.integers(0, 2**32 - 1), st.sampled_from(list(Denom)), st.integers(40, 46), st.sampled_from(list(Seat)))
@settings(max_examples=40, deadline=None)
def test_claim_in_endgames_matches_brute_force(seed, denom, cards_played, claimer):
    rng = np.random.default_rng(seed)
    s = PlayState.start(random_deal(rng), Contract(3, denom, 0, Seat(seed % 4)))
    for _ in range(cards_played):
        legal = s.legal_cards()
        s = s.apply(legal[rng.integers(len(legal))])
    guaranteed = _brute_force(s, claimer) - _side_total(s, claimer)
    for k in range(0, s.tricks_left + 1):
        assert s.claim(claimer, k) == (k <= guaranteed), (k, guaranteed)


@given(st.integers(0, 2**32 - 1), st.sampled_from(list(Denom)), st.integers(0, 8))
@settings(max_examples=60, deadline=None)
def test_top_winner_claims_are_sound(seed, denom, tricks_played):
    """A claim accepted early is never beaten when the side then cashes its top cards and plays on."""
    rng = np.random.default_rng(seed)
    s = PlayState.start(random_deal(rng), Contract(3, denom, 0, Seat(seed % 4)))
    while len(s.tricks) < tricks_played:
        legal = s.legal_cards()
        s = s.apply(legal[rng.integers(len(legal))])
    leader = s.leader
    k = max((k for k in range(s.tricks_left + 1) if s.claim(leader, k)), default=0)
    base = _side_total(s, leader)
    # the claiming leader cashes a card that beats every other remaining card of its suit (trumps
    # first); the other three hands play at random
    for _ in range(k):
        assert s.turn == leader
        others = set().union(*(s.remaining(x) for x in Seat if x != leader))
        top = [c for c in s.remaining(leader) if all(o > c for o in others if o // 13 == c // 13)]
        top.sort(key=lambda c: 0 if s.trump is not None and c // 13 == s.trump else 1)
        s = s.apply(Card(top[0]))
        for _ in range(3):
            legal = s.legal_cards()
            s = s.apply(legal[rng.integers(len(legal))])
    assert _side_total(s, leader) - base == k
