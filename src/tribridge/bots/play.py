"""Card-play bots: RandomPlayer, DoubleDummyPlayer and PimcPlayer (sampled layouts, each solved double dummy).

The PIMC core (:func:`pimc_decide`) works on a :class:`CardPosition`: the contract's declarer and
trump, the whole original hands the deciding seat can see (its own, dummy's once exposed), the
cards played so far in order, and optional auction facts. It serves three-player auction bridge
(through :class:`PimcPlayer`, which reads a player's ``SeatView``) and ordinary four-handed bridge (the
robot API builds a ``CardPosition`` directly). The same position always gets the same card: the
layouts are drawn from a generator seeded with a hash of the position as the seat sees it.
"""

from __future__ import annotations

import random as _stdlib_random
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from tribridge.bots.belief import (
    BeliefSample,
    NtFact,
    facts_for_play_view,
    position_seed,
    sample_layouts,
)
from tribridge.bots.belief_features import view_features
from tribridge.bots.belief_model import (
    BeliefModel,
    default_belief_model,
    importance_resample,
    layout_log_weights,
)
from tribridge.bots.layout_solve import (
    dd_card_scores,
    hidden_plays,
    play_inconsistencies,
)
from tribridge.bots.position import CardPosition
from tribridge.cards import Card
from tribridge.dealing.streams import random_stream
from tribridge.errors import InvalidInput
from tribridge.rules.view import SeatView

DEFAULT_LAYOUTS = 32
# The first trick is by far the most expensive to solve double dummy (about 0.2-0.8 s a layout for
# a full 52-card deal here), so PIMC samples at most this many layouts while the first trick is in
# progress. Deterministic (a function of the position), so "same position, same card" still holds.
FIRST_TRICK_LAYOUTS = 12
# ``early_layouts``: caps on the layouts of tricks 1, 2, ... (later tricks use all of them); the default
# caps the first trick only. Capping tricks 1-3 at (10, 12, 20) bounds more of the slow cards but gave
# away more tricks in defence (docs/bots.md, speed).
EARLY_LAYOUTS = (FIRST_TRICK_LAYOUTS,)
# With play checks on, PIMC draws this many layouts per layout it keeps (docs/bots.md, card play:
# 3 was measured over 500 deals against 2; the difference is within the noise, 3 costs ~1.3x).
OVERSAMPLE = 3
TIE_EPSILON = 1e-9
# With the learned belief model, PIMC draws this many consistent layouts per layout it keeps and
# resamples them by the model's importance weights (docs/bots.md, belief model).
MODEL_POOL = 4
BELIEFS = ("paper", "model")


# --------------------------------------------------------------------------------------------
# PIMC
# --------------------------------------------------------------------------------------------


@dataclass
class PimcDecision:
    """The chosen card, every legal card with its mean double-dummy tricks, and how it was found."""

    card: int
    candidates: list[tuple[int, float]]
    searched: bool
    sample: BeliefSample | None = None


