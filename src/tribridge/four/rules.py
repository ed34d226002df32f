"""Ordinary four-handed bridge for the robot API: call parsing, auction legality, and play tracing from one seat's view.

Pure module (no I/O). Calls are canonical strings: ``P``, ``X``, ``XX``, ``1C`` … ``7N``
(``N`` is no-trump), exactly ``str(rules.auction.Call)``, which parses and spells every call. Seats and cards follow ``tribridge.cards`` (N=0 … W=3, card = suit*13 + rank).
Rules: the Laws of Duplicate Bridge (bids rank by level then C < D < H < S < NT; a double only of
an opponent's bid, a redouble only of an opponent's double; the auction ends after three passes
following a call, or four passes; the declarer is the first of the winning side to name the strain).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from tribridge.cards import SEAT_CHARS, Card
from tribridge.errors import IllegalAction, InvalidInput
from tribridge.rules.auction import Call
from tribridge.rules.trick import legal_cards as trick_legal_cards
from tribridge.rules.trick import trick_winner

STRAINS = "CDHSN"
STRAIN_NAMES = ("clubs", "diamonds", "hearts", "spades", "no-trump")
PASS = "P"
DOUBLE = "X"
REDOUBLE = "XX"
ALL_BIDS: tuple[str, ...] = tuple(f"{level}{s}" for level in range(1, 8) for s in STRAINS)

# One token of the packed Brill form: two characters, or a bid written with NT.
_PACKED_TOKEN = re.compile(r"--|[1-7]NT|[1-7][CDHSN]|DB|RD")


def parse_call(text: str, field_name: str = "call") -> str:
    """Parse one call in any accepted spelling (``1S``, ``1NT``, ``--``, ``P``, ``Db``, ``X``, ``XX`` …)."""
    if not isinstance(text, str):
        raise InvalidInput(field_name, f"expected a call like '1S', '--', 'Db', got {text!r}")
    try:
        return str(Call.parse(text, field_name))
    except InvalidInput:
        raise InvalidInput(
            field_name, f"bad call {text!r}: expected 1C..7N, '--' (pass), 'Db', 'Rd', P, X or XX"
        ) from None


def parse_ctx(ctx: str, field_name: str = "ctx") -> list[str]:
    """Split a robot-API ``ctx`` into calls: packed 2-character tokens (``1S--2H``) or the dash form (``1S-P-2H``)."""
    if not isinstance(ctx, str):
        raise InvalidInput(field_name, f"expected a string of calls, got {ctx!r}")
    text = re.sub(r"\s+", "", ctx).upper()
    if not text:
        return []
    packed: list[str] = []
    pos = 0
    while pos < len(text):
        m = _PACKED_TOKEN.match(text, pos)
        if not m:
            break
        packed.append(parse_call(m.group(0), field_name))
        pos = m.end()
    if pos == len(text):
        return packed
    packed_error_at = pos
    if "-" in text and "--" not in text:
        pieces = text.split("-")
        calls = []
        for i, piece in enumerate(pieces):
            if not piece:
                raise InvalidInput(field_name, f"empty call at position {i + 1} of the dash form {ctx!r}")
            try:
                calls.append(parse_call(piece, field_name))
            except InvalidInput:
                raise InvalidInput(
                    field_name, f"bad call {piece!r} at position {i + 1} of {ctx!r}: expected 1C..7N, P, X or XX"
                ) from None
        return calls
    bad = text[packed_error_at : packed_error_at + 2]
    raise InvalidInput(
        field_name,
        f"bad call {bad!r} at character {packed_error_at + 1} of {ctx!r}: expected 2-character tokens "
        "'--', 'Db', 'Rd', '1C'..'7N' (or the dash form 1S-P-2H)",
    )


def to_brill(call: str) -> str:
    """The robot API's 2-character token of a canonical call (``--``, ``Db``, ``Rd``, ``1S``)."""
    return Call.parse(call).to_brill()


def bid_rank(call: str) -> int:
    """Order of a bid: 0 for 1C up to 34 for 7N."""
    return (int(call[0]) - 1) * 5 + STRAINS.index(call[1])


def is_bid(call: str) -> bool:
    """Whether ``call`` is a bid (not pass, double or redouble)."""
    return call[0].isdigit()


def same_side(a: int, b: int) -> bool:
    """Whether two seats are partners (or the same seat)."""
    return (a - b) % 2 == 0


