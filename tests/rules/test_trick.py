"""The trick rules (rules.trick) against a plain statement of them, on random tricks and hands."""

from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.cards import Card
from tribridge.rules.trick import legal_cards, revoke_suit, trick_winner, winning_index

tricks = st.lists(st.integers(0, 51), min_size=4, max_size=4, unique=True)
trumps = st.one_of(st.none(), st.integers(0, 3))


def _stated_winner(cards: list[int], trump: int | None) -> int:
    """Highest trump if any trump was played, else the highest card of the suit led (rank 0 = ace)."""
    led = cards[0] // 13
    trump_cards = [c for c in cards if trump is not None and c // 13 == trump]
    pool = trump_cards or [c for c in cards if c // 13 == led]
    return cards.index(min(pool, key=lambda c: c % 13))


@given(tricks, trumps, st.integers(0, 3))
@settings(max_examples=300)
def test_trick_winner_is_the_stated_rule(cards, trump, leader):
    assert winning_index(cards, trump) == _stated_winner(cards, trump)
    assert trick_winner(cards, leader, trump) == (leader + _stated_winner(cards, trump)) % 4
    assert trick_winner([Card(c) for c in cards], leader, trump) == trick_winner(cards, leader, trump)


@given(st.sets(st.integers(0, 51), min_size=1, max_size=13), st.one_of(st.none(), st.integers(0, 3)))
@settings(max_examples=300)
def test_legal_cards_follow_suit_when_able(hand, led):
    legal = legal_cards(hand, led)
    holds_led = led is not None and any(c // 13 == led for c in hand)
    if holds_led:
        assert set(legal) == {c for c in hand if c // 13 == led}
    else:
        assert set(legal) == hand
    assert legal == sorted(legal)
    for card in hand:
        assert (revoke_suit(card, hand, led) is None) == (card in legal)
