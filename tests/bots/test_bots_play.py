"""PIMC and the other players: legal cards only, deterministic per position, forced cards without search."""

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.bots import bot_parts, get_bot
from tribridge.bots.play import CardPosition, PimcPlayer, RandomPlayer, pimc_decide
from tribridge.cards import Card, random_deal
from tribridge.errors import InvalidInput
from tribridge.four.play import pimc_decide_four_handed
from tribridge.rules.auction import Contract, Denom
from tribridge.rules.deal import DealState
from tribridge.rules.play import PlayState


def play_view(state: PlayState, reveal_all: bool = False):
    """The SeatView of the player deciding the next card of ``state`` (test deals: no reseating)."""
    deal_state = DealState.from_play(state)
    return deal_state.view(deal_state.turn, reveal_all=reveal_all)


def _random_state(seed: int, n_played: int, denom: int = 4) -> PlayState:
    rng = np.random.default_rng(seed)
    deal = random_deal(rng)
    state = PlayState.start(deal, Contract(3, Denom(denom), 0, 0))
    for _ in range(n_played):
        legal = state.legal_cards()
        state = state.apply(legal[int(rng.integers(len(legal)))])
    return state


@given(st.integers(0, 2**32 - 1), st.integers(8, 44), st.sampled_from([0, 3, 4]))
@settings(max_examples=15, deadline=None)
def test_pimc_plays_legal_cards_deterministically(seed, n_played, denom):
    state = _random_state(seed, n_played, denom)
    view = play_view(state)
    player = PimcPlayer(layouts=4)
    first = player.play(view)
    assert first in state.legal_cards()
    assert PimcPlayer(layouts=4).play(view) == first


def test_pimc_candidates_cover_legal_cards():
    state = _random_state(3, 20)
    view = play_view(state)
    cands = PimcPlayer(layouts=4).candidates(view)
    assert sorted(c for c, _ in cands) == sorted(state.legal_cards())
    means = [m for _, m in cands]
    assert means == sorted(means, reverse=True)
    assert all(0 <= m <= 13 for m in means)


def test_forced_card_answers_without_searching():
    # find a position with exactly one legal card
    for seed in range(200):
        state = _random_state(seed, 49)
        if len(state.legal_cards()) == 1:
            break
    view = play_view(state)
    with (
        mock.patch("tribridge.bots.play.sample_layouts") as sampler,
        mock.patch("tribridge.bots.play.dd_card_scores") as solver,
    ):
        decision = PimcPlayer(layouts=32).decide(view)
        assert not sampler.called and not solver.called
    assert not decision.searched
    assert Card(decision.card) == state.legal_cards()[0]


@given(st.integers(0, 2**32 - 1), st.integers(0, 40))
@settings(max_examples=8, deadline=None)
def test_pimc_with_every_hand_seen_scores_the_true_double_dummy_values(seed, n_played):
    """With nothing hidden every layout is the real deal, so the means are the DD values of each card."""
    from tribridge.dd import solve_position

    state = _random_state(seed, n_played)
    hands = tuple((s, tuple(sorted(state.deal[s].cards))) for s in range(4))
    position = CardPosition(0, None, hands, tuple(c.index for c in state.played))
    if len(position.legal_cards()) < 2:
        return
    decision = pimc_decide(position, layouts=3)
    truth = solve_position(state)
    assert {c: m for c, m in decision.candidates} == {c: float(t) for c, t in truth.items()}
    assert truth[decision.card] == max(truth.values())


def test_four_handed_entry_point():
    rng = np.random.default_rng(5)
    owners = random_deal(rng).to_owners()
    hand = np.flatnonzero(owners == 1).tolist()
    dec = pimc_decide_four_handed(hand, seat=1, declarer=0, trump=None, layouts=4)
    assert dec.card in hand
    again = pimc_decide_four_handed(hand, seat=1, declarer=0, trump=None, layouts=4)
    assert again.card == dec.card and again.candidates == dec.candidates


def test_random_player_is_legal_and_repeatable():
    state = _random_state(2, 17)
    view = play_view(state)
    assert RandomPlayer().play(view) in state.legal_cards()
    assert RandomPlayer().play(view) == RandomPlayer().play(view)


def test_registry_names():
    for name in ("random", "paper", "estimate", "simulation", "pimc", "dd", "paper+random"):
        bot = get_bot(name)
        assert hasattr(bot.bidder, "candidates") and hasattr(bot.player, "candidates")
    assert bot_parts("pimc") == ("simulation", "pimc")


