"""PBN files in and out: a tolerant reader for tournament files and the 3PAB deal record's PBN form.

Reading (``read_boards``): any number of games; tag pairs ``[Name "value"]`` (``"#"`` repeats the
previous game's value), ``{...}`` and ``;`` comments, ``%`` directive lines, the Auction and Play
sections with their notes (``=1=``), NAGs (``$12``) and ``!``/``?`` suffixes. Games are separated by
blank lines. Every error names the line it is on.

A ``PbnBoard`` gives the deal as dealt (``dealt()``). For an ordinary four-handed board that is the
``Deal`` tag (the dealer's partner is the widow when it is played as 3PAB); for a 3PAB record
written by ``record_to_pbn`` the ``Deal`` tag shows the hands after the widow moved opposite the
declarer (so that the Play section reads naturally), and the dealt hands are recovered from it.

The 3PAB record (``record_to_pbn`` / ``record_json``) is written in one frame of seats, the play
seats (the widow's hand opposite the declarer; the dealer never moves), so that any PBN 2.1 reader
gets the whole auction and consistent seats: ``Dealer``, ``Deal``, ``Declarer``, ``Contract``, a
``{3PAB: ...}`` comment recording the dealt layout, ``Auction`` four-handed from the dealer with a
``Pass =1=`` at each of the widow's turns (``[Note "1:..."]`` names them), ``Play``, ``Result`` and
``Scoring``; the tags ``AuctionRanking``, ``DealerMustBid`` and ``Claim`` appear only when they
differ from the defaults (contract ranking, dealer may pass, no claim). Records of the older form
(``-`` in the widow's dealt column, the calls in dealing seats) are still read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from tribridge.cards import Card, Deal, Hand, Seat
from tribridge.errors import InvalidInput
from tribridge.rules.auction import (
    AuctionOptions,
    AuctionState,
    Call,
    Contract,
    opening_leader,
    play_deal,
    reseat,
)
from tribridge.rules.play import PlayState
from tribridge.rules.scoring import get_scheme, honours_held, score_deal
from tribridge.rules.widow_turns import dummy_seat, players_calls

__all__ = [
    "PbnBoard",
    "read_boards",
    "record_json",
]

_TAG = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
_ESCAPED = re.compile(r'\\(["\\])')  # PBN's two escapes in a string: \" and \\ (any other backslash stays)
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOTE = re.compile(r"^=\d+=$")
_NAG = re.compile(r"^\$\d+$")
_3PAB_COMMENT = re.compile(r"^\s*3PAB:")
_DEALT = re.compile(r"Dealt:\s*([NESWnesw]:[^}]*?)\s*$")
_VULNERABLE = {"NONE": "None", "LOVE": "None", "-": "None", "NS": "NS", "EW": "EW", "ALL": "All", "BOTH": "All"}


@dataclass
class PbnBoard:
    """One game of a PBN file: its tags, section tokens and comments, each with the line it is on."""

    line: int
    source: str = "pbn"
    tags: dict[str, str] = field(default_factory=dict)
    tag_lines: dict[str, int] = field(default_factory=dict)
    sections: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    comments: list[tuple[str, int]] = field(default_factory=list)

    def where(self, tag: str | None = None) -> str:
        """``source:line`` of a tag (or of the board's first line), for error messages."""
        return f"{self.source}:{self.tag_lines.get(tag, self.line) if tag else self.line}"

    def error(self, tag: str | None, message: str) -> InvalidInput:
        """An ``InvalidInput`` naming the line of ``tag``."""
        return InvalidInput(self.where(tag), message)

    @property
    def number(self) -> str | None:
        """The ``Board`` tag's value, or None."""
        return self.tags.get("Board") or None

    @property
    def vulnerable(self) -> str:
        """``None``, ``NS``, ``EW`` or ``All`` (``None`` when the tag is missing)."""
        value = self.tags.get("Vulnerable", "None").strip().upper()
        if value not in _VULNERABLE:
            raise self.error("Vulnerable", f"expected None, NS, EW or All, got {self.tags['Vulnerable']!r}")
        return _VULNERABLE[value]

    @property
    def is_3pab(self) -> bool:
        """True for a record written by ``record_to_pbn`` or ``deal_board_pbn`` (it has a ``{3PAB: ...}`` comment)."""
        return any(_3PAB_COMMENT.match(text) for text, _ in self.comments)

    def deal(self) -> Deal:
        """The hands of the ``Deal`` tag as written (one unknown hand ``-`` is filled with the missing cards)."""
        if "Deal" not in self.tags:
            raise self.error(None, "the board has no Deal tag")
        return _parse_deal(self.tags["Deal"], self.where("Deal"))

    def dealer(self) -> Seat:
        """The ``Dealer`` tag (without one: the first seat of the ``Deal`` tag)."""
        text = self.tags.get("Dealer", "").strip()
        if not text:
            deal_text = self.tags.get("Deal", "").strip()
            if len(deal_text) >= 2 and deal_text[1] == ":":
                return Seat.parse(deal_text[0], self.where("Deal"))
            raise self.error(None, "the board has no Dealer tag")
        return Seat.parse(text, self.where("Dealer"))

    def dealt(self) -> tuple[Deal, Seat]:
        """The hands as dealt and the dealer (a 3PAB record's reseating undone)."""
        deal, dealer = self.deal(), self.dealer()
        contract = self.contract() if self.is_3pab else None
        if contract is None:
            return deal, dealer
        seat_map = reseat(dealer, contract.declarer)
        dealt = Deal(tuple(deal[seat_map[Seat(s)]] for s in range(4)))  # type: ignore[arg-type]
        written = self._dealt_comment()
        if written is not None and written != dealt:
            raise self.error("Deal", "the Deal tag and the 3PAB comment's dealt layout disagree")
        return dealt, dealer

    def contract(self) -> Contract | None:
        """The ``Contract`` and ``Declarer`` tags (None when passed out or not given)."""
        text = self.tags.get("Contract", "").strip()
        if not text or text.upper() == "PASS":
            return None
        return Contract.parse(
            text, Seat.parse(self.tags.get("Declarer", ""), self.where("Declarer")), self.where("Contract")
        )

    def play(self) -> list[Card]:
        """The cards of the Play section in the order played, checked against the ``Deal`` tag's hands."""
        contract = self.contract()
        if contract is None:
            return []
        return _play_cards(self, self.deal(), contract)[1]

    def _dealt_comment(self) -> Deal | None:
        for text, line in self.comments:
            if _3PAB_COMMENT.match(text):
                m = _DEALT.search(text)
                if m:
                    return _parse_deal(m.group(1), f"{self.source}:{line}")
        return None


def _parse_deal(text: str, where: str) -> Deal:
    t = text.strip()
    parts = t[2:].split() if len(t) >= 2 and t[1] == ":" else []
    if parts.count("-") > 1:
        raise InvalidInput(where, "at most one hand may be unknown ('-'); tribridge needs the whole deal")
    if len(parts) == 4 and parts.count("-") == 1:
        known = [Hand.from_pbn(p, where) for p in parts if p != "-"]
        seen = frozenset().union(*(h.cards for h in known))
        if len(seen) != 39:
            raise InvalidInput(where, "three hands of 13 different cards are needed to fill in the unknown one")
        missing = Hand(frozenset(range(52)) - seen).to_pbn()
        t = t[:2] + " ".join(missing if p == "-" else p for p in parts)
    deal = Deal.from_pbn(t, where)
    if len(frozenset().union(*(h.cards for h in deal.hands))) != 52:
        raise InvalidInput(where, "the four hands share cards")
    return deal


# --- reading ----------------------------------------------------------------------------------
def _scan(text: str, source: str) -> Iterator[tuple[str, Any, int]]:
    """Yield ("tag", (name, value), line), ("comment", text, line), ("token", text, line), ("blank", None, line)."""
    comment: list[str] | None = None
    comment_line = 0
    for number, raw in enumerate(text.splitlines(), 1):
        rest = raw
        if comment is not None:
            end = rest.find("}")
            if end < 0:
                comment.append(rest)
                continue
            comment.append(rest[:end])
            yield "comment", "\n".join(comment).strip(), comment_line
            comment, rest = None, rest[end + 1 :]
        elif rest.startswith("%"):
            continue
        elif not rest.strip():
            yield "blank", None, number
            continue
        pos = 0
        while pos < len(rest):
            ch = rest[pos]
            if ch.isspace():
                pos += 1
            elif ch == "[":
                m = _TAG.match(rest, pos)
                if not m:
                    raise InvalidInput(
                        f"{source}:{number}", f'malformed tag pair {rest[pos:].strip()!r}: expected [Name "value"]'
                    )
                value = _ESCAPED.sub(r"\1", m.group(2))  # \" and \\ (one pass: pbn_tag's inverse)
                yield "tag", (m.group(1), value), number
                pos = m.end()
            elif ch == "{":
                end = rest.find("}", pos + 1)
                if end < 0:
                    comment, comment_line = [rest[pos + 1 :]], number
                    break
                yield "comment", rest[pos + 1 : end].strip(), number
                pos = end + 1
            elif ch == ";":
                yield "comment", rest[pos + 1 :].strip(), number
                break
            elif ch == '"' and (quoted := _STRING.match(rest, pos)) is not None:  # a string of a table's row
                yield "token", quoted.group(0), number
                pos = quoted.end()
            else:
                end = pos
                while end < len(rest) and not rest[end].isspace() and rest[end] not in "[{;":
                    end += 1
                yield "token", rest[pos:end], number
                pos = end
    if comment is not None:
        raise InvalidInput(f"{source}:{comment_line}", "a { comment is never closed with }")


def read_boards(text: str, source: str = "pbn") -> list[PbnBoard]:
    """Every game of a PBN text, in order (``source`` names the file in error messages)."""
    if not isinstance(text, str):
        raise InvalidInput(source, f"expected PBN text, got {type(text).__name__}")
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors write
    boards: list[PbnBoard] = []
    previous: dict[str, str] = {}
    board: PbnBoard | None = None
    pending: list[tuple[str, int]] = []  # comments seen before the next board's first tag
    section: str | None = None
    for kind, value, line in _scan(text, source):
        if kind == "blank":
            if board is not None:
                previous = dict(board.tags)
                boards.append(board)
                board, section = None, None
            continue
        if kind == "comment":
            (board.comments if board is not None else pending).append((value, line))
            continue
        if kind == "tag":
            name, tag_value = value
            if board is None:
                board, pending = PbnBoard(line, source, comments=pending), []
            if tag_value == "#" and name in previous:
                tag_value = previous[name]
            board.tags[name] = tag_value
            board.tag_lines[name] = line
            section = name
            continue
        if board is None or section is None:
            raise InvalidInput(f"{source}:{line}", f"unexpected {value!r} outside a game (expected a tag pair)")
        board.sections.setdefault(section, []).append((value, line))
    if board is not None:
        boards.append(board)
    return boards


def _one_board(source: PbnBoard | str) -> PbnBoard:
    if isinstance(source, PbnBoard):
        return source
    boards = read_boards(source)
    if len(boards) != 1:
        raise InvalidInput("pbn", f"expected one game, got {len(boards)} (read them with read_boards)")
    return boards[0]


def _section(board: PbnBoard, name: str) -> list[tuple[str, int]]:
    """The section's tokens without notes, NAGs and ``!``/``?`` suffixes."""
    out = []
    for token, line in board.sections.get(name, []):
        if _NOTE.match(token) or _NAG.match(token):
            continue
        token = token.rstrip("!?")
        if token:
            out.append((token, line))
    return out


def _auction_calls(board: PbnBoard, dealer: Seat, options: AuctionOptions) -> tuple[Call, ...]:
    """The 3PAB calls of the Auction section, in either form (``AP`` = all pass).

    The form written today has the widow's turns as passes in the dummy's seat (play seats); the
    older form had ``-`` in the widow's dealt column and the players' calls in their dealt seats.
    """
    if "Auction" not in board.tags:
        raise board.error(None, "a played 3PAB record needs an Auction section")
    first = Seat.parse(board.tags["Auction"], board.where("Auction"))
    tokens = []
    for token, line in _section(board, "Auction"):
        if token == "*":
            break
        tokens.append((token, line))
    if board.is_3pab and all(token != "-" for token, _ in tokens):
        tokens = _players_tokens(board, dealer, first, tokens)
    else:
        tokens = _dealt_column_tokens(board, dealer, first, tokens)
    state = AuctionState.start(dealer, options)
    for token, line in tokens:
        calls = [Call.parse("P")] * 3 if token.upper() == "AP" else [Call.parse(token, f"{board.source}:{line}")]
        for call in calls:
            if state.is_over:
                break
            reason = state.illegal_reason(call)
            if reason is not None:
                raise InvalidInput(f"{board.source}:{line}", f"call {token!r} is not legal here: {reason}")
            state = state.apply(call)
    if not state.is_over:
        raise board.error("Auction", "the auction is not finished")
    return state.calls


def _dealt_column_tokens(
    board: PbnBoard, dealer: Seat, first: Seat, tokens: list[tuple[str, int]]
) -> list[tuple[str, int]]:
    """The players' tokens of the older form: ``-`` and nothing else in the widow's dealt column."""
    widow, out = dealer.partner, []
    for column, (token, line) in enumerate(tokens):
        seat = Seat((first + column) % 4)
        if token == "-":
            if seat != widow:
                raise InvalidInput(f"{board.source}:{line}", f"'-' is only for the widow's column ({widow.letter})")
        elif seat == widow:
            raise InvalidInput(f"{board.source}:{line}", f"the widow ({widow.letter}) does not call; got {token!r}")
        else:
            out.append((token, line))
    return out


def _players_tokens(board: PbnBoard, dealer: Seat, first: Seat, tokens: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The players' tokens of a four-handed auction in play seats: the dummy's column holds only passes."""
    if first != dealer:
        raise board.error("Auction", f"the auction starts with the dealer {dealer.letter}, not {first.letter}")
    calls = []
    for token, line in tokens:
        where = f"{board.source}:{line}"
        calls += [Call.parse("P")] * 3 if token.upper() == "AP" else [Call.parse(token, where)]
    lines = [line for token, line in tokens for _ in range(3 if token.upper() == "AP" else 1)]
    kept, wrong = players_calls(calls, dealer)
    if wrong is not None:
        dummy = dummy_seat(calls, dealer)
        raise InvalidInput(f"{board.source}:{lines[wrong]}", f"the widow (dummy, at {dummy.letter}) only passes")
    return [(calls[i].to_pbn(), lines[i]) for i in kept]


def _play_cards(board: PbnBoard, deal: Deal, contract: Contract) -> tuple[PlayState, list[Card]]:
    """Replay the Play section (rows of four columns from the Play tag's seat) on the play-seat ``deal``."""
    state = PlayState.start(deal, contract)
    if "Play" not in board.tags:
        return state, []
    first = Seat.parse(board.tags["Play"], board.where("Play"))
    if first != opening_leader(contract.declarer):
        raise board.error(
            "Play", f"the opening leader is {opening_leader(contract.declarer).letter}, not {first.letter}"
        )
    tokens = [(t, line) for t, line in _section(board, "Play") if t != "*"]
    played: list[Card] = []
    for row_start in range(0, len(tokens), 4):
        row = tokens[row_start : row_start + 4]
        if state.is_over:
            raise InvalidInput(f"{board.source}:{row[0][1]}", "cards after the last trick")
        leader = state.turn
        assert leader is not None
        for k in range(4):
            seat = (int(leader) + k) % 4
            column = (seat - int(first)) % 4
            if column >= len(row) or row[column][0] == "-":
                break
            token, line = row[column]
            card = Card.parse(token, f"{board.source}:{line}")
            reason = state.illegal_reason(card)
            if reason is not None:
                raise InvalidInput(f"{board.source}:{line}", f"{token} by {Seat(seat).letter} is not legal: {reason}")
            state = state.apply(card)
            played.append(card)
    return state, played


def record_json(source: PbnBoard | str) -> dict[str, Any]:
    """One 3PAB record's PBN read into ``DealRecord.to_json`` form (the score recomputed from the scheme)."""
    board = _one_board(source)
    if "Auction" not in board.tags:
        raise board.error(None, "not a played 3PAB record (no Auction section); read the deal with read_boards")
    deal, dealer = board.dealt()
    ranking = board.tags.get("AuctionRanking", "contract").strip().lower()
    if ranking not in ("contract", "value"):
        raise board.error("AuctionRanking", f"expected contract or value, got {ranking!r}")
    options = AuctionOptions(ranking, board.tags.get("DealerMustBid", "no").strip().lower() == "yes")  # type: ignore[arg-type]
    calls = _auction_calls(board, dealer, options)
    contract = AuctionState.from_calls(dealer, calls, options).contract
    written = board.tags.get("Contract", "").strip()
    if (
        written
        and (written.upper() == "PASS") != (contract is None)
        or (contract is not None and written and Contract.parse(written, contract.declarer) != contract)
    ):
        raise board.error("Contract", f"{written!r} does not match the auction ({contract or 'passed out'})")
    scheme = get_scheme(board.tags.get("Scoring", "classic").strip() or "classic")
    out: dict[str, Any] = {
        "deal": deal.to_pbn(),
        "dealer": dealer.letter,
        "options": {"ranking": options.ranking, "dealer_must_bid": options.dealer_must_bid},
        "auction": [str(c) for c in calls],
        "contract": None if contract is None else str(contract),
        "play": [],
        "claimed": None,
        "declarer_tricks": None,
        "scheme": scheme.name,
        "score": score_deal(None, 0, scheme).to_json(),
    }
    if contract is None:
        return out
    state, played = _play_cards(board, play_deal(deal, dealer, contract.declarer), contract)
    out["play"] = [str(c) for c in played]
    if not state.is_over:
        result = board.tags.get("Result", "").strip()
        claim = board.tags.get("Claim", "").split()
        if len(claim) == 2:
            seat, tricks = Seat.parse(claim[0], board.where("Claim")), _int(claim[1], board, "Claim")
        elif result:
            seat, tricks = contract.declarer, _int(result, board, "Result") - state.declarer_tricks
        else:
            return out  # play not finished: no result
        if not 0 <= tricks <= state.tricks_left:
            raise board.error("Result", f"{tricks} of the {state.tricks_left} tricks left cannot be claimed")
        state = state.agreed_claim(seat, tricks)  # the table agreed to it; the record says so
        out["claimed"] = {"seat": seat.letter, "tricks": tricks}
    tricks_written = board.tags.get("Result", "").strip()
    if tricks_written and _int(tricks_written, board, "Result") != state.declarer_tricks:
        raise board.error("Result", f"the play gives {state.declarer_tricks} tricks, not {tricks_written}")
    out["declarer_tricks"] = state.declarer_tricks
    honours = honours_held(state.deal, contract) if scheme.honours else None
    out["score"] = score_deal(contract, state.declarer_tricks, scheme, honours).to_json()
    return out


def _int(text: str, board: PbnBoard, tag: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise board.error(tag, f"expected a number, got {text!r}") from None
