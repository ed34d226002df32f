"""The three-player auction of 3PAB as an immutable state machine; contract, reseating and opening lead.

Rules (docs/rules.md): the widow is dealt opposite the dealer; the three players call clockwise from the
dealer, skipping the widow's seat; the auction ends when a bid (or double or redouble) is followed by
two passes; three passes at the start throw the deal in (unless ``dealer_must_bid``). The declarer
is the player who made the final bid; the widow's hand becomes dummy opposite the declarer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property
from typing import Literal

from tribridge.cards import Deal, Seat
from tribridge.errors import IllegalAction, InvalidInput

CallKind = Literal["pass", "bid", "double", "redouble"]
Ranking = Literal["contract", "value"]


class Denom(IntEnum):
    """A denomination (strain) in bidding order; C..S equal the suit numbers of ``cards.Suit``."""

    C = 0
    D = 1
    H = 2
    S = 3
    NT = 4

    @property
    def letter(self) -> str:
        """Short name used in calls: C, D, H, S or N."""
        return "CDHSN"[self]

    @property
    def symbol(self) -> str:
        """Display name: ♣ ♦ ♥ ♠ or NT."""
        return ("♣", "♦", "♥", "♠", "NT")[self]

    @classmethod
    def parse(cls, text: str, field: str = "denomination") -> Denom:
        """Parse C, D, H, S, N or NT (any case) or a suit symbol."""
        t = str(text).strip().upper()
        table = {"C": 0, "D": 1, "H": 2, "S": 3, "N": 4, "NT": 4, "♣": 0, "♦": 1, "♥": 2, "♠": 3}
        if t in table:
            return cls(table[t])
        raise InvalidInput(field, f"expected a denomination C, D, H, S or NT, got {text!r}")


# Classic auction-bridge trick values (docs/rules.md): ♣6 ♦7 ♥8 ♠9 NT10; used by ranking="value".
TRICK_VALUES: tuple[int, int, int, int, int] = (6, 7, 8, 9, 10)

_BID_RE = re.compile(r"^([1-7])\s*(NT|N|C|D|H|S|♣|♦|♥|♠)$")
_WORDS: dict[str, str] = {
    "P": "pass",
    "PASS": "pass",
    "--": "pass",
    "X": "double",
    "DB": "double",
    "D": "double",
    "DBL": "double",
    "DOUBLE": "double",
    "XX": "redouble",
    "RD": "redouble",
    "R": "redouble",
    "RDBL": "redouble",
    "REDOUBLE": "redouble",
}


@dataclass(frozen=True)
class Call:
    """One call: ``kind`` is pass, bid, double or redouble; ``level``/``denom`` only for bids."""

    kind: CallKind
    level: int = 0
    denom: Denom | None = None

    def __post_init__(self) -> None:
        if self.kind == "bid":
            if not (isinstance(self.level, int) and 1 <= self.level <= 7) or self.denom is None:
                raise InvalidInput(
                    "call", f"a bid needs a level 1..7 and a denomination, got {self.level}, {self.denom}"
                )
            object.__setattr__(self, "denom", Denom(self.denom))
        elif self.kind in ("pass", "double", "redouble"):
            if self.level != 0 or self.denom is not None:
                raise InvalidInput("call", f"a {self.kind} has no level or denomination")
        else:
            raise InvalidInput("call", f"unknown call kind {self.kind!r}")

    @classmethod
    def parse(cls, text: str, field: str = "call") -> Call:
        """Parse ``1C..7N``, ``1NT``, ``P``, ``Pass``, ``X``, ``XX``, ``--``, ``Db``, ``Rd`` (any case)."""
        if isinstance(text, Call):
            return text
        if not isinstance(text, str):
            raise InvalidInput(field, f"expected a call like '1S', 'P', 'X', got {text!r}")
        t = text.strip().upper()
        if t in _WORDS:
            return cls(_WORDS[t])  # type: ignore[arg-type]
        m = _BID_RE.match(t)
        if m:
            return cls("bid", int(m.group(1)), Denom.parse(m.group(2), field))
        raise InvalidInput(field, f"expected a call 1C..7NT, P, X or XX, got {text!r}")

    @property
    def is_bid(self) -> bool:
        """True for a bid (not pass, double or redouble)."""
        return self.kind == "bid"

    def __str__(self) -> str:
        if self.kind == "bid":
            assert self.denom is not None
            return f"{self.level}{self.denom.letter}"
        return {"pass": "P", "double": "X", "redouble": "XX"}[self.kind]

    def __repr__(self) -> str:
        return f"Call({self})"

    def to_brill(self) -> str:
        """The robot API spelling: ``1C..7N``, ``--``, ``Db``, ``Rd``."""
        if self.kind == "bid":
            return str(self)
        return {"pass": "--", "double": "Db", "redouble": "Rd"}[self.kind]

    def to_pbn(self) -> str:
        """The PBN spelling: ``1C..7NT``, ``Pass``, ``X``, ``XX``."""
        if self.kind == "bid":
            assert self.denom is not None
            return f"{self.level}{'NT' if self.denom == Denom.NT else self.denom.letter}"
        return {"pass": "Pass", "double": "X", "redouble": "XX"}[self.kind]


PASS = Call("pass")
DOUBLE = Call("double")
REDOUBLE = Call("redouble")


def bid(level: int, denom: Denom | int | str) -> Call:
    """The bid of ``level`` in ``denom`` (a Denom, its number, or its letter)."""
    d = Denom.parse(denom) if isinstance(denom, str) else Denom(denom)
    return Call("bid", int(level), d)


ALL_BIDS: tuple[Call, ...] = tuple(bid(level, d) for level in range(1, 8) for d in Denom)


def bid_value(call: Call) -> int:
    """Trick-point value of a bid, level × trick value (♣6 ♦7 ♥8 ♠9 NT10)."""
    assert call.denom is not None
    return call.level * TRICK_VALUES[call.denom]


def bid_rank_key(call: Call, ranking: Ranking = "contract") -> tuple[int, int]:
    """Sort key of a bid: higher key outranks. ``contract``: (level, denom); ``value``: (value, level)."""
    assert call.denom is not None
    if ranking == "value":
        return (bid_value(call), call.level)
    return (call.level, int(call.denom))


# Every bid with its rank key, lowest first, under each ranking (built once: legal_calls is a hot path).
_BIDS_BY_RANK: dict[str, tuple[tuple[tuple[int, int], Call], ...]] = {
    ranking: tuple(sorted(((bid_rank_key(b, ranking), b) for b in ALL_BIDS), key=lambda kb: kb[0]))
    for ranking in ("contract", "value")
}


@dataclass(frozen=True)
class AuctionOptions:
    """Auction options: bid ``ranking`` (``contract`` [D] or ``value``) and ``dealer_must_bid`` (IB rule)."""

    ranking: Ranking = "contract"
    dealer_must_bid: bool = False

    def __post_init__(self) -> None:
        if self.ranking not in ("contract", "value"):
            raise InvalidInput("ranking", f"expected 'contract' or 'value', got {self.ranking!r}")


@dataclass(frozen=True)
class Contract:
    """The final contract: ``level``, ``denom``, ``doubling`` (0 none, 1 doubled, 2 redoubled), ``declarer``."""

    level: int
    denom: Denom
    doubling: int
    declarer: Seat

    def __post_init__(self) -> None:
        if not 1 <= int(self.level) <= 7:
            raise InvalidInput("contract", f"level must be 1..7, got {self.level}")
        if self.doubling not in (0, 1, 2):
            raise InvalidInput("contract", f"doubling must be 0, 1 or 2, got {self.doubling}")
        object.__setattr__(self, "denom", Denom(self.denom))
        object.__setattr__(self, "declarer", Seat(self.declarer))

    @property
    def tricks_needed(self) -> int:
        """Tricks the declarer's side needs: level + 6."""
        return self.level + 6

    @property
    def multiplier(self) -> int:
        """Score multiplier m: 1, 2 or 4."""
        return (1, 2, 4)[self.doubling]

    @property
    def trump(self) -> int | None:
        """The trump suit number (0..3) or None in no-trump."""
        return None if self.denom == Denom.NT else int(self.denom)

    def __str__(self) -> str:
        denom = "NT" if self.denom == Denom.NT else self.denom.letter
        return f"{self.level}{denom}{('', 'X', 'XX')[self.doubling]}"

    @classmethod
    def parse(cls, text: str, declarer: Seat | str | int = Seat.N, field: str = "contract") -> Contract:
        """Parse ``3N``, ``3NT``, ``4SX``, ``2HXX`` (the declarer is given separately)."""
        if not isinstance(text, str):
            raise InvalidInput(field, f"expected a contract like '3NT' or '4SX', got {text!r}")
        t = text.strip().upper()
        doubling = 0
        if t.endswith("XX"):
            doubling, t = 2, t[:-2]
        elif t.endswith("X"):
            doubling, t = 1, t[:-1]
        m = _BID_RE.match(t)
        if not m:
            raise InvalidInput(field, f"expected a contract like '3NT', '4S', '4SX', got {text!r}")
        return cls(int(m.group(1)), Denom.parse(m.group(2), field), doubling, Seat.parse(declarer, "declarer"))


