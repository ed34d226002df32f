"""Deals in and out of the solver: owner batches from what callers pass, endplay ``Deal`` and ``Card``.

Array conventions: a batch of deals is ``uint8[n, 52]`` (owner seat of each card). endplay's
``Deal`` shares DDS's layout, so the conversion writes its ``remainCards`` directly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tribridge.cards import Deal, Seat
from tribridge.dd.dds import NT, UNKNOWN, dds_strain, fill_remain_cards, owners_from_remain_cards
from tribridge.errors import InvalidInput

__all__ = ["as_owners", "from_card", "from_endplay", "to_endplay"]


def as_owners(deals: Any, field: str = "deals") -> np.ndarray:
    """A ``uint8[n, 52]`` owner batch from a Deal, a list of Deals or an owner array (checked)."""
    if isinstance(deals, Deal):
        return deals.to_owners()[None, :]
    if isinstance(deals, np.ndarray):
        arr = deals
    else:
        items = list(deals)
        if not items:
            return np.zeros((0, 52), dtype=np.uint8)
        if all(isinstance(d, Deal) for d in items):
            return np.stack([d.to_owners() for d in items])
        arr = np.asarray(items)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != 52:
        raise InvalidInput(field, f"expected deals as uint8[n, 52] owners, got shape {arr.shape}")
    if arr.size and (arr.min() < 0 or arr.max() > 3):
        raise InvalidInput(field, "owner seats must be 0..3")
    arr = arr.astype(np.uint8, copy=False)
    if arr.size and not np.all((arr[:, :, None] == np.arange(4, dtype=np.uint8)).sum(axis=1) == 13):
        raise InvalidInput(field, "every deal must give 13 cards to each seat")
    return arr


def to_endplay(deal: Deal, first: int = Seat.N, trump: int | None = None) -> Any:
    """endplay ``Deal`` with the same hands; ``first`` on lead, ``trump`` 0..3 (C..S) or None for NT."""
    from endplay.types import Deal as EpDeal  # optional dependency (tribridge[dd]), ~1 s to import

    ep = EpDeal()
    fill_remain_cards(ep._data.remainCards, deal.to_owners())
    ep._data.first = int(first)
    ep._data.trump = dds_strain(NT if trump is None else int(trump))
    return ep


def from_endplay(ep_deal: Any) -> Deal:
    """Our :class:`Deal` from a full (13 cards a hand) endplay ``Deal``."""
    owners = owners_from_remain_cards(ep_deal._data.remainCards)
    if np.any(owners == UNKNOWN):
        raise InvalidInput("deal", "the endplay deal does not hold all 52 cards")
    return Deal.from_owners(owners)


def from_card(ep_card: Any) -> int:
    """Our card index of an endplay ``Card``."""
    suit = 3 - int(ep_card.suit)  # endplay: S=0 H=1 D=2 C=3
    rank_bit = int(ep_card.rank)  # endplay: two = 0x4 ... Ace = 0x4000
    return suit * 13 + (14 - rank_bit.bit_length() + 1)