def _tie_key(card: int) -> tuple[int, int]:
    """Deterministic tie-break among equal means: the lowest rank first, then the lowest suit."""
    return (-(card % 13), card // 13)


def layouts_for(position: CardPosition, layouts: int, early_layouts: Sequence[int] = EARLY_LAYOUTS) -> int:
    """Layouts to sample for ``position``: ``layouts``, capped at ``early_layouts[t]`` during trick ``t + 1``."""
    trick = len(position.played) // 4
    if trick < len(early_layouts):
        return max(1, min(layouts, int(early_layouts[trick])))
    return layouts


def check_early_layouts(early_layouts: Sequence[int]) -> tuple[int, ...]:
    """``early_layouts`` as a tuple of ints >= 1, or InvalidInput naming the field."""
    try:
        caps = tuple(int(n) for n in early_layouts)
    except (TypeError, ValueError):
        raise InvalidInput("early_layouts", f"expected layout counts, got {early_layouts!r}") from None
    if any(n < 1 for n in caps) or len(caps) > 13:
        raise InvalidInput("early_layouts", f"expected at most 13 counts, each at least 1, got {early_layouts!r}")
    return caps


def _check_time_budget(time_budget: float | None) -> None:
    """Raise InvalidInput naming the field unless ``time_budget`` is None or seconds > 0."""
    if time_budget is not None and not time_budget > 0:
        raise InvalidInput("time_budget", f"expected seconds > 0 (or none), got {time_budget}")


def _check_play_options(check_plays: int, oversample: int) -> None:
    """Raise InvalidInput naming the field unless ``check_plays`` >= 0 and ``oversample`` >= 1."""
    if check_plays < 0:
        raise InvalidInput("check_plays", f"expected a number of plays >= 0, got {check_plays}")
    if oversample < 1:
        raise InvalidInput("oversample", f"expected a factor >= 1, got {oversample}")


def consistent_order(layouts: np.ndarray, position: CardPosition, wanted: int, plays: Sequence[int]) -> np.ndarray:
    """Indices of the ``wanted`` layouts that best explain the given hidden ``plays`` as double-dummy best.

    ``plays`` are indices into ``position.played`` (see :func:`hidden_plays`). Layouts are ranked by
    how many of those plays were not double-dummy best in them (fewest first, sample order among
    equals), so when too few explain every play the closest fill in.
    """
    if not plays or len(layouts) <= wanted:
        return np.arange(min(wanted, len(layouts)))
    misses = play_inconsistencies(layouts, position, plays)
    return np.argsort(misses, kind="stable")[:wanted]


def _model_sample(
    position: CardPosition,
    potentials: np.ndarray,
    layouts: int,
    pool: int,
    rng: np.random.Generator,
    max_draws: int | None,
) -> tuple[BeliefSample, np.ndarray]:
    """``pool * layouts`` consistent layouts resampled to ``layouts`` by the model's weights; (sample, counts)."""
    knowledge = position.knowledge()
    sample = sample_layouts(knowledge, layouts * pool, rng, max_draws=max_draws)
    unseen = np.array(knowledge.unseen(), dtype=np.int64)
    log_w = layout_log_weights(sample.layouts, potentials, unseen)
    picked = importance_resample(log_w, layouts, rng)
    unique, counts = np.unique(picked, return_counts=True)
    kept = replace(sample, layouts=sample.layouts[unique], requested=layouts, relaxed=sample.relaxed[unique])
    return kept, counts.astype(np.float64)


def pimc_decide(
    position: CardPosition,
    layouts: int = DEFAULT_LAYOUTS,
    seed: int | None = None,
    max_draws: int | None = None,
    early_layouts: Sequence[int] = EARLY_LAYOUTS,
    check_plays: int = 0,
    oversample: int = OVERSAMPLE,
    potentials: np.ndarray | None = None,
    pool: int = MODEL_POOL,
    time_budget: float | None = None,
) -> PimcDecision:
    """Choose a card by PIMC: mean double-dummy tricks over sampled layouts; best mean wins.

    With ``check_plays`` > 0, ``oversample`` times as many layouts are drawn and those in which the
    last ``check_plays`` cards of the unseen hands were double-dummy best are kept (the opponents
    are assumed to play well); see :func:`consistent_order`. With ``potentials`` (``float[52, 4]``
    from the belief model, :meth:`BeliefModel.potentials`), ``pool`` times as many consistent layouts
    are drawn and resampled by importance weight; a layout drawn twice is solved once and counted twice.
    With ``time_budget`` (seconds) only the layouts solved within it count (at least BUDGET_MIN_LAYOUTS), so
    a slow position may be decided on fewer layouts and the card then depends on the machine's speed (the
    budget bounds the final solve, not the play checks' solves).
    """
    started = time.perf_counter()
    legal = position.legal_cards()
    if not legal:
        raise InvalidInput("position", "no card to play")
    if len(legal) == 1:
        return PimcDecision(legal[0], [(legal[0], float("nan"))], searched=False)
    _check_play_options(check_plays, oversample)
    _check_time_budget(time_budget)
    if pool < 1:
        raise InvalidInput("pool", f"expected a factor >= 1, got {pool}")
    layouts = layouts_for(position, layouts, check_early_layouts(early_layouts))
    rng = random_stream(position.seed() if seed is None else seed)
    plays = hidden_plays(position, check_plays) if check_plays else []
    counts: np.ndarray | None = None
    drawn = layouts * oversample if plays else layouts
    if potentials is not None:
        sample, counts = _model_sample(position, potentials, drawn, pool, rng, max_draws)
    else:
        sample = sample_layouts(position.knowledge(), drawn, rng, max_draws=max_draws)
    if plays:
        keep = consistent_order(sample.layouts, position, layouts, plays)
        sample = replace(sample, layouts=sample.layouts[keep], requested=layouts, relaxed=sample.relaxed[keep])
        counts = None if counts is None else counts[keep]
    budget_left = None if time_budget is None else time_budget - (time.perf_counter() - started)
    cards, scores = dd_card_scores(sample.layouts, position, budget_left)
    if len(scores) < len(sample.layouts):  # the budget ran out: the layouts solved are the ones counted
        sample = replace(sample, layouts=sample.layouts[: len(scores)], relaxed=sample.relaxed[: len(scores)])
        counts = None if counts is None else counts[: len(scores)]
    if len(scores) == 0:
        means = np.zeros(len(cards))
    elif counts is not None:
        means = counts @ scores / counts.sum()
    else:
        means = scores.mean(axis=0)
    candidates = sorted(zip(cards, means.tolist()), key=lambda cm: (-cm[1], _tie_key(cm[0])))
    best_mean = candidates[0][1]
    tied = [c for c, m in candidates if m >= best_mean - TIE_EPSILON]
    choice = min(tied, key=_tie_key)
    return PimcDecision(choice, [(c, float(m)) for c, m in candidates], searched=True, sample=sample)


# --------------------------------------------------------------------------------------------
# Players over a 3PAB SeatView
# --------------------------------------------------------------------------------------------


def _view_cards(hand: Any) -> tuple[int, ...]:
    """Card indices from a Hand, a set of ints or a list of Cards."""
    if hand is None:
        return ()
    cards = getattr(hand, "cards", hand)
    return tuple(sorted(c.index if isinstance(c, Card) else int(c) for c in cards))


def position_from_view(view: SeatView, facts: Sequence[NtFact] = ()) -> CardPosition:
    """The CardPosition a player's ``SeatView`` shows (own hand, dummy once exposed, the cards played)."""
    contract = view.contract
    if contract is None:
        raise InvalidInput("view", "no contract: nothing to play")
    hands: dict[int, tuple[int, ...]] = {int(view.seat): _view_cards(view.hand)}
    if view.dummy is not None:
        hands[int(contract.declarer) ^ 2] = _view_cards(view.dummy)
    trump = contract.trump
    played = tuple(c.index for c in view.played_cards)
    return CardPosition(
        int(contract.declarer),
        None if trump is None else int(trump),
        tuple(sorted(hands.items())),
        played,
        tuple(facts),
    )


class RandomPlayer:
    """Plays a uniformly random legal card (seeded from the position, so repeatable)."""

    name = "random"

    def cache_key(self) -> tuple:
        """Configuration that fixes this player's choices (it is deterministic for a position)."""
        return ("random",)

    def candidates(self, view: SeatView) -> list[tuple[Card, float]]:
        """Every legal card with equal score."""
        legal = view.legal_cards()
        return [(c, 1.0 / len(legal)) for c in legal]

    def play(self, view: SeatView) -> Card:
        """A random legal card."""
        legal = sorted(view.legal_cards())
        if view.to_play is None:
            raise InvalidInput("view", "no card is to be played in this view")
        seed = position_seed(
            "random", int(view.to_play), tuple(c.index for c in view.played_cards), _view_cards(view.hand)
        )
        return legal[_stdlib_random.Random(seed).randrange(len(legal))]

    __call__ = play


class DoubleDummyPlayer:
    """Sees all four hands and plays a double-dummy best card (an upper bound, for tests and baselines)."""

    name = "dd"
    sees_all = True  # asks for views with every hand (``DealState.view(..., reveal_all=True)``)

    def cache_key(self) -> tuple:
        """Configuration that fixes this player's choices (it is deterministic for a position)."""
        return ("dd",)

    def candidates(self, view: SeatView) -> list[tuple[Card, float]]:
        """Every legal card with its double-dummy tricks for the side to play."""
        if view.all_hands is None:
            raise InvalidInput("view", "the double-dummy player needs a view with every hand (reveal_all)")
        position = _full_position(view)
        cards, scores = dd_card_scores(view.all_hands.to_owners()[None, :], position)
        ranked = sorted(zip(cards, scores[0].tolist()), key=lambda cm: (-cm[1], _tie_key(cm[0])))
        return [(Card(c), float(m)) for c, m in ranked]

    def play(self, view: SeatView) -> Card:
        """The best double-dummy card (ties: lowest rank)."""
        legal = view.legal_cards()
        if len(legal) == 1:
            return legal[0]
        ranked = self.candidates(view)
        best = ranked[0][1]
        return min((c for c, m in ranked if m >= best - TIE_EPSILON), key=lambda c: _tie_key(c.index))

    __call__ = play


def _full_position(view: SeatView) -> CardPosition:
    """A CardPosition that sees all four hands (for the double-dummy player)."""
    contract = view.contract
    assert contract is not None and view.all_hands is not None
    hands = tuple((s, tuple(sorted(view.all_hands[s].cards))) for s in range(4))
    trump = contract.trump
    return CardPosition(
        int(contract.declarer), None if trump is None else int(trump), hands, tuple(c.index for c in view.played_cards)
    )


class PimcPlayer:
    """PIMC: K layouts from the belief sampler, each legal card scored by mean double-dummy tricks.

    ``belief``: ``"paper"`` (the default) reads the auction with the paper's NT-call model (when
    ``use_auction``); ``"model"`` draws consistent layouts without auction facts and resamples them
    by the learned belief model's importance weights (``belief_model``: the shipped one by default).
    """

    name = "pimc"

    def __init__(
        self,
        layouts: int = DEFAULT_LAYOUTS,
        use_auction: bool = True,
        max_draws: int | None = None,
        early_layouts: Sequence[int] = EARLY_LAYOUTS,
        check_plays: int = 0,
        oversample: int = OVERSAMPLE,
        belief: str = "paper",
        pool: int = MODEL_POOL,
        belief_model: BeliefModel | None = None,
        time_budget: float | None = None,
    ) -> None:
        if belief not in BELIEFS:
            raise InvalidInput("belief", f"expected one of {', '.join(BELIEFS)}, got {belief!r}")
        if pool < 1:
            raise InvalidInput("pool", f"expected a factor >= 1, got {pool}")
        if layouts < 1:
            raise InvalidInput("layouts", f"expected at least 1 layout, got {layouts}")
        self.layouts = layouts
        self.early_layouts = check_early_layouts(early_layouts)
        self.use_auction = use_auction
        self.max_draws = max_draws
        _check_play_options(check_plays, oversample)
        self.check_plays = check_plays
        self.oversample = oversample
        self.belief = belief
        self.pool = pool
        self.belief_model = belief_model
        _check_time_budget(time_budget)
        self.time_budget = time_budget
        self.last: PimcDecision | None = None

    def cache_key(self) -> tuple:
        """Configuration that fixes this player's choices (it is deterministic for a position)."""
        return (
            (
                "pimc",
                self.layouts,
                self.early_layouts,
                self.use_auction,
                self.max_draws,
                self.check_plays,
                self.oversample,
            )
            + (() if self.belief == "paper" else (self.belief, self.pool, self._model_key()))
            + (() if self.time_budget is None else ("budget", self.time_budget))
        )

    def _model_key(self) -> tuple:
        """The weights in use (the shipped model is named, a given one is keyed by its weights)."""
        if self.belief_model is None:
            return ("shipped",)
        return ("given", self.belief_model.flat().tobytes())

    def _facts(self, view: SeatView) -> list[NtFact]:
        if not self.use_auction or self.belief == "model":
            return []
        return facts_for_play_view(view)

    def decide(self, view: SeatView) -> PimcDecision:
        """The full decision (card, candidates, sample statistics) for a SeatView."""
        legal = view.legal_cards()
        if len(legal) == 1:
            decision = PimcDecision(legal[0].index, [(legal[0].index, float("nan"))], searched=False)
        else:
            decision = pimc_decide(
                position_from_view(view, self._facts(view)),
                self.layouts,
                max_draws=self.max_draws,
                early_layouts=self.early_layouts,
                check_plays=self.check_plays,
                oversample=self.oversample,
                potentials=self._potentials(view),
                pool=self.pool,
                time_budget=self.time_budget,
            )
        self.last = decision
        return decision

    def _potentials(self, view: SeatView) -> np.ndarray | None:
        """The belief model's potentials for this view (``belief="model"``), else None."""
        if self.belief != "model":
            return None
        model = self.belief_model if self.belief_model is not None else default_belief_model()
        return model.potentials(view_features(view))

    def candidates(self, view: SeatView) -> list[tuple[Card, float]]:
        """Legal cards with mean double-dummy tricks, best first."""
        return [(Card(c), m) for c, m in self.decide(view).candidates]

    def play(self, view: SeatView) -> Card:
        """The PIMC card."""
        return Card(self.decide(view).card)

    __call__ = play