@dataclass(frozen=True)
class Contract4:
    """A four-handed contract: level 1..7, strain index (0..3 suits, 4 NT), doubling 0/1/2, declarer seat."""

    level: int
    strain: int
    doubling: int
    declarer: int

    @property
    def trump(self) -> int | None:
        """The trump suit index, or None in no-trump."""
        return None if self.strain == 4 else self.strain

    @property
    def dummy(self) -> int:
        """The declarer's partner's seat."""
        return self.declarer ^ 2

    @property
    def leader(self) -> int:
        """The opening leader: the declarer's left-hand opponent."""
        return (self.declarer + 1) % 4

    def __str__(self) -> str:
        return f"{self.level}{'NT' if self.strain == 4 else STRAINS[self.strain]}{'X' * self.doubling}"


@dataclass(frozen=True)
class Auction4:
    """A four-handed auction from ``dealer``: immutable; ``apply`` returns a new auction."""

    dealer: int
    calls: tuple[str, ...] = ()

    @classmethod
    def from_calls(cls, dealer: int, calls: Iterable[str], field_name: str = "ctx") -> Auction4:
        """Replay calls from the dealer, raising ``IllegalAction`` naming the first illegal one."""
        auction = cls(int(dealer))
        for i, call in enumerate(calls):
            reason = auction.illegal_reason(call)
            if reason is not None:
                raise IllegalAction(
                    field_name,
                    f"call {i + 1} ({to_brill(call)}) by {SEAT_CHARS[auction.turn_or_next]} is illegal: {reason}",
                )
            auction = cls(auction.dealer, auction.calls + (call,))
        return auction

    @property
    def turn_or_next(self) -> int:
        """The seat that would call next, ignoring whether the auction is over."""
        return (self.dealer + len(self.calls)) % 4

    @property
    def is_over(self) -> bool:
        """Whether the auction has ended (three passes after a call, or four passes)."""
        n = len(self.calls)
        if n < 4:
            return False
        return all(c == PASS for c in self.calls[-3:])

    @property
    def passed_out(self) -> bool:
        """Whether all four players passed."""
        return self.is_over and all(c == PASS for c in self.calls)

    @property
    def turn(self) -> int | None:
        """The seat to call, or None once the auction is over."""
        return None if self.is_over else self.turn_or_next

    def _last(self) -> tuple[int, str, int] | None:
        """(index, call, seat) of the last call that is not a pass."""
        for i in range(len(self.calls) - 1, -1, -1):
            if self.calls[i] != PASS:
                return i, self.calls[i], (self.dealer + i) % 4
        return None

    @property
    def last_bid(self) -> tuple[str, int] | None:
        """(bid, seat) of the highest bid so far."""
        for i in range(len(self.calls) - 1, -1, -1):
            if is_bid(self.calls[i]):
                return self.calls[i], (self.dealer + i) % 4
        return None

    def doubling(self) -> int:
        """Doubling of the current highest bid: 0, 1 (doubled) or 2 (redoubled)."""
        last = self._last()
        if last is None:
            return 0
        return {DOUBLE: 1, REDOUBLE: 2}.get(last[1], 0)

    def is_legal(self, call: str) -> bool:
        """Whether ``call`` may be made now (``illegal_reason`` says why not)."""
        return self.illegal_reason(call) is None

    def illegal_reason(self, call: str) -> str | None:
        """None if ``call`` is legal now, else the reason."""
        if self.is_over:
            return "the auction is already over"
        seat = self.turn_or_next
        if call == PASS:
            return None
        last = self._last()
        if is_bid(call):
            if call not in ALL_BIDS:
                return f"unknown bid {call!r}"
            lb = self.last_bid
            if lb is not None and bid_rank(call) <= bid_rank(lb[0]):
                return f"{call} is not higher than {lb[0]}"
            return None
        if call == DOUBLE:
            if last is None or not is_bid(last[1]):
                return "a double needs an undoubled opponents' bid"
            if same_side(last[2], seat):
                return "cannot double your own side's bid"
            return None
        if call == REDOUBLE:
            if last is None or last[1] != DOUBLE:
                return "a redouble needs an opponents' double"
            if same_side(last[2], seat):
                return "cannot redouble your own side's double"
            return None
        return f"unknown call {call!r}"

    def legal_calls(self) -> list[str]:
        """All legal calls now, pass first, then double/redouble, then bids upward."""
        return [c for c in (PASS, DOUBLE, REDOUBLE) + ALL_BIDS if self.is_legal(c)]

    def apply(self, call: str) -> Auction4:
        """The auction after ``call``; raises ``IllegalAction`` if it is illegal."""
        reason = self.illegal_reason(call)
        if reason is not None:
            raise IllegalAction("call", reason)
        return Auction4(self.dealer, self.calls + (call,))

    @property
    def contract(self) -> Contract4 | None:
        """The final contract once the auction is over (None if unfinished or passed out)."""
        if not self.is_over or self.passed_out:
            return None
        bid, seat = self.last_bid  # type: ignore[misc]
        strain = STRAINS.index(bid[1])
        declarer = seat
        for i, call in enumerate(self.calls):
            caller = (self.dealer + i) % 4
            if is_bid(call) and call[1] == bid[1] and same_side(caller, seat):
                declarer = caller
                break
        return Contract4(int(bid[0]), strain, self.doubling(), declarer)


