"""Belief sampling: layouts of the hidden cards consistent with everything one seat knows.

A *layout* is a whole original deal as a ``uint8[52]`` owner array (the seat that was dealt
each card), so auction facts, which are about the 13 cards a player was dealt, can be checked
on it directly. What a seat knows is a :class:`Knowledge`:

- ``known_owner``: the owner of every card the seat has seen (its own hand, the dummy once it
  is exposed, every card played, in whose hand it was); ``-1`` for the unseen cards;
- ``voids``: per seat, the suits it has shown out of (no unseen card of that suit is there);
- ``facts``: :class:`NtFact` statements from the auction about a player's highest qualifying
  level under the No-Trump call algorithm (a player who passed when the cheapest NT bid was
  L does not qualify at L; a player who bid L NT qualifies at L).

Cards and voids are hard: the sampler deals the unseen cards *exactly uniformly* among the
layouts that respect them (constrained dealing, no rejection). Auction facts are checked by
rejection with a budget; the acceptance rate is reported. If the budget runs out, the sampler
returns fewer layouts and says so, or, with ``relax=True``, drops auction facts (the
"qualified at L" ones first) and flags every layout dealt without them. A returned layout
never contradicts the known cards or voids, and never contradicts a fact it is not flagged
as relaxed from.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from tribridge.cards import Seat, owners_to_masks
from tribridge.errors import InvalidInput
from tribridge.estimators.nt_call import highest_nt_level_batch
from tribridge.rules.auction import AuctionState, Denom
from tribridge.rules.view import SeatView

HAND_SIZE = 13


@dataclass(frozen=True)
class NtFact:
    """An auction fact about one seat's dealt hand: its highest qualifying NT level lies in a range.

    ``at_least``: the hand qualifies at this NT level (it bid it); ``below``: it does not
    qualify at this level (it passed when this was the cheapest NT bid). Either may be None.
    """

    seat: int
    at_least: int | None = None
    below: int | None = None
    source: str = ""

    def holds(self, highest_level: int) -> bool:
        """Whether a hand whose highest qualifying NT level is ``highest_level`` (0 = none) fits."""
        if self.at_least is not None and highest_level < self.at_least:
            return False
        if self.below is not None and highest_level >= self.below:
            return False
        return True


@dataclass(frozen=True)
class Knowledge:
    """Everything one seat knows about the deal (see the module docstring)."""

    known_owner: tuple[int, ...]
    voids: tuple[frozenset[int], frozenset[int], frozenset[int], frozenset[int]] = (
        frozenset(),
        frozenset(),
        frozenset(),
        frozenset(),
    )
    facts: tuple[NtFact, ...] = ()

    def needs(self) -> list[int]:
        """How many unseen cards each seat still needs to make 13."""
        counts = [0, 0, 0, 0]
        for owner in self.known_owner:
            if owner >= 0:
                counts[owner] += 1
        return [HAND_SIZE - c for c in counts]

    def unseen(self) -> list[int]:
        """Card indices whose owner the seat does not know."""
        return [c for c, owner in enumerate(self.known_owner) if owner < 0]

    def key(self) -> bytes:
        """A stable byte string describing this knowledge (for seeding and caching)."""
        text = repr(
            (
                self.known_owner,
                tuple(tuple(sorted(v)) for v in self.voids),
                tuple((f.seat, f.at_least, f.below) for f in self.facts),
            )
        )
        return text.encode()


def build_knowledge(
    known_hands: Mapping[int, Iterable[int]],
    played: Sequence[tuple[int, int]] = (),
    voids: Mapping[int, Iterable[int]] | None = None,
    facts: Sequence[NtFact] = (),
) -> Knowledge:
    """Knowledge from whole hands the seat sees, cards played ``(seat, card)`` and shown voids.

    Raises ``InvalidInput`` when the pieces contradict each other (a card in two places, more
    than 13 cards for a seat, a seat that played a card of a suit it showed out of later is fine
    but a known card of a void suit among its *unplayed* cards is not).
    """
    owner = [-1] * 52
    for seat, cards in known_hands.items():
        for c in cards:
            c = int(c)
            if owner[c] >= 0 and owner[c] != seat:
                raise InvalidInput("known_hands", f"card {c} is placed with two seats")
            owner[c] = int(seat)
    played_cards: set[int] = set()
    for seat, c in played:
        c = int(c)
        if c in played_cards:
            raise InvalidInput("played", f"card {c} was played twice")
        played_cards.add(c)
        if owner[c] >= 0 and owner[c] != seat:
            raise InvalidInput("played", f"card {c} was played by seat {seat} but belongs to seat {owner[c]}")
        owner[c] = int(seat)
    counts = [owner.count(s) for s in range(4)]
    for s, n in enumerate(counts):
        if n > HAND_SIZE:
            raise InvalidInput("known_hands", f"seat {s} would hold {n} cards")
    void_sets: list[frozenset[int]] = [frozenset(), frozenset(), frozenset(), frozenset()]
    for seat, suits in (voids or {}).items():
        void_sets[int(seat)] = frozenset(int(s) for s in suits)
    for seat in range(4):
        for c, o in enumerate(owner):
            if o == seat and c not in played_cards and c // 13 in void_sets[seat]:
                raise InvalidInput("voids", f"seat {seat} shows out of suit {c // 13} but holds card {c}")
    return Knowledge(tuple(owner), tuple(void_sets), tuple(facts))  # type: ignore[arg-type]


@dataclass
class BeliefSample:
    """Layouts drawn for one position, with what it took to get them."""

    layouts: np.ndarray  # uint8[k, 52], original owners
    requested: int
    drawn: int  # layouts dealt (before the auction-fact check)
    accepted: int  # of those, how many met every active fact
    relaxed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))  # per layout
    dropped_facts: tuple[NtFact, ...] = ()

    @property
    def acceptance_rate(self) -> float:
        """Share of dealt layouts that met the auction facts in force when they were dealt."""
        return self.accepted / self.drawn if self.drawn else 1.0

    @property
    def complete(self) -> bool:
        """Whether as many layouts as requested came back."""
        return len(self.layouts) >= self.requested

    @property
    def any_relaxed(self) -> bool:
        """Whether some layouts were dealt without some auction facts."""
        return bool(self.relaxed.any()) if self.relaxed.size else False


# --------------------------------------------------------------------------------------------
# Constrained dealing of the unseen cards (exactly uniform over the consistent layouts)
# --------------------------------------------------------------------------------------------


class _Dealer:
    """Deals the unseen cards of a Knowledge uniformly among layouts respecting counts and voids."""

    def __init__(self, knowledge: Knowledge) -> None:
        self.base = np.array([max(o, 0) for o in knowledge.known_owner], dtype=np.uint8)
        needs = knowledge.needs()
        unseen = knowledge.unseen()
        if sum(needs) != len(unseen) or min(needs) < 0:
            raise InvalidInput("knowledge", f"unseen cards {len(unseen)} do not fit the seats' needs {needs}")
        groups: dict[tuple[int, ...], list[int]] = {}
        for c in unseen:
            allowed = tuple(s for s in range(4) if needs[s] > 0 and (c // 13) not in knowledge.voids[s])
            if not allowed:
                raise InvalidInput("voids", f"no seat can hold card {c}: every seat that needs cards has shown out")
            groups.setdefault(allowed, []).append(c)
        forced_need = list(needs)
        self.forced: list[tuple[int, np.ndarray]] = []
        self.classes: list[tuple[tuple[int, ...], np.ndarray]] = []
        for allowed, cards in sorted(groups.items()):
            if len(allowed) == 1:
                forced_need[allowed[0]] -= len(cards)
                self.forced.append((allowed[0], np.array(cards, dtype=np.int64)))
            else:
                self.classes.append((allowed, np.array(cards, dtype=np.int64)))
        if min(forced_need) < 0:
            raise InvalidInput("voids", "the shown voids leave a seat more cards than it can hold")
        for seat, forced_cards in self.forced:
            self.base[forced_cards] = seat
        self.rest_need = tuple(forced_need)
        self._ways = lru_cache(maxsize=None)(self._count)
        if self._ways(0, self.rest_need) == 0:
            raise InvalidInput("voids", "no layout of the unseen cards respects the shown voids")

    def _count(self, index: int, need: tuple[int, ...]) -> int:
        """Number of ways to deal classes ``index..`` so that each seat gets exactly ``need``."""
        if index == len(self.classes):
            return 1 if not any(need) else 0
        total = 0
        for split, weight in self._splits(index, need):
            rest = list(need)
            for seat, k in zip(self.classes[index][0], split):
                rest[seat] -= k
            total += weight * self._ways(index + 1, tuple(rest))
        return total

    def _splits(self, index: int, need: tuple[int, ...]) -> list[tuple[tuple[int, ...], int]]:
        """Every way to split class ``index``'s cards among its seats within ``need``, with its count."""
        allowed, cards = self.classes[index]
        m = len(cards)
        out: list[tuple[tuple[int, ...], int]] = []

        def rec(pos: int, left: int, acc: list[int]) -> None:
            if pos == len(allowed) - 1:
                if left <= need[allowed[pos]]:
                    split = tuple(acc + [left])
                    weight = math.factorial(m)
                    for k in split:
                        weight //= math.factorial(k)
                    out.append((split, weight))
                return
            for k in range(min(left, need[allowed[pos]]) + 1):
                rec(pos + 1, left - k, acc + [k])

        rec(0, m, [])
        return out

    def deal(self, count: int, rng: np.random.Generator) -> np.ndarray:
        """``count`` layouts as ``uint8[count, 52]``."""
        out = np.repeat(self.base[None, :], count, axis=0)
        if not self.classes:
            return out
        if len(self.classes) == 1:
            allowed, cards = self.classes[0]
            order = np.argsort(rng.random((count, len(cards))), axis=1)
            shuffled = cards[order]
            start = 0
            for seat in allowed:
                k = self.rest_need[seat]
                rows = np.repeat(np.arange(count), k)
                out[rows, shuffled[:, start : start + k].ravel()] = seat
                start += k
            return out
        for row in range(count):
            need = self.rest_need
            for index, (allowed, cards) in enumerate(self.classes):
                splits = self._splits(index, need)
                weights = []
                for split, weight in splits:
                    rest = list(need)
                    for seat, k in zip(allowed, split):
                        rest[seat] -= k
                    weights.append(weight * self._ways(index + 1, tuple(rest)))
                total = sum(weights)
                pick = int(rng.integers(total)) if total < 2**63 else int(rng.random() * total)
                chosen = 0
                while pick >= weights[chosen]:
                    pick -= weights[chosen]
                    chosen += 1
                split = splits[chosen][0]
                perm = cards[rng.permutation(len(cards))]
                start = 0
                rest = list(need)
                for seat, k in zip(allowed, split):
                    out[row, perm[start : start + k]] = seat
                    start += k
                    rest[seat] -= k
                need = tuple(rest)
        return out


