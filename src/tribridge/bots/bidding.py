"""Bidders for three-player auction bridge: PaperBidder, EstimateBidder, SimulationBidder (and RandomBidder).

Every bidder has ``bid(view) -> Call`` and ``candidates(view) -> list[(Call, score)]`` (best first);
``view`` is the bidder's ``SeatView`` (``rules.view``: seat, hand, dealer, auction state). Scores mean different things per
bidder and are documented on each class; the chosen call is always the first candidate and is
always legal.
"""

from __future__ import annotations

import random as _stdlib_random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tribridge.bots.belief import (
    BeliefSample,
    auction_facts,
    build_knowledge,
    layout_masks,
    position_seed,
    sample_layouts,
)
from tribridge.cards import Deal
from tribridge.dd import dd_tables_array
from tribridge.dealing.streams import random_stream
from tribridge.errors import InvalidInput
from tribridge.estimators.nt_call import highest_nt_level_batch
from tribridge.estimators.tricks import default_model, estimate_nt_tricks, estimate_tricks
from tribridge.rules.auction import DOUBLE, PASS, REDOUBLE, AuctionState, Call, Contract, Denom, bid, play_deal
from tribridge.rules.scoring import get_scheme, score_deal
from tribridge.rules.view import SeatView

NT = int(Denom.NT)


# --------------------------------------------------------------------------------------------
# Reading a bidder's SeatView
# --------------------------------------------------------------------------------------------


def view_auction(view: SeatView) -> AuctionState:
    """The ``AuctionState`` of a bidder's view."""
    if not isinstance(view.auction, AuctionState):
        raise InvalidInput("view", "a bid view needs its auction state")
    return view.auction


def view_hand_cards(view: SeatView) -> list[int]:
    """The bidding seat's 13 card indices."""
    return sorted(int(c) for c in view.hand.cards)


