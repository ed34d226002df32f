"""``natural4-search``: natural4's calls weighed by simulation — sampled layouts, natural4 rollouts, double dummy.

For the seat on turn the candidates are natural4's ranked calls (``natural4.candidates``) plus pass, double
and the next-level competitive bid in our side's strain where legal, each with a prior. When no candidate
but natural4's own reaches :data:`DOMINANCE` the call is made without search. Otherwise layouts of the three
hidden hands are drawn to fit the auction (``four.sampler``); for each candidate and layout the auction is
bid on to its end by natural4 in all four seats, and each final contract is scored with its double-dummy
tricks (one batch through ``dd.dd_declarer_tricks``, so through the solver pool when routed there; each
layout's distinct declarer and strain solved once) at the vulnerability, for the side on turn. A
candidate's value on a layout is its mean IMPs against every other candidate's outcome on the same layout
(duplicate style). natural4's call is kept unless the best candidate beats it by more than :data:`MARGIN`
standard errors of the paired difference and by at least :data:`MIN_IMPS` a layout. By default
(:data:`COMPETITIVE_ONLY`) only positions where both sides have bid are searched, among natural4's call and
those of pass, double and the competitive bid that natural4 gives a meaning there. With
``SearchConfig.double_when_down`` a rollout's undoubled contract that goes that many down or more is scored
doubled, as an opponent who doubles would make it cost. With ``SearchConfig.replay`` above 1, that many times
the layouts are drawn and those whose hidden hands natural4 would have bid the auction with are kept first
(``sampler.prefer_replayed``): the constraints alone are looser than natural4's rules. The explanation is
natural4's reading of the chosen call, with "chosen by simulation over N layouts" when natural4 would have
made another call.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from tribridge.bots.belief import position_seed
from tribridge.dd import dd_declarer_tricks
from tribridge.dealing.streams import random_stream
from tribridge.four import natural4
from tribridge.four.natural4 import FALLBACK, Bid4View, Decision
from tribridge.four.natural4.core import HandInfo
from tribridge.four.rules import DOUBLE, PASS, STRAINS, Auction4, Contract4, is_bid, same_side
from tribridge.four.sampler import (
    auction_constraints,
    layout_hands,
    prefer_replayed,
    replay_misses,
    sample_layouts,
)
from tribridge.rules.duplicate import duplicate_score
from tribridge.rules.imps import IMP_STEPS

__all__ = [
    "COMPETITIVE_ONLY",
    "DOMINANCE",
    "DOUBLE_OURS_ONLY",
    "DOUBLE_WHEN_DOWN",
    "LAYOUTS",
    "MARGIN",
    "MAX_LAYOUTS",
    "MIN_IMPS",
    "NAME",
    "REPLAY",
    "SearchConfig",
    "SearchDecision",
    "CandidateScore",
    "search_candidates",
    "competitive",
    "competitive_candidates",
    "contract_scores",
    "doubling_of",
    "read_right",
    "decide_call",
    "bid",
]

NAME = "natural4-search"
LAYOUTS = 24  # layouts searched per call by default
MAX_LAYOUTS = 64  # the per-request cap
SECONDS = 1.0  # time budget of one call's search (layouts already rolled out are kept)
MIN_LAYOUTS = 4  # layouts rolled out whatever the time budget, before a choice is made
DOMINANCE = 0.25  # a candidate with a prior below this is not worth a search
MARGIN = 2.0  # standard errors by which a candidate must beat natural4's call
MIN_IMPS = 2.0  # IMPs a layout by which a candidate must beat natural4's call, as well
COMPETITIVE_ONLY = True  # search only positions where both sides have bid, among the calls natural4 reads
DOUBLE_WHEN_DOWN = 0  # a rollout's undoubled contract going this many down or more is scored doubled (0: never)
DOUBLE_OURS_ONLY = False  # DOUBLE_WHEN_DOWN doubles only the contracts of the side on turn
REPLAY = 8  # layouts drawn per layout searched, the best replayed kept (1: no replay check)
MAX_REPLAY = 32
PRIOR_DOUBLE = 0.3
PRIOR_COMPETE = 0.3
PRIOR_PASS = 0.1
HCP_SLACK = 2  # HCP by which a hand may miss natural4's reading of an added double or competitive bid
CHUNK = 4  # layouts rolled out and solved between two looks at the clock
MAX_CALLS = 60


@dataclass(frozen=True)
class SearchConfig:
    """The search's settings: layouts (capped at :data:`MAX_LAYOUTS`), a time budget, the thresholds, a seed."""

    layouts: int = LAYOUTS
    seconds: float = SECONDS
    dominance: float = DOMINANCE
    margin: float = MARGIN
    seed: int = 0
    plausible_only: bool = False  # search only calls whose natural4 reading the hand nearly fits
    competitive_only: bool = COMPETITIVE_ONLY  # see :func:`competitive_candidates`
    min_imps: float = MIN_IMPS
    double_when_down: int = DOUBLE_WHEN_DOWN  # see :func:`contract_scores`
    double_ours_only: bool = DOUBLE_OURS_ONLY  # double_when_down doubles only our side's contracts, not the opponents'
    replay: int = REPLAY  # see :func:`sampler.prefer_replayed`
    clock: Callable[[], float] = field(default=time.perf_counter, compare=False)

    def __post_init__(self) -> None:
        if not 1 <= self.layouts <= MAX_LAYOUTS:
            raise ValueError(f"layouts must be 1..{MAX_LAYOUTS}, got {self.layouts}")
        if self.seconds < 0:
            raise ValueError(f"seconds must be >= 0, got {self.seconds}")
        if not 0 <= self.min_imps <= 24:
            raise ValueError(f"min_imps must be 0..24, got {self.min_imps}")
        if not 0 <= self.double_when_down <= 13:
            raise ValueError(f"double_when_down must be 0..13, got {self.double_when_down}")
        if not 1 <= self.replay <= MAX_REPLAY:
            raise ValueError(f"replay must be 1..{MAX_REPLAY}, got {self.replay}")