def highest_nt_levels(layouts: np.ndarray, seat: int) -> np.ndarray:
    """Highest qualifying NT level (0 = none) of ``seat``'s dealt hand in each layout."""
    masks = layout_masks(layouts, seat)
    return np.asarray(highest_nt_level_batch(masks), dtype=np.int64)


def layout_masks(layouts: np.ndarray, seat: int) -> np.ndarray:
    """``int64[n, 4]`` suit masks of ``seat``'s dealt hand in each layout."""
    held = (np.asarray(layouts).reshape(-1, 4, 13) == seat).astype(np.int64)
    bits = np.int64(1) << np.arange(13, dtype=np.int64)
    return (held * bits).sum(axis=2)


def facts_mask(layouts: np.ndarray, facts: Sequence[NtFact]) -> np.ndarray:
    """Boolean per layout: whether every fact holds."""
    ok = np.ones(len(layouts), dtype=bool)
    by_seat: dict[int, list[NtFact]] = {}
    for f in facts:
        by_seat.setdefault(f.seat, []).append(f)
    for seat, seat_facts in by_seat.items():
        levels = highest_nt_levels(layouts, seat)
        for f in seat_facts:
            lo = f.at_least if f.at_least is not None else 0
            hi = f.below if f.below is not None else 99
            ok &= (levels >= lo) & (levels < hi)
    return ok