def hand_masks(cards: Sequence[int]) -> np.ndarray:
    """``int64[4]`` suit masks (♣ ♦ ♥ ♠) of a set of cards."""
    out = np.zeros(4, dtype=np.int64)
    for c in cards:
        out[c // 13] |= 1 << (c % 13)
    return out


def cheapest_nt(auction: AuctionState) -> Call | None:
    """The cheapest legal NT bid, or None."""
    nts = [c for c in auction.legal_calls() if c.is_bid and c.denom == Denom.NT]
    return min(nts, key=lambda c: c.level) if nts else None


def cheapest_in(auction: AuctionState, denom: int) -> Call | None:
    """The cheapest legal bid in a denomination, or None."""
    bids = [c for c in auction.legal_calls() if c.is_bid and int(c.denom) == denom]  # type: ignore[arg-type]
    return min(bids, key=lambda c: c.level) if bids else None


def _fallback_if_illegal(auction: AuctionState, call: Call) -> Call:
    """``call`` if legal, else the cheapest legal bid (dealer_must_bid), else pass."""
    if auction.is_legal(call):
        return call
    legal = auction.legal_calls()
    bids = [c for c in legal if c.is_bid]
    return bids[0] if bids else legal[0]


def _order(cands: list[tuple[Call, float]], auction: AuctionState, chosen: Call) -> list[tuple[Call, float]]:
    """Put ``chosen`` first, the rest by score (stable)."""
    rest = sorted((cs for cs in cands if cs[0] != chosen), key=lambda cs: -cs[1])
    score = next((s for c, s in cands if c == chosen), 0.0)
    return [(chosen, score)] + rest


# --------------------------------------------------------------------------------------------
# Bidders
# --------------------------------------------------------------------------------------------


class RandomBidder:
    """Passes half the time, else makes a random legal call (repeatable: seeded from the position)."""

    name = "random"

    def candidates(self, view: SeatView) -> list[tuple[Call, float]]:
        """Legal calls; pass scores 0.5, the others share 0.5."""
        auction = view_auction(view)
        legal = auction.legal_calls()
        others = [c for c in legal if c != PASS]
        out = [(PASS, 0.5)] if PASS in legal else []
        share = (1.0 - (0.5 if out else 0.0)) / max(1, len(others))
        chosen = self.bid(view)
        return _order(out + [(c, share) for c in others], auction, chosen)

    def bid(self, view: SeatView) -> Call:
        """A random legal call."""
        auction = view_auction(view)
        legal = auction.legal_calls()
        rng = _stdlib_random.Random(
            position_seed(
                "random-bid", int(view.seat), tuple(view_hand_cards(view)), tuple(str(c) for c in auction.calls)
            )
        )
        if PASS in legal and rng.random() < 0.5:
            return PASS
        others = [c for c in legal if c != PASS] or legal
        return others[rng.randrange(len(others))]

    __call__ = bid


class PaperBidder:
    """The NT call algorithm as the game study uses it.

    Bids the cheapest NT level that outranks the current bid when the hand qualifies at that
    level or higher (its highest qualifying level under ``estimators.nt_call``), else passes.
    Never doubles. Candidate scores: 1 for the chosen call, 0 for the other.
    """

    name = "paper"

    def highest_level(self, view: SeatView) -> int:
        """The hand's highest qualifying NT level (0 = none)."""
        return int(highest_nt_level_batch(hand_masks(view_hand_cards(view))[None, :])[0])

    def candidates(self, view: SeatView) -> list[tuple[Call, float]]:
        """The NT bid (if any is legal) and pass, the chosen one scored 1."""
        auction = view_auction(view)
        nt = cheapest_nt(auction)
        chosen = self.bid(view)
        cands = [(PASS, 0.0)] if auction.is_legal(PASS) else []
        if nt is not None:
            cands.append((nt, 0.0))
        cands = [(c, 1.0 if c == chosen else 0.0) for c, _ in cands]
        if chosen not in [c for c, _ in cands]:
            cands.append((chosen, 1.0))
        return _order(cands, auction, chosen)

    def bid(self, view: SeatView) -> Call:
        """Cheapest NT within the highest qualifying level, else pass."""
        auction = view_auction(view)
        nt = cheapest_nt(auction)
        if nt is not None and nt.level <= self.highest_level(view):
            return nt
        return _fallback_if_illegal(auction, PASS)

    __call__ = bid


# --- trick evaluation for a partnership (declarer + widow) -------------------------------------

TrickEvaluator = Callable[[np.ndarray, int, int, bool], np.ndarray]
"""(layouts uint8[n,52] in dealing seats, dealer, declarer, nt_only) -> tricks float[n, 5] of declarer + widow
per strain C D H S NT (NaN where not computed)."""


def dd_evaluator(layouts: np.ndarray, dealer: int, declarer: int, nt_only: bool = False) -> np.ndarray:
    """Double-dummy tricks of declarer + widow per strain on each layout (via ``tribridge.dd``)."""
    if len(layouts) == 0:
        return np.zeros((0, 5))
    deals = np.stack([play_deal(Deal.from_owners(layout), dealer, declarer).to_owners() for layout in layouts])
    tables = dd_tables_array(deals, nt_only=nt_only, cache=False, workers=1)[:, declarer, :].astype(np.float64)
    tables[tables == 255] = np.nan
    return tables


def estimate_evaluator(layouts: np.ndarray, dealer: int, declarer: int, nt_only: bool = False) -> np.ndarray:
    """Estimated tricks of declarer + widow per strain (the fast estimator ``estimators.tricks``)."""
    widow = dealer ^ 2
    decl = layout_masks(layouts, declarer)
    dummy = layout_masks(layouts, widow)
    if len(layouts) == 0:
        return np.zeros((0, 5))
    if nt_only:
        out = np.full((len(layouts), 5), np.nan)
        out[:, NT] = np.asarray(estimate_nt_tricks(decl, dummy), dtype=np.float64)
        return out
    return np.asarray(estimate_tricks(decl, dummy), dtype=np.float64)


class _TrickTable:
    """Per-declarer trick tables over one set of layouts, computed on first use."""

    def __init__(self, evaluator: TrickEvaluator, layouts: np.ndarray, dealer: int) -> None:
        self.evaluator, self.layouts, self.dealer = evaluator, layouts, dealer
        self.tables: dict[int, np.ndarray] = {}

    def tricks(self, declarer: int, strain: int) -> np.ndarray:
        """Tricks of ``declarer`` + widow in ``strain`` on each layout."""
        table = self.tables.get(declarer)
        if table is None or np.isnan(table[:, strain]).any():
            table = self.evaluator(self.layouts, self.dealer, declarer, table is None and strain == NT)
            self.tables[declarer] = table
        return table[:, strain]


EVALUATORS: dict[str, TrickEvaluator] = {"dd": dd_evaluator, "estimate": estimate_evaluator}


def resolve_evaluator(name: str) -> str:
    """``auto`` means the fast estimator when it is installed, else double dummy."""
    if name == "auto":
        try:
            default_model()
        except (ImportError, InvalidInput):
            return "dd"
        return "estimate"
    if name not in EVALUATORS:
        raise InvalidInput("evaluator", f"expected one of auto, {', '.join(sorted(EVALUATORS))}, got {name!r}")
    return name


OBJECTIVES = ("relative", "own")


def _score_for(seat: int, contract: Contract | None, tricks: float, scheme: Any, objective: str = "relative") -> float:
    """``seat``'s value when ``contract`` (None: passed out) ends with the declarer taking ``tricks``.

    ``own``: the seat's own score. ``relative``: its score minus the mean of the other two
    players' scores, what a match between the three compares (a failed contract costs the
    declarer nothing under ``classic`` but pays each defender, so ``own`` overbids).
    """
    if contract is None:
        return 0.0
    t = int(np.clip(round(float(tricks)), 0, 13))
    ds = score_deal(contract, t, scheme)
    if int(contract.declarer) == seat:
        mine, others = ds.declarer, (ds.each_defender, ds.each_defender)
    else:
        mine, others = ds.each_defender, (ds.declarer, ds.each_defender)
    if objective == "own":
        return float(mine)
    return float(mine - 0.5 * (others[0] + others[1]))


def _check_objective(objective: str) -> str:
    if objective not in OBJECTIVES:
        raise InvalidInput("objective", f"expected one of {', '.join(OBJECTIVES)}, got {objective!r}")
    return objective


class EstimateBidder:
    """Bids the denomination with the best expected score by a trick estimate, at the cheapest legal level.

    For each denomination the partnership's tricks (own hand + the widow) are estimated by
    averaging the trick evaluator over ``layouts`` random widows drawn from the unseen cards.
    It bids the cheapest legal bid in the denomination whose expected score (made contract
    at that level with the estimated tricks) is highest, if the estimate reaches that level
    plus ``margin``; else passes. Candidate score: the expected value of each bid under ``objective``
    (as for SimulationBidder; pass: 0).
    """

    name = "estimate"

    def __init__(
        self,
        layouts: int | None = None,
        evaluator: str = "auto",
        margin: float = 0.5,
        scheme: str = "classic",
        objective: str = "relative",
    ) -> None:
        self.objective = _check_objective(objective)
        self.evaluator = resolve_evaluator(evaluator)
        self.layouts = layouts if layouts is not None else (32 if self.evaluator == "estimate" else 8)
        self.margin = margin
        self.scheme = get_scheme(scheme)

    def _widows(self, view: SeatView) -> np.ndarray:
        auction = view_auction(view)
        seat = int(view.seat)
        k = build_knowledge({seat: view_hand_cards(view)})
        rng = random_stream(
            position_seed("estimate", seat, tuple(view_hand_cards(view)), tuple(str(c) for c in auction.calls))
        )
        return sample_layouts(k, self.layouts, rng).layouts

    def candidates(self, view: SeatView) -> list[tuple[Call, float]]:
        """Cheapest legal bid per denomination with its expected score; pass scores 0."""
        auction = view_auction(view)
        seat = int(view.seat)
        layouts = self._widows(view)
        cands: list[tuple[Call, float]] = []
        best: tuple[float, Call] | None = None
        table = _TrickTable(EVALUATORS[self.evaluator], layouts, int(auction.dealer))
        for denom in range(5):
            call = cheapest_in(auction, denom)
            if call is None:
                continue
            tricks = table.tricks(seat, denom)
            contract = Contract(call.level, Denom(denom), 0, auction.turn)  # type: ignore[arg-type]
            expected = float(np.mean([_score_for(seat, contract, t, self.scheme, self.objective) for t in tricks]))
            cands.append((call, expected))
            if float(tricks.mean()) >= call.level + 6 + self.margin and (best is None or expected > best[0]):
                best = (expected, call)
        chosen = _fallback_if_illegal(auction, best[1] if best else PASS)
        if auction.is_legal(PASS):
            cands.append((PASS, 0.0))
        return _order(cands, auction, chosen)

    def bid(self, view: SeatView) -> Call:
        """The first candidate."""
        return self.candidates(view)[0][0]

    __call__ = bid


@dataclass
class SimulationReport:
    """What the last SimulationBidder decision saw."""

    sample: BeliefSample
    scores: dict[str, float]


# Once another bidder has doubled, a contract of ours that fails by this many tricks is scored as doubled:
# the rollouts' bidders never double, so without it, running from a double always looks cheaper than staying.
DOUBLED_FROM = 2


def _doubled_by_another(auction: AuctionState, seat: int) -> bool:
    """Whether a bidder other than ``seat`` has doubled in this auction."""
    return any(c == DOUBLE and int(auction.seat_of_call(i)) != seat for i, c in enumerate(auction.calls))


def _doubled_if_it_fails(contract: Contract, seat: int, tricks: int, doubled_from: int) -> Contract:
    """``contract`` doubled when ``seat`` declares it undoubled and ``tricks`` leave it ``doubled_from`` or more
    down."""
    if int(contract.declarer) != seat or contract.doubling or tricks > contract.level + 6 - doubled_from:
        return contract
    return Contract(contract.level, contract.denom, 1, contract.declarer)


class SimulationBidder:
    """Samples the widow and the other bidders' hands consistent with the auction; picks the call with the best expected score.

    Layouts come from the belief sampler with the auction facts of the paper model. Each
    candidate call (pass; the cheapest and next level in every denomination; double or redouble
    when legal) is played into every layout: the rest of the auction is rolled out with the
    other two bidders calling as ``PaperBidder`` on their sampled hands and this seat passing;
    the final contract is scored under the scheme with the declarer's tricks from the trick
    evaluator. Candidate score: the mean over the layouts of this seat's score minus the mean of the
    other two players' scores (``objective="relative"``, the default) or of its own score (``"own"``).
    Ties go to the first candidate in the order pass, bids cheapest first, double. The rollouts' bidders never
    double, so once another bidder has doubled, a contract this seat would declare is scored as doubled where
    it fails by ``doubled_from`` tricks or more (without that, running from a double to a higher undoubled
    contract always looked cheaper, and two of these bidders doubled and ran up to seven no-trump doubled).
    """

    name = "simulation"

    def __init__(
        self,
        layouts: int | None = None,
        evaluator: str = "auto",
        scheme: str = "classic",
        max_draws: int | None = None,
        objective: str = "relative",
        doubled_from: int = DOUBLED_FROM,
    ) -> None:
        self.objective = _check_objective(objective)
        if doubled_from < 1:
            raise InvalidInput("doubled_from", f"expected a number of undertricks >= 1, got {doubled_from}")
        self.doubled_from = doubled_from
        evaluator = resolve_evaluator(evaluator)
        if layouts is None:  # the fast estimator affords many layouts; double dummy few
            layouts = 64 if evaluator == "estimate" else 8
        if layouts < 1:
            raise InvalidInput("layouts", f"expected at least 1 layout, got {layouts}")
        self.layouts = layouts
        self.evaluator = evaluator
        self.scheme = get_scheme(scheme)
        self.max_draws = max_draws
        self.last: SimulationReport | None = None

    def candidate_calls(self, auction: AuctionState) -> list[Call]:
        """The calls this bidder considers."""
        legal = auction.legal_calls()
        out: list[Call] = [c for c in legal if c == PASS]
        for denom in range(5):
            first = cheapest_in(auction, denom)
            if first is None:
                continue
            out.append(first)
            if first.level < 7:
                nxt = bid(first.level + 1, Denom(denom))
                if auction.is_legal(nxt):
                    out.append(nxt)
        out.sort(key=lambda c: (c != PASS, c.level, int(c.denom) if c.denom is not None else 0))
        out += [c for c in legal if c in (DOUBLE, REDOUBLE)]
        return out

    def sample(self, view: SeatView) -> BeliefSample:
        """Layouts (dealing seats) consistent with the hand and the auction facts."""
        auction = view_auction(view)
        seat = int(view.seat)
        cards = view_hand_cards(view)
        k = build_knowledge({seat: cards}, facts=auction_facts(auction, exclude=seat))
        rng = random_stream(
            position_seed("simulation", seat, tuple(cards), int(auction.dealer), tuple(str(c) for c in auction.calls))
        )
        return sample_layouts(k, self.layouts, rng, max_draws=self.max_draws)

    def candidates(self, view: SeatView) -> list[tuple[Call, float]]:
        """Every considered call with this seat's mean score over the layouts, best first."""
        auction = view_auction(view)
        seat = int(view.seat)
        sample = self.sample(view)
        layouts = sample.layouts
        dealer = int(auction.dealer)
        levels = {int(s): highest_nt_level_batch(layout_masks(layouts, int(s))) for s in auction.bidders}
        table = _TrickTable(EVALUATORS[self.evaluator], layouts, dealer)
        tricks_for = table.tricks

        others = [int(s) for s in auction.bidders if int(s) != seat]
        # a rollout depends only on the other two bidders' NT levels: run each distinct pair once
        level_keys = [tuple(int(levels[o][i]) for o in others) for i in range(len(layouts))]
        score_memo: dict[tuple[Contract, int], float] = {}
        cands: list[tuple[Call, float]] = []
        doubled_before = _doubled_by_another(auction, seat)
        for call in self.candidate_calls(auction):
            after = auction.apply(call)
            rollouts: dict[tuple[int, ...], Contract | None] = {}
            total = 0.0
            for i, key in enumerate(level_keys):
                if key not in rollouts:
                    rollouts[key] = self._rollout(after, seat, levels, i)
                contract = rollouts[key]
                if contract is None:
                    continue
                t = int(np.clip(round(float(tricks_for(int(contract.declarer), int(contract.denom))[i])), 0, 13))
                if doubled_before:
                    contract = _doubled_if_it_fails(contract, seat, t, self.doubled_from)
                if (contract, t) not in score_memo:
                    score_memo[(contract, t)] = _score_for(seat, contract, t, self.scheme, self.objective)
                total += score_memo[(contract, t)]
            cands.append((call, total / max(1, len(layouts))))
        best = max(range(len(cands)), key=lambda i: (cands[i][1], -i))
        chosen = cands[best][0]
        self.last = SimulationReport(sample, {str(c): s for c, s in cands})
        return _order(cands, auction, chosen)

    @staticmethod
    def _rollout(state: AuctionState, me: int, levels: dict[int, np.ndarray], row: int) -> Contract | None:
        """Finish the auction: the others call as PaperBidder on layout ``row``, ``me`` passes."""
        while not state.is_over:
            turn = int(state.turn)  # type: ignore[arg-type]
            call = PASS
            if turn != me:
                nt = cheapest_nt(state)
                if nt is not None and nt.level <= int(levels[turn][row]):
                    call = nt
            state = state.apply(_fallback_if_illegal(state, call))
        return state.contract

    def bid(self, view: SeatView) -> Call:
        """The best candidate."""
        return self.candidates(view)[0][0]

    __call__ = bid
