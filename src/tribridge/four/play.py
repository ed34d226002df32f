"""Card play in four-handed bridge: PIMC over the layouts of the unseen cards (no auction inference).

``four.natural4.inference.pimc_with_auction`` is the same search over layouts that fit what the
auction showed; both run ``bots.play.pimc_decide`` on a ``bots.position.CardPosition``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from tribridge.bots.play import DEFAULT_LAYOUTS, PimcDecision, pimc_decide
from tribridge.bots.position import CardPosition
from tribridge.errors import InvalidInput

__all__ = ["pimc_decide_four_handed"]


def pimc_decide_four_handed(
    hand: Iterable[int],
    seat: int,
    declarer: int,
    trump: int | None,
    played: Sequence[int] = (),
    dummy: Iterable[int] | None = None,
    layouts: int = DEFAULT_LAYOUTS,
) -> PimcDecision:
    """PIMC for an ordinary four-handed bridge position (robot API): ``seat`` is the asking seat.

    ``hand`` is the asking seat's 13 original cards; ``dummy`` dummy's 13 once exposed. When the
    declarer asks for dummy's card, ``seat`` is the declarer. No auction inference is made.
    """
    hands: dict[int, tuple[int, ...]] = {int(seat): tuple(sorted(int(c) for c in hand))}
    dummy_seat = int(declarer) ^ 2
    if dummy is not None:
        if dummy_seat in hands:
            raise InvalidInput("seat", "the dummy does not ask; ask as the declarer")
        hands[dummy_seat] = tuple(sorted(int(c) for c in dummy))
    position = CardPosition(int(declarer), trump, tuple(sorted(hands.items())), tuple(int(c) for c in played))
    if position.decider != int(seat):
        raise InvalidInput("seat", f"seat {seat} is not the seat to decide (that is seat {position.decider})")
    return pimc_decide(position, layouts=layouts)