def sample_layouts(
    knowledge: Knowledge,
    count: int,
    rng: np.random.Generator,
    max_draws: int | None = None,
    relax: bool = True,
) -> BeliefSample:
    """Draw up to ``count`` layouts consistent with ``knowledge``.

    Cards and voids are dealt exactly (uniform over consistent layouts); auction facts are
    checked by rejection, with at most ``max_draws`` layouts dealt (default ``max(2000, 200*count)``).
    When the budget runs out and ``relax`` is true, the "qualified at L" facts are dropped
    first, then all facts, and the layouts so drawn are flagged in ``relaxed``.
    """
    if count < 0:
        raise InvalidInput("count", f"expected a non-negative number of layouts, got {count}")
    dealer = _Dealer(knowledge)
    budget = max_draws if max_draws is not None else max(2000, 200 * count)
    needs = knowledge.needs()
    facts = [f for f in knowledge.facts if needs[f.seat] > 0]
    contradicted = [f for f in knowledge.facts if needs[f.seat] == 0 and not facts_mask(dealer.base[None, :], [f])[0]]
    kept: list[np.ndarray] = []
    drawn = accepted = 0
    have = 0
    if facts:
        batch = max(64, 2 * count)
        while have < count and drawn < budget:
            n = min(batch, budget - drawn)
            layouts = dealer.deal(n, rng)
            ok = facts_mask(layouts, facts)
            drawn += n
            accepted += int(ok.sum())
            good = layouts[ok]
            kept.append(good[: count - have])
            have += len(kept[-1])
            batch = min(4 * batch, 8192)
    else:
        layouts = dealer.deal(count, rng)
        drawn = accepted = count
        kept.append(layouts)
        have = count
    flags = [np.zeros(have, dtype=bool)]
    dropped: list[NtFact] = []
    if have < count and relax:
        stages = [[f for f in facts if f.at_least is None], []]
        for active in stages:
            if have >= count:
                break
            dropped = [f for f in facts if f not in active]
            extra_budget = max(2000, 200 * count)
            extra_drawn = 0
            while have < count and extra_drawn < extra_budget:
                n = max(64, 2 * (count - have))
                layouts = dealer.deal(n, rng)
                extra_drawn += n
                ok = facts_mask(layouts, active) if active else np.ones(n, dtype=bool)
                good = layouts[ok][: count - have]
                kept.append(good)
                flags.append(np.ones(len(good), dtype=bool))
                have += len(good)
    result = np.concatenate(kept, axis=0) if kept else np.zeros((0, 52), dtype=np.uint8)
    relaxed = np.concatenate(flags) if flags else np.zeros(0, dtype=bool)
    if contradicted:  # a fact about a fully seen hand that the hand contradicts: every layout lacks it
        relaxed = np.ones(len(result), dtype=bool)
        dropped = list(dropped) + contradicted
    return BeliefSample(result.astype(np.uint8), count, drawn, accepted, relaxed, tuple(dropped))


