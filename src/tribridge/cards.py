"""Cards, hands, seats and deals; PBN text I/O; owner-array and suit-mask conversions.

Conventions (docs/dev/architecture.md): card index ``c = suit*13 + rank``, suit 0=♣ 1=♦ 2=♥ 3=♠,
rank 0=A … 12=2; seats N=0 E=1 S=2 W=3 clockwise; a suit holding is a 13-bit mask
with bit r set when rank r is held (bit 0 = Ace).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import IntEnum

import numpy as np

from tribridge.errors import InvalidInput

RANK_CHARS = "AKQJT98765432"
SUIT_CHARS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
SEAT_CHARS = "NESW"
FULL_SUIT_MASK = (1 << 13) - 1


class Suit(IntEnum):
    """A suit, in bidding order (clubs lowest)."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def letter(self) -> str:
        """One-letter name: C, D, H or S."""
        return SUIT_CHARS[self]

    @property
    def symbol(self) -> str:
        """The suit symbol ♣ ♦ ♥ ♠."""
        return SUIT_SYMBOLS[self]

    @classmethod
    def parse(cls, text: str, field: str = "suit") -> Suit:
        """Parse C/D/H/S (any case) or a suit symbol."""
        t = text.strip().upper()
        if len(t) == 1 and t in SUIT_CHARS:
            return cls(SUIT_CHARS.index(t))
        if len(t) == 1 and t in SUIT_SYMBOLS:
            return cls(SUIT_SYMBOLS.index(t))
        raise InvalidInput(field, f"expected one of C, D, H, S, got {text!r}")


class Rank(IntEnum):
    """A rank; 0 is the Ace (highest), 12 the two (lowest)."""

    ACE = 0
    KING = 1
    QUEEN = 2
    JACK = 3
    TEN = 4
    NINE = 5
    EIGHT = 6
    SEVEN = 7
    SIX = 8
    FIVE = 9
    FOUR = 10
    THREE = 11
    TWO = 12

    @property
    def letter(self) -> str:
        """One-character name: A K Q J T 9 … 2."""
        return RANK_CHARS[self]

    @classmethod
    def parse(cls, text: str, field: str = "rank") -> Rank:
        """Parse A K Q J T 9..2, accepting 10 for the ten, any case."""
        t = text.strip().upper()
        if t == "10":
            return cls.TEN
        if len(t) == 1 and t in RANK_CHARS:
            return cls(RANK_CHARS.index(t))
        raise InvalidInput(field, f"expected a rank A K Q J T 9..2, got {text!r}")


class Seat(IntEnum):
    """A compass seat, clockwise from North."""

    N = 0
    E = 1
    S = 2
    W = 3

    @property
    def letter(self) -> str:
        """One-letter name N, E, S or W."""
        return SEAT_CHARS[self]

    @property
    def partner(self) -> Seat:
        """The seat opposite."""
        return _SEATS[self ^ 2]

    @property
    def lho(self) -> Seat:
        """Left-hand opponent (next clockwise)."""
        return _SEATS[(self + 1) % 4]

    @property
    def rho(self) -> Seat:
        """Right-hand opponent (previous clockwise)."""
        return _SEATS[(self + 3) % 4]

    @classmethod
    def parse(cls, text: str | int, field: str = "seat") -> Seat:
        """Parse N/E/S/W (any case, or North/East/...) or an integer 0..3."""
        if isinstance(text, (int, np.integer)) and not isinstance(text, bool):
            if 0 <= int(text) <= 3:
                return cls(int(text))
            raise InvalidInput(field, f"expected a seat 0..3, got {text}")
        if not isinstance(text, str):
            raise InvalidInput(field, f"expected a seat N, E, S or W, got {text!r}")
        t = text.strip().upper()
        names = {"NORTH": 0, "EAST": 1, "SOUTH": 2, "WEST": 3}
        if len(t) == 1 and t in SEAT_CHARS:
            return cls(SEAT_CHARS.index(t))
        if t in names:
            return cls(names[t])
        raise InvalidInput(field, f"expected a seat N, E, S or W, got {text!r}")


_SEATS = tuple(Seat)  # by value: a lookup is many times cheaper than Seat(value) on the hot paths


def partner(seat: int) -> int:
    """The seat opposite ``seat``."""
    return seat ^ 2


