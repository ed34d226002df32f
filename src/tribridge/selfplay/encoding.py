"""The fixed-size observation vector of one player's ``SeatView`` (float32, every entry 0 or 1 but two).

Players are named relative to the observer, so one policy serves every chair: a *calling* offset
``r`` is 0 for the observer, 1 for the next player to call after it, 2 for the one after that
(the widow never calls); a *play* offset ``q`` is 0 for the observer's play seat, 1 its left, 2
opposite, 3 its right. Cards are numbered ``suit * 13 + rank`` (clubs first, rank 0 = ace).

=================  ======  ===========================================================
block              size    content
=================  ======  ===========================================================
``phase``          3       one-hot: auction, play, done
``position``       3       one-hot: the observer's calling position (0 dealer, 1, 2)
``hand``           52      the cards the observer holds now
``opening_passes`` 3       ``[r]``: player r passed before any bid was made
``bids``           105     ``[bid * 3 + r]``: player r made bid number ``bid`` (0 = 1C .. 34 = 7NT)
``doubles``        105     ``[bid * 3 + r]``: player r doubled that bid
``redoubles``      105     ``[bid * 3 + r]``: player r redoubled that bid
``to_act``         1       the observer must call or play now
``contract``       18      level (7 one-hot), denomination (5: C D H S NT), doubling (3: none, X, XX),
                           declarer's calling offset r (3)
``dummy``          52      dummy's remaining cards, once the opening lead is made
``played``         208     ``[q * 52 + card]``: the card was played from play offset q in a finished trick
``trick``          208     ``[q * 52 + card]``: the card lies on the table in the trick in progress
``tricks``         2       tricks won by the declarer's side and by the defenders, each divided by 13
``acting_for``     2       the observer plays now from its own hand / from dummy's
=================  ======  ===========================================================

The first ``BIDDING_SIZE`` entries (up to ``to_act``) are the *bidding* observation, the whole
observation of the bidding-only mode and of ``BiddingBatch``; the full one has ``FULL_SIZE``.
"""

from __future__ import annotations

import numpy as np

from tribridge.cards import Seat
from tribridge.rules.auction import bidders_for
from tribridge.rules.view import SeatView

__all__ = ["BIDDING_SIZE", "BLOCKS", "FULL_SIZE", "block", "calling_offset", "encode_view"]

_BLOCK_SIZES: tuple[tuple[str, int], ...] = (
    ("phase", 3),
    ("position", 3),
    ("hand", 52),
    ("opening_passes", 3),
    ("bids", 105),
    ("doubles", 105),
    ("redoubles", 105),
    ("to_act", 1),
    ("contract", 18),
    ("dummy", 52),
    ("played", 208),
    ("trick", 208),
    ("tricks", 2),
    ("acting_for", 2),
)


def _offsets() -> dict[str, slice]:
    out: dict[str, slice] = {}
    start = 0
    for name, size in _BLOCK_SIZES:
        out[name] = slice(start, start + size)
        start += size
    return out


BLOCKS: dict[str, slice] = _offsets()
"""Each block's slice of the observation vector."""
BIDDING_SIZE = BLOCKS["to_act"].stop
FULL_SIZE = BLOCKS["acting_for"].stop
_PHASES = ("auction", "play", "done")


def block(name: str) -> slice:
    """The slice of block ``name`` (see the module table)."""
    return BLOCKS[name]


def calling_offset(dealer: Seat, observer: Seat, other: Seat) -> int:
    """``other``'s calling offset from ``observer`` (0 itself, 1 next to call, 2 the one after)."""
    order = bidders_for(dealer)
    return (order.index(Seat(other)) - order.index(Seat(observer))) % 3


def encode_view(view: SeatView, bidding_only: bool = False) -> np.ndarray:
    """The observation of ``view``: ``float32[FULL_SIZE]``, or ``float32[BIDDING_SIZE]`` with ``bidding_only``."""
    out = np.zeros(BIDDING_SIZE if bidding_only else FULL_SIZE, dtype=np.float32)
    out[BLOCKS["phase"].start + _PHASES.index(view.phase)] = 1.0
    out[BLOCKS["position"].start + bidders_for(view.dealer).index(view.player)] = 1.0
    out[BLOCKS["hand"].start + np.fromiter(view.held, dtype=np.int64)] = 1.0
    _encode_auction(view, out)
    out[BLOCKS["to_act"].start] = float(view.turn == view.player)
    if not bidding_only and view.contract is not None:
        _encode_play(view, out)
    return out


def _encode_auction(view: SeatView, out: np.ndarray) -> None:
    """The ``opening_passes``, ``bids``, ``doubles`` and ``redoubles`` blocks."""
    order = bidders_for(view.dealer)
    me = order.index(view.player)
    last_bid = -1
    for made in view.calls:
        r = (order.index(made.player) - me) % 3
        call = made.call
        if call.kind == "bid":
            assert call.denom is not None
            last_bid = 5 * (call.level - 1) + int(call.denom)
            out[BLOCKS["bids"].start + 3 * last_bid + r] = 1.0
        elif call.kind == "pass" and last_bid < 0:
            out[BLOCKS["opening_passes"].start + r] = 1.0
        elif call.kind == "double":
            out[BLOCKS["doubles"].start + 3 * last_bid + r] = 1.0
        elif call.kind == "redouble":
            out[BLOCKS["redoubles"].start + 3 * last_bid + r] = 1.0


def _encode_play(view: SeatView, out: np.ndarray) -> None:
    """The blocks after ``to_act``: contract, dummy, cards played, tricks won, the hand played from."""
    contract = view.contract
    assert contract is not None
    at = BLOCKS["contract"].start
    out[at + contract.level - 1] = 1.0
    out[at + 7 + int(contract.denom)] = 1.0
    out[at + 12 + contract.doubling] = 1.0
    out[at + 15 + calling_offset(view.dealer, view.player, contract.declarer)] = 1.0
    if view.dummy_held is not None:
        out[BLOCKS["dummy"].start + np.fromiter(view.dummy_held, dtype=np.int64)] = 1.0
    finished = 4 * len(view.tricks)
    for i, played in enumerate(view.played):
        q = (int(played.seat) - int(view.seat)) % 4
        where = BLOCKS["played"] if i < finished else BLOCKS["trick"]
        out[where.start + 52 * q + played.card.index] = 1.0
    out[BLOCKS["tricks"].start] = view.declarer_tricks / 13.0
    out[BLOCKS["tricks"].start + 1] = view.defender_tricks / 13.0
    if view.turn == view.player and view.to_play is not None:
        out[BLOCKS["acting_for"].start + int(view.to_play != view.seat)] = 1.0