@dataclass(frozen=True)
class AuctionState:
    """An auction in progress or finished; ``apply`` returns a new state."""

    dealer: Seat
    calls: tuple[Call, ...] = ()
    options: AuctionOptions = AuctionOptions()

    @classmethod
    def start(cls, dealer: Seat | int | str, options: AuctionOptions | None = None) -> AuctionState:
        """An empty auction with ``dealer`` to call first."""
        return cls(Seat.parse(dealer, "dealer"), (), options or AuctionOptions())

    @classmethod
    def from_calls(
        cls,
        dealer: Seat | int | str,
        calls: list[Call | str] | tuple[Call | str, ...],
        options: AuctionOptions | None = None,
    ) -> AuctionState:
        """Replay a sequence of calls (strings or Calls) from the start; illegal ones raise IllegalAction."""
        state = cls.start(dealer, options)
        for i, c in enumerate(calls):
            state = state.apply(Call.parse(c, f"calls[{i}]") if isinstance(c, str) else c)
        return state

    # --- seats -------------------------------------------------------------------------------
    @property
    def widow(self) -> Seat:
        """The widow's seat: opposite the dealer."""
        return self.dealer.partner

    @property
    def bidders(self) -> tuple[Seat, Seat, Seat]:
        """The three calling seats in calling order: dealer, dealer's LHO, then the seat after the widow."""
        return bidders_for(self.dealer)

    # --- derived facts (cached: the state is immutable) -----------------------------------
    @cached_property
    def _last_bid(self) -> int:
        """The index of the last bid among the calls, -1 before any bid."""
        for i in range(len(self.calls) - 1, -1, -1):
            if self.calls[i].kind == "bid":
                return i
        return -1

    def seat_of_call(self, index: int) -> Seat:
        """The seat that made (or makes) call number ``index``."""
        return self.bidders[index % 3]

    @property
    def highest_bid(self) -> Call | None:
        """The current highest bid (None before any bid)."""
        i = self._last_bid
        return self.calls[i] if i >= 0 else None

    @property
    def highest_bidder(self) -> Seat | None:
        """The seat holding the current highest bid."""
        i = self._last_bid
        return self.seat_of_call(i) if i >= 0 else None

    @property
    def doubling(self) -> int:
        """Doubling of the current highest bid: 0, 1 (doubled) or 2 (redoubled)."""
        i = self._last_bid
        if i < 0:
            return 0
        kinds = [c.kind for c in self.calls[i + 1 :]]
        return 2 if "redouble" in kinds else 1 if "double" in kinds else 0

    @cached_property
    def is_over(self) -> bool:
        """True once the auction has ended (contract reached or thrown in)."""
        n = len(self.calls)
        if n >= 3 and self._last_bid < 0 and all(c.kind == "pass" for c in self.calls[:3]):
            return True
        return self._last_bid >= 0 and n >= 2 and self.calls[-1].kind == "pass" and self.calls[-2].kind == "pass"

    @property
    def passed_out(self) -> bool:
        """True when all three passed at their first turn (deal thrown in)."""
        return self.is_over and self._last_bid < 0

    @property
    def turn(self) -> Seat | None:
        """The seat to call next, or None once the auction is over."""
        if self.is_over:
            return None
        return self.seat_of_call(len(self.calls))

    @property
    def declarer(self) -> Seat | None:
        """The declarer (maker of the final bid) once the auction is over with a contract."""
        if not self.is_over or self.passed_out:
            return None
        return self.highest_bidder

    @cached_property
    def contract(self) -> Contract | None:
        """The final contract, or None while running or when thrown in."""
        if not self.is_over or self.passed_out:
            return None
        hb = self.highest_bid
        assert hb is not None and hb.denom is not None and self.highest_bidder is not None
        return Contract(hb.level, hb.denom, self.doubling, self.highest_bidder)

    # --- legality ------------------------------------------------------------------------
    def is_legal(self, call: Call) -> bool:
        """Whether ``call`` may be made now (``illegal_reason`` says why not)."""
        return self.illegal_reason(call) is None

    def illegal_reason(self, call: Call) -> str | None:
        """None if ``call`` is legal for the seat on turn, else the reason it is not."""
        if not isinstance(call, Call):
            return f"expected a Call, got {call!r}"
        if self.is_over:
            return "the auction is over"
        seat = self.turn
        holder = self.highest_bidder
        if call.kind == "pass":
            if self.options.dealer_must_bid and not self.calls:
                return f"the dealer ({self.dealer.letter}) must open the bidding (dealer_must_bid)"
            return None
        if call.kind == "bid":
            hb = self.highest_bid
            if hb is not None and bid_rank_key(call, self.options.ranking) <= bid_rank_key(hb, self.options.ranking):
                how = "value then level" if self.options.ranking == "value" else "level then denomination"
                return f"{call} does not outrank the current bid {hb} (ranking by {how})"
            return None
        if holder is None:
            return f"there is no bid to {call.kind}"
        if call.kind == "double":
            if seat == holder:
                return "you cannot double your own bid"
            if self.doubling >= 1:
                return f"{self.highest_bid} is already {'doubled' if self.doubling == 1 else 'redoubled'}"
            return None
        # redouble
        if seat != holder:
            return "only the player holding the bid may redouble"
        if self.doubling == 0:
            return f"{self.highest_bid} has not been doubled"
        if self.doubling == 2:
            return f"{self.highest_bid} is already redoubled"
        return None

    def legal_calls(self) -> list[Call]:
        """Every legal call for the seat on turn (pass first, then bids low to high, then X/XX)."""
        if self.is_over:
            return []
        out = [c for c in (PASS,) if self.is_legal(c)]
        hb = self.highest_bid
        if hb is None:
            out.extend(ALL_BIDS)
        else:
            key = bid_rank_key(hb, self.options.ranking)
            out.extend(b for k, b in _BIDS_BY_RANK[self.options.ranking] if k > key)
        out.extend(c for c in (DOUBLE, REDOUBLE) if self.is_legal(c))
        return out

    def apply(self, call: Call | str) -> AuctionState:
        """The state after ``call`` by the seat on turn; raises IllegalAction with the reason if illegal."""
        if isinstance(call, str):
            call = Call.parse(call)
        reason = self.illegal_reason(call)
        if reason is not None:
            who = self.turn.letter if self.turn is not None else "-"
            raise IllegalAction("call", f"{call} by {who} is illegal: {reason}")
        return AuctionState(self.dealer, self.calls + (call,), self.options)


