"""Studies run by the engine: pure chunk functions returning integer partial results.

``game`` is the seed paper's three-player protocol (Table IV): deal ``i`` of a run is dealt by seat
``i mod 3`` (N, E, S in turn), the widow sits opposite the dealer, the three players call clockwise
from the dealer, each bids the cheapest No-Trump level above the current bid while that level is
within the highest level its own 13 cards pass the NT call algorithm at, else passes. The contract
is then scored with an outcome model: the capture estimator on declarer + widow (``estimator``) or
double-dummy NT tricks with the declarer's left-hand opponent leading (``dd``).

The batch path (numba kernels) and the readable per-deal reference (:func:`game_deal_reference`)
must agree; ``tests/test_sim_game.py`` checks that on random deals.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Mapping, Sequence

import numpy as np
from numba import njit

from tribridge.errors import InvalidInput
from tribridge.sim.engine import ChunkOutput, ChunkSpec

MAX_LEVEL = 7
OUTCOMES = ("estimator", "dd")
SCHEMES_DEFAULT = ("classic", "tribridge")
CAPTURE_LIMITS = ("max", "min", "none")
CAPTURE_GAPS = ("static", "live")


# ---------------------------------------------------------------------------------------------
# Parameters


@dataclass(frozen=True)
class GameParams:
    """Parameters of the game study: outcome model, scoring schemes, capture-estimator reading."""

    outcome: str = "estimator"
    schemes: tuple[str, ...] = SCHEMES_DEFAULT
    limit: str = "max"
    gap: str = "static"
    replacements: int = 1
    rows: bool = False

    def __post_init__(self) -> None:
        if self.outcome not in OUTCOMES:
            raise InvalidInput("outcome", f"expected one of {', '.join(OUTCOMES)}, got {self.outcome!r}")
        if not self.schemes:
            raise InvalidInput("scheme", "expected at least one scoring scheme")
        if self.limit not in CAPTURE_LIMITS:
            raise InvalidInput("limit", f"expected one of {', '.join(CAPTURE_LIMITS)}, got {self.limit!r}")
        if self.gap not in CAPTURE_GAPS:
            raise InvalidInput("gap", f"expected one of {', '.join(CAPTURE_GAPS)}, got {self.gap!r}")
        if self.replacements not in (1, 2):
            raise InvalidInput("replacements", f"expected 1 or 2, got {self.replacements!r}")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict (recorded in the run manifest)."""
        return {"outcome": self.outcome, "schemes": list(self.schemes), "limit": self.limit, "gap": self.gap,
                "replacements": self.replacements, "rows": self.rows}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "GameParams":
        """Inverse of :meth:`to_dict`."""
        return cls(outcome=data.get("outcome", "estimator"), schemes=tuple(data.get("schemes", SCHEMES_DEFAULT)),
                   limit=data.get("limit", "max"), gap=data.get("gap", "static"),
                   replacements=int(data.get("replacements", 1)), rows=bool(data.get("rows", False)))


def dealer_of(deal_index: int) -> int:
    """The dealing seat of deal ``deal_index`` of a run: N, E, S in turn (player ``i mod 3``)."""
    return deal_index % 3


# ---------------------------------------------------------------------------------------------
# Adapters to the estimators, scoring and double dummy (the other layers' public APIs)


def nt_qualify_bits(masks: np.ndarray) -> np.ndarray:
    """``int16[n, 4]``: bit ``L-1`` set when the seat's 13 cards pass the NT call algorithm at level ``L``.

    ``masks`` is ``int64[n, 4, 4]`` [deal, seat, suit]. One fused numba pass over the 28 (seat, level)
    tests, using the NT estimator's own per-hand classifier.
    """
    return _qualify_bits_kernel(np.ascontiguousarray(masks, dtype=np.int64))


def nt_qualifies(hand_masks: Sequence[int], level: int) -> bool:
    """Whether one hand (four suit masks) passes the NT call algorithm at ``level`` (scalar reference)."""
    from tribridge.estimators.nt_call import nt_call

    return _verdict_is_yes(nt_call([int(m) for m in hand_masks], level).verdict)


