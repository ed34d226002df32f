"""Belief sampler: layouts never contradict known cards, shown voids or auction facts; dealing is uniform."""

import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.bots.belief import (
    NtFact,
    auction_facts,
    build_knowledge,
    facts_mask,
    highest_nt_levels,
    layout_respects,
    sample_layouts,
)
from tribridge.cards import random_deal
from tribridge.errors import InvalidInput
from tribridge.rules.auction import AuctionState, Call


@st.composite
def play_knowledge(draw):
    """A random deal, a viewer, a prefix of random legal play, and what the viewer knows."""
    from tribridge.bots.play import CardPosition

    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    owners = random_deal(rng).to_owners()
    hands = {s: tuple(sorted(np.flatnonzero(owners == s).tolist())) for s in range(4)}
    declarer = draw(st.integers(0, 3))
    trump = draw(st.sampled_from([None, 0, 1, 2, 3]))
    n_played = draw(st.integers(0, 40))
    played: list[int] = []
    for _ in range(n_played):
        pos = CardPosition(declarer, trump, tuple(sorted(hands.items())), tuple(played))
        legal = pos.legal_cards()
        played.append(int(rng.choice(legal)))
    full = CardPosition(declarer, trump, tuple(sorted(hands.items())), tuple(played))
    viewer = full.decider
    seen = {viewer: hands[viewer]}
    if played:
        seen[declarer ^ 2] = hands[declarer ^ 2]
    view = CardPosition(declarer, trump, tuple(sorted(seen.items())), tuple(played))
    return owners, view


@given(play_knowledge(), st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_layouts_respect_known_cards_and_voids(case, seed):
    owners, view = case
    knowledge = view.knowledge()
    sample = sample_layouts(knowledge, 16, np.random.default_rng(seed))
    assert len(sample.layouts) == 16
    played = set(view.played)
    voids = view.voids()
    for layout in sample.layouts:
        assert layout_respects(layout, knowledge)
        for seat, cards in view.hands:
            assert all(layout[c] == seat for c in cards)
        for seat, card in view.trace:
            assert layout[card] == seat
        for seat, suits in voids.items():
            for c in range(52):
                if c not in played and c // 13 in suits:
                    assert layout[c] != seat
    # the true deal is one of the consistent layouts
    assert layout_respects(owners, knowledge)


@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.integers(1, 2))
@settings(max_examples=30, deadline=None)
def test_layouts_respect_auction_facts(seed, fact_seat, below):
    rng = np.random.default_rng(seed)
    owners = random_deal(rng).to_owners()
    k = build_knowledge(
        {0: np.flatnonzero(owners == 0)}, facts=[NtFact(fact_seat, below=below), NtFact((fact_seat % 3) + 1, below=1)]
    )
    sample = sample_layouts(k, 16, rng, relax=False)
    assert sample.drawn >= len(sample.layouts)
    if len(sample.layouts):
        assert facts_mask(sample.layouts, k.facts).all()
        for f in k.facts:
            levels = highest_nt_levels(sample.layouts, f.seat)
            assert (levels < f.below).all()


def test_qualified_fact_is_met_or_flagged():
    rng = np.random.default_rng(7)
    owners = random_deal(rng).to_owners()
    k = build_knowledge({0: np.flatnonzero(owners == 0)}, facts=[NtFact(1, at_least=3)])
    strict = sample_layouts(k, 8, rng, max_draws=3000, relax=False)
    if len(strict.layouts):
        assert (highest_nt_levels(strict.layouts, 1) >= 3).all()
    assert strict.acceptance_rate < 0.5  # qualifying at 3NT is rare
    relaxed = sample_layouts(k, 8, np.random.default_rng(8), max_draws=3000, relax=True)
    assert len(relaxed.layouts) == 8
    levels = highest_nt_levels(relaxed.layouts, 1)
    # every layout not flagged as relaxed meets the fact
    assert (levels[~relaxed.relaxed] >= 3).all()
    if (levels < 3).any():
        assert relaxed.any_relaxed and relaxed.dropped_facts


def _void_case(seed: int):
    """Six unseen cards (two dealt to each of seats 1..3) and a real void of one seat that binds."""
    owners = random_deal(np.random.default_rng(seed)).to_owners()
    unseen = [int(c) for seat in (1, 2, 3) for c in np.flatnonzero(owners == seat)[:2]]
    for seat in (1, 2, 3):
        for suit in range(4):
            hand = np.flatnonzero(owners == seat)
            if all(c // 13 != suit for c in hand) and any(c // 13 == suit for c in unseen):
                return owners, unseen, {seat: [suit]}
    return None


def test_dealing_with_voids_is_uniform():
    """Three hidden seats with a void: compare against exact enumeration of the consistent layouts."""
    case = next(c for c in (_void_case(seed) for seed in range(100)) if c is not None)
    owners, unseen, voids = case
    known = {s: [c for c in np.flatnonzero(owners == s) if c not in unseen] for s in range(4)}
    k = build_knowledge(known, voids=voids)
    consistent = []
    for perm in sorted(set(itertools.permutations([1, 1, 2, 2, 3, 3]))):
        layout = owners.copy()
        layout[unseen] = perm
        if layout_respects(layout, k):
            consistent.append(tuple(perm))
    assert 1 < len(consistent) < 90  # the void removes some of the 90 splits
    sample = sample_layouts(k, 6000, np.random.default_rng(1))
    counts = Counter(tuple(int(x) for x in layout[unseen]) for layout in sample.layouts)
    assert set(counts) <= set(consistent)
    expected = 6000 / len(consistent)
    chi2 = sum((counts.get(c, 0) - expected) ** 2 / expected for c in consistent)
    dof = len(consistent) - 1
    assert chi2 < dof + 6 * np.sqrt(2 * dof) + 10  # far beyond the 99.99th percentile of chi2(dof)


def test_auction_facts_follow_the_paper_model():
    a = AuctionState.start(0)
    for text in ["P", "1S", "1N", "P"]:
        a = a.apply(Call.parse(text))
    facts = auction_facts(a)
    # N passed with 1NT open; E bid 1S (nothing); W (the 3rd bidder) bid 1NT; N passed below 2NT
    assert [(f.seat, f.at_least, f.below) for f in facts] == [(0, None, 1), (3, 1, None), (0, None, 2)]
    assert [(f.seat) for f in auction_facts(a, exclude=0)] == [3]


def test_inconsistent_knowledge_is_refused():
    with pytest.raises(InvalidInput):
        build_knowledge({0: range(13), 1: [5]})
    with pytest.raises(InvalidInput):
        build_knowledge({0: range(13)}, played=[(1, 3)])


def test_facts_reach_the_play_seats():
    from tribridge.bots.belief import facts_for_play_view
    from tribridge.rules.deal import replay

    deal = random_deal(np.random.default_rng(9))
    state = replay(deal, 0, ["P", "1N", "P", "P"])  # bidders N, E, W; widow S
    a = state.auction
    assert int(a.contract.declarer) == 1
    view = state.view(state.turn)
    # the opening leader (play seat S) is the player dealt at W (W and the widow S swap seats);
    # its own pass is not a fact to it; N passed twice (below 1NT, below 2NT); E bid 1NT
    assert int(view.seat) == 2
    facts = facts_for_play_view(view)
    assert {(f.seat, f.at_least, f.below) for f in facts} == {(0, None, 1), (1, 1, None), (0, None, 2)}
