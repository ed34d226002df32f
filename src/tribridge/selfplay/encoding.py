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

``encode_view`` is the readable reference. ``IncrementalEncoder`` gives the same vector for the
successive states (``DealState``) of one deal without building a ``SeatView``: it adds only the calls and
cards made since the last state it encoded (the environment's fast path, checked against the
reference after every step of random games in tests/selfplay).
"""

from __future__ import annotations

import numpy as np

from tribridge.cards import Seat
from tribridge.errors import InvalidInput
from tribridge.rules.auction import Call, bidders_for
from tribridge.rules.deal import DealState
from tribridge.rules.play import PlayState
from tribridge.rules.view import SeatView

__all__ = ["BIDDING_SIZE", "BLOCKS", "FULL_SIZE", "IncrementalEncoder", "block", "calling_offset", "encode_view"]

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


# --- the fast path: one player's vector kept up to date through a deal ---------------------------
_AT = {name: where.start for name, where in BLOCKS.items()}
_PHASE_AT = {phase: _AT["phase"] + i for i, phase in enumerate(_PHASES)}
_TO_ACT, _TRICKS, _ACTING_FOR = _AT["to_act"], _AT["tricks"], _AT["acting_for"]
_KIND_AT = {"bid": _AT["bids"], "double": _AT["doubles"], "redouble": _AT["redoubles"]}


class IncrementalEncoder:
    """One player's observation through one deal: ``encode(state)`` equals ``encode_view(state.view(player))``.

    Each call adds only what happened since the state encoded before (new calls, new cards, tricks
    completed) and rewrites the few entries that any action may change (phase, turn, tricks won); the
    states given must be the one it started from or later ones of the same deal, in order.
    """

    def __init__(self, state: DealState, player: Seat, bidding_only: bool = False) -> None:
        order = bidders_for(state.dealer)
        if player not in order:
            raise InvalidInput("player", f"{Seat(player).letter} is the widow, not a player")
        self.player = Seat(player)
        self.bidding_only = bidding_only
        self._deal = state.deal
        self._order = order
        self._me = order.index(self.player)
        self._size = BIDDING_SIZE if bidding_only else FULL_SIZE
        self._vector = np.zeros(FULL_SIZE, dtype=np.float32)  # whole, so that the hand follows the play
        self._vector[_AT["position"] + self._me] = 1.0
        self._vector[_AT["hand"] + np.fromiter(state.deal[self.player].cards, dtype=np.int64, count=13)] = 1.0
        self._calls = 0
        self._last_bid = -1
        self._cards = 0
        self._seat = int(self.player)  # the play seat once there is a contract
        self._owners: list[int] = []  # each card's play seat, once there is a play
        self._in_trick: list[tuple[int, int]] = []  # (card number, vector entry) of the trick in progress
        self._phase_entry = _PHASE_AT["auction"]
        self._acting_entry = _ACTING_FOR
        self._tricks_seen: tuple[int, object] = (-1, None)  # (cards played, claim) when the tricks were written

    def encode(self, state: DealState) -> np.ndarray:
        """The observation of ``player`` in ``state`` (a fresh ``float32`` array)."""
        calls, play = state.auction.calls, state.play
        if (state.deal is not self._deal and state.deal != self._deal) or len(calls) < self._calls:
            raise InvalidInput("state", "expected the deal this encoder started from, at or after its last state")
        if play is not None and len(play.played) < self._cards:
            raise InvalidInput("state", "expected a state at or after the last one encoded, not an earlier one")
        out = self._vector
        if len(calls) > self._calls:
            self._add_calls(calls)
        out[self._phase_entry] = 0.0
        self._phase_entry = _PHASE_AT[state.phase]
        out[self._phase_entry] = 1.0
        my_turn = state.turn == self.player
        out[_TO_ACT] = float(my_turn)
        if state.contract is not None:
            if not self._owners:
                self._start_play(state)
            if play is not None:
                self._add_cards(play)
            out[self._acting_entry] = 0.0
            to_play = state.to_play if my_turn else None
            if to_play is not None:
                self._acting_entry = _ACTING_FOR + int(to_play != self._seat)
                out[self._acting_entry] = 1.0
        return out[: self._size].copy()

    def _add_calls(self, calls: tuple[Call, ...]) -> None:
        """The new calls' entries (call ``i`` is made by calling position ``i % 3``)."""
        out = self._vector
        for i in range(self._calls, len(calls)):
            call, r = calls[i], (i - self._me) % 3
            if call.kind == "bid":
                assert call.denom is not None
                self._last_bid = 5 * (call.level - 1) + int(call.denom)
                out[_AT["bids"] + 3 * self._last_bid + r] = 1.0
            elif call.kind == "pass":
                if self._last_bid < 0:
                    out[_AT["opening_passes"] + r] = 1.0
            else:
                out[_KIND_AT[call.kind] + 3 * self._last_bid + r] = 1.0
        self._calls = len(calls)

    def _start_play(self, state: DealState) -> None:
        """The contract block, the observer's play seat, and where each card sits in the play."""
        contract = state.contract
        assert contract is not None
        out, at = self._vector, _AT["contract"]
        out[at + contract.level - 1] = 1.0
        out[at + 7 + int(contract.denom)] = 1.0
        out[at + 12 + contract.doubling] = 1.0
        out[at + 15 + (self._order.index(contract.declarer) - self._me) % 3] = 1.0
        self._seat = int(state.seat_of(self.player))
        deal = state.deal if state.play is None else state.play.deal
        held = np.fromiter(deal[self._seat].cards, dtype=np.int64, count=13)
        out[_AT["hand"] : _AT["hand"] + 52] = 0.0
        out[_AT["hand"] + held] = 1.0
        self._owners = [0] * 52
        for seat in range(4):
            for card in deal[seat].cards:
                self._owners[card] = seat

    def _add_cards(self, play: PlayState) -> None:
        """The new cards' entries (off the hands, onto the trick, finished tricks to ``played``) and the tricks won."""
        played, out = play.played, self._vector
        if (len(played), play.claimed) != self._tricks_seen:  # the tricks won change with a card or a claim only
            self._tricks_seen = (len(played), play.claimed)
            out[_TRICKS] = play.declarer_tricks / 13.0
            out[_TRICKS + 1] = play.defender_tricks / 13.0
        if len(played) == self._cards:
            return
        owners, seat, dummy = self._owners, self._seat, int(play.dummy)
        if self._cards == 0:  # the opening lead exposes dummy
            out[_AT["dummy"] + np.fromiter(play.deal[dummy].cards, dtype=np.int64, count=13)] = 1.0
        finished = len(played) - len(play.current_trick)
        for k in range(self._cards, len(played)):
            card = played[k].index
            owner = owners[card]
            entry = 52 * ((owner - seat) % 4) + card
            if k < finished:
                out[_AT["played"] + entry] = 1.0
            else:
                out[_AT["trick"] + entry] = 1.0
                self._in_trick.append((k, entry))
            if owner == seat:
                out[_AT["hand"] + card] = 0.0
            elif owner == dummy:
                out[_AT["dummy"] + card] = 0.0
        if self._in_trick and self._in_trick[0][0] < finished:
            for k, entry in self._in_trick:
                if k < finished:
                    out[_AT["trick"] + entry] = 0.0
                    out[_AT["played"] + entry] = 1.0
            self._in_trick = [(k, entry) for k, entry in self._in_trick if k >= finished]
        self._cards = len(played)
