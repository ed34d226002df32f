"""``BiddingBatch``: many bidding-only 3PAB auctions stepped at once in numpy (for self-play training).

Usage (a uniformly random policy)::

    batch = BiddingBatch(4096, scheme="classic", tricks="estimate")
    batch.reset(seed=1)
    rng = np.random.default_rng(0)
    while not batch.done.all():
        obs = batch.observation()           # float32[n, BIDDING_SIZE], seen by the player to act
        mask = batch.legal_mask()           # bool[n, N_CALLS]; all False where the auction is over
        actions = ...                       # int[n] call numbers (selfplay.actions); ignored where done
        batch.step(actions)                 # bool[n]: the auctions that ended with this step
    batch.rewards                           # float64[n, 3]: each calling position's reward

Auction ``i`` has the dealer ``dealers[i]``; its players are the calling positions 0 (dealer), 1
(dealer's left), 2 (dealer's right); ``to_act[i]`` says whose turn it is (-1 when over). The
observation is ``selfplay.encoding``'s bidding observation (the first ``BIDDING_SIZE`` entries of the
environment's), so a policy trained here plays in ``tribridge.env.env(mode="bidding")`` unchanged.
When an auction ends its contract is scored from its tricks (``tricks="estimate"``: the trick
estimator, whole tricks; ``"dd"``: double dummy, solved for the auctions as they end or looked up in
the tables given to ``reset``; ``"spread"``:
the expected points over a normal of deviation ``spread`` around the estimator's expected tricks, in
whole tricks, which is how double dummy spreads around it) under the scheme; ``rewards`` holds the
points or, with ``relative=True``, each score minus the mean of the other two; ``scores`` the points
rounded (``declarer_tricks`` the median tricks under ``spread``). The rules are the ones of ``rules.auction`` (the tests replay
random auctions through ``DealState`` and compare every mask, ending and score).
"""

from __future__ import annotations

import numpy as np

from tribridge.dealing.random import deal_batch
from tribridge.errors import IllegalAction, InvalidInput
from tribridge.rules.auction import AuctionOptions
from tribridge.selfplay.actions import (
    ACTION_DOUBLE,
    ACTION_PASS,
    ACTION_REDOUBLE,
    FIRST_BID,
    N_BIDS,
    N_CALLS,
    bid_ranks,
)
from tribridge.selfplay.contracts import (
    DEFENDER_POSITIONS,
    POSITION_SEATS,
    TRICK_SPREAD,
    check_batch_tricks_source,
    dd_contract_tricks,
    estimated_contract_tricks,
    estimated_trick_distribution,
    score_table,
)
from tribridge.selfplay.encoding import BIDDING_SIZE, BLOCKS

__all__ = ["MAX_CALLS", "BiddingBatch"]

MAX_CALLS = 320
"""More calls than any auction can have (35 bids, each followed by at most P X P XX P before the next)."""