@dataclass(frozen=True, order=True)
class Card:
    """One card; ordered by index (clubs first, ace first within a suit)."""

    index: int

    def __post_init__(self) -> None:
        if not 0 <= self.index < 52:
            raise InvalidInput("card", f"card index must be 0..51, got {self.index}")

    @classmethod
    def of(cls, suit: int, rank: int) -> Card:
        """The card of the given suit and rank."""
        return cls(int(suit) * 13 + int(rank))

    @property
    def suit(self) -> Suit:
        """The card's suit."""
        return _SUIT_OF[self.index]

    @property
    def rank(self) -> Rank:
        """The card's rank (0 = Ace)."""
        return _RANK_OF[self.index]

    @classmethod
    def parse(cls, text: str, field: str = "card") -> Card:
        """Parse suit-then-rank text such as ``SA``, ``d10``, ``HT`` (also rank-then-suit ``AS``)."""
        if not isinstance(text, str):
            raise InvalidInput(field, f"expected a card like 'SA', got {text!r}")
        t = text.strip().upper()
        if len(t) in (2, 3):
            head, tail = t[0], t[1:]
            if head in SUIT_CHARS or head in SUIT_SYMBOLS:
                try:
                    return cls.of(Suit.parse(head, field), Rank.parse(tail, field))
                except InvalidInput:
                    pass
            head, tail = t[:-1], t[-1]
            if tail in SUIT_CHARS or tail in SUIT_SYMBOLS:
                try:
                    return cls.of(Suit.parse(tail, field), Rank.parse(head, field))
                except InvalidInput:
                    pass
        raise InvalidInput(field, f"expected a card like 'SA' or 'DT', got {text!r}")

    def __str__(self) -> str:
        return _CARD_TEXT[self.index]

    def __repr__(self) -> str:
        return f"Card({self})"