@dataclass(frozen=True)
class CandidateScore:
    """A searched candidate: its prior, mean IMPs against the others, and that mean's standard error."""

    call: str
    prior: float
    imps: float
    stderr: float


@dataclass(frozen=True)
class SearchDecision(Decision):
    """natural4's decision, or the searched call with natural4's reading of it."""

    natural: str = ""  # the call natural4 would have made
    searched: bool = False
    layouts: int = 0
    relaxed: int = 0  # layouts that miss some constraint (too few fitted)
    unreplayed: int = 0  # with a replay check, layouts natural4 would have bid otherwise with (too few replayed)
    scores: tuple[CandidateScore, ...] = ()

    @property
    def explanation(self) -> str:
        """natural4's explanation of the call, and the search's note when natural4 would have called otherwise."""
        text = self.meaning.text()
        if self.call != self.natural:
            text += f" (chosen by simulation over {self.layouts} layouts)"
        return text


def competitive_bid(auction: Auction4, seat: int) -> str | None:
    """The cheapest bid in our side's last-bid strain when the opponents hold the highest bid, if legal."""
    last = auction.last_bid
    if last is None or same_side(last[1], seat):
        return None
    ours = [c for i, c in enumerate(auction.calls) if is_bid(c) and same_side((auction.dealer + i) % 4, seat)]
    if not ours:
        return None
    strain = STRAINS.index(ours[-1][1])
    level = int(last[0][0]) + (0 if strain > STRAINS.index(last[0][1]) else 1)
    call = f"{level}{STRAINS[strain]}"
    return call if level <= 7 and auction.is_legal(call) else None


def plausible(view: Bid4View, call: str) -> bool:
    """Whether the hand nearly fits natural4's reading of ``call`` here (HCP within :data:`HCP_SLACK`, lengths)."""
    _, meanings = natural4.read_auction(view.auction.apply(call), view.vul, view.systems)
    m, hand = meanings[-1], HandInfo.of(view.hand)
    if not m.lo - HCP_SLACK <= hand.hcp <= m.hi + HCP_SLACK:
        return False
    return all(a <= n <= b for a, n, b in zip(m.min_len, hand.lens, m.max_len))


def search_candidates(view: Bid4View, natural: Decision) -> list[tuple[str, float]]:
    """The candidates with their priors: natural4's ranked calls, then pass, double and the competitive bid
    (a double or competitive bid the hand does not nearly fit by natural4's reading gets :data:`PRIOR_PASS`)."""
    out = dict(natural4.candidates_of(natural))
    extra = [(DOUBLE, PRIOR_DOUBLE)] if view.auction.is_legal(DOUBLE) else []
    compete = competitive_bid(view.auction, view.seat)
    if compete is not None:
        extra.append((compete, PRIOR_COMPETE))
    for call, prior in extra:
        if call not in out:
            out[call] = prior if plausible(view, call) else PRIOR_PASS
    out.setdefault(PASS, PRIOR_PASS)
    return [(c, p) for c, p in out.items() if view.auction.is_legal(c)]


