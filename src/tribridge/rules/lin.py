"""LIN files (the format of BBO's hand viewer) in and out, with the 3PAB deal record's LIN form.

A LIN text is a run of ``key|value|`` pairs (two-letter keys); a file holds boards, each starting
at ``qx|o<n>|`` (or at ``pn`` or ``md`` once the board being read has its ``md``).
Newlines between pairs are allowed anywhere; every error names the line of the pair.

The 3PAB record (``record_to_lin``), one line per deal::

    qx|o1|pn|S,W,N,E names|st|3PAB: ...|md|<dealer digit>S..H..D..C..,<W>,<N>,<E>|rh||ah|Board 1|sv|o|
    mb|1S|an|explanation|mb|p|...|pg||pc|HA|pc|H2|pc|H5|pc|H9|pg||...|mc|9|pg||

- ``md`` and ``pn`` are in **play seats**: the widow's hand sits opposite the declarer (it is dummy,
  named ``widow``) and the player dealt there sits in the widow's dealt seat. The dealer (digit
  1 = S, 2 = W, 3 = N, 4 = E) never moves. All four hands are written, ranks low to high as BBO does.
- The auction is four-handed from the dealer in those seats: the widow's seat holds a pass at each
  of its turns (``mb|p|``), and one more pass closes the auction when a four-handed reader needs a
  third pass. A LIN reader then finds the right declarer (the widow only passes, so the declarer's
  side named the strain first) and the widow as dummy.
- ``st`` carries the 3PAB facts LIN cannot say, readable and read back: the widow's dealt seat, the
  dummy's seat, who moved, the scoring scheme, the auction options and a claim's seat.
- ``sv`` is always ``o``: auction bridge has no vulnerability. ``mc`` is the declarer's total tricks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from tribridge.cards import Card, Deal, Hand, Seat
from tribridge.errors import InvalidInput
from tribridge.rules.auction import AuctionOptions, AuctionState, Call, Contract, play_deal
from tribridge.rules.deal import DealState, replay
from tribridge.rules.game import DealRecord
from tribridge.rules.lin_text import (
    SEATS_FROM_SOUTH,
    call_to_lin,
    clean_value,
    escape_suits,
    hand_from_lin,
    hand_to_lin,
    lin_pairs,
    seat_digit,
    unescape_suits,
)
from tribridge.rules.widow_turns import dummy_seat, four_handed, players_calls

__all__ = ["LinBoard", "history_to_lin", "read_lin", "record_to_lin"]

_VULNERABLE = {"o": "None", "0": "None", "-": "None", "n": "NS", "e": "EW", "b": "All"}
_WIDOW = "widow"
_SEAT_NAMES = {Seat.N: "North", Seat.E: "East", Seat.S: "South", Seat.W: "West"}
_3PAB_NOTE = re.compile(r"^\s*3PAB:")
_NOTE_WIDOW = re.compile(r"widow dealt ([NESW]) \(opposite dealer ([NESW])\)")
_NOTE_CLAIM = re.compile(r"^claim ([NESW]) (\d+)$")
_NOTE_SCORING = re.compile(r"^scoring (\S+)$")


# --- writing ----------------------------------------------------------------------------------
def _note(record: DealRecord) -> str:
    """The ``st`` value: what LIN cannot say about a 3PAB deal."""
    widow, dealer = record.widow, record.dealer
    parts = [f"3PAB: widow dealt {widow.letter} (opposite dealer {dealer.letter})"]
    if record.contract is None:
        parts.append("passed out")
    else:
        parts.append(f"dummy at {record.seat_map[widow].letter}")
        moved = [s for s in record.seat_map if s != widow and record.seat_map[s] != s]
        parts += [f"player dealt {s.letter} now at {record.seat_map[s].letter}" for s in moved]
    claim = record.claimed
    facts = {  # each fact written only when the deal has it
        f"scoring {record.scheme}": True,
        "ranking value": record.options.ranking == "value",
        "dealer must bid": record.options.dealer_must_bid,
        "" if claim is None else f"claim {claim[0].letter} {claim[1]}": claim is not None,
    }
    return "; ".join(parts + [text for text, present in facts.items() if present])


def _auction_pairs(record: DealRecord, explanations: Sequence[str | None]) -> list[str]:
    """``mb`` (and ``an``) pairs, four-handed from the dealer with the widow's passes in the dummy's seat."""
    out, i = [], 0
    for call, widow in four_handed(record.calls, record.dealer, record.seat_map[record.widow]):
        out.append(f"mb|{call_to_lin(call)}|")
        if widow:
            continue
        text = explanations[i] if i < len(explanations) else None
        if text:
            out.append(f"an|{clean_value(escape_suits(text))}|")
        i += 1
    return out


def _play_pairs(record: DealRecord) -> list[str]:
    """``pc`` pairs, ``pg||`` after each trick, ``mc|<declarer's tricks>|`` after a claim."""
    out = []
    for i, card in enumerate(record.play):
        out.append(f"pc|{card}|")
        if i % 4 == 3:
            out.append("pg||")
    if record.claimed is not None:
        out.append(f"mc|{record.declarer_tricks}|pg||")
    return out