# Each card index's suit, rank and text, computed once (the views and the bots ask for them constantly).
_SUIT_OF = tuple(Suit(index // 13) for index in range(52))
_RANK_OF = tuple(Rank(index % 13) for index in range(52))
_CARD_TEXT = tuple(suit.letter + rank.letter for suit, rank in zip(_SUIT_OF, _RANK_OF))


def _pbn_clean(text: str) -> str:
    return text.strip().upper().replace("_", ".").replace("10", "T")


def parse_hand_cards(text: str, field: str = "hand", size: int | None = 13) -> list[int]:
    """Parse a PBN hand ``S.H.D.C`` into card indices; check size and repeats."""
    if not isinstance(text, str):
        raise InvalidInput(field, f"expected a PBN hand like 'AKQ2.J54.T98.762', got {text!r}")
    t = _pbn_clean(text)
    parts = t.split(".")
    if len(parts) != 4:
        raise InvalidInput(field, f"expected 4 suits separated by '.' (S.H.D.C), got {text!r}")
    cards: list[int] = []
    seen: set[int] = set()
    for pos, holding in enumerate(parts):
        suit = 3 - pos
        if holding in ("-", "—"):
            holding = ""
        for ch in holding:
            if ch not in RANK_CHARS:
                raise InvalidInput(field, f"bad character {ch!r} in the {SUIT_SYMBOLS[suit]} holding of {text!r}")
            c = suit * 13 + RANK_CHARS.index(ch)
            if c in seen:
                raise InvalidInput(field, f"card {Card(c)} appears twice in {text!r}")
            seen.add(c)
            cards.append(c)
    if size is not None and len(cards) != size:
        raise InvalidInput(field, f"expected {size} cards, got {len(cards)} in {text!r}")
    return sorted(cards)


@dataclass(frozen=True)
class Hand:
    """A set of cards held by one seat (normally 13)."""

    cards: frozenset[int]

    @classmethod
    def from_cards(cls, cards: Iterable[int | Card]) -> Hand:
        """Build a hand from card indices or Card objects."""
        idx = [c.index if isinstance(c, Card) else int(c) for c in cards]
        if len(set(idx)) != len(idx):
            raise InvalidInput("hand", "a card appears twice")
        if any(not 0 <= c < 52 for c in idx):
            raise InvalidInput("hand", "card index out of range 0..51")
        return cls(frozenset(idx))

    @classmethod
    def from_pbn(cls, text: str, field: str = "hand", size: int | None = 13) -> Hand:
        """Parse a PBN hand ``S.H.D.C`` (accepts ``T`` or ``10``, any case, ``_`` for ``.``)."""
        return cls(frozenset(parse_hand_cards(text, field, size)))

    def to_pbn(self) -> str:
        """Format as PBN ``S.H.D.C``, high to low."""
        return ".".join(
            "".join(RANK_CHARS[c % 13] for c in sorted(c for c in self.cards if c // 13 == suit))
            for suit in (3, 2, 1, 0)
        )

    def __str__(self) -> str:
        return self.to_pbn()

    def __len__(self) -> int:
        return len(self.cards)

    def __contains__(self, card: object) -> bool:
        if isinstance(card, Card):
            return card.index in self.cards
        return card in self.cards

    def sorted_cards(self) -> list[Card]:
        """Cards sorted for display: spades first, high to low."""
        return [Card(c) for c in sorted(self.cards, key=lambda c: (-(c // 13), c % 13))]

    def suit_mask(self, suit: int) -> int:
        """13-bit mask of the ranks held in ``suit`` (bit 0 = Ace)."""
        m = 0
        for c in self.cards:
            if c // 13 == suit:
                m |= 1 << (c % 13)
        return m

    def masks(self) -> tuple[int, int, int, int]:
        """Per-suit 13-bit masks in suit order ♣ ♦ ♥ ♠."""
        return tuple(self.suit_mask(s) for s in range(4))  # type: ignore[return-value]

    def suit_length(self, suit: int) -> int:
        """Number of cards held in ``suit``."""
        return sum(1 for c in self.cards if c // 13 == suit)

    def hcp(self) -> int:
        """Milton Work high-card points (A4 K3 Q2 J1)."""
        return sum(max(0, 4 - c % 13) for c in self.cards)


@dataclass(frozen=True)
class Deal:
    """Four hands indexed by seat N E S W, each of 13 cards, together the whole pack."""

    hands: tuple[Hand, Hand, Hand, Hand]

    def __post_init__(self) -> None:
        if len(self.hands) != 4:
            raise InvalidInput("deal", f"expected 4 hands, got {len(self.hands)}")
        seen: dict[int, int] = {}
        for seat, hand in enumerate(self.hands):
            if len(hand) != 13:
                raise InvalidInput(f"deal.{SEAT_CHARS[seat]}", f"expected 13 cards, got {len(hand)}")
            for c in hand.cards:
                if c in seen:
                    raise InvalidInput(
                        "deal",
                        f"card {Card(c)} is in both {SEAT_CHARS[seen[c]]} and {SEAT_CHARS[seat]}",
                    )
                seen[c] = seat

    def __getitem__(self, seat: int) -> Hand:
        return self.hands[int(seat)]

    @classmethod
    def from_pbn(cls, text: str, field: str = "deal") -> Deal:
        """Parse ``N:<hand> <hand> <hand> <hand>`` (clockwise from the named seat)."""
        if not isinstance(text, str):
            raise InvalidInput(field, f"expected a PBN deal like 'N:... ... ... ...', got {text!r}")
        t = text.strip().strip('"')
        if len(t) < 2 or t[1] != ":":
            raise InvalidInput(field, f"expected 'N:' (or E:, S:, W:) before the hands, got {text!r}")
        first = Seat.parse(t[0], field)
        parts = t[2:].split()
        if len(parts) != 4:
            raise InvalidInput(field, f"expected 4 hands separated by spaces, got {len(parts)}")
        hands: list[Hand | None] = [None] * 4
        for i, part in enumerate(parts):
            seat = (first + i) % 4
            hands[seat] = Hand.from_pbn(part, f"{field}.{SEAT_CHARS[seat]}")
        return cls(tuple(hands))  # type: ignore[arg-type]

    def to_pbn(self, first: int = 0) -> str:
        """Format as ``N:<hand> <hand> <hand> <hand>`` starting from seat ``first``."""
        seats = [(first + i) % 4 for i in range(4)]
        return SEAT_CHARS[first] + ":" + " ".join(self.hands[s].to_pbn() for s in seats)

    def __str__(self) -> str:
        return self.to_pbn()

    def to_owners(self) -> np.ndarray:
        """The ``uint8[52]`` owner array: owner seat of each card index."""
        owners = np.empty(52, dtype=np.uint8)
        for seat, hand in enumerate(self.hands):
            for c in hand.cards:
                owners[c] = seat
        return owners

    @classmethod
    def from_owners(cls, owners: Sequence[int] | np.ndarray) -> Deal:
        """Build a deal from a length-52 owner array (values 0..3, 13 of each)."""
        arr = np.asarray(owners)
        if arr.shape != (52,):
            raise InvalidInput("owners", f"expected 52 entries, got shape {arr.shape}")
        if arr.size and (arr.min() < 0 or arr.max() > 3):
            raise InvalidInput("owners", "owner seats must be 0..3")
        return cls(
            tuple(Hand(frozenset(int(c) for c in np.flatnonzero(arr == s))) for s in range(4))  # type: ignore[arg-type]
        )

    def masks(self) -> np.ndarray:
        """``int64[4, 4]`` suit masks, indexed [seat, suit]."""
        return owners_to_masks(self.to_owners())

    def swap(self, seat_a: int, seat_b: int) -> Deal:
        """A deal with the hands of two seats exchanged."""
        hands = list(self.hands)
        hands[seat_a], hands[seat_b] = hands[seat_b], hands[seat_a]
        return Deal(tuple(hands))  # type: ignore[arg-type]


def owners_to_masks(owners: np.ndarray) -> np.ndarray:
    """Per-seat per-suit 13-bit masks ``int64[4, 4]`` ([seat, suit]) from an owner array."""
    arr = np.asarray(owners, dtype=np.int64).reshape(4, 13)
    bits = np.int64(1) << np.arange(13, dtype=np.int64)
    out = np.zeros((4, 4), dtype=np.int64)
    for seat in range(4):
        out[seat] = ((arr == seat) * bits).sum(axis=1)
    return out


def masks_to_cards(masks: Sequence[int]) -> list[int]:
    """Card indices of a per-suit mask tuple (♣ ♦ ♥ ♠)."""
    return [s * 13 + r for s, m in enumerate(masks) for r in range(13) if (int(m) >> r) & 1]


def random_deal(rng: np.random.Generator) -> Deal:
    """One uniformly random deal from ``rng``."""
    owners = np.repeat(np.arange(4, dtype=np.uint8), 13)
    rng.shuffle(owners)
    return Deal.from_owners(owners)