def _verdict_is_yes(verdict: Any) -> bool:
    if isinstance(verdict, str):
        return verdict.lower() == "yes"
    name = getattr(verdict, "name", None)
    if name is not None:
        return str(name).lower() == "yes"
    return int(verdict) == 1


@lru_cache(maxsize=32)
def score_table(schemes: tuple[str, ...]) -> np.ndarray:
    """``int64[S, 8, 14]``: net points (declarer minus defenders) of an undoubled ``L``NT with ``t`` tricks."""
    from tribridge.cards import Seat
    from tribridge.rules.auction import Contract, Denom
    from tribridge.rules.scoring import get_scheme, score_deal

    table = np.zeros((len(schemes), MAX_LEVEL + 1, 14), dtype=np.int64)
    for k, name in enumerate(schemes):
        scheme = get_scheme(name)
        if scheme.honours:
            raise InvalidInput("scheme", f"{name}: schemes that score honours are not supported by the game study")
        for level in range(1, MAX_LEVEL + 1):
            contract = Contract(level, Denom.NT, 0, Seat.N)
            for tricks in range(14):
                table[k, level, tricks] = int(score_deal(contract, tricks, scheme).net)
    return table


def check_schemes(schemes: Sequence[str]) -> tuple[str, ...]:
    """Validate scheme names (presets or TOML paths) by loading them once."""
    from tribridge.rules.scoring import get_scheme

    names = tuple(s.strip() for s in schemes if s.strip())
    if not names:
        raise InvalidInput("scheme", "expected at least one scoring scheme")
    for name in names:
        get_scheme(name)
    return names


# ---------------------------------------------------------------------------------------------
# Batch kernels


def _nt_classifier():
    # The NT estimator's scalar numba classifier (code, count_of_one, remaining) of one hand at one level.
    from tribridge.estimators.nt_call import _classify

    return _classify


_classify_hand = _nt_classifier()
YES_CODE = 1


def _capture_scorer():
    # The capture estimator's scalar numba kernel (captures, status, budget) on declarer / partner suit masks.
    from tribridge.estimators.capture import _capture_one

    return _capture_one


_capture_hand_pair = _capture_scorer()
_TRAILING_ZEROS = np.array([((m & -m).bit_length() - 1) if m else 13 for m in range(1 << 13)], dtype=np.int64)


@njit(cache=True)
def _hand_bits(m0, m1, m2, m3):
    """Bit L-1 set when the hand passes the NT call test at level L (levels above 7 - Δ fail Condition A)."""
    delta = _TRAILING_ZEROS[m0] + _TRAILING_ZEROS[m1] + _TRAILING_ZEROS[m2] + _TRAILING_ZEROS[m3]
    bits = 0
    for level in range(1, 8 - min(delta, 7)):
        code, _count, _remaining = _classify_hand(m0, m1, m2, m3, level)
        if code == YES_CODE:
            bits |= 1 << (level - 1)
    return bits


@njit(cache=True)
def _paper_auction(deal_bits, dealer, highest, seats):
    """The paper's NT auction of one deal: ``(level, declarer seat)``.

    ``deal_bits[seat]`` has bit L-1 set when that hand qualifies at level L; the bidders are the dealer,
    left and right (the widow opposite the dealer never calls); each bids the next NT level while it is
    within its highest qualifying level; the auction ends after a bid and two passes, or three passes
    (holder -1). ``highest`` and ``seats`` are int64[3] scratch arrays.
    """
    seats[0] = dealer
    seats[1] = (dealer + 1) % 4
    seats[2] = (dealer + 3) % 4
    for k in range(3):
        highest[k] = _highest_level(deal_bits[seats[k]])
    current = 0
    holder = -1
    passes = 0
    turn = 0
    while True:
        k = turn % 3
        if current + 1 <= highest[k]:
            current += 1
            holder = seats[k]
            passes = 0
        else:
            passes += 1
        if (holder < 0 and passes == 3) or (holder >= 0 and passes == 2):
            return current, holder
        turn += 1


