"""A card-play decision as the deciding seat sees it: ``CardPosition`` (the input of the PIMC core)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tribridge.bots.belief import Knowledge, NtFact, build_knowledge, position_seed
from tribridge.cards import Card
from tribridge.errors import InvalidInput
from tribridge.rules.trick import legal_cards as trick_legal_cards
from tribridge.rules.trick import trick_winner

__all__ = ["CardPosition"]


# --------------------------------------------------------------------------------------------
# Positions as one seat sees them
# --------------------------------------------------------------------------------------------


def _winner(trick: Sequence[tuple[int, int]], trump: int | None) -> int:
    """Seat that wins a complete trick given as (seat, card) in play order."""
    return trick_winner([c for _, c in trick], trick[0][0], trump)


@dataclass(frozen=True)
class CardPosition:
    """A card-play decision as the deciding seat sees it (seats are play seats, dummy opposite declarer).

    ``hands`` holds the whole original 13-card hands the decider can see (its own; dummy's once
    the opening lead is made). ``played`` lists every card played so far, in order; who played
    each card follows from the rules. ``facts`` are auction facts in these seats (may be empty).
    """

    declarer: int
    trump: int | None
    hands: tuple[tuple[int, tuple[int, ...]], ...]
    played: tuple[int, ...] = ()
    facts: tuple[NtFact, ...] = ()
    _trace: list[tuple[int, int]] = field(default_factory=list, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not 0 <= int(self.declarer) <= 3:
            raise InvalidInput("declarer", f"expected a seat 0..3, got {self.declarer}")
        if self.trump is not None and not 0 <= int(self.trump) <= 3:
            raise InvalidInput("trump", f"expected a suit 0..3 or None, got {self.trump}")
        known = dict(self.hands)
        for seat, cards in known.items():
            if len(cards) != 13 or len(set(cards)) != 13:
                raise InvalidInput("hands", f"seat {seat} must show its 13 original cards")
        if len(set(self.played)) != len(self.played):
            raise InvalidInput("played", "a card was played twice")
        if len(self.played) >= 52:
            raise InvalidInput("played", "the play is over")
        trace: list[tuple[int, int]] = []
        leader = (int(self.declarer) + 1) % 4
        trick: list[tuple[int, int]] = []
        owner_known = {c: s for s, cards in known.items() for c in cards}
        held_left = {s: set(cards) for s, cards in known.items()}
        for card in self.played:
            seat = (leader + len(trick)) % 4
            if card in owner_known and owner_known[card] != seat:
                raise InvalidInput(
                    "played", f"{Card(card)} was played by seat {seat} but is in seat {owner_known[card]}'s hand"
                )
            if seat in held_left:
                if (
                    trick
                    and card // 13 != trick[0][1] // 13
                    and any(c // 13 == trick[0][1] // 13 for c in held_left[seat])
                ):
                    raise InvalidInput("played", f"seat {seat} revoked with {Card(card)}")
                held_left[seat].discard(card)
            trick.append((seat, card))
            trace.append((seat, card))
            if len(trick) == 4:
                leader = _winner(trick, self.trump)
                trick = []
        object.__setattr__(self, "_trace", trace)

    # --- derived facts ----------------------------------------------------------------------
    @property
    def trace(self) -> list[tuple[int, int]]:
        """Every card played as (seat, card)."""
        return list(self._trace)

    @property
    def current_trick(self) -> list[tuple[int, int]]:
        """The trick in progress as (seat, card)."""
        n = len(self._trace) % 4
        return self._trace[len(self._trace) - n :] if n else []

    @property
    def trick_leader(self) -> int:
        """The seat that led (or is to lead) the current trick."""
        cur = self.current_trick
        if cur:
            return cur[0][0]
        if not self._trace:
            return (int(self.declarer) + 1) % 4
        return _winner(self._trace[-4:], self.trump)

    @property
    def to_play(self) -> int:
        """The seat whose card is next (dummy included)."""
        return (self.trick_leader + len(self.current_trick)) % 4

    @property
    def dummy(self) -> int:
        """Dummy's seat."""
        return int(self.declarer) ^ 2

    @property
    def decider(self) -> int:
        """The seat choosing the card: the declarer chooses for dummy."""
        return int(self.declarer) if self.to_play == self.dummy else self.to_play

    def voids(self) -> dict[int, set[int]]:
        """Suits each seat has shown out of (failed to follow)."""
        out: dict[int, set[int]] = {s: set() for s in range(4)}
        for start in range(0, len(self._trace), 4):
            trick = self._trace[start : start + 4]
            led = trick[0][1] // 13
            for seat, card in trick[1:]:
                if card // 13 != led:
                    out[seat].add(led)
        return out

    def remaining(self, seat: int) -> list[int]:
        """Unplayed cards of a seat whose hand is visible."""
        known = dict(self.hands)
        if seat not in known:
            raise InvalidInput("seat", f"the hand of seat {seat} is not visible here")
        played = set(self.played)
        return sorted(c for c in known[seat] if c not in played)

    def legal_cards(self) -> list[int]:
        """Legal cards of the seat to play (its hand must be visible)."""
        cur = self.current_trick
        return trick_legal_cards(self.remaining(self.to_play), cur[0][1] // 13 if cur else None)

    def knowledge(self) -> Knowledge:
        """What the decider knows, for the belief sampler."""
        return build_knowledge(dict(self.hands), self._trace, self.voids(), self.facts)

    def seed(self) -> int:
        """Seed from a hash of the position as the decider sees it."""
        return position_seed(
            "pimc",
            int(self.declarer),
            self.trump,
            sorted(self.hands),
            self.played,
            tuple((f.seat, f.at_least, f.below) for f in self.facts),
        )