def test_early_tricks_sample_fewer_layouts_later_tricks_all():
    """Tricks 1 and 2 are capped by ``early_layouts``; from the third trick on all layouts are used."""
    from tribridge.bots import play as play_module

    for n_played, expected in ((0, 5), (3, 5), (4, 7), (7, 7), (8, 9), (20, 9)):
        state = _random_state(11, n_played)
        hands = tuple((s, tuple(sorted(state.deal[s].cards))) for s in range(4))
        position = CardPosition(0, None, hands, tuple(c.index for c in state.played))
        assert len(position.legal_cards()) > 1
        with mock.patch.object(play_module, "sample_layouts", wraps=play_module.sample_layouts) as sampler:
            pimc_decide(position, layouts=9, early_layouts=(5, 7))
        assert sampler.call_args.args[1] == expected


def test_time_budget_counts_only_the_layouts_solved_in_time():
    """A budget already spent still solves BUDGET_MIN_LAYOUTS layouts, and only those are counted."""
    from tribridge.bots.layout_solve import BUDGET_MIN_LAYOUTS, dd_card_scores

    for n_played in range(8, 16):  # the declarer (who sees dummy) to choose among several cards
        state = _random_state(12, n_played)
        hands = tuple((s, tuple(sorted(state.deal[s].cards))) for s in (0, 2))
        position = CardPosition(0, None, hands, tuple(c.index for c in state.played))
        if position.decider == 0 and len(position.legal_cards()) > 1:
            break
    full = pimc_decide(position, layouts=16)
    squeezed = pimc_decide(position, layouts=16, time_budget=1e-9)
    assert full.sample is not None and squeezed.sample is not None
    assert len(full.sample.layouts) == 16 and len(squeezed.sample.layouts) == BUDGET_MIN_LAYOUTS
    assert np.array_equal(squeezed.sample.layouts, full.sample.layouts[:BUDGET_MIN_LAYOUTS])
    cards, scores = dd_card_scores(full.sample.layouts[:BUDGET_MIN_LAYOUTS], position)
    expected = dict(zip(cards, scores.mean(axis=0).tolist()))
    assert all(abs(expected[c] - mean) < 1e-9 for c, mean in squeezed.candidates)


def test_player_settings_are_checked():
    """Bad layout caps and budgets are refused, naming the field."""
    for options, field in (({"early_layouts": (12, 0)}, "early_layouts"), ({"time_budget": 0}, "time_budget")):
        with pytest.raises(InvalidInput) as err:
            PimcPlayer(**options)
        assert err.value.field == field
    state = _random_state(12, 0)
    position = CardPosition(0, None, ((1, tuple(sorted(state.deal[1].cards))),), ())  # the opening leader
    for options, field in (({"early_layouts": (0,)}, "early_layouts"), ({"time_budget": -1.0}, "time_budget")):
        with pytest.raises(InvalidInput) as err:
            pimc_decide(position, layouts=4, **options)
        assert err.value.field == field


def _dd_defended_state(seed: int, n_played: int) -> PlayState:
    """3NT by seat 0 with every card (both sides) chosen double dummy, ``n_played`` cards in."""
    from tribridge.bots.play import DoubleDummyPlayer

    state = PlayState.start(random_deal(np.random.default_rng(seed)), Contract(3, Denom.NT, 0, 0))
    player = DoubleDummyPlayer()
    for _ in range(n_played):
        state = state.apply(player.play(play_view(state, reveal_all=True)))
    return state


def _declarer_position(state: PlayState) -> CardPosition:
    hands = tuple((s, tuple(sorted(state.deal[s].cards))) for s in (0, 2))
    return CardPosition(0, None, hands, tuple(c.index for c in state.played))


def test_hidden_plays_are_the_defenders_cards_most_recent_last():
    from tribridge.bots.layout_solve import hidden_plays

    state = _dd_defended_state(4, 10)
    position = _declarer_position(state)
    every = hidden_plays(position)
    assert every == [i for i, (seat, _) in enumerate(position.trace) if seat in (1, 3)]
    assert len(every) == 5  # two in each complete trick, one of the two cards of the third
    assert hidden_plays(position, 2) == every[-2:]
    assert hidden_plays(position, 0) == []