@njit(cache=True)
def game_estimator_kernel(masks, first_deal, limit_code, live_gap, replacements, bits, levels, declarers, widow_ok,
                          tricks):
    """The whole protocol with the capture-estimator outcome, fused in one pass over ``int64[n, 4, 4]`` masks."""
    n = masks.shape[0]
    highest = np.zeros(3, dtype=np.int64)
    seats = np.zeros(3, dtype=np.int64)
    for i in range(n):
        for seat in range(4):
            bits[i, seat] = _hand_bits(masks[i, seat, 0], masks[i, seat, 1], masks[i, seat, 2], masks[i, seat, 3])
        dealer = (first_deal + i) % 3
        current, holder = _paper_auction(bits[i], dealer, highest, seats)
        levels[i] = current if holder >= 0 else 0
        declarers[i] = holder
        widow_ok[i] = 0
        tricks[i] = 0
        if holder >= 0:
            widow = dealer ^ 2
            widow_ok[i] = (bits[i, widow] >> (current - 1)) & 1
            total, _status, _budget = _capture_hand_pair(masks[i, holder], masks[i, widow], limit_code, live_gap,
                                                         replacements)
            tricks[i] = min(total, 13)


@njit(cache=True)
def _qualify_bits_kernel(masks):
    n = masks.shape[0]
    out = np.zeros((n, 4), dtype=np.int16)
    for i in range(n):
        for seat in range(4):
            bits = 0
            for level in range(1, MAX_LEVEL + 1):
                code, _count, _remaining = _classify_hand(masks[i, seat, 0], masks[i, seat, 1], masks[i, seat, 2],
                                                          masks[i, seat, 3], level)
                if code == YES_CODE:
                    bits |= 1 << (level - 1)
            out[i, seat] = bits
    return out


@njit(cache=True)
def masks_to_owners_kernel(masks):
    """``uint8[n, 52]`` owner seats from ``int64[n, 4, 4]`` suit masks."""
    n = masks.shape[0]
    out = np.zeros((n, 52), dtype=np.uint8)
    for i in range(n):
        for seat in range(4):
            for suit in range(4):
                m = masks[i, seat, suit]
                for rank in range(13):
                    if (m >> rank) & 1:
                        out[i, suit * 13 + rank] = seat
    return out


@njit(cache=True)
def _highest_level(bits):
    level = 0
    for lv in range(1, 8):
        if (bits >> (lv - 1)) & 1:
            level = lv
    return level


@njit(cache=True)
def game_auction_kernel(qualify_bits, first_deal):
    """Auction of a batch: ``(level int8[n], declarer int8[n], widow_ok int8[n])``; level 0 = thrown in.

    ``widow_ok`` is 1 when the widow's own hand passes the NT call test at the contract level.
    """
    n = qualify_bits.shape[0]
    levels = np.zeros(n, dtype=np.int8)
    declarers = np.full(n, -1, dtype=np.int8)
    widow_ok = np.zeros(n, dtype=np.int8)
    highest = np.zeros(3, dtype=np.int64)
    seats = np.zeros(3, dtype=np.int64)
    for i in range(n):
        dealer = (first_deal + i) % 3
        current, holder = _paper_auction(qualify_bits[i], dealer, highest, seats)
        if holder >= 0:
            levels[i] = current
            declarers[i] = holder
            widow = dealer ^ 2
            widow_ok[i] = (qualify_bits[i, widow] >> (current - 1)) & 1
    return levels, declarers, widow_ok


