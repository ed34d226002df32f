"""Hand-record files of either format: PBN or LIN, chosen by the file's extension, else by its content."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal, Protocol

from tribridge.cards import Deal, Seat
from tribridge.rules.lin import read_lin
from tribridge.rules.pbn import read_boards

__all__ = ["HandRecord", "file_format", "read_hand_records"]

_LIN_START = re.compile(r"^\s*[A-Za-z]{2}\|")


class HandRecord(Protocol):
    """What the commands read from a board of either format: where it starts, its number, the deal as dealt."""

    @property
    def line(self) -> int:
        """The line the board starts on."""
        ...

    @property
    def number(self) -> str | None:
        """The board's number as written, or None."""
        ...

    def dealt(self) -> tuple[Deal, Seat]:
        """The hands as dealt and the dealer."""
        ...


def file_format(text: str, source: str) -> Literal["pbn", "lin"]:
    """``lin`` when the text opens with a ``xx|`` pair, ``pbn`` when with ``[``, ``%``, ``{`` or ``;``; else by extension."""
    head = text.removeprefix("\ufeff").lstrip()
    if _LIN_START.match(head):
        return "lin"
    if head and head[0] in "[%{;":
        return "pbn"
    return "lin" if source.lower().endswith(".lin") else "pbn"


def read_hand_records(text: str, source: str) -> Sequence[HandRecord]:
    """Every board of a PBN or LIN text (``source``, the file's name, picks the format and names it in errors)."""
    if file_format(text, source) == "lin":
        return read_lin(text, source)
    return read_boards(text, source)
