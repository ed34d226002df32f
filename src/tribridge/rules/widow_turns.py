"""The 3PAB auction in four-handed files (PBN, LIN): the widow's turns written as passes in the dummy's seat.

A four-handed reader expects a call at every seat. In play seats (the widow's hand opposite the
declarer, the dealer in place) the three players' calls keep their order round the table, so the
auction reads four-handed from the dealer with a pass at each turn of the dummy's seat, and one
more pass there when the players' two passes end the auction before the dummy's turn. The widow
only passes, so a four-handed reader finds the declarer (who alone named the strain on that side).
"""

from __future__ import annotations

from collections.abc import Sequence

from tribridge.cards import Seat
from tribridge.rules.auction import PASS, Call

__all__ = ["dummy_seat", "four_handed", "players_calls"]


def four_handed(calls: Sequence[Call], dealer: Seat, dummy: Seat) -> list[tuple[Call, bool]]:
    """The players' ``calls`` four-handed from the dealer: (call, True) for each pass at the dummy's turn."""
    seat, out = dealer, []
    for call in calls:
        if seat == dummy:
            out.append((PASS, True))
            seat = seat.lho
        out.append((call, False))
        seat = seat.lho
    if seat == dummy:  # the two players' passes ended it; a four-handed reader needs the third
        out.append((PASS, True))
    return out


def dummy_seat(written: Sequence[Call], dealer: Seat) -> Seat:
    """The dummy's seat of a four-handed 3PAB auction: opposite the last bidder (the widow's dealt seat if none)."""
    bids = [i for i, call in enumerate(written) if call.is_bid]
    return dealer.partner if not bids else Seat((int(dealer) + bids[-1]) % 4).partner


def players_calls(written: Sequence[Call], dealer: Seat) -> tuple[list[int], int | None]:
    """The positions of the players' calls in a four-handed auction, and the first widow's turn that is not a pass."""
    dummy = dummy_seat(written, dealer)
    kept: list[int] = []
    for i, call in enumerate(written):
        if Seat((int(dealer) + i) % 4) != dummy:
            kept.append(i)
        elif call.kind != "pass":
            return kept, i
    return kept, None