class BiddingBatch:
    """``size`` bidding-only auctions stepped together; see the module docstring for the loop."""

    def __init__(
        self,
        size: int,
        scheme: str = "classic",
        tricks: str = "estimate",
        relative: bool = False,
        options: AuctionOptions | None = None,
        dd_cache: bool = False,
        spread: float = TRICK_SPREAD,
    ) -> None:
        if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 1:
            raise InvalidInput("size", f"expected a positive number of auctions, got {size!r}")
        self.size = int(size)
        self.tricks = check_batch_tricks_source(tricks)
        if not spread > 0:
            raise InvalidInput("spread", f"expected a positive deviation in tricks, got {spread}")
        self.spread = float(spread)
        self.points = score_table(scheme)
        self.relative = bool(relative)
        self.options = options or AuctionOptions()
        self.dd_cache = dd_cache
        self._ranks = bid_ranks(self.options)
        self.reset(seed=0)

    # --- the deals -----------------------------------------------------------------------------
    def reset(
        self,
        seed: int | None = None,
        owners: np.ndarray | None = None,
        dealers: np.ndarray | None = None,
        dd_tables: np.ndarray | None = None,
    ) -> None:
        """New auctions: deals ``0..size-1`` of ``seed``'s stream (``dealing.random.deal_batch``), or the given ones.

        ``owners`` (``uint8[size, 52]``, the dealing seat of each card) and ``dealers`` (``int[size]``)
        give the deals; by default auction ``i`` is dealt by seat ``i % 4``. ``dd_tables``
        (``uint8[size, 3, 5]`` as ``selfplay.contracts.dd_trick_tables`` gives them; only with
        ``tricks="dd"``): the deals' double-dummy tricks, looked up instead of solved.
        """
        n = self.size
        self.owners = deal_batch(n, seed) if owners is None else _checked_owners(owners, n)
        self.dealers = np.arange(n, dtype=np.int64) % 4 if dealers is None else _checked_dealers(dealers, n)
        self.dd_tables = None if dd_tables is None else _checked_tables(dd_tables, n, self.tricks)
        self.n_calls = np.zeros(n, dtype=np.int64)
        self.to_act = np.zeros(n, dtype=np.int64)
        self.top_bid = np.full(n, -1, dtype=np.int64)  # bid number 0..34 of the highest bid
        self.holder = np.full(n, -1, dtype=np.int64)  # calling position that made it
        self.doubling = np.zeros(n, dtype=np.int64)
        self.trailing_passes = np.zeros(n, dtype=np.int64)
        self.done = np.zeros(n, dtype=bool)
        self.calls = np.full((n, MAX_CALLS), -1, dtype=np.int8)  # call numbers in order, -1 after the end
        self._opening_passes = np.zeros((n, 3), dtype=np.float32)
        self._made = np.zeros((n, 3, N_BIDS, 3), dtype=np.float32)  # [auction, bid/double/redouble, bid, position]
        self.declarer_tricks = np.full(n, -1, dtype=np.int64)
        self.scores = np.zeros((n, 3), dtype=np.int64)
        self.rewards = np.zeros((n, 3), dtype=np.float64)

    # --- what the players see ------------------------------------------------------------------
    def legal_mask(self) -> np.ndarray:
        """``bool[size, N_CALLS]``: the calls the player to act may make (all False where the auction is over)."""
        n = self.size
        mask = np.zeros((n, N_CALLS), dtype=bool)
        has_bid = self.top_bid >= 0
        top_rank = np.where(has_bid, self._ranks[np.maximum(self.top_bid, 0)], -1)
        mask[:, ACTION_PASS] = True
        if self.options.dealer_must_bid:
            mask[:, ACTION_PASS] = self.n_calls > 0
        mask[:, FIRST_BID:] = self._ranks[None, :] > top_rank[:, None]
        mask[:, ACTION_DOUBLE] = has_bid & (self.to_act != self.holder) & (self.doubling == 0)
        mask[:, ACTION_REDOUBLE] = has_bid & (self.to_act == self.holder) & (self.doubling == 1)
        mask[self.done] = False
        return mask

    def observation(self, positions: np.ndarray | None = None) -> np.ndarray:
        """``float32[size, BIDDING_SIZE]``: each auction seen by ``positions`` (default: the player to act, 0 when over)."""
        n = self.size
        viewer = np.where(self.done, 0, self.to_act) if positions is None else _checked_positions(positions, n)
        out = np.zeros((n, BIDDING_SIZE), dtype=np.float32)
        rows = np.arange(n)
        out[rows, BLOCKS["phase"].start + np.where(self.done, 2, 0)] = 1.0
        out[rows, BLOCKS["position"].start + viewer] = 1.0
        seats = POSITION_SEATS[self.dealers, viewer]
        out[:, BLOCKS["hand"]] = self.owners == seats[:, None]
        order = (viewer[:, None] + np.arange(3)[None, :]) % 3  # calling offset r -> position
        out[:, BLOCKS["opening_passes"]] = np.take_along_axis(self._opening_passes, order, axis=1)
        made = np.take_along_axis(self._made, order[:, None, None, :], axis=3)
        out[:, BLOCKS["bids"].start : BLOCKS["redoubles"].stop] = made.reshape(n, 3 * 3 * N_BIDS)
        out[:, BLOCKS["to_act"].start] = (~self.done) & (viewer == self.to_act)
        return out

    # --- stepping ------------------------------------------------------------------------------
    def step(self, actions: np.ndarray) -> np.ndarray:
        """Make each running auction's call ``actions[i]`` (a call number); ``bool[size]``: the auctions it ended."""
        acts = np.asarray(actions)
        if acts.shape != (self.size,) or not np.issubdtype(acts.dtype, np.integer):
            raise InvalidInput("actions", f"expected int[{self.size}] call numbers, got {acts.dtype}{acts.shape}")
        live = np.flatnonzero(~self.done)
        a = acts[live].astype(np.int64)
        legal = self.legal_mask()[live]
        ok = (a >= 0) & (a < N_CALLS)
        ok[ok] = legal[ok.nonzero()[0], a[ok]]
        if not ok.all():
            i = int(live[np.flatnonzero(~ok)[0]])
            raise IllegalAction("actions", f"auction {i}: call number {int(acts[i])} is not legal now")
        pos = self.to_act[live]
        self.calls[live, self.n_calls[live]] = a
        self._apply_bids(live[a >= FIRST_BID], a[a >= FIRST_BID] - FIRST_BID, pos[a >= FIRST_BID])
        for kind, action in ((1, ACTION_DOUBLE), (2, ACTION_REDOUBLE)):
            rows = live[a == action]
            self._made[rows, kind, self.top_bid[rows], self.to_act[rows]] = 1.0
            self.doubling[rows] = kind
            self.trailing_passes[rows] = 0
        passes = live[a == ACTION_PASS]
        self.trailing_passes[passes] += 1
        opening = passes[self.top_bid[passes] < 0]
        self._opening_passes[opening, self.to_act[opening]] = 1.0
        self.n_calls[live] += 1
        self.to_act[live] = (self.to_act[live] + 1) % 3
        over = (self.top_bid[live] < 0) & (self.n_calls[live] == 3)
        over |= (self.top_bid[live] >= 0) & (self.trailing_passes[live] >= 2)
        ended = live[over]
        self.done[ended] = True
        self.to_act[ended] = -1
        self._score(ended)
        out = np.zeros(self.size, dtype=bool)
        out[ended] = True
        return out

    def _apply_bids(self, rows: np.ndarray, bids: np.ndarray, positions: np.ndarray) -> None:
        self.top_bid[rows] = bids
        self.holder[rows] = positions
        self.doubling[rows] = 0
        self.trailing_passes[rows] = 0
        self._made[rows, 0, bids, positions] = 1.0

    def _score(self, rows: np.ndarray) -> None:
        """Tricks, points and rewards of the auctions in ``rows``, just ended."""
        played = rows[self.top_bid[rows] >= 0]
        if len(played) == 0:
            return
        bid, declarer, doubling = self.top_bid[played], self.holder[played], self.doubling[played]
        strain = bid % 5
        owners, dealers = self.owners[played], self.dealers[played]
        if self.tricks == "spread":
            chances = estimated_trick_distribution(owners, dealers, declarer, strain, self.spread)
            tricks = np.argmax(chances.cumsum(axis=1) >= 0.5, axis=1)  # the median
            points = np.einsum("mk,mkj->mj", chances, self.points[bid, doubling])
        else:
            if self.tricks == "estimate":
                tricks = estimated_contract_tricks(owners, dealers, declarer, strain)
            elif self.dd_tables is not None:
                tricks = self.dd_tables[played, declarer, strain].astype(np.int64)
            else:
                tricks = dd_contract_tricks(owners, dealers, declarer, strain, self.dd_cache)
            points = self.points[bid, doubling, tricks]  # [m, 3]: declarer, left defender, right defender
        self.declarer_tricks[played] = tricks
        defenders = DEFENDER_POSITIONS[self.dealers[played], declarer]
        scores = np.zeros((len(played), 3), dtype=np.float64)
        rows = np.arange(len(played))
        scores[rows, declarer] = points[:, 0]
        scores[rows, defenders[:, 0]] = points[:, 1]
        scores[rows, defenders[:, 1]] = points[:, 2]
        self.scores[played] = np.rint(scores).astype(np.int64)
        if self.relative:
            scores = scores - (scores.sum(axis=1, keepdims=True) - scores) / 2.0
        self.rewards[played] = scores

    # --- results -------------------------------------------------------------------------------
    def contract_text(self, i: int) -> str | None:
        """Auction ``i``'s contract as ``4SX`` with the declarer's calling position (``4SX by 1``), None if thrown in."""
        if not self.done[i] or self.top_bid[i] < 0:
            return None
        b = int(self.top_bid[i])
        return f"{b // 5 + 1}{'CDHSN'[b % 5]}{('', 'X', 'XX')[int(self.doubling[i])]} by {int(self.holder[i])}"

    def call_numbers(self, i: int) -> list[int]:
        """Auction ``i``'s calls so far as call numbers (``selfplay.actions``)."""
        return [int(c) for c in self.calls[i, : self.n_calls[i]]]


