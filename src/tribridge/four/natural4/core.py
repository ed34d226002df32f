"""Building blocks of the four-handed bidder: what a call shows (``Meaning``), a hand's features, each seat's
accumulated picture (``Shown``) and the rule type (a call, what it shows, an optional extra test on the hand).

A rule fires only when the hand satisfies everything its meaning claims, so an explanation rendered from the
meaning of the rule that fired is true of the hand that made the call.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from math import comb
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the context type only appears in annotations
    from tribridge.four.natural4.context import Ctx

__all__ = [
    "MAX_HCP",
    "HCP_WEIGHTS",
    "SUIT_NAMES",
    "NO_LEN",
    "HandInfo",
    "BLACKWOOD_KINDS",
    "CallKind",
    "Meaning",
    "TO_PLAY_KINDS",
    "Rule",
    "Shown",
    "lens_at_least",
    "lens_at_most",
]

MAX_HCP = 37
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
NO_LEN = (0, 0, 0, 0)
ALL_LEN = (13, 13, 13, 13)


def _hcp_weights() -> tuple[int, ...]:
    """How many 13-card hands hold each HCP total 0..37 (the 16 honours counted exactly, spot cards by choice)."""
    ways = {(0, 0): 1}  # (honours held, HCP) -> ways
    for value in (4, 3, 2, 1):
        for _ in range(4):
            nxt: dict[tuple[int, int], int] = {}
            for (n, p), w in ways.items():
                nxt[(n, p)] = nxt.get((n, p), 0) + w
                if n < 13:
                    nxt[(n + 1, p + value)] = nxt.get((n + 1, p + value), 0) + w
            ways = nxt
    out = [0] * (MAX_HCP + 1)
    for (n, p), w in ways.items():
        out[p] += w * comb(36, 13 - n)
    return tuple(out)


HCP_WEIGHTS = _hcp_weights()


def lens_at_least(**by_suit: int) -> tuple[int, int, int, int]:
    """Minimum lengths from keywords ``c d h s``."""
    return tuple(by_suit.get(k, 0) for k in "cdhs")  # type: ignore[return-value]


def lens_at_most(**by_suit: int) -> tuple[int, int, int, int]:
    """Maximum lengths from keywords ``c d h s`` (13 where not given)."""
    return tuple(by_suit.get(k, 13) for k in "cdhs")  # type: ignore[return-value]


@dataclass(frozen=True)
class HandInfo:
    """The features of a 13-card hand the rules read (suit order C D H S)."""

    cards: tuple[int, ...]
    hcp: int
    lens: tuple[int, int, int, int]
    balanced: bool
    aces: int
    kings: int

    @classmethod
    def of(cls, cards: Sequence[int]) -> HandInfo:
        """Features of the hand ``cards`` (card = suit * 13 + rank, rank 0 = ace)."""
        lens = [0, 0, 0, 0]
        for c in cards:
            lens[c // 13] += 1
        shape = sorted(lens)
        balanced = shape in ([3, 3, 3, 4], [2, 3, 4, 4], [2, 3, 3, 5])
        hcp = sum(max(0, 4 - c % 13) for c in cards)
        aces = sum(1 for c in cards if c % 13 == 0)
        kings = sum(1 for c in cards if c % 13 == 1)
        return cls(tuple(sorted(int(c) for c in cards)), hcp, tuple(lens), balanced, aces, kings)  # type: ignore[arg-type]

    def honours(self, suit: int, top: int = 5) -> int:
        """How many of the suit's ``top`` ranks (A K Q J T by default) the hand holds."""
        return sum(1 for c in self.cards if c // 13 == suit and c % 13 < top)

    def stopper(self, suit: int) -> bool:
        """A stopper: the ace, K-x, Q-x-x or J-x-x-x or better."""
        ranks = [c % 13 for c in self.cards if c // 13 == suit]
        return any(r <= 3 and len(ranks) >= r + 1 for r in ranks)

    def length_points(self) -> int:
        """One point for each card beyond four in a suit."""
        return sum(max(0, n - 4) for n in self.lens)

    def shortness_points(self, trump: int) -> int:
        """Support points with a fit: void 3, singleton 2, doubleton 1 outside the trump suit."""
        return sum({0: 3, 1: 2, 2: 1}.get(n, 0) for s, n in enumerate(self.lens) if s != trump)


class CallKind(Enum):
    """The kinds of call the system recognises when it reads an auction (``Meaning.kind``)."""

    NATURAL = "natural"
    BLACKWOOD = "blackwood"  # 4NT asking for aces
    BLACKWOOD_REPLY = "blackwood reply"
    NEGATIVE_DOUBLE = "negative double"
    REOPENING_DOUBLE = "reopening double"
    PENALTY = "penalty"  # a penalty double or a penalty pass
    TO_PLAY = "to play"  # a contract chosen to be played
    AFTER_BLACKWOOD = "to play after blackwood"  # the contract chosen after the Blackwood reply
    JACOBY_2NT = "jacoby 2nt"
    JACOBY_2NT_REPLY = "jacoby 2nt reply"
    PREEMPT = "preempt"  # a weak two or a three- or four-level preempt


TO_PLAY_KINDS = frozenset({CallKind.TO_PLAY, CallKind.AFTER_BLACKWOOD})
BLACKWOOD_KINDS = frozenset({CallKind.BLACKWOOD, CallKind.BLACKWOOD_REPLY})


@dataclass(frozen=True)
class Meaning:
    """What a call shows about the caller's hand, and how to say it.

    ``kind`` is what the system reads later in the auction (a Blackwood ask, a penalty double, a call
    to play ...); ``label`` and ``text()`` are for display only.
    """

    label: str
    lo: int = 0
    hi: int = MAX_HCP
    min_len: tuple[int, int, int, int] = NO_LEN
    max_len: tuple[int, int, int, int] = ALL_LEN
    balanced: bool = False
    alert: bool = False
    kind: CallKind = CallKind.NATURAL

    def __post_init__(self) -> None:
        if sum(self.min_len) > 13 or any(a > b for a, b in zip(self.min_len, self.max_len)):
            raise ValueError(
                f"impossible suit lengths in {self.label!r}: at least {self.min_len}, at most {self.max_len}"
            )

    def holds(self, hand: HandInfo) -> bool:
        """Whether the hand satisfies every claim of this meaning."""
        if not (self.lo <= hand.hcp <= self.hi):
            return False
        if self.balanced and not hand.balanced:
            return False
        return all(a <= n <= b for a, n, b in zip(self.min_len, hand.lens, self.max_len))

    def text(self) -> str:
        """Plain-language explanation: the label, then the HCP range, suit lengths and shape it promises."""
        parts = []
        lo, hi = max(0, self.lo), min(MAX_HCP, self.hi)
        if lo > 0 and hi < MAX_HCP:
            parts.append(f"{lo} HCP" if lo == hi else f"{lo}-{hi} HCP")
        elif lo > 0:
            parts.append(f"{lo}+ HCP")
        elif hi < MAX_HCP:
            parts.append(f"at most {hi} HCP")
        for suit in (3, 2, 1, 0):
            a, b = max(0, self.min_len[suit]), min(13, self.max_len[suit])
            name = SUIT_NAMES[suit]
            if a > 0 and b < 13:
                parts.append(f"{a} {name}" if a == b else f"{a}-{b} {name}")
            elif a > 0:
                parts.append(f"{a}+ {name}")
            elif b < 13:
                parts.append(f"at most {b} {name}")
        if self.balanced:
            parts.append("balanced")
        return self.label + (": " + ", ".join(parts) if parts else "")

    def hull(self, other: Meaning) -> Meaning:
        """The weakest meaning implied by either of two meanings (for reading a call that several rules make)."""
        return Meaning(
            self.label if self.label == other.label else f"{self.label} / {other.label}",
            min(self.lo, other.lo),
            max(self.hi, other.hi),
            tuple(min(a, b) for a, b in zip(self.min_len, other.min_len)),  # type: ignore[arg-type]
            tuple(max(a, b) for a, b in zip(self.max_len, other.max_len)),  # type: ignore[arg-type]
            self.balanced and other.balanced,
            self.alert and other.alert,
            self.kind if self.label == other.label or self.kind != CallKind.PREEMPT else CallKind.NATURAL,
        )


@dataclass(frozen=True)
class Rule:
    """One possible call in a situation: the call, what it shows, and an optional extra test of the hand."""

    call: str
    meaning: Meaning
    test: Callable[..., bool] | None = None  # (hand, ctx) -> bool

    def fits(self, hand: HandInfo, ctx: Ctx) -> bool:
        """Whether this rule's call is legal now and the hand fits it."""
        if not self.meaning.holds(hand) or not ctx.auction.is_legal(self.call):
            return False
        return self.test is None or bool(self.test(hand, ctx))


@dataclass
class Shown:
    """Everything a seat's calls have shown so far: an HCP range, suit length ranges, balanced or not."""

    lo: int = 0
    hi: int = MAX_HCP
    min_len: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    max_len: list[int] = field(default_factory=lambda: [13, 13, 13, 13])
    balanced: bool = False
    bids: int = 0

    def copy(self) -> Shown:
        """An independent copy (its length lists are new lists)."""
        return Shown(self.lo, self.hi, list(self.min_len), list(self.max_len), self.balanced, self.bids)

    def add(self, meaning: Meaning) -> None:
        """Narrow the picture by a call's meaning (a contradictory meaning replaces the part it contradicts)."""
        lo, hi = max(self.lo, meaning.lo), min(self.hi, meaning.hi)
        if lo > hi:
            lo, hi = meaning.lo, meaning.hi
        self.lo, self.hi = lo, hi
        for s in range(4):
            a, b = max(self.min_len[s], meaning.min_len[s]), min(self.max_len[s], meaning.max_len[s])
            if a > b:
                a, b = meaning.min_len[s], meaning.max_len[s]
            self.min_len[s], self.max_len[s] = a, b
        self.balanced = self.balanced or meaning.balanced

    def expect(self) -> int:
        """A point estimate of the seat's HCP: the middle of a narrow range (five values or fewer, rounded up),
        else the mean HCP of a random hand within the shown range (rounded)."""
        lo, hi = max(0, self.lo), min(MAX_HCP, self.hi)
        if hi - lo <= 4:
            return (lo + hi + 1) // 2
        weight = sum(HCP_WEIGHTS[lo : hi + 1])
        if weight == 0:
            return lo
        return round(sum(p * HCP_WEIGHTS[p] for p in range(lo, hi + 1)) / weight)