def record_to_lin(
    record: DealRecord,
    board: int | None = None,
    names: Mapping[Seat, str] | None = None,
    explanations: Sequence[str | None] = (),
) -> str:
    """One LIN line of a played deal; ``names`` by dealing seat, ``explanations`` aligned with ``record.calls``.

    A player without a name is called by its dealing seat (``West`` sitting at S shows the move).
    """
    given = names or {}
    by_play_seat = {record.seat_map[record.widow]: _WIDOW}
    for player in record.auction().bidders:
        by_play_seat[record.seat_map[player]] = (
            clean_value(given.get(player, "")).replace(",", " ").strip() or _SEAT_NAMES[player]
        )
    hands = record.play_deal
    number = 1 if board is None else board
    pairs = [
        f"qx|o{number}|",
        "pn|" + ",".join(by_play_seat[s] for s in SEATS_FROM_SOUTH) + "|",
        f"st|{_note(record)}|",
        f"md|{seat_digit(record.dealer)}" + ",".join(hand_to_lin(hands[s]) for s in SEATS_FROM_SOUTH) + "|",
        "rh||",
        *([] if board is None else [f"ah|Board {board}|"]),
        "sv|o|",
        *_auction_pairs(record, explanations),
        "pg||",
        *_play_pairs(record),
    ]
    return "".join(pairs) + "\n"


def history_to_lin(history: Sequence[Mapping[str, object]]) -> str:
    """A table's finished deals as one LIN file: the web table's history entries, one line per deal."""
    lines = []
    for i, entry in enumerate(history):
        where = f"history[{i}]"
        record = entry.get("record")
        deal_no = entry.get("deal_no")
        if not isinstance(record, Mapping) or not isinstance(deal_no, int):
            raise InvalidInput(where, "expected a finished deal with 'record' and 'deal_no'")
        players, seats = entry.get("players") or [], entry.get("chair_seats") or []
        if not isinstance(players, list) or not isinstance(seats, list) or len(players) != len(seats):
            raise InvalidInput(f"{where}.players", "expected one name per chair and one seat per chair")
        names = {Seat.parse(str(s), f"{where}.chair_seats"): str(n) for s, n in zip(seats, players)}
        lines.append(record_to_lin(DealRecord.from_json(record), deal_no, names))
    return "".join(lines)


