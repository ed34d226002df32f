"""The boards of a duplicate event: numbered deals with their dealer, drawn from a seed or read from PBN.

Board ``n`` (numbered from 1) drawn from a seed is the deal of the stream ``(seed, n)`` (``dealing.streams``),
the same deal a web table with that seed deals as its deal ``n``; its dealer is seat ``(n - 1) mod 4``
(N, E, S, W, N, ... as on duplicate boards and at the web table), the widow opposite. Boards read from a
PBN file keep their own dealer and ``Board`` number (the position in the file when the tag is missing).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TypedDict

from tribridge.cards import Deal, Seat, random_deal
from tribridge.dealing.streams import random_stream
from tribridge.errors import InvalidInput, quote
from tribridge.rules.pbn import read_boards

__all__ = ["MAX_BOARD_NUMBER", "Board", "BoardJson", "board_dealer", "count_pbn_boards", "pbn_boards", "seeded_boards"]

MAX_BOARD_NUMBER = 999_999
DEAL_TAG = re.compile(r"\[\s*Deal\s", re.IGNORECASE)


def count_pbn_boards(text: str) -> int:
    """How many boards a PBN text holds (its ``Deal`` tags: every board has one), counted without parsing it."""
    return len(DEAL_TAG.findall(text))


class BoardJson(TypedDict):
    """``Board.to_json``: the board number, its dealer's letter and the deal in PBN from the dealer."""

    board: int
    dealer: str
    deal: str


@dataclass(frozen=True)
class Board:
    """One board: its number, its dealer and the deal (hands in dealing seats; the widow opposite the dealer)."""

    number: int
    dealer: Seat
    deal: Deal

    @property
    def widow(self) -> Seat:
        """The widow's seat (opposite the dealer)."""
        return self.dealer.partner

    def to_json(self) -> BoardJson:
        """A JSON-ready dict: ``board``, ``dealer``, ``deal`` (PBN from the dealer)."""
        return {"board": self.number, "dealer": self.dealer.letter, "deal": self.deal.to_pbn(int(self.dealer))}

    @classmethod
    def from_json(cls, data: BoardJson) -> Board:
        """Inverse of ``to_json`` (types checked)."""
        try:
            number = data["board"]
            if not isinstance(number, int) or isinstance(number, bool) or number < 1:
                raise InvalidInput("board", f"expected a board number from 1, got {quote(number)}")
            return cls(number, Seat.parse(str(data["dealer"]), "dealer"), Deal.from_pbn(str(data["deal"]), "deal"))
        except KeyError as exc:
            raise InvalidInput(str(exc.args[0]), "missing") from None


def board_dealer(number: int) -> Seat:
    """The dealer of board ``number``: N, E, S, W in turn from board 1."""
    return Seat((number - 1) % 4)


def seeded_boards(seed: int, count: int, first: int = 1) -> list[Board]:
    """Boards ``first .. first + count - 1`` of ``seed``: board ``n`` is the deal of the stream ``(seed, n)``."""
    if count < 1:
        raise InvalidInput("boards", f"expected at least one board, got {count}")
    if first < 1:
        raise InvalidInput("first", f"board numbers start at 1, got {first}")
    return [Board(n, board_dealer(n), random_deal(random_stream(seed, n))) for n in range(first, first + count)]


def _board_number(tag: str | None, position: int, source: str) -> int:
    """A board's number from its ``Board`` tag (at most ``MAX_BOARD_NUMBER``), else its place in the file."""
    digits = (tag or "").strip()
    if not digits.isdigit() or not digits.isascii():
        return position
    if len(digits) > len(str(MAX_BOARD_NUMBER)) or int(digits) > MAX_BOARD_NUMBER:
        raise InvalidInput(source, f"board {position}: a Board number is at most {MAX_BOARD_NUMBER}")
    return int(digits) if int(digits) > 0 else position


def pbn_boards(text: str, source: str = "pbn") -> list[Board]:
    """Every board of a PBN text, as dealt; numbered by its ``Board`` tag, else by its place in the file."""
    out = []
    for position, pbn_board in enumerate(read_boards(text, source), 1):
        deal, dealer = pbn_board.dealt()
        out.append(Board(_board_number(pbn_board.number, position, source), dealer, deal))
    numbers = [b.number for b in out]
    if len(set(numbers)) != len(numbers):
        raise InvalidInput(source, "two boards have the same Board number")
    return out