@njit(cache=True)
def game_tally_kernel(levels, declarers, dealers, widow_ok, tricks, scores, first_deal):
    """Integer tallies of a batch (see :func:`game_chunk` for the names) and per-deal net points ``int64[n, S]``."""
    n = levels.shape[0]
    n_schemes = scores.shape[0]
    opened = np.zeros(MAX_LEVEL + 1, dtype=np.int64)
    made = np.zeros(MAX_LEVEL + 1, dtype=np.int64)
    both_opened = np.zeros(MAX_LEVEL + 1, dtype=np.int64)
    both_made = np.zeros(MAX_LEVEL + 1, dtype=np.int64)
    lost_widow_not_ok = np.zeros(MAX_LEVEL + 1, dtype=np.int64)
    by_position = np.zeros(3, dtype=np.int64)
    tricks_hist = np.zeros(14, dtype=np.int64)
    net = np.zeros(n_schemes, dtype=np.int64)
    deal_net = np.zeros((n, n_schemes), dtype=np.int64)
    for i in range(n):
        level = levels[i]
        if level == 0:
            continue
        t = tricks[i]
        opened[level] += 1
        tricks_hist[t] += 1
        ok = t >= level + 6
        if ok:
            made[level] += 1
        if widow_ok[i]:
            both_opened[level] += 1
            if ok:
                both_made[level] += 1
        elif not ok:
            lost_widow_not_ok[level] += 1
        position = (declarers[i] - dealers[i]) % 4  # 0 dealer, 1 left, 3 right
        by_position[0 if position == 0 else (1 if position == 1 else 2)] += 1
        for k in range(n_schemes):
            deal_net[i, k] = scores[k, level, t]
            net[k] += scores[k, level, t]
    return opened, made, both_opened, both_made, lost_widow_not_ok, by_position, tricks_hist, net, deal_net


# ---------------------------------------------------------------------------------------------
# Outcome models (batch)


def estimator_tricks(masks: np.ndarray, declarers: np.ndarray, dealers: np.ndarray, params: GameParams) -> np.ndarray:
    """Capture-estimator totals ``T`` for declarer (1s) + widow (2s) from ``int64[n, 4, 4]`` masks (0 on fail A/B)."""
    from tribridge.estimators.capture import capture_masks_batch

    rows = np.arange(len(masks))
    declarer_masks = masks[rows, declarers.astype(np.int64)]
    widow_masks = masks[rows, dealers.astype(np.int64) ^ 2]
    result = capture_masks_batch(declarer_masks, widow_masks, limit=params.limit, gap=params.gap,
                                 replacements=params.replacements)
    return np.minimum(np.asarray(result.captures, dtype=np.int64), 13)


def dd_tricks(owners: np.ndarray, declarers: np.ndarray, dealers: np.ndarray) -> np.ndarray:
    """Double-dummy NT tricks for declarer + widow (declarer's LHO leads), via ``tribridge.dd``.

    Each deal is first put in play seats (the widow's hand opposite the declarer, ``rules.auction.reseat``).
    Solved in this process (the engine already runs one chunk per worker) and without the shared cache.
    """
    from tribridge.dd import dd_nt_tricks
    from tribridge.rules.auction import reseat

    if len(owners) == 0:
        return np.zeros(0, dtype=np.int64)
    play_owners = np.empty_like(owners)
    for i in range(len(owners)):
        mapping = reseat(int(dealers[i]), int(declarers[i]))
        table = np.array([int(mapping[seat]) for seat in range(4)], dtype=np.uint8)  # type: ignore[index]
        play_owners[i] = table[owners[i]]
    return np.asarray(dd_nt_tricks(play_owners, declarers.astype(np.int64), cache=False, workers=1), dtype=np.int64)


# ---------------------------------------------------------------------------------------------
# The chunk function


@njit(cache=True)
def _complete_fourth_hand_kernel(three, out):
    for i in range(three.shape[0]):
        for suit in range(4):
            held = np.int64(0)
            for seat in range(3):
                out[i, seat, suit] = three[i, seat, suit]
                held |= three[i, seat, suit]
            out[i, 3, suit] = np.int64(8191) ^ held


def _complete_fourth_hand(three: np.ndarray) -> np.ndarray:
    """``int64[n, 4, 4]`` masks from the first three hands (the fourth holds the rest of the pack)."""
    out = np.empty((three.shape[0], 4, 4), dtype=np.int64)
    _complete_fourth_hand_kernel(three, out)
    return out