@dataclass
class PlayTrace:
    """The play so far as one seat sees it: who played each card, tricks, voids shown, who is on turn."""

    contract: Contract4
    played: list[int]
    players: list[int] = field(default_factory=list)
    trick_winners: list[int] = field(default_factory=list)
    voids: dict[int, set[int]] = field(default_factory=lambda: {s: set() for s in range(4)})
    turn: int | None = None

    @property
    def current_trick(self) -> list[tuple[int, int]]:
        """(seat, card) pairs of the unfinished trick."""
        start = len(self.trick_winners) * 4
        return list(zip(self.players[start:], self.played[start:]))

    @property
    def declarer_tricks(self) -> int:
        """Tricks won so far by the declarer's side."""
        return sum(1 for w in self.trick_winners if same_side(w, self.contract.declarer))

    @property
    def defender_tricks(self) -> int:
        """Tricks won so far by the defenders."""
        return len(self.trick_winners) - self.declarer_tricks

    @property
    def is_over(self) -> bool:
        """Whether all 13 tricks are played."""
        return len(self.played) == 52

    def played_by(self, seat: int) -> set[int]:
        """Cards ``seat`` has played."""
        return {c for c, p in zip(self.played, self.players) if p == seat}


def winner_of_trick(cards: Sequence[int], leader: int, trump: int | None) -> int:
    """The seat that wins a complete trick of four cards led by ``leader``."""
    return trick_winner(cards, leader, trump)


def trace_play(
    contract: Contract4,
    played: Sequence[int],
    known: Mapping[int, Iterable[int]] | None = None,
    field_name: str = "played",
) -> PlayTrace:
    """Follow the play card by card, checking it against the hands the viewer knows; raise on the first impossible card.

    ``known`` maps a seat to its original 13 cards (the viewer's own hand, dummy's when exposed).
    A card is refused if it repeats, if a known hand did not hold it, if it belongs to a known hand
    but another seat played it, if a known hand failed to follow suit while holding the suit led,
    or if a seat plays a suit it had shown out of.
    """
    known_sets = {int(s): set(int(c) for c in cards) for s, cards in (known or {}).items()}
    owner_known = {c: s for s, cards in known_sets.items() for c in cards}
    trace = PlayTrace(contract, [int(c) for c in played])
    seen: set[int] = set()
    turn = contract.leader
    trick: list[int] = []
    leader = turn
    trump = contract.trump
    for i, card in enumerate(trace.played):
        label = f"card {i + 1} ({Card(card)})"
        if card in seen:
            raise IllegalAction(field_name, f"{label} was already played")
        seen.add(card)
        seat = turn
        name = SEAT_CHARS[seat]
        suit = card // 13
        if seat in known_sets:
            if card not in known_sets[seat]:
                raise IllegalAction(field_name, f"{label} is played by {name}, whose hand does not hold it")
            if trick:
                led = trick[0] // 13
                if suit != led:
                    still = {c for c in known_sets[seat] - trace.played_by(seat) if c // 13 == led}
                    if still:
                        raise IllegalAction(
                            field_name, f"{label}: {name} revokes, holding {Card(min(still))} in the suit led"
                        )
        else:
            if card in owner_known:
                raise IllegalAction(
                    field_name, f"{label} is played by {name}, but it is in {SEAT_CHARS[owner_known[card]]}'s hand"
                )
        if suit in trace.voids[seat]:
            raise IllegalAction(field_name, f"{label}: {name} had already shown out of that suit")
        if trick and suit != trick[0] // 13:
            trace.voids[seat].add(trick[0] // 13)
        trace.players.append(seat)
        trick.append(card)
        if len(trick) == 4:
            winner = winner_of_trick(trick, leader, trump)
            trace.trick_winners.append(winner)
            trick = []
            leader = turn = winner
        else:
            turn = (turn + 1) % 4
    trace.turn = None if len(trace.played) == 52 else turn
    return trace


def legal_cards(trace: PlayTrace, hand: Iterable[int]) -> list[int]:
    """Cards of ``hand`` (original 13) still held and legal to play next in ``trace``."""
    held = set(int(c) for c in hand) - set(trace.played)
    trick = trace.current_trick
    return trick_legal_cards(held, trick[0][1] // 13 if trick else None)