def competitive(auction: Auction4) -> bool:
    """Whether both sides have bid a suit or notrump in the auction."""
    return len({(auction.dealer + i) % 2 for i, c in enumerate(auction.calls) if is_bid(c)}) == 2


def read_right(view: Bid4View, call: str) -> bool:
    """Whether natural4 gives ``call`` a meaning here (so rollouts and the sampler read it as a system call)."""
    _, meanings = natural4.read_auction(view.auction.apply(call), view.vul, view.systems)
    return meanings[-1] != FALLBACK


def competitive_candidates(view: Bid4View, natural: str, cands: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """In a competitive position (:func:`competitive`), natural4's call and those of pass, double and the
    competitive bid that natural4 gives a meaning here; elsewhere natural4's call alone."""
    if not competitive(view.auction):
        return [(c, p) for c, p in cands if c == natural]
    allowed = {PASS, DOUBLE, competitive_bid(view.auction, view.seat)}
    return [(c, p) for c, p in cands if c == natural or (c in allowed and read_right(view, c))]


def rollout(
    auction: Auction4, hands: Sequence[tuple[int, ...]], vul: str, systems: tuple[str, str] = natural4.BOTH_SAYC
) -> Contract4 | None:
    """The final contract when natural4 bids every seat from ``auction`` on (None when passed out); each side
    plays its system of ``systems`` (North-South, East-West)."""
    while not auction.is_over:
        if len(auction.calls) > MAX_CALLS:
            raise RuntimeError("auction did not end")
        seat = auction.turn
        assert seat is not None
        auction = auction.apply(natural4.bid(Bid4View(seat, auction.dealer, vul, hands[seat], auction, systems)))
    return auction.contract


def vulnerable(vul: str, seat: int) -> bool:
    """Whether ``seat`` is vulnerable under ``vul`` (None, NS, EW, All)."""
    return vul == "All" or (vul == "NS" and seat % 2 == 0) or (vul == "EW" and seat % 2 == 1)


def doubling_of(contract: Contract4, tricks: int, double_when_down: int) -> int:
    """The doubling a contract is scored at: doubled when undoubled and ``tricks`` leave it at least
    ``double_when_down`` down (an opponent who would double it), as bid otherwise or when that is 0."""
    down = contract.level + 6 - tricks
    if double_when_down and contract.doubling == 0 and down >= double_when_down:
        return 1
    return contract.doubling


def contract_scores(
    contracts: list[list[Contract4 | None]],
    layouts: np.ndarray,
    vul: str,
    seat: int,
    double_when_down: int = 0,
    ours_only: bool = False,
) -> np.ndarray:
    """Scores ``float[candidates, layouts]`` for ``seat``'s side: each distinct (layout, declarer, strain)
    solved double dummy once, in one batch; with ``double_when_down`` an undoubled contract going that many
    down or more is scored doubled (:func:`doubling_of`), with ``ours_only`` only when our side declares."""
    cells: dict[tuple[int, int, int], int] = {}
    for row in contracts:
        for j, c in enumerate(row):
            if c is not None:
                cells.setdefault((j, c.declarer, c.strain), len(cells))
    keys = list(cells)
    tricks = np.zeros(0, dtype=np.int64)
    if keys:
        tricks = dd_declarer_tricks(
            layouts[[k[0] for k in keys]], [k[1] for k in keys], [k[2] for k in keys], cache=False, workers=1
        )
    out = np.zeros((len(contracts), len(layouts)))
    for i, row in enumerate(contracts):
        for j, c in enumerate(row):
            if c is None:
                continue
            t = int(tricks[cells[(j, c.declarer, c.strain)]])
            ours = same_side(c.declarer, seat)
            doubling = doubling_of(c, t, double_when_down if ours or not ours_only else 0)
            score = duplicate_score(c.level, c.strain, doubling, vulnerable(vul, c.declarer), t)
            out[i, j] = score if ours else -score
    return out


def imps_of(diff: np.ndarray) -> np.ndarray:
    """IMPs of point differences, elementwise (the WBF scale, sign kept)."""
    steps = np.asarray(IMP_STEPS)
    return np.sign(diff) * np.searchsorted(steps, np.abs(diff), side="right")


def duplicate_values(scores: np.ndarray) -> np.ndarray:
    """Per candidate and layout, the mean IMPs of its score against each other candidate's on that layout."""
    n = len(scores)
    if n < 2:
        return np.zeros_like(scores)
    diffs = imps_of(scores[:, None, :] - scores[None, :, :])  # [c, d, layout]
    return diffs.sum(axis=1) / (n - 1)


def _seed(view: Bid4View, seed: int) -> int:
    """The position's seed: the same position and config seed give the same layouts."""
    return position_seed(
        "natural4-search", seed, view.seat, view.dealer, view.vul, sorted(view.hand), view.auction.calls
    )


def _choose(
    cands: list[tuple[str, float]], values: np.ndarray, natural: str, margin: float, min_imps: float = 0.0
) -> tuple[int, tuple[CandidateScore, ...]]:
    """The index of the chosen candidate and every candidate's score: the best mean when it beats natural4's
    call by more than ``margin`` standard errors of the paired difference and by at least ``min_imps``."""
    k = values.shape[1]
    scores = tuple(
        CandidateScore(c, p, float(v.mean()), float(v.std(ddof=1) / math.sqrt(k)) if k > 1 else math.inf)
        for (c, p), v in zip(cands, values)
    )
    base = next(i for i, (c, _) in enumerate(cands) if c == natural)
    best = max(range(len(cands)), key=lambda i: (values[i].mean(), -i))
    if best == base or k < 2:
        return base, scores
    diff = values[best] - values[base]
    se = float(diff.std(ddof=1) / math.sqrt(k))
    gain = float(diff.mean())
    return (best if gain > margin * se and gain >= min_imps else base), scores


def decide_call(view: Bid4View, config: SearchConfig = SearchConfig()) -> SearchDecision:
    """The searching bidder's call for the seat on turn, with natural4's reading of it."""
    natural = natural4.decide_call(view)
    plain = SearchDecision(natural.call, natural.meaning, natural.alternatives, natural=natural.call)
    cands = search_candidates(view, natural)
    if config.plausible_only:
        cands = [(c, p) for c, p in cands if c == natural.call or plausible(view, c)]
    if config.competitive_only:
        cands = competitive_candidates(view, natural.call, cands)
    if len(cands) < 2 or all(p < config.dominance for c, p in cands if c != natural.call):
        return plain
    start = config.clock()
    others = [s for s in range(4) if s != view.seat]
    constraints = auction_constraints(view.auction, view.vul, others, view.systems)
    rng = random_stream(_seed(view, config.seed))
    sample = sample_layouts(view.seat, view.hand, constraints, config.layouts * config.replay, rng)
    misses = np.zeros(len(sample.layouts), dtype=np.int64)
    if config.replay > 1:
        misses = replay_misses(sample.layouts, view.auction, view.vul, others, view.systems)
        sample, misses = prefer_replayed(sample, misses, config.layouts)
    parts: list[np.ndarray] = []
    used = 0
    while used < len(sample.layouts) and (used < MIN_LAYOUTS or config.clock() - start <= config.seconds):
        chunk = sample.layouts[used : used + CHUNK]
        hands = [layout_hands(layout) for layout in chunk]
        contracts = [[rollout(view.auction.apply(c), h, view.vul, view.systems) for h in hands] for c, _ in cands]
        parts.append(
            contract_scores(contracts, chunk, view.vul, view.seat, config.double_when_down, config.double_ours_only)
        )
        used += len(chunk)
    if used == 0:
        return plain
    values = duplicate_values(np.concatenate(parts, axis=1))
    chosen, scores = _choose(cands, values, natural.call, config.margin, config.min_imps)
    call = cands[chosen][0]
    meaning = natural.meaning
    if call != natural.call:
        _, meanings = natural4.read_auction(view.auction.apply(call), view.vul, view.systems)
        meaning = meanings[-1]
    alternatives = tuple(c for c, _ in cands if c != call)
    relaxed, unreplayed = int(sample.relaxed[:used].sum()), int((misses[:used] > 0).sum())
    return SearchDecision(call, meaning, alternatives, natural.call, True, used, relaxed, unreplayed, scores)


def bid(view: Bid4View, config: SearchConfig = SearchConfig()) -> str:
    """The searching bidder's call; always legal."""
    return decide_call(view, config).call