@dataclass
class GameBatch:
    """Per-deal results of the protocol on a batch (arrays of length n)."""

    dealers: np.ndarray  # int8
    qualify_bits: np.ndarray  # int16[n, 4]
    levels: np.ndarray  # int8, 0 = thrown in
    declarers: np.ndarray  # int8, -1 = thrown in
    widow_ok: np.ndarray  # int8
    tricks: np.ndarray  # int64 (0 when thrown in)


def play_game_batch(masks: np.ndarray, first_deal: int, game: GameParams) -> GameBatch:
    """The protocol on deals ``first_deal ..`` given as ``int64[n, 4, 4]`` suit masks (the batch path)."""
    n = masks.shape[0]
    dealers = (np.arange(first_deal, first_deal + n, dtype=np.int64) % 3).astype(np.int8)
    if game.outcome == "estimator":
        from tribridge.estimators.capture import LIMITS

        bits = np.empty((n, 4), dtype=np.int16)
        levels = np.empty(n, dtype=np.int8)
        declarers = np.empty(n, dtype=np.int8)
        widow_ok = np.empty(n, dtype=np.int8)
        tricks = np.empty(n, dtype=np.int64)
        game_estimator_kernel(np.ascontiguousarray(masks, dtype=np.int64), np.int64(first_deal),
                              np.int64(LIMITS.index(game.limit)), game.gap == "live", np.int64(game.replacements),
                              bits, levels, declarers, widow_ok, tricks)
        return GameBatch(dealers, bits, levels, declarers, widow_ok, tricks)
    bits = nt_qualify_bits(masks)
    levels, declarers, widow_ok = game_auction_kernel(bits, np.int64(first_deal))
    tricks = np.zeros(n, dtype=np.int64)
    opened = np.flatnonzero(levels > 0)
    if opened.size:
        if game.outcome == "estimator":
            tricks[opened] = estimator_tricks(masks[opened], declarers[opened], dealers[opened], game)
        else:
            owners = masks_to_owners_kernel(np.ascontiguousarray(masks[opened]))
            tricks[opened] = dd_tricks(owners, declarers[opened], dealers[opened])
    return GameBatch(dealers, bits, levels, declarers, widow_ok, tricks)


def game_chunk(chunk: ChunkSpec, params: Mapping[str, Any]) -> ChunkOutput:
    """Play the protocol on deals ``chunk.start .. chunk.stop-1`` of run ``chunk.run``; integer tallies."""
    from tribridge.dealing.random import deal_hand_masks

    game = GameParams.from_dict(params)
    scores = score_table(tuple(game.schemes))
    run_seed = np.random.SeedSequence(chunk.seed, spawn_key=(chunk.run,))
    total: dict[str, Any] = {}
    rows: dict[str, list[np.ndarray]] = {}
    # Process in seeding blocks so memory stays flat whatever the chunk size.
    for _block, lo, hi, _seq in chunk.blocks():
        masks = _complete_fourth_hand(deal_hand_masks(hi - lo, run_seed, 3, lo))
        batch = play_game_batch(masks, lo, game)
        (opened_l, made_l, both_l, both_made_l, lost_nq_l, by_pos, hist, net, deal_net) = game_tally_kernel(
            batch.levels, batch.declarers, batch.dealers, batch.widow_ok, batch.tricks, scores, np.int64(lo))
        part = {"deals": hi - lo, "opened": opened_l, "made": made_l, "both_eligible": both_l,
                "both_made": both_made_l, "lost_widow_not_qualified": lost_nq_l, "declarer_position": by_pos,
                "tricks": hist, "net": net}
        for name, value in part.items():
            total[name] = total[name] + value if name in total else value
        if game.rows:
            levels = batch.levels.astype(np.int64)
            block_rows = {"dealer": batch.dealers, "declarer": batch.declarers, "level": batch.levels,
                          "tricks": batch.tricks.astype(np.int8),
                          "made": ((levels > 0) & (batch.tricks >= levels + 6)).astype(np.int8),
                          "widow_qualifies": batch.widow_ok}
            for seat in range(4):
                block_rows[f"nt_levels_{'NESW'[seat]}"] = batch.qualify_bits[:, seat]
            for k, name in enumerate(game.schemes):
                block_rows[f"net_{name}"] = deal_net[:, k]
            for name, value in block_rows.items():
                rows.setdefault(name, []).append(np.asarray(value))
    out_rows = {name: np.concatenate(parts) for name, parts in rows.items()} if game.rows else None
    return ChunkOutput(total, out_rows)