def _checked_owners(owners: np.ndarray, n: int) -> np.ndarray:
    arr = np.asarray(owners)
    if arr.shape != (n, 52) or not np.issubdtype(arr.dtype, np.integer):
        raise InvalidInput("owners", f"expected uint8[{n}, 52] owner seats, got {arr.dtype}{arr.shape}")
    counts = np.stack([(arr == s).sum(axis=1) for s in range(4)], axis=1)
    if not (counts == 13).all():
        raise InvalidInput("owners", "each deal needs 13 cards in each of the seats 0..3")
    return arr.astype(np.uint8)


def _checked_dealers(dealers: np.ndarray, n: int) -> np.ndarray:
    arr = np.asarray(dealers)
    if arr.shape != (n,) or not np.issubdtype(arr.dtype, np.integer) or arr.min() < 0 or arr.max() > 3:
        raise InvalidInput("dealers", f"expected int[{n}] seats 0..3, got {arr.dtype}{arr.shape}")
    return arr.astype(np.int64)


def _checked_tables(tables: np.ndarray, n: int, tricks: str) -> np.ndarray:
    if tricks != "dd":
        raise InvalidInput("dd_tables", f"double-dummy tables need tricks='dd', not {tricks!r}")
    arr = np.asarray(tables)
    if arr.shape != (n, 3, 5) or not np.issubdtype(arr.dtype, np.integer) or arr.min() < 0 or arr.max() > 13:
        raise InvalidInput("dd_tables", f"expected uint8[{n}, 3, 5] tricks 0..13, got {arr.dtype}{arr.shape}")
    return arr.astype(np.uint8)


def _checked_positions(positions: np.ndarray, n: int) -> np.ndarray:
    arr = np.asarray(positions)
    if arr.shape != (n,) or not np.issubdtype(arr.dtype, np.integer) or arr.min() < 0 or arr.max() > 2:
        raise InvalidInput("positions", f"expected int[{n}] calling positions 0..2, got {arr.dtype}{arr.shape}")
    return arr.astype(np.int64)