# --- reading ----------------------------------------------------------------------------------
@dataclass
class LinBoard:
    """One board of a LIN file: its ``(key, value, line)`` pairs in order (keys in lower case)."""

    line: int
    source: str = "lin"
    pairs: list[tuple[str, str, int]] = field(default_factory=list)

    def error(self, line: int | None, message: str) -> InvalidInput:
        """An ``InvalidInput`` naming ``source:line`` (the board's first line by default)."""
        return InvalidInput(f"{self.source}:{self.line if line is None else line}", message)

    def first(self, key: str) -> tuple[str, int] | None:
        """The value and line of the first ``key`` pair, or None."""
        return next(((v, n) for k, v, n in self.pairs if k == key), None)

    def values(self, key: str) -> list[tuple[str, int]]:
        """Every ``key`` pair's value and line, in order."""
        return [(v, n) for k, v, n in self.pairs if k == key]

    @property
    def number(self) -> str | None:
        """The board number: ``ah|Board N|``, else the number of ``qx|o<N>|``, else None."""
        for key, pattern in (("ah", r"^\s*Board\s+(\S+)"), ("qx", r"^[oc](\d+)")):
            found = self.first(key)
            m = re.match(pattern, found[0]) if found else None
            if m:
                return m.group(1)
        return None

    @property
    def vulnerable(self) -> str:
        """``None``, ``NS``, ``EW`` or ``All`` from ``sv`` (``None`` without one)."""
        found = self.first("sv")
        if found is None:
            return "None"
        value = found[0].strip().lower()
        if value not in _VULNERABLE:
            raise self.error(found[1], f"sv: expected o, n, e or b, got {found[0]!r}")
        return _VULNERABLE[value]

    @property
    def names(self) -> dict[Seat, str]:
        """The ``pn`` names by seat (as written: play seats in a 3PAB record)."""
        found = self.first("pn")
        names = found[0].split(",") if found else []
        return {seat: name.strip() for seat, name in zip(SEATS_FROM_SOUTH, names)}

    @property
    def is_3pab(self) -> bool:
        """True for a record written by ``record_to_lin`` (its ``st`` starts with ``3PAB:``)."""
        return self._note() is not None

    def _note(self) -> tuple[list[str], int] | None:
        found = self.first("st")
        if found is None or not _3PAB_NOTE.match(found[0]):
            return None
        return [part.strip() for part in found[0].split(":", 1)[1].split(";")], found[1]

    def dealer(self) -> Seat:
        """The dealer: the digit that starts ``md`` (1 = S, 2 = W, 3 = N, 4 = E)."""
        value, line = self._md()
        if value[:1] not in ("1", "2", "3", "4"):
            raise self.error(line, f"md: expected the dealer's digit 1-4 first, got {value[:12]!r}")
        return SEATS_FROM_SOUTH[int(value[0]) - 1]

    def deal(self) -> Deal:
        """The hands of ``md`` as written (one missing hand is filled with the cards left)."""
        value, line = self._md()
        where = f"{self.source}:{line}"
        texts = value[1:].split(",") if value[:1].isdigit() else value.split(",")
        if len(texts) > 4:
            raise InvalidInput(where, f"md: expected at most 4 hands, got {len(texts)}")
        texts += [""] * (4 - len(texts))
        hands = {seat: hand_from_lin(text, where) for seat, text in zip(SEATS_FROM_SOUTH, texts) if text.strip()}
        if len(hands) < 3:
            raise InvalidInput(where, "md: three hands are needed (the fourth is the cards left)")
        seen = frozenset().union(*(h.cards for h in hands.values()))
        if len(seen) != 13 * len(hands):
            raise InvalidInput(where, "md: the hands share cards")
        missing = [s for s in SEATS_FROM_SOUTH if s not in hands]
        if missing:
            hands[missing[0]] = Hand(frozenset(range(52)) - seen)
        return Deal(tuple(hands[Seat(s)] for s in range(4)))  # type: ignore[arg-type]

    def _md(self) -> tuple[str, int]:
        found = self.first("md")
        if found is None:
            raise self.error(None, "the board has no md (deal)")
        return found[0].strip(), found[1]

    def dealt(self) -> tuple[Deal, Seat]:
        """The hands as dealt and the dealer (a 3PAB record's reseating undone)."""
        contract = self.contract() if self.is_3pab else None
        if contract is None:
            return self.deal(), self.dealer()
        # the reseating swaps two hands (or none), so moving the hands again puts them back
        return play_deal(self.deal(), self.dealer(), contract.declarer), self.dealer()

    def four_handed_calls(self) -> list[tuple[Call, int, str | None]]:
        """The ``mb`` calls as written (an ``!`` alert mark dropped), each with its line and its ``an`` text."""
        out: list[tuple[Call, int, str | None]] = []
        for key, value, line in self.pairs:
            if key == "an" and out and out[-1][2] is None:
                out[-1] = (out[-1][0], out[-1][1], unescape_suits(value))
            if key != "mb":
                continue
            try:
                out.append((Call.parse(value.strip().rstrip("!"), "mb"), line, None))
            except InvalidInput:
                raise self.error(line, f"mb: expected a call 1C..7N, p, d or r, got {value!r}") from None
        return out

    def explanations(self) -> list[str | None]:
        """The ``an`` text of each player's call of a 3PAB record (None where there is none)."""
        return self._3pab_calls()[2]

    def contract(self) -> Contract | None:
        """The contract of a 3PAB record's auction (None when passed out)."""
        calls = self._3pab_calls()[0]
        return AuctionState.from_calls(self.dealer(), tuple(calls), self.options()).contract

    def options(self) -> AuctionOptions:
        """The auction options the ``st`` note names (the defaults without them)."""
        parts = (self._note() or ([], 0))[0]
        return AuctionOptions("value" if "ranking value" in parts else "contract", "dealer must bid" in parts)

    def _3pab_calls(self) -> tuple[list[Call], list[int], list[str | None]]:
        """The players' calls (the widow's passes left out), their lines and texts; the widow's column checked."""
        written = self.four_handed_calls()
        dealer = self.dealer()
        kept, wrong = players_calls([call for call, _, _ in written], dealer)
        if wrong is not None:
            dummy = dummy_seat([call for call, _, _ in written], dealer)
            raise self.error(
                written[wrong][1],
                f"mb {wrong + 1}: the widow (dummy, at {dummy.letter}) only passes; got {written[wrong][0]}",
            )
        calls = [written[i][0] for i in kept]
        lines = [written[i][1] for i in kept]
        texts = [written[i][2] for i in kept]
        return calls, lines, texts

    def record(self) -> DealRecord:
        """The ``DealRecord`` of a record written by ``record_to_lin``; every call and card is re-checked."""
        note = self._note()
        if note is None:
            raise self.error(None, "not a tribridge 3PAB record (its st does not start with '3PAB:')")
        parts, note_line = note
        deal, dealer = self.dealt()
        self._check_seats(parts, note_line, dealer)
        state = self._replayed(deal, dealer, None)
        claim = self._claim(parts, note_line, state)
        if claim is not None:
            state = self._replayed(deal, dealer, claim)
        if not state.is_terminal():
            raise self.error(None, "the deal is not finished (no more calls or cards, and no claim mc)")
        scheme = next((m.group(1) for p in parts if (m := _NOTE_SCORING.match(p))), "classic")
        record = DealRecord.from_state(state, scheme)
        found = self.first("mc")
        if found is not None and found[0].strip() != str(record.declarer_tricks):
            raise self.error(
                found[1], f"mc: the claim gives the declarer {record.declarer_tricks} tricks, not {found[0]}"
            )
        return record

    def _replayed(self, deal: Deal, dealer: Seat, claim: tuple[Seat, int] | None) -> DealState:
        """The deal replayed from the calls and cards (and a claim), an illegal one named by its line."""
        calls, call_lines, _texts = self._3pab_calls()
        cards = []
        for value, line in self.values("pc"):
            try:
                cards.append((Card.parse(value, "pc"), line))
            except InvalidInput:
                raise self.error(line, f"pc: expected a card like SA or HT, got {value!r}") from None
        try:
            return replay(deal, dealer, tuple(calls), tuple(c for c, _ in cards), self.options(), claim)
        except InvalidInput as exc:  # IllegalAction too
            m = re.match(r"^(calls|cards)\[(\d+)\]$", exc.field)
            lines = call_lines if m and m.group(1) == "calls" else [n for _, n in cards]
            claim_line = (self.first("mc") or self.first("st") or ("", self.line))[1]
            if m:
                raise self.error(lines[int(m.group(2))], exc.detail) from None
            raise self.error(claim_line, f"the claim's tricks: {exc.detail}") from None

    def _check_seats(self, parts: list[str], line: int, dealer: Seat) -> None:
        """The ``st`` note's widow and the ``pn`` widow agree with the dealer and the auction."""
        m = _NOTE_WIDOW.search(parts[0]) if parts else None
        if m and (Seat.parse(m.group(1)), Seat.parse(m.group(2))) != (dealer.partner, dealer):
            raise self.error(line, f"st: the widow is dealt opposite the dealer {dealer.letter}, not {m.group(1)}")
        widow_seats = [s for s, name in self.names.items() if name == _WIDOW]
        contract = self.contract()
        dummy = dealer.partner if contract is None else contract.declarer.partner
        if widow_seats and dummy not in widow_seats:
            raise self.error(self.values("pn")[0][1], f"pn: the widow (dummy) sits at {dummy.letter}")

    def _claim(self, parts: list[str], line: int, before: DealState) -> tuple[Seat, int] | None:
        """The claim: the ``st`` note's seat and tricks, else the declarer's from ``mc`` (total tricks)."""
        for part in parts:
            m = _NOTE_CLAIM.match(part)
            if m:
                return Seat.parse(m.group(1), f"{self.source}:{line}"), int(m.group(2))
        found = self.first("mc")
        if found is None:
            return None
        if before.contract is None:
            raise self.error(found[1], "mc: a claim in a deal thrown in")
        if not found[0].strip().isdigit():
            raise self.error(found[1], f"mc: expected the declarer's number of tricks, got {found[0]!r}")
        return before.contract.declarer, int(found[0]) - before.declarer_tricks


def read_lin(text: str, source: str = "lin") -> list[LinBoard]:
    """Every board of a LIN text, in order; pairs that no ``md`` follows (a ``vg``/``pn`` header) are no board."""
    if not isinstance(text, str):
        raise InvalidInput(source, f"expected LIN text, got {type(text).__name__}")
    boards: list[LinBoard] = []
    board: LinBoard | None = None
    for key, value, line in lin_pairs(text.removeprefix("\ufeff"), source):
        has_md = board is not None and board.first("md") is not None
        if board is None or key == "qx" or (key in ("pn", "md") and has_md):
            board = LinBoard(line, source)
            boards.append(board)
        board.pairs.append((key, value, line))
    return [b for b in boards if b.first("md") is not None]