# ---------------------------------------------------------------------------------------------
# Readable reference of the protocol, one deal at a time


@dataclass(frozen=True)
class GameDealResult:
    """What happened on one deal of the protocol."""

    dealer: int
    calls: tuple[str, ...]
    level: int  # 0 when thrown in
    declarer: int  # -1 when thrown in
    leader: int  # -1 when thrown in
    tricks: int
    made: bool
    widow_qualifies: bool
    net: tuple[int, ...]


def game_deal_reference(owners: np.ndarray, deal_index: int, params: GameParams,
                        tricks_fn: Any = None) -> GameDealResult:
    """The protocol on one deal, written plainly with the rules engine and the scalar estimators."""
    from tribridge.cards import Deal, Seat
    from tribridge.rules.auction import AuctionState, Contract, Denom, bid, opening_leader, PASS
    from tribridge.rules.scoring import get_scheme, score_deal

    deal = Deal.from_owners(owners)
    dealer = Seat(dealer_of(deal_index))
    hands = {seat: deal[seat].masks() for seat in Seat}
    highest = {}
    for seat in Seat:
        qualifying = [lv for lv in range(1, MAX_LEVEL + 1) if nt_qualifies(hands[seat], lv)]
        highest[seat] = max(qualifying, default=0)
    auction = AuctionState.start(dealer)
    while not auction.is_over:
        seat = auction.turn
        current = auction.highest_bid.level if auction.highest_bid is not None else 0
        wanted = current + 1
        auction = auction.apply(bid(wanted, Denom.NT) if wanted <= highest[seat] else PASS)
    calls = tuple(str(c) for c in auction.calls)
    contract = auction.contract
    if contract is None:
        return GameDealResult(int(dealer), calls, 0, -1, -1, 0, False, False, tuple(0 for _ in params.schemes))
    declarer = contract.declarer
    widow = dealer.partner
    if tricks_fn is not None:
        tricks = int(tricks_fn(deal, dealer, declarer))
    elif params.outcome == "estimator":
        tricks = estimator_tricks_reference(owners, int(declarer), int(widow), params)
    else:
        from tribridge.dd import dd_nt_tricks
        from tribridge.rules.auction import play_deal

        tricks = int(dd_nt_tricks([play_deal(deal, dealer, declarer)], int(declarer), cache=False, workers=1)[0])
    widow_ok = nt_qualifies(hands[widow], contract.level)
    scored = Contract(contract.level, Denom.NT, 0, declarer)
    net = tuple(int(score_deal(scored, tricks, get_scheme(name)).net) for name in params.schemes)
    return GameDealResult(int(dealer), calls, contract.level, int(declarer), int(opening_leader(declarer)),
                          tricks, tricks >= contract.level + 6, widow_ok, net)