def test_real_layout_explains_double_dummy_defence_and_not_a_blunder():
    """In the real deal every double-dummy defender card is consistent; a card that gives a trick away is not."""
    from tribridge.bots.layout_solve import play_inconsistencies
    from tribridge.dd import solve_position

    for seed in range(40):
        state = _dd_defended_state(seed, 13)
        position = _declarer_position(state)
        real = np.asarray(state.deal.to_owners(), dtype=np.uint8)[None, :]
        plays = [i for i, (seat, _) in enumerate(position.trace) if seat in (1, 3)]
        assert play_inconsistencies(real, position, plays).tolist() == [0]
        # a defender to play with a card that costs a trick: playing it is one inconsistency
        view_state = state
        if int(view_state.turn) in (1, 3):
            scores = solve_position(view_state)
            worse = [c for c, t in scores.items() if t < max(scores.values())]
            if worse:
                blunder = view_state.apply(Card(worse[0]))
                blunder_position = _declarer_position(blunder)
                misses = play_inconsistencies(real, blunder_position, [len(blunder_position.played) - 1])
                assert misses.tolist() == [1]
                return
    raise AssertionError("no position with a losing defender card found")


def test_play_checks_keep_the_layouts_that_explain_the_defence():
    """With play checks on, the kept layouts rank by misses: the real deal (no miss) is kept before others."""
    from tribridge.bots.belief import sample_layouts
    from tribridge.bots.layout_solve import hidden_plays, play_inconsistencies
    from tribridge.bots.play import consistent_order

    state = _dd_defended_state(21, 9)
    position = _declarer_position(state)
    drawn = sample_layouts(position.knowledge(), 12, np.random.default_rng(0)).layouts
    real = np.asarray(state.deal.to_owners(), dtype=np.uint8)[None, :]
    pool = np.concatenate([drawn, real])
    kept = pool[consistent_order(pool, position, 4, hidden_plays(position, 3))]
    misses = play_inconsistencies(pool, position, [i for i, (s, _) in enumerate(position.trace) if s in (1, 3)][-3:])
    kept_misses = play_inconsistencies(
        kept, position, [i for i, (s, _) in enumerate(position.trace) if s in (1, 3)][-3:]
    )
    assert sorted(kept_misses.tolist()) == sorted(misses.tolist())[:4]
    assert misses[-1] == 0
    if int((misses[:-1] == 0).sum()) < 4:
        assert any((row == real[0]).all() for row in kept)


def test_pimc_with_play_checks_is_legal_and_deterministic():
    state = _dd_defended_state(8, 18)
    view = play_view(state)
    player = PimcPlayer(layouts=6, check_plays=2)
    card = player.play(view)
    assert card in state.legal_cards()
    assert PimcPlayer(layouts=6, check_plays=2).play(view) == card
    sample = player.last.sample
    assert sample.layouts.shape == (6, 52) and sample.complete and sample.relaxed.shape in ((0,), (6,))
    assert player.cache_key() != PimcPlayer(layouts=6).cache_key()
    import pytest

    from tribridge.errors import InvalidInput

    with pytest.raises(InvalidInput, match="check_plays"):
        PimcPlayer(check_plays=-1)
    with pytest.raises(InvalidInput, match="oversample"):
        PimcPlayer(check_plays=2, oversample=0)


@given(st.integers(0, 2**32 - 1), st.integers(2, 30))
@settings(max_examples=6, deadline=None)
def test_play_inconsistencies_match_a_full_solve_of_every_play(seed, n_played):
    """Counting misses (with forced cards skipped) equals solving every checked play with every card scored."""
    from tribridge.bots.belief import sample_layouts
    from tribridge.bots.layout_solve import dd_positions, hidden_plays, play_inconsistencies
    from tribridge.dd import solve_positions

    state = _random_state(seed, n_played)
    position = _declarer_position(state)
    layouts = sample_layouts(position.knowledge(), 5, np.random.default_rng(seed)).layouts
    plays = hidden_plays(position, 3)
    expected = np.zeros(len(layouts), dtype=np.int64)
    for i in plays:
        prefix = CardPosition(0, None, position.hands, position.played[:i])
        for row, tricks in enumerate(solve_positions(dd_positions(layouts, prefix))):
            if tricks[position.played[i]] < max(tricks.values()):
                expected[row] += 1
    assert play_inconsistencies(layouts, position, plays).tolist() == expected.tolist()
