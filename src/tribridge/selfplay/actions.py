"""The one numbering of actions shared by the PettingZoo environment, the batch and the OpenSpiel game.

==========  ===========================================================
number      action
==========  ===========================================================
0           pass
1           double
2           redouble
3 .. 37     the bids 1C 1D 1H 1S 1NT 2C .. 7NT: ``3 + 5 * (level - 1) + denom``
38 .. 89    the cards: ``38 + card index`` (``suit * 13 + rank``, rank 0 = ace)
==========  ===========================================================

Claims (and the answers to them) have no number: the environments leave them out, every deal is
played to the last card (or, in the bidding-only mode, scored from a trick table).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from tribridge.cards import Card
from tribridge.errors import InvalidInput
from tribridge.rules.auction import ALL_BIDS, DOUBLE, PASS, REDOUBLE, AuctionOptions, Call, bid_rank_key

__all__ = [
    "ACTION_DOUBLE",
    "ACTION_PASS",
    "ACTION_REDOUBLE",
    "FIRST_BID",
    "FIRST_CARD",
    "N_ACTIONS",
    "N_BIDS",
    "N_CALLS",
    "action_mask",
    "action_of",
    "action_to_text",
    "bid_ranks",
    "call_of",
    "decode",
]

ACTION_PASS = 0
ACTION_DOUBLE = 1
ACTION_REDOUBLE = 2
FIRST_BID = 3
N_BIDS = len(ALL_BIDS)
N_CALLS = FIRST_BID + N_BIDS
FIRST_CARD = N_CALLS
N_ACTIONS = FIRST_CARD + 52

_CALLS: tuple[Call, ...] = (PASS, DOUBLE, REDOUBLE, *ALL_BIDS)
_CALL_NUMBER: dict[Call, int] = {call: i for i, call in enumerate(_CALLS)}


def action_of(action: Call | Card) -> int:
    """The number of a call or a card."""
    if isinstance(action, Card):
        return FIRST_CARD + action.index
    if isinstance(action, Call):
        return _CALL_NUMBER[action]
    raise InvalidInput("action", f"expected a call or a card, got {action!r}")


def action_mask(actions: Iterable[Call | Card], size: int = N_ACTIONS) -> np.ndarray:
    """``int8[size]``: 1 at the number of each of ``actions`` (calls and cards, as ``DealState.legal_moves`` gives)."""
    mask = np.zeros(size, dtype=np.int8)
    for action in actions:  # item by item: quicker than one fancy-indexed write for the dozen or so of a turn
        mask[FIRST_CARD + action.index if isinstance(action, Card) else _CALL_NUMBER[action]] = 1
    return mask


def decode(number: int) -> Call | Card:
    """The call or card of an action number."""
    if isinstance(number, bool) or not isinstance(number, (int, np.integer)) or not 0 <= int(number) < N_ACTIONS:
        raise InvalidInput("action", f"expected an action number 0..{N_ACTIONS - 1}, got {number!r}")
    number = int(number)
    return _CALLS[number] if number < N_CALLS else Card(number - FIRST_CARD)


def call_of(number: int) -> Call:
    """The call of an action number 0..37 (InvalidInput for a card)."""
    action = decode(number)
    if not isinstance(action, Call):
        raise InvalidInput("action", f"expected a call 0..{N_CALLS - 1}, got the card {action}")
    return action


def action_to_text(number: int) -> str:
    """The action's usual spelling: ``P``, ``X``, ``XX``, ``1C`` .. ``7N``, ``SA`` .. ``C2``."""
    return str(decode(number))


def bid_ranks(options: AuctionOptions | None = None) -> np.ndarray:
    """``int64[N_BIDS]``: each bid's rank under the auction's ranking (a higher rank outranks), from the rules."""
    ranking = (options or AuctionOptions()).ranking
    keys = [bid_rank_key(b, ranking) for b in ALL_BIDS]
    order = sorted(range(N_BIDS), key=lambda i: keys[i])
    ranks = np.empty(N_BIDS, dtype=np.int64)
    ranks[order] = np.arange(N_BIDS)
    return ranks
