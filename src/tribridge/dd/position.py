"""Positions in the play for the solver: the cards still held, trump, the current trick's leader and cards.

The trick winner and the follow-suit rule come from :mod:`tribridge.rules.trick`, the one place
they are written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tribridge.cards import SEAT_CHARS, Card, Deal
from tribridge.dd.dds import NT
from tribridge.errors import InvalidInput
from tribridge.rules.trick import card_index, revoke_suit, trick_winner

__all__ = ["Position", "as_position", "position_after", "position_from_play_state"]


@dataclass(frozen=True)
class Position:
    """A position in the play: cards still held, trump, who led the current trick and its cards.

    ``hands``: the cards each seat N E S W still holds (cards already on the current trick are not
    in any hand); ``trump``: suit 0..3 (C D H S) or None for NT; ``leader``: the seat that led
    (or will lead) the current trick; ``trick``: card indices played to it so far, in order (0..3).
    """

    hands: tuple[frozenset[int], frozenset[int], frozenset[int], frozenset[int]]
    trump: int | None
    leader: int
    trick: tuple[int, ...] = ()

    @property
    def turn(self) -> int:
        """The seat whose card is next."""
        return (self.leader + len(self.trick)) % 4

    def validate(self) -> None:
        """Raise InvalidInput unless the position is consistent (hand sizes, no repeats, follow suit)."""
        if len(self.hands) != 4:
            raise InvalidInput("position.hands", "expected 4 hands")
        if not 0 <= int(self.leader) <= 3:
            raise InvalidInput("position.leader", f"expected a seat 0..3, got {self.leader}")
        if self.trump is not None and not 0 <= int(self.trump) <= 4:
            raise InvalidInput("position.trump", f"expected a suit 0..3 or None, got {self.trump}")
        if len(self.trick) > 3:
            raise InvalidInput("position.trick", "at most 3 cards can be on an unfinished trick")
        seen: set[int] = set()
        for cards in list(self.hands) + [frozenset(self.trick)]:
            if seen & set(cards):
                raise InvalidInput("position", f"card {Card(min(seen & set(cards)))} appears twice")
            seen |= set(cards)
        if len(set(self.trick)) != len(self.trick):
            raise InvalidInput("position.trick", "a card appears twice on the trick")
        self._validate_sizes()

    def _validate_sizes(self) -> None:
        """Raise InvalidInput unless each seat holds one card more than it played to the current trick."""
        size = len(self.hands[self.leader]) + (1 if self.trick else 0)
        for k in range(4):
            seat = (self.leader + k) % 4
            expect = size - 1 if k < len(self.trick) else size
            if len(self.hands[seat]) != expect:
                raise InvalidInput(
                    "position.hands",
                    f"{SEAT_CHARS[seat]} holds {len(self.hands[seat])} cards, expected {expect}",
                )
        if size == 0:
            raise InvalidInput("position", "no cards left to play")


def position_after(deal: Deal, trump: int | None, opening_leader: int, played: Sequence[int | Card]) -> Position:
    """The position after ``played`` (card indices in play order from the opening lead), rules checked."""
    hands = [set(h.cards) for h in deal.hands]
    leader = int(opening_leader)
    trick: list[int] = []
    trump_suit = None if trump is None or int(trump) == NT else int(trump)
    for k, card in enumerate(played):
        c = card_index(card)
        seat = (leader + len(trick)) % 4
        if c not in hands[seat]:
            raise InvalidInput(f"played[{k}]", f"{SEAT_CHARS[seat]} does not hold {Card(c)}")
        if revoke_suit(c, hands[seat], trick[0] // 13 if trick else None) is not None:
            raise InvalidInput(f"played[{k}]", f"{SEAT_CHARS[seat]} must follow suit, not play {Card(c)}")
        hands[seat].discard(c)
        trick.append(c)
        if len(trick) == 4:
            leader = trick_winner(trick, leader, trump_suit)
            trick = []
    return Position(tuple(frozenset(h) for h in hands), trump_suit, leader, tuple(trick))  # type: ignore[arg-type]


def position_from_play_state(state: Any) -> Position:
    """A Position from a ``rules.play.PlayState`` (read by duck typing: deal, contract, played)."""
    contract = state.contract
    denom = int(contract.denom)
    declarer = int(contract.declarer)
    return position_after(state.deal, None if denom == NT else denom, (declarer + 1) % 4, list(state.played))


def as_position(item: Any) -> Position:
    """``item`` as a Position: a Position as it is, a ``PlayState`` converted, anything else refused."""
    if isinstance(item, Position):
        return item
    if hasattr(item, "played") and hasattr(item, "contract"):
        return position_from_play_state(item)
    raise InvalidInput("position", f"expected a Position or a PlayState, got {type(item).__name__}")
