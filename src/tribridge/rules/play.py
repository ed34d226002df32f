"""Trick play of one deal as an immutable state: legal cards, trick winners, tricks per side, claims.

The deal is given in *play seats* (after reseating, see ``auction.play_deal``): the declarer sits at
``contract.declarer``, dummy opposite, the two defenders beside. Ordinary bridge rules: follow suit if
able; the highest trump, or else the highest card of the suit led, wins; the winner leads next.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property

from tribridge.cards import Card, Deal, Seat, Suit
from tribridge.errors import IllegalAction, InvalidInput
from tribridge.rules import trick
from tribridge.rules.auction import Contract, opening_leader

Trick = tuple[Seat, tuple[Card, ...], Seat]  # (leader, cards in play order, winner)

# Above this many remaining cards a claim is judged by the top-winner rule only; at or below it an
# exact search (both claiming hands cooperating, the opponents doing their worst) is also tried.
EXACT_CLAIM_CARDS = 12


def trick_winner(cards: list[Card] | tuple[Card, ...], leader: Seat | int, trump: Suit | int | None) -> Seat:
    """The seat winning a complete trick of four ``cards`` played clockwise from ``leader``."""
    if len(cards) != 4:
        raise InvalidInput("trick", f"a trick has 4 cards, got {len(cards)}")
    return Seat(trick.trick_winner(cards, int(leader), None if trump is None else int(trump)))


@dataclass(frozen=True)
class _Derived:
    """Everything replayed from ``played``: kept beside the state so ``apply`` is incremental."""

    remaining: tuple[frozenset[int], ...]
    tricks: tuple[Trick, ...]
    current: tuple[tuple[Seat, Card], ...]
    leader: Seat
    voids: tuple[frozenset[int], ...]
    declarer_won: int


@dataclass(frozen=True)
class PlayState:
    """The play of a deal so far; ``apply`` returns a new state. ``claim`` (seat, tricks) ends play early."""

    deal: Deal
    contract: Contract
    played: tuple[Card, ...] = ()
    claimed: tuple[Seat, int] | None = None
    _derived: _Derived | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.deal, Deal):
            raise InvalidInput("deal", "expected a Deal in play seats")
        if not isinstance(self.contract, Contract):
            raise InvalidInput("contract", "expected a Contract")
        if self._derived is None:
            object.__setattr__(self, "_derived", _replay(self.deal, self.contract, tuple(self.played)))

    @classmethod
    def start(cls, deal: Deal, contract: Contract) -> PlayState:
        """The state before the opening lead (the declarer's LHO leads)."""
        return cls(deal, contract)

    # --- properties -----------------------------------------------------------------------
    @property
    def _d(self) -> _Derived:
        assert self._derived is not None
        return self._derived

    @property
    def declarer(self) -> Seat:
        """The declarer's seat."""
        return self.contract.declarer

    @property
    def dummy(self) -> Seat:
        """Dummy's seat (opposite the declarer)."""
        return self.contract.declarer.partner

    @property
    def trump(self) -> Suit | None:
        """The trump suit, or None in no-trump."""
        t = self.contract.trump
        return None if t is None else Suit(t)

    @property
    def leader(self) -> Seat:
        """The seat that led (or leads) the current trick."""
        return self._d.leader

    @property
    def current_trick(self) -> list[tuple[Seat, Card]]:
        """Cards of the trick in progress as (seat, card)."""
        return list(self._d.current)

    @property
    def tricks(self) -> list[Trick]:
        """Completed tricks as (leader, cards in play order, winner)."""
        return list(self._d.tricks)

    @property
    def is_over(self) -> bool:
        """True after 13 tricks or an accepted claim."""
        return self.claimed is not None or len(self.played) == 52

    @cached_property
    def turn(self) -> Seat | None:
        """The seat whose card is next (dummy included), or None when play is over."""
        if self.is_over:
            return None
        return Seat((self._d.leader + len(self._d.current)) % 4)

    @property
    def tricks_left(self) -> int:
        """Tricks not yet completed (the trick in progress counts as left)."""
        return 13 - len(self._d.tricks)

    @property
    def declarer_tricks(self) -> int:
        """Tricks won by the declarer's side (including claimed ones)."""
        won = self._d.declarer_won
        if self.claimed is not None:
            seat, n = self.claimed
            on_declarer_side = _same_side(seat, self.declarer)
            won += n if on_declarer_side else self.tricks_left - n
        return won

    @property
    def defender_tricks(self) -> int:
        """Tricks won by the defenders (including claimed ones)."""
        done = len(self._d.tricks) + (self.tricks_left if self.claimed is not None else 0)
        return done - self.declarer_tricks

    @property
    def dummy_exposed(self) -> bool:
        """True once the opening lead has been made."""
        return len(self.played) > 0

    def remaining(self, seat: Seat | int) -> set[int]:
        """Card indices still held by ``seat``."""
        return set(self._d.remaining[int(seat)])

    @property
    def voids_shown(self) -> dict[Seat, set[int]]:
        """Suits each seat has shown out of (failed to follow)."""
        return {Seat(s): set(v) for s, v in enumerate(self._d.voids)}

    # --- moves ----------------------------------------------------------------------------
    def legal_cards(self) -> list[Card]:
        """Cards the seat on turn may play (follow suit if able), in index order."""
        seat = self.turn
        if seat is None:
            return []
        return [Card(c) for c in trick.legal_cards(self._d.remaining[seat], self._led_suit())]

    def _led_suit(self) -> int | None:
        """The suit led to the trick in progress (None on lead)."""
        return self._d.current[0][1].index // 13 if self._d.current else None

    def is_legal(self, card: Card) -> bool:
        """Whether ``card`` may be made now (``illegal_reason`` says why not)."""
        return self.illegal_reason(card) is None

    def illegal_reason(self, card: Card) -> str | None:
        """None if ``card`` may be played now, else the reason it may not."""
        if self.is_over:
            return "play is over"
        seat = self.turn
        assert seat is not None
        if not isinstance(card, Card):
            return f"expected a Card, got {card!r}"
        hand = self._d.remaining[seat]
        if card.index not in hand:
            return f"{seat.letter} does not hold {card}"
        led = trick.revoke_suit(card, hand, self._led_suit())
        if led is not None:
            return f"{seat.letter} must follow suit ({Suit(led).letter}) and holds one"
        return None

    def apply(self, card: Card | str) -> PlayState:
        """The state after the seat on turn plays ``card``; raises IllegalAction with the reason if illegal."""
        if isinstance(card, str):
            card = Card.parse(card)
        reason = self.illegal_reason(card)
        if reason is not None:
            raise IllegalAction("card", f"{card} is illegal: {reason}")
        seat = self.turn
        assert seat is not None
        d = self._d
        new = _advance(d, seat, card, self.contract)
        return PlayState(self.deal, self.contract, self.played + (card,), None, new)

    def claim(self, seat: Seat | int, tricks: int) -> bool:
        """True if ``seat``'s side is certain to take ``tricks`` of the remaining tricks (the rest go to the others)."""
        if self.is_over:
            return False
        seat = Seat(seat)
        left = self.tricks_left
        if not isinstance(tricks, int) or tricks < 0 or tricks > left:
            return False
        if tricks == 0:
            return True  # conceding the rest is always allowed
        if tricks <= _top_winner_tricks(self, seat):
            return True
        cards_left = sum(len(h) for h in self._d.remaining)
        if cards_left <= EXACT_CLAIM_CARDS:
            return _exact_side_tricks(self, seat) >= tricks
        return False

    def apply_claim(self, seat: Seat | int, tricks: int) -> PlayState:
        """The finished state after an accepted claim; raises IllegalAction if the claim is not certain."""
        if not self.claim(seat, tricks):
            raise IllegalAction(
                "claim",
                f"{Seat(seat).letter} cannot be certain of {tricks} of the "
                f"{self.tricks_left} remaining tricks; play on",
            )
        return self.agreed_claim(seat, tricks)

    def agreed_claim(self, seat: Seat | int, tricks: int) -> PlayState:
        """The finished state after a claim the other side agreed to: ``seat``'s side takes ``tricks`` of the rest."""
        if self.is_over:
            raise IllegalAction("claim", "play is over")
        if not 0 <= int(tricks) <= self.tricks_left:
            raise InvalidInput("tricks", f"expected 0..{self.tricks_left} tricks, got {tricks}")
        return PlayState(self.deal, self.contract, self.played, (Seat(seat), int(tricks)), self._d)


def _same_side(a: Seat | int, b: Seat | int) -> bool:
    return (int(a) - int(b)) % 2 == 0


def _replay(deal: Deal, contract: Contract, played: tuple[Card, ...]) -> _Derived:
    d = _Derived(
        remaining=tuple(frozenset(deal[s].cards) for s in range(4)),
        tricks=(),
        current=(),
        leader=opening_leader(contract.declarer),
        voids=(frozenset(),) * 4,
        declarer_won=0,
    )
    for i, card in enumerate(played):
        if not isinstance(card, Card):
            raise InvalidInput(f"played[{i}]", f"expected a Card, got {card!r}")
        if len(d.tricks) == 13:
            raise IllegalAction(f"played[{i}]", "more than 52 cards played")
        seat = Seat((d.leader + len(d.current)) % 4)
        hand = d.remaining[seat]
        if card.index not in hand:
            raise IllegalAction(f"played[{i}]", f"{seat.letter} does not hold {card}")
        led = trick.revoke_suit(card, hand, d.current[0][1].index // 13 if d.current else None)
        if led is not None:
            raise IllegalAction(f"played[{i}]", f"{seat.letter} must follow suit with {Suit(led).letter}")
        d = _advance(d, seat, card, contract)
    return d


def _advance(d: _Derived, seat: Seat, card: Card, contract: Contract) -> _Derived:
    remaining = list(d.remaining)
    remaining[seat] = d.remaining[seat] - {card.index}
    voids = d.voids
    if d.current:
        led = d.current[0][1].index // 13
        if card.index // 13 != led:
            voids = tuple(v | {led} if s == seat else v for s, v in enumerate(d.voids))
    current = d.current + ((seat, card),)
    if len(current) < 4:
        return _Derived(tuple(remaining), d.tricks, current, d.leader, voids, d.declarer_won)
    cards = tuple(c for _, c in current)
    winner = trick_winner(cards, d.leader, contract.trump)
    won = d.declarer_won + (1 if _same_side(winner, contract.declarer) else 0)
    return _Derived(tuple(remaining), d.tricks + ((d.leader, cards, winner),), (), winner, voids, won)


def _top_winner_tricks(state: PlayState, seat: Seat) -> int:
    """Tricks the side of ``seat`` can surely cash from the top, from the start of a trick it leads.

    Conservative: counts only the leader's cards that beat every other remaining card of their suit
    (partner's included, so partner never overtakes); side-suit winners count only when nobody else
    holds a trump (no ruff, no forced ruff by partner). Returns 0 mid-trick or when the other side leads.
    """
    d = state._d
    if d.current or not _same_side(d.leader, seat):
        return 0
    leader = d.leader
    mine = d.remaining[leader]
    others = set().union(*(d.remaining[s] for s in range(4) if s != leader))
    trump = state.contract.trump
    top_trumps = 0
    top_side = 0
    for suit in range(4):
        my_suit = sorted(c for c in mine if c // 13 == suit)
        their_best = min((c for c in others if c // 13 == suit), default=None)
        count = sum(1 for c in my_suit if their_best is None or c < their_best)
        if trump is not None and suit == trump:
            top_trumps = count
        else:
            top_side += count
    others_have_trumps = trump is not None and any(c // 13 == trump for c in others)
    if others_have_trumps:
        # Cash the top trumps only; the side winners may be ruffed.
        # If every card the leader holds is a top trump, that is all of the tricks it can promise.
        return top_trumps
    return top_trumps + top_side


def _exact_side_tricks(state: PlayState, seat: Seat) -> int:
    """Most tricks ``seat``'s side can guarantee from here (its two hands cooperate, the others do their worst)."""
    trump = state.contract.trump
    side = int(seat) % 2
    d = state._d
    remaining = [set(h) for h in d.remaining]
    cache: dict[tuple, int] = {}

    def search(leader: int, current: tuple[int, ...]) -> int:
        to_move = (leader + len(current)) % 4
        if not remaining[to_move]:
            return 0
        key = (leader, current, tuple(frozenset(h) for h in remaining))
        hit = cache.get(key)
        if hit is not None:
            return hit
        hand = remaining[to_move]
        options = trick.legal_cards(hand, current[0] // 13 if current else None)
        maximize = to_move % 2 == side
        best = -1 if maximize else 99
        for c in options:
            hand.discard(c)
            cards = current + (c,)
            if len(cards) == 4:
                winner = trick.trick_winner(cards, leader, trump)
                value = (1 if winner % 2 == side else 0) + search(winner, ())
            else:
                value = search(leader, cards)
            hand.add(c)
            if maximize:
                best = max(best, value)
            else:
                best = min(best, value)
        cache[key] = best
        return best

    return search(int(d.leader), tuple(c.index for _, c in d.current))


def play_out(state: PlayState, cards: Iterable[Card | str]) -> PlayState:
    """Apply a sequence of cards in order (strings or Cards)."""
    for c in cards:
        state = state.apply(c)
    return state