def bidders_for(dealer: Seat | int) -> tuple[Seat, Seat, Seat]:
    """The three calling seats clockwise from ``dealer``, skipping the widow (dealer's partner)."""
    found = _BIDDERS.get(dealer)  # type: ignore[arg-type]  # an int 0..3 finds its Seat (equal hash)
    if found is None:
        d = Seat(dealer)  # raises for anything but a seat
        return (d, d.lho, d.rho)
    return found


_BIDDERS: dict[Seat, tuple[Seat, Seat, Seat]] = {d: (d, d.lho, d.rho) for d in Seat}  # built once: a hot path


def reseat(dealer: Seat | int, declarer: Seat | int) -> dict[Seat, Seat]:
    """Map each dealing seat to its play seat: widow opposite the declarer, that seat's player to the widow's seat."""
    dealer, declarer = Seat(dealer), Seat(declarer)
    widow = dealer.partner
    if declarer == widow:
        raise InvalidInput("declarer", f"the widow's seat {widow.letter} cannot declare (dealer {dealer.letter})")
    mapping = {s: s for s in Seat}
    opposite = declarer.partner
    if opposite != widow:
        mapping[widow] = opposite
        mapping[opposite] = widow
    return mapping


def play_deal(deal: Deal, dealer: Seat | int, declarer: Seat | int) -> Deal:
    """The deal rearranged into play seats (see ``reseat``): dummy = the widow's hand opposite the declarer."""
    mapping = reseat(dealer, declarer)
    hands = [deal[0]] * 4
    for src, dst in mapping.items():
        hands[dst] = deal[src]
    return Deal(tuple(hands))  # type: ignore[arg-type]


def opening_leader(declarer: Seat | int) -> Seat:
    """The opening leader: the declarer's left-hand opponent in play seats."""
    return Seat(declarer).lho
