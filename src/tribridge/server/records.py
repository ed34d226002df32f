"""Game records of finished three-player deals as PBN text (standard tags plus tribridge's own for the widow)."""

from __future__ import annotations

import time
from typing import Any, Sequence

from tribridge.cards import SEAT_CHARS, Card, Deal, Seat
from tribridge.rules.play import trick_winner


def _tag(name: str, value: Any) -> str:
    text = "" if value is None else str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{text}"]'


def play_deal_pbn(record: dict[str, Any]) -> str:
    """The deal in play seats (after reseating), from the record's dealing-seat deal and seat map."""
    deal = Deal.from_pbn(record["deal"])
    seat_map = record.get("seat_map")
    if not seat_map:
        return deal.to_pbn(0)
    hands = [deal[0]] * 4
    for src, dst in seat_map.items():
        hands[Seat.parse(dst)] = deal[Seat.parse(src)]
    return Deal(tuple(hands)).to_pbn(0)  # type: ignore[arg-type]


def record_to_pbn(table_id: str, record: dict[str, Any], date: str | None = None) -> str:
    """One finished deal as a PBN game: Deal/Declarer/Contract/Play in play seats, the 3-player auction in tribridge tags."""
    lines = [
        _tag("Event", f"tribridge table {table_id}"),
        _tag("Site", "tribridge"),
        _tag("Date", date or time.strftime("%Y.%m.%d")),
        _tag("Board", record["deal_no"]),
        _tag("Dealer", record["dealer"]),
        _tag("Vulnerable", "None"),
        _tag("Deal", play_deal_pbn(record)),
        _tag("Scoring", "3PAB"),
        _tag("Declarer", record.get("declarer") or ""),
        _tag("Contract", record.get("contract") or "Pass"),
        _tag("Result", record.get("declarer_tricks", 0) if record.get("contract") else ""),
        _tag("TribridgeWidow", record["widow_seat"]),
        _tag("TribridgeDealingDeal", record["deal"]),
        _tag("TribridgeSeatMap", " ".join(f"{k}={v}" for k, v in (record.get("seat_map") or {}).items())),
        _tag("TribridgeAuction", " ".join(record["auction"])),
        _tag("TribridgeScores", " ".join(str(x) for x in record["scores"]["per_chair"])),
        _tag("TribridgePlayers", ", ".join(record.get("players", []))),
    ]
    play = record.get("play") or []
    if play and record.get("declarer"):
        leader = (SEAT_CHARS.index(record["declarer"]) + 1) % 4
        lines.append(_tag("Play", SEAT_CHARS[leader]))
        lines.extend(_play_section(play, leader, record["contract"]))
        lines.append("*")
    return "\n".join(lines) + "\n"


def _play_section(play: Sequence[str], first_leader: int, contract: str) -> list[str]:
    """PBN play section: one line per trick, columns in seat order from the opening leader."""
    trump_letter = contract[1] if len(contract) > 1 else "N"
    trump = None if trump_letter == "N" else "CDHS".index(trump_letter)
    rows = []
    leader = first_leader
    cards = [Card.parse(c) for c in play]
    for start in range(0, len(cards), 4):
        trick = cards[start : start + 4]
        by_seat: dict[int, str] = {}
        for i, c in enumerate(trick):
            by_seat[(leader + i) % 4] = str(c)
        rows.append(" ".join(by_seat.get((first_leader + k) % 4, "-") for k in range(4)))
        if len(trick) == 4:
            leader = int(trick_winner(trick, leader, trump))
    return rows


def records_to_pbn(table_id: str, records: Sequence[dict[str, Any]]) -> str:
    """Every finished deal of a table as one PBN file."""
    head = "% PBN 2.1\n% EXPORT\n% tribridge three-player auction bridge records\n"
    return head + "\n".join(record_to_pbn(table_id, r) for r in records)