def estimator_tricks_reference(owners: np.ndarray, declarer: int, widow: int, params: GameParams) -> int:
    """Capture total for one deal from the scalar estimator: state 1 = declarer, 2 = widow, 0 = defenders."""
    from tribridge.estimators.capture import capture

    state = np.zeros((4, 13), dtype=np.int8)
    for card in range(52):
        if owners[card] == declarer:
            state[card // 13, card % 13] = 1
        elif owners[card] == widow:
            state[card // 13, card % 13] = 2
    result = capture(state, limit=params.limit, gap=params.gap, replacements=params.replacements)
    return min(13, int(result.captures))


# ---------------------------------------------------------------------------------------------
# Summary of merged tallies


def game_summary(run: Mapping[str, Any], schemes: Sequence[str]) -> dict[str, Any]:
    """Human-meaningful figures from one run's merged tallies (percentages from integer counts)."""
    opened = np.asarray(run.get("opened", np.zeros(MAX_LEVEL + 1)), dtype=np.int64)
    made = np.asarray(run.get("made", np.zeros(MAX_LEVEL + 1)), dtype=np.int64)
    both = np.asarray(run.get("both_eligible", np.zeros(MAX_LEVEL + 1)), dtype=np.int64)
    both_made = np.asarray(run.get("both_made", np.zeros(MAX_LEVEL + 1)), dtype=np.int64)
    lost_nq = np.asarray(run.get("lost_widow_not_qualified", np.zeros(MAX_LEVEL + 1)), dtype=np.int64)
    net = np.asarray(run.get("net", np.zeros(len(schemes))), dtype=np.int64)
    n_open, n_made, n_both, n_both_made = int(opened.sum()), int(made.sum()), int(both.sum()), int(both_made.sum())
    losses = n_open - n_made

    def pct(a: int, b: int) -> float | None:
        return round(100.0 * a / b, 4) if b else None

    position = np.asarray(run.get("declarer_position", np.zeros(3)), dtype=np.int64)
    return {
        "deals": int(run.get("deals", 0)),
        "opened": n_open,
        "opened_by_level": {f"{lv}NT": int(opened[lv]) for lv in range(1, MAX_LEVEL + 1)},
        "made": n_made,
        "made_pct": pct(n_made, n_open),
        "made_by_level": {f"{lv}NT": int(made[lv]) for lv in range(1, MAX_LEVEL + 1)},
        "both_eligible": n_both,
        "both_eligible_made": n_both_made,
        "both_eligible_made_pct": pct(n_both_made, n_both),
        "losses": losses,
        "losses_widow_not_qualified": int(lost_nq.sum()),
        "losses_widow_not_qualified_pct": pct(int(lost_nq.sum()), losses),
        "declarer_position": {"dealer": int(position[0]), "left": int(position[1]), "right": int(position[2])},
        "tricks_histogram": [int(x) for x in np.asarray(run.get("tricks", np.zeros(14)), dtype=np.int64)],
        "net_points": {name: int(net[k]) for k, name in enumerate(schemes)},
    }


# ---------------------------------------------------------------------------------------------
# Engine self-check study


def engine_check_chunk(chunk: ChunkSpec, params: Mapping[str, Any]) -> ChunkOutput:
    """A tiny study for checking the engine: a histogram of one die roll per deal slot, from the block streams."""
    sides = int(params.get("sides", 6))
    if params.get("sleep"):
        time.sleep(float(params["sleep"]))  # lets tests interrupt a run part-way
    rolls = []
    for block, lo, hi, seed_seq in chunk.blocks():
        rng = np.random.default_rng(seed_seq)
        offset = lo - block * chunk.block_size
        rolls.append(rng.integers(0, sides, size=offset + (hi - lo))[offset:])
    values = np.concatenate(rolls)
    partial = {"deals": int(values.size), "histogram": np.bincount(values, minlength=sides).astype(np.int64),
               "total": int(values.sum())}
    rows = {"roll": values.astype(np.int8)} if params.get("rows") else None
    return ChunkOutput(partial, rows)


# ---------------------------------------------------------------------------------------------
# Running the game study end to end


def run_game(deals: int, runs: int, seed: int, params: GameParams, **engine_options: Any) -> dict[str, Any]:
    """Run the game study through the engine; a JSON-ready dict (no timings, so it is reproducible byte for byte)."""
    from tribridge.sim.engine import run_study

    check_schemes(params.schemes)
    if params.outcome == "dd" and engine_options.get("chunk_size") is None:
        engine_options["chunk_size"] = 2000  # about 350 double-dummy solves (10 s a core) per chunk
    result = run_study("game", game_chunk, params.to_dict(), deals=deals, runs=runs, seed=seed, **engine_options)
    return {
        "study": "game",
        "deals": deals,
        "runs": runs,
        "seed": seed,
        "outcome": params.outcome,
        "capture_reading": {"limit": params.limit, "gap": params.gap, "replacements": params.replacements}
        if params.outcome == "estimator" else None,
        "schemes": list(params.schemes),
        "results": [game_summary(run, params.schemes) for run in result.runs],
    }
