"""The game study run by the engine: parameters, the chunk function, outcome models and the summary of a run.

``game`` is the seed paper's three-player protocol (Table IV): deal ``i`` of a run is dealt by seat
``i mod 3`` (N, E, S in turn), the widow sits opposite the dealer, the three players call clockwise
from the dealer, each bids the cheapest No-Trump level above the current bid while that level is
within the highest level its own 13 cards pass the NT call algorithm at, else passes. The contract
is then scored with an outcome model: the capture estimator on declarer + widow (``estimator``) or
double-dummy NT tricks with the declarer's left-hand opponent leading (``dd``).

The batch path (numba kernels in :mod:`tribridge.sim.game_kernels`) and the readable per-deal reference
(:func:`tribridge.sim.game_reference.game_deal_reference`) must agree; ``tests/sim/test_sim_game.py`` checks that
on random deals.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from tribridge.cards import Seat
from tribridge.dd import dd_nt_tricks
from tribridge.dealing.random import deal_hand_masks
from tribridge.dealing.streams import seed_stream
from tribridge.errors import InvalidInput
from tribridge.estimators.capture import LIMITS, CaptureReading, capture_masks_batch
from tribridge.estimators.nt_call import nt_call
from tribridge.rules.auction import Contract, Denom, reseat
from tribridge.rules.scoring import PRESETS, get_scheme, score_deal
from tribridge.sim.engine import ChunkOutput, ChunkSpec, run_study
from tribridge.sim.game_kernels import (
    MAX_LEVEL,
    complete_fourth_hand_kernel,
    game_auction_kernel,
    game_estimator_kernel,
    game_tally_kernel,
    masks_to_owners_kernel,
    qualify_bits_kernel,
)

__all__ = [
    "CAPTURE_GAPS",
    "CAPTURE_LIMITS",
    "GameBatch",
    "GameParams",
    "GameRun",
    "GameStudyResult",
    "MAX_LEVEL",
    "OUTCOMES",
    "SCHEMES_DEFAULT",
    "check_schemes",
    "dd_tricks",
    "dealer_of",
    "estimator_tricks",
    "game_chunk",
    "game_summary",
    "nt_qualifies",
    "nt_qualify_bits",
    "play_game_batch",
    "run_game",
    "score_table",
]

OUTCOMES = ("estimator", "dd")
SCHEMES_DEFAULT = PRESETS  # every preset of the scheme registry
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
        return {
            "outcome": self.outcome,
            "schemes": list(self.schemes),
            "limit": self.limit,
            "gap": self.gap,
            "replacements": self.replacements,
            "rows": self.rows,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameParams:
        """Inverse of :meth:`to_dict`."""
        return cls(
            outcome=data.get("outcome", "estimator"),
            schemes=tuple(data.get("schemes", SCHEMES_DEFAULT)),
            limit=data.get("limit", "max"),
            gap=data.get("gap", "static"),
            replacements=int(data.get("replacements", 1)),
            rows=bool(data.get("rows", False)),
        )


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
    return qualify_bits_kernel(np.ascontiguousarray(masks, dtype=np.int64))


def nt_qualifies(hand_masks: Sequence[int], level: int) -> bool:
    """Whether one hand (four suit masks) passes the NT call algorithm at ``level`` (scalar reference)."""
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
    names = tuple(s.strip() for s in schemes if s.strip())
    if not names:
        raise InvalidInput("scheme", "expected at least one scoring scheme")
    for name in names:
        get_scheme(name)
    return names


# ---------------------------------------------------------------------------------------------
# Outcome models (batch)


def estimator_tricks(masks: np.ndarray, declarers: np.ndarray, dealers: np.ndarray, params: GameParams) -> np.ndarray:
    """Capture-estimator totals ``T`` for declarer (1s) + widow (2s) from ``int64[n, 4, 4]`` masks (0 on fail A/B)."""
    rows = np.arange(len(masks))
    declarer_masks = masks[rows, declarers.astype(np.int64)]
    widow_masks = masks[rows, dealers.astype(np.int64) ^ 2]
    result = capture_masks_batch(
        declarer_masks, widow_masks, limit=params.limit, gap=params.gap, replacements=params.replacements
    )
    return np.minimum(np.asarray(result.captures, dtype=np.int64), 13)


def dd_tricks(owners: np.ndarray, declarers: np.ndarray, dealers: np.ndarray) -> np.ndarray:
    """Double-dummy NT tricks for declarer + widow (declarer's LHO leads), via ``tribridge.dd``.

    Each deal is first put in play seats (the widow's hand opposite the declarer, ``rules.auction.reseat``).
    Solved in this process (the engine already runs one chunk per worker) and without the shared cache.
    """
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


def _complete_fourth_hand(three: np.ndarray) -> np.ndarray:
    """``int64[n, 4, 4]`` masks from the first three hands (the fourth holds the rest of the pack)."""
    out = np.empty((three.shape[0], 4, 4), dtype=np.int64)
    complete_fourth_hand_kernel(three, out)
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
        bits = np.empty((n, 4), dtype=np.int16)
        levels = np.empty(n, dtype=np.int8)
        declarers = np.empty(n, dtype=np.int8)
        widow_ok = np.empty(n, dtype=np.int8)
        tricks = np.empty(n, dtype=np.int64)
        game_estimator_kernel(
            np.ascontiguousarray(masks, dtype=np.int64),
            np.int64(first_deal),
            np.int64(LIMITS.index(game.limit)),
            game.gap == "live",
            np.int64(game.replacements),
            bits,
            levels,
            declarers,
            widow_ok,
            tricks,
        )
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
    game = GameParams.from_dict(params)
    scores = score_table(tuple(game.schemes))
    run_seed = seed_stream(chunk.seed, chunk.run)
    total: dict[str, Any] = {}
    rows: dict[str, list[np.ndarray]] = {}
    # Process in seeding blocks so memory stays flat whatever the chunk size.
    for _block, lo, hi, _seq in chunk.blocks():
        masks = _complete_fourth_hand(deal_hand_masks(hi - lo, run_seed, 3, lo))
        batch = play_game_batch(masks, lo, game)
        (opened_l, made_l, both_l, both_made_l, lost_nq_l, by_pos, hist, level_tricks, net, deal_net) = (
            game_tally_kernel(
                batch.levels, batch.declarers, batch.dealers, batch.widow_ok, batch.tricks, scores, np.int64(lo)
            )
        )
        part = {
            "deals": hi - lo,
            "opened": opened_l,
            "made": made_l,
            "both_eligible": both_l,
            "both_made": both_made_l,
            "lost_widow_not_qualified": lost_nq_l,
            "declarer_position": by_pos,
            "tricks": hist,
            "level_tricks": level_tricks,
            "net": net,
        }
        for name, value in part.items():
            total[name] = total[name] + value if name in total else value
        if game.rows:
            levels = batch.levels.astype(np.int64)
            block_rows = {
                "dealer": batch.dealers,
                "declarer": batch.declarers,
                "level": batch.levels,
                "tricks": batch.tricks.astype(np.int8),
                "made": ((levels > 0) & (batch.tricks >= levels + 6)).astype(np.int8),
                "widow_qualifies": batch.widow_ok,
            }
            for seat in range(4):
                block_rows[f"nt_levels_{'NESW'[seat]}"] = batch.qualify_bits[:, seat]
            for k, name in enumerate(game.schemes):
                block_rows[f"net_{name}"] = deal_net[:, k]
            for name, value in block_rows.items():
                rows.setdefault(name, []).append(np.asarray(value))
    out_rows = {name: np.concatenate(parts) for name, parts in rows.items()} if game.rows else None
    return ChunkOutput(total, out_rows)


# ---------------------------------------------------------------------------------------------
# Summary of merged tallies


@dataclass(frozen=True)
class GameRun:
    """The figures of one run of the game study (counts, and percentages of integer counts)."""

    deals: int
    opened: int
    opened_by_level: dict[str, int]  # "1NT" .. "7NT"
    made: int
    made_pct: float | None
    made_by_level: dict[str, int]
    both_eligible: int
    both_eligible_made: int
    both_eligible_made_pct: float | None
    losses: int
    losses_widow_not_qualified: int
    losses_widow_not_qualified_pct: float | None
    declarer_position: dict[str, int]  # "dealer", "left", "right"
    tricks_histogram: tuple[int, ...]  # opened contracts by declarer tricks 0..13
    tricks_by_level: dict[str, tuple[int, ...]]
    net_points: dict[str, int]  # by scheme name

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict (keys in field order)."""
        return asdict(self)


def game_summary(run: Mapping[str, Any], schemes: Sequence[str]) -> GameRun:
    """Human-meaningful figures from one run's merged tallies (percentages from integer counts)."""
    opened = np.asarray(run.get("opened", np.zeros(MAX_LEVEL + 1)), dtype=np.int64)
    made = np.asarray(run.get("made", np.zeros(MAX_LEVEL + 1)), dtype=np.int64)
    both = np.asarray(run.get("both_eligible", np.zeros(MAX_LEVEL + 1)), dtype=np.int64)
    both_made = np.asarray(run.get("both_made", np.zeros(MAX_LEVEL + 1)), dtype=np.int64)
    lost_nq = np.asarray(run.get("lost_widow_not_qualified", np.zeros(MAX_LEVEL + 1)), dtype=np.int64)
    net = np.asarray(run.get("net", np.zeros(len(schemes))), dtype=np.int64)
    level_tricks = np.asarray(run.get("level_tricks", np.zeros((MAX_LEVEL + 1, 14))), dtype=np.int64)
    n_open, n_made, n_both, n_both_made = int(opened.sum()), int(made.sum()), int(both.sum()), int(both_made.sum())
    losses = n_open - n_made

    def pct(a: int, b: int) -> float | None:
        return round(100.0 * a / b, 4) if b else None

    position = np.asarray(run.get("declarer_position", np.zeros(3)), dtype=np.int64)
    return GameRun(
        deals=int(run.get("deals", 0)),
        opened=n_open,
        opened_by_level={f"{lv}NT": int(opened[lv]) for lv in range(1, MAX_LEVEL + 1)},
        made=n_made,
        made_pct=pct(n_made, n_open),
        made_by_level={f"{lv}NT": int(made[lv]) for lv in range(1, MAX_LEVEL + 1)},
        both_eligible=n_both,
        both_eligible_made=n_both_made,
        both_eligible_made_pct=pct(n_both_made, n_both),
        losses=losses,
        losses_widow_not_qualified=int(lost_nq.sum()),
        losses_widow_not_qualified_pct=pct(int(lost_nq.sum()), losses),
        declarer_position={"dealer": int(position[0]), "left": int(position[1]), "right": int(position[2])},
        tricks_histogram=tuple(int(x) for x in np.asarray(run.get("tricks", np.zeros(14)), dtype=np.int64)),
        tricks_by_level={f"{lv}NT": tuple(int(x) for x in level_tricks[lv]) for lv in range(1, MAX_LEVEL + 1)},
        net_points={name: int(net[k]) for k, name in enumerate(schemes)},
    )


# ---------------------------------------------------------------------------------------------
# Running the game study end to end


@dataclass(frozen=True)
class GameStudyResult:
    """A whole game study: its parameters and one :class:`GameRun` per run (no timings: reproducible)."""

    deals: int
    runs: int
    seed: int
    outcome: str
    capture_reading: CaptureReading | None  # the estimator's reading; None with the double-dummy outcome
    schemes: tuple[str, ...]
    results: tuple[GameRun, ...]

    def to_json(self) -> dict[str, object]:
        """The JSON of ``tribridge study game --json``."""
        return {
            "study": "game",
            "deals": self.deals,
            "runs": self.runs,
            "seed": self.seed,
            "outcome": self.outcome,
            "capture_reading": None if self.capture_reading is None else asdict(self.capture_reading),
            "schemes": list(self.schemes),
            "results": [run.to_json() for run in self.results],
        }


def run_game(deals: int, runs: int, seed: int, params: GameParams, **engine_options: Any) -> GameStudyResult:
    """Run the game study through the engine; one summary per run (no timings, so it is reproducible)."""
    check_schemes(params.schemes)
    if params.outcome == "dd" and engine_options.get("chunk_size") is None:
        engine_options["chunk_size"] = 2000  # about 350 double-dummy solves (10 s a core) per chunk
    result = run_study("game", game_chunk, params.to_dict(), deals=deals, runs=runs, seed=seed, **engine_options)
    reading = CaptureReading(params.limit, params.gap, params.replacements)
    return GameStudyResult(
        deals=deals,
        runs=runs,
        seed=seed,
        outcome=params.outcome,
        capture_reading=reading if params.outcome == "estimator" else None,
        schemes=tuple(params.schemes),
        results=tuple(game_summary(run, params.schemes) for run in result.runs),
    )
