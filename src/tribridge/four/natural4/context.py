"""The auction as one seat sees it: who opened, who bid what, each seat's shown values, and bidding helpers."""

from __future__ import annotations

from dataclasses import dataclass

from tribridge.four.natural4.core import CallKind, Meaning, Shown
from tribridge.four.rules import DOUBLE, PASS, STRAINS, Auction4, is_bid, same_side

__all__ = ["Ctx", "bid_of", "strain_of"]


def bid_of(level: int, strain: int) -> str:
    """The bid ``1C`` … ``7N`` for a level and a strain index (C D H S N)."""
    return f"{level}{STRAINS[strain]}"


def strain_of(call: str) -> int:
    """The strain index of a bid."""
    return STRAINS.index(call[1])


@dataclass
class Ctx:
    """The seat on turn, the auction so far, and what every call so far has shown."""

    auction: Auction4
    seat: int
    shown: list[Shown]
    meanings: list[Meaning]
    vul: str = "None"
    system: str = "SAYC"  # the system this seat's side plays (SAYC or 2/1)

    @property
    def two_over_one(self) -> bool:
        """Whether this seat's side plays 2/1 game forcing."""
        return self.system == "2/1"

    @property
    def partner(self) -> int:
        """The partner's seat."""
        return self.seat ^ 2

    def seat_of(self, index: int) -> int:
        """The seat that made call ``index``."""
        return (self.auction.dealer + index) % 4

    def calls_of(self, seat: int) -> list[tuple[int, str]]:
        """(index, call) of every call ``seat`` made."""
        return [(i, c) for i, c in enumerate(self.auction.calls) if self.seat_of(i) == seat]

    def bids_of(self, seat: int) -> list[str]:
        """The bids (not passes or doubles) ``seat`` made."""
        return [c for _, c in self.calls_of(seat) if is_bid(c)]

    def actions_of(self, seat: int) -> list[str]:
        """The calls other than pass that ``seat`` made."""
        return [c for _, c in self.calls_of(seat) if c != PASS]

    @property
    def opener(self) -> int | None:
        """The seat of the first bid, or None."""
        for i, c in enumerate(self.auction.calls):
            if is_bid(c):
                return self.seat_of(i)
        return None

    @property
    def opening(self) -> str | None:
        """The first bid of the auction."""
        for c in self.auction.calls:
            if is_bid(c):
                return c
        return None

    @property
    def we_opened(self) -> bool:
        """Whether our side made the first bid."""
        return self.opener is not None and same_side(self.opener, self.seat)

    def opponents_acted(self) -> bool:
        """Whether an opponent has bid or doubled."""
        return any(c != PASS and not same_side(self.seat_of(i), self.seat) for i, c in enumerate(self.auction.calls))

    def last_meaning(self, seat: int) -> Meaning | None:
        """The meaning of ``seat``'s latest call."""
        calls = self.calls_of(seat)
        return self.meanings[calls[-1][0]] if calls else None

    def last_call(self, seat: int) -> str | None:
        """``seat``'s latest call."""
        calls = self.calls_of(seat)
        return calls[-1][1] if calls else None

    @property
    def last_bid(self) -> str | None:
        """The highest bid so far."""
        lb = self.auction.last_bid
        return lb[0] if lb else None

    @property
    def last_bidder(self) -> int | None:
        """Who made the highest bid so far."""
        lb = self.auction.last_bid
        return lb[1] if lb else None

    def ours(self) -> bool:
        """Whether the highest bid is our side's."""
        return self.last_bidder is not None and same_side(self.last_bidder, self.seat)

    def cheapest(self, strain: int) -> int:
        """The lowest level at which ``strain`` can be bid now (8 when none)."""
        last = self.last_bid
        if last is None:
            return 1
        level = int(last[0])
        return level if strain > strain_of(last) else level + 1

    def cheapest_bid(self, strain: int) -> str | None:
        """The cheapest legal bid in ``strain``, or None above 7."""
        level = self.cheapest(strain)
        return bid_of(level, strain) if level <= 7 else None

    def doubled_us(self) -> bool:
        """Whether the last call was an opponent's double of our bid."""
        calls = self.auction.calls
        return bool(calls) and calls[-1] == DOUBLE and not same_side(self.seat_of(len(calls) - 1), self.seat)

    def we_vulnerable(self) -> bool:
        """Whether our side is vulnerable."""
        return (
            self.vul == "All" or (self.vul == "NS" and self.seat % 2 == 0) or (self.vul == "EW" and self.seat % 2 == 1)
        )

    def they_vulnerable(self) -> bool:
        """Whether the opponents are vulnerable."""
        return self.vul == "All" or (self.vul in ("NS", "EW") and not self.we_vulnerable())

    def their_suits(self) -> set[int]:
        """Suits the opponents have bid."""
        out = set()
        for i, c in enumerate(self.auction.calls):
            if is_bid(c) and c[1] != "N" and not same_side(self.seat_of(i), self.seat):
                out.add(strain_of(c))
        return out

    def our_kinds(self, seat: int) -> list[CallKind]:
        """The kinds of ``seat``'s calls so far (what the system reads)."""
        return [self.meanings[i].kind for i, _ in self.calls_of(seat)]
