"""Writing PBN: a tag with its value escaped, a dealt board, a played deal's record (the reader is ``rules.pbn``).

A record's ``[Deal]``, ``[Auction]``, ``[Declarer]`` and ``[Play]`` are all in the play seats (after any
reseating); the widow's turns in the auction are written as passes marked with note ``=1=``, so any PBN
reader gets the whole auction in its seats (``rules.widow_turns``; docs/rules.md).
"""

from __future__ import annotations

import unicodedata
from typing import Any

from tribridge.cards import Deal, Seat
from tribridge.rules.auction import opening_leader
from tribridge.rules.widow_turns import four_handed

__all__ = ["deal_board_pbn", "pbn_tag", "record_to_pbn"]

_WIDOW_NOTE = "=1="
_WIDOW_NOTE_TEXT = "the widow's turn: the widow does not call, and a pass stands in its place (3PAB)"


def pbn_tag(name: str, value: object) -> str:
    """A tag pair ``[name "value"]`` with the value escaped (``\\`` and ``\"``; line breaks and other control
    characters as spaces), so no value can end the tag or add another."""
    text = "".join(" " if unicodedata.category(ch) == "Cc" else ch for ch in str(value))
    return f'[{name} "{text.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"]'


def deal_board_pbn(deal: Deal, dealer: Seat, board: int | None = None) -> str:
    """A dealt, unplayed 3PAB board: Board, Dealer, Deal and a comment naming the widow."""
    lines = [] if board is None else [f'[Board "{board}"]']
    lines += [
        f'[Dealer "{dealer.letter}"]',
        f'[Deal "{deal.to_pbn(int(dealer))}"]',
        f"{{3PAB: widow {dealer.partner.letter} (opposite the dealer)}}",
    ]
    return "\n".join(lines) + "\n"


def record_to_pbn(record: Any, event: str = "tribridge 3PAB", board: int | None = None) -> str:
    """PBN text of a ``DealRecord``: Dealer, Deal (in play seats), Declarer, Contract, Auction, Play, Result."""
    lines = [pbn_tag("Event", event)]
    if board is not None:
        lines.append(f'[Board "{board}"]')
    lines.append(f'[Dealer "{record.dealer.letter}"]')
    lines.append(f'[Deal "{record.play_deal.to_pbn(int(record.dealer))}"]')
    lines.append(f'[Declarer "{"" if record.declarer is None else record.declarer.letter}"]')
    lines.append(f'[Contract "{"Pass" if record.contract is None else str(record.contract)}"]')
    if record.options.ranking != "contract":
        lines.append(f'[AuctionRanking "{record.options.ranking}"]')
    if record.options.dealer_must_bid:
        lines.append('[DealerMustBid "yes"]')
    if record.claimed is not None:
        lines.append(f'[Claim "{record.claimed[0].letter} {record.claimed[1]}"]')
    widow = record.widow
    moved = ""
    if record.contract is not None and record.seat_map[widow] != widow:
        moved = f" The player dealt {record.seat_map[widow].letter} moved to {widow.letter}."
    lines.append(
        f"{{3PAB: the widow was dealt {widow.letter}, opposite the dealer {record.dealer.letter}; "
        f"it is dummy, opposite the declarer.{moved} Deal, Auction and Play are in these play seats; "
        f"a pass marked =1= is the widow's turn. Dealt: {record.deal.to_pbn(int(record.dealer))}}}"
    )
    lines.append(f'[Auction "{record.dealer.letter}"]')
    rows: list[list[str]] = [[]]
    for call, widows_turn in four_handed(record.calls, record.dealer, record.seat_map[widow]):
        if len([t for t in rows[-1] if t != _WIDOW_NOTE]) == 4:
            rows.append([])
        rows[-1] += [call.to_pbn(), _WIDOW_NOTE] if widows_turn else [call.to_pbn()]
    lines.extend(" ".join(row) for row in rows)
    lines.append(f'[Note "1:{_WIDOW_NOTE_TEXT}"]')
    if record.contract is not None:
        lines.extend(_play_lines(record))
        lines.append(f'[Result "{record.declarer_tricks if record.declarer_tricks is not None else ""}"]')
    else:
        lines.append('[Result ""]')
    lines.append(pbn_tag("Scoring", record.scheme))
    return "\n".join(lines) + "\n"


def _play_lines(record: Any) -> list[str]:
    """The Play tag and one line per trick (columns in seat order from the opening leader)."""
    leader = opening_leader(record.contract.declarer)
    lines = [f'[Play "{leader.letter}"]']
    state = record.play_state()
    tricks = [(trick_leader, list(cards)) for trick_leader, cards, _winner in state.tricks]
    if state.current_trick:
        tricks.append((state.current_trick[0][0], [c for _, c in state.current_trick]))
    for trick_leader, cards in tricks:
        by_seat = {(int(trick_leader) + i) % 4: str(c) for i, c in enumerate(cards)}
        lines.append(" ".join(by_seat.get((int(leader) + j) % 4, "-") for j in range(4)))
    if len(record.play) < 52:
        lines.append("*")
    return lines