def layout_respects(layout: np.ndarray, knowledge: Knowledge, played: Iterable[int] = ()) -> bool:
    """Reference check: the layout agrees with every known card and shown void (facts not checked)."""
    layout = np.asarray(layout)
    if layout.shape != (52,) or any(int((layout == s).sum()) != HAND_SIZE for s in range(4)):
        return False
    for c, owner in enumerate(knowledge.known_owner):
        if owner >= 0 and layout[c] != owner:
            return False
    for seat, suits in enumerate(knowledge.voids):
        for c in range(52):
            if knowledge.known_owner[c] < 0 and layout[c] == seat and c // 13 in suits:
                return False
    return True


def position_seed(*parts: object) -> int:
    """A 64-bit seed from a hash of the parts' text (the position as the seat sees it)."""
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(digest[:8], "little")


def masks_of(layout: np.ndarray) -> np.ndarray:
    """``int64[4, 4]`` [seat, suit] masks of one layout."""
    return owners_to_masks(np.asarray(layout))


# --------------------------------------------------------------------------------------------
# Auction facts (the "paper" model of the other bidders)
# --------------------------------------------------------------------------------------------


def auction_facts(auction: object, exclude: int | None = None) -> list[NtFact]:
    """Facts in *dealing seats* read from an ``AuctionState``'s calls, under the NT-call model.

    The model is the paper bidder's (``PaperBidder``): a player passes exactly when the cheapest
    NT bid open to it lies above its highest qualifying NT level, and bids L NT only when it
    qualifies at L or higher. So a pass when the cheapest NT bid was L says "highest < L" and a
    bid of L NT says "highest >= L". Calls of ``exclude`` (the seat that knows its own hand) are
    skipped; doubles, redoubles and suit bids say nothing.
    """
    state = AuctionState.start(auction.dealer, auction.options)  # type: ignore[attr-defined]
    facts: list[NtFact] = []
    for call in auction.calls:  # type: ignore[attr-defined]
        assert state.turn is not None
        seat = int(state.turn)
        if exclude is None or seat != int(exclude):
            nt_levels = [c.level for c in state.legal_calls() if c.is_bid and c.denom == Denom.NT]
            if call.kind == "pass" and nt_levels:
                facts.append(NtFact(seat, below=min(nt_levels), source=f"seat {seat} passed below {min(nt_levels)}NT"))
            elif call.is_bid and call.denom == Denom.NT:
                facts.append(NtFact(seat, at_least=call.level, source=f"seat {seat} bid {call}"))
        state = state.apply(call)
    return facts


def facts_to_play_seats(facts: Sequence[NtFact], seats: Mapping[Seat, Seat] | Mapping[int, int]) -> list[NtFact]:
    """The same facts with each player's dealing seat replaced by its play seat (``seats``: dealing -> play)."""
    mapping = {int(k): int(v) for k, v in seats.items()}
    return [NtFact(mapping[f.seat], f.at_least, f.below, f.source) for f in facts]


def facts_for_play_view(view: SeatView) -> list[NtFact]:
    """Auction facts in play seats for a player's ``SeatView`` in the play (the player's own calls excluded)."""
    auction = view.auction
    declarer = auction.declarer
    if not auction.calls or declarer is None:
        return []
    facts = auction_facts(auction, exclude=view.player)
    return facts_to_play_seats(facts, view.seats)
