"""LIN's text layer: ``key|value|`` pairs with their lines, hands, calls, seat digits and suit escapes."""

from __future__ import annotations

import re

from tribridge.cards import RANK_CHARS, Hand, Seat
from tribridge.errors import InvalidInput
from tribridge.rules.auction import Call

__all__ = [
    "SEATS_FROM_SOUTH",
    "call_to_lin",
    "clean_value",
    "escape_suits",
    "hand_from_lin",
    "hand_to_lin",
    "lin_pairs",
    "seat_digit",
    "unescape_suits",
]

SEATS_FROM_SOUTH = (Seat.S, Seat.W, Seat.N, Seat.E)  # LIN's order of pn, md and the dealer digit 1..4
_KEY = re.compile(r"^[A-Za-z]{2}$")
_SUIT_LETTERS = "SHDC"
_SUIT_ESCAPES: dict[str, str | int | None] = {"♠": "!S", "♥": "!H", "♦": "!D", "♣": "!C"}


def seat_digit(seat: Seat) -> int:
    """LIN's seat digit: 1 = S, 2 = W, 3 = N, 4 = E."""
    return SEATS_FROM_SOUTH.index(seat) + 1


def clean_value(text: str) -> str:
    """A value made safe inside ``key|value|``: ``|`` becomes ``/``, a line end a space."""
    return text.replace("|", "/").replace("\r", " ").replace("\n", " ")


def hand_to_lin(hand: Hand) -> str:
    """``S..H..D..C..`` with ranks low to high (BBO's order); every suit letter, voids included."""
    return "".join(
        letter + "".join(RANK_CHARS[c % 13] for c in sorted((c for c in hand.cards if c // 13 == suit), reverse=True))
        for letter, suit in zip(_SUIT_LETTERS, (3, 2, 1, 0))
    )


def hand_from_lin(text: str, where: str) -> Hand:
    """One LIN hand, ``S..H..D..C..`` in any suit order, any rank order (``10`` accepted for the ten)."""
    holdings = {letter: "" for letter in _SUIT_LETTERS}
    suit = None
    for ch in text.strip().upper().replace("10", "T"):
        if ch in _SUIT_LETTERS:
            suit = ch
        elif suit is None or ch not in RANK_CHARS:
            raise InvalidInput(where, f"md: bad character {ch!r} in the hand {text!r} (expected S..H..D..C..)")
        else:
            holdings[suit] += ch
    return Hand.from_pbn(".".join(holdings[letter] for letter in _SUIT_LETTERS), where)


def call_to_lin(call: Call) -> str:
    """BBO's spelling of a call: ``1C..7N``, ``p``, ``d``, ``r``."""
    return str(call) if call.is_bid else {"pass": "p", "double": "d", "redouble": "r"}[call.kind]


def escape_suits(text: str) -> str:
    """Suit symbols as BBO writes them in explanations: ``!S !H !D !C``."""
    return text.translate(str.maketrans(_SUIT_ESCAPES))


def unescape_suits(text: str) -> str:
    """BBO's ``!S !H !D !C`` (any case) back to suit symbols."""
    return re.sub(r"!([SHDCshdc])", lambda m: "♠♥♦♣"["SHDC".index(m.group(1).upper())], text)


def lin_pairs(text: str, source: str) -> list[tuple[str, str, int]]:
    """The ``key|value|`` pairs of a LIN text (keys in lower case), each with the line its key is on."""
    out: list[tuple[str, str, int]] = []
    pos, line = 0, 1
    while True:
        bar = text.find("|", pos)
        key_text = text[pos:] if bar < 0 else text[pos:bar]
        key_line = line + key_text[: len(key_text) - len(key_text.lstrip())].count("\n")
        if bar < 0:
            if key_text.strip():
                raise InvalidInput(f"{source}:{key_line}", f"{key_text.strip()[:20]!r} has no |value| after it")
            return out
        key = key_text.strip()
        if not _KEY.match(key):
            raise InvalidInput(f"{source}:{key_line}", f"expected a two-letter LIN key like md|...|, got {key[:20]!r}")
        end = text.find("|", bar + 1)
        if end < 0:
            raise InvalidInput(f"{source}:{key_line}", f"the value of {key}| is never closed with |")
        value = text[bar + 1 : end]
        out.append((key.lower(), value.replace("\r", "").replace("\n", ""), key_line))
        line += key_text.count("\n") + value.count("\n")
        pos = end + 1
