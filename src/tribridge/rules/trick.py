"""The two rules of a trick, in one place: who wins it, and which cards a player may play to it.

Cards are plain indices 0..51 (``suit * 13 + rank``, rank 0 = ace, so a lower rank number is a
higher card; suits 0..3 = clubs, diamonds, hearts, spades), seats 0..3 (N E S W). Every layer that
plays cards (the 3PAB rules, the four-handed rules, the bots, the double-dummy code) calls these
functions; ``tribridge.cards.Card`` values are accepted too (anything with an ``index``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["card_index", "legal_cards", "revoke_suit", "trick_winner", "winning_index"]


def card_index(card: object) -> int:
    """The index 0..51 of a card given as an int or a ``Card``."""
    index = getattr(card, "index", card)
    return int(index)  # type: ignore[call-overload]


def winning_index(cards: Sequence[object], trump: int | None) -> int:
    """Position in ``cards`` (played in order, first = led) of the card winning so far.

    The highest trump wins; without trumps, the highest card of the suit led. A discard of another
    suit never wins. ``trump`` is a suit 0..3 or None for no-trump.
    """
    indices = [card_index(c) for c in cards]
    if not indices:
        raise ValueError("a trick needs at least one card")
    best = 0
    for i in range(1, len(indices)):
        card, leader_card = indices[i], indices[best]
        if card // 13 == leader_card // 13:
            if card % 13 < leader_card % 13:
                best = i
        elif trump is not None and card // 13 == trump:
            best = i
    return best


def trick_winner(cards: Sequence[object], leader: int, trump: int | None) -> int:
    """The seat (0..3) that wins a trick whose cards were played clockwise from ``leader``."""
    return (int(leader) + winning_index(cards, trump)) % 4


def legal_cards(hand: Iterable[object], led: int | None) -> list[int]:
    """The cards of ``hand`` that may be played when suit ``led`` was led (None: on lead): follow suit if able."""
    held = sorted(card_index(c) for c in hand)
    if led is not None:
        follow = [c for c in held if c // 13 == led]
        if follow:
            return follow
    return held


def revoke_suit(card: object, hand: Iterable[object], led: int | None) -> int | None:
    """The suit led if playing ``card`` from ``hand`` would fail to follow it while holding one, else None."""
    if led is None or card_index(card) // 13 == led:
        return None
    if any(card_index(c) // 13 == led for c in hand):
        return led
    return None
