"""Tests of the double-dummy package's positions against the rules, and of a solver that cannot be imported."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge import dd
from tribridge.cards import Card, Seat, random_deal
from tribridge.errors import InvalidInput
from tribridge.rules.auction import Contract, Denom
from tribridge.rules.play import PlayState
from tribridge.rules.trick import legal_cards


def _random_play(seed: int, denom: int, declarer: int, choices: list[int]) -> tuple[PlayState, list[PlayState]]:
    """A PlayState after ``len(choices)`` random legal cards, and every state on the way (first = start)."""
    deal = random_deal(np.random.default_rng(seed))
    state = PlayState.start(deal, Contract(1, Denom(denom), 0, Seat(declarer)))
    states = [state]
    for choice in choices:
        legal = state.legal_cards()
        state = state.apply(legal[choice % len(legal)])
        states.append(state)
    return state, states


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    denom=st.integers(0, 4),
    declarer=st.integers(0, 3),
    choices=st.lists(st.integers(0, 12), min_size=0, max_size=52),
)
def test_position_stepping_agrees_with_play_state(seed: int, denom: int, declarer: int, choices: list[int]) -> None:
    _, states = _random_play(seed, denom, declarer, choices)
    deal = states[0].deal
    trump = None if denom == Denom.NT else denom
    for state in states:
        played = [c.index for c in state.played]
        pos = dd.position_after(deal, trump, (declarer + 1) % 4, played)
        assert pos == dd.position_from_play_state(state)
        assert pos.trump == trump
        assert pos.leader == int(state.leader)
        assert pos.trick == tuple(card.index for _, card in state.current_trick)
        for seat in range(4):
            assert pos.hands[seat] == frozenset(state.remaining(seat))
        if state.is_over:
            assert all(not h for h in pos.hands) and pos.trick == ()
            continue
        pos.validate()
        assert pos.turn == int(state.turn)
        led = pos.trick[0] // 13 if pos.trick else None
        assert legal_cards(pos.hands[pos.turn], led) == sorted(c.index for c in state.legal_cards())


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    denom=st.integers(0, 4),
    declarer=st.integers(0, 3),
    choices=st.lists(st.integers(0, 12), min_size=1, max_size=51),
    pick=st.integers(0, 12),
)
def test_position_refuses_exactly_the_cards_play_state_refuses(seed, denom, declarer, choices, pick) -> None:
    state, _ = _random_play(seed, denom, declarer, choices)
    if state.is_over:
        return
    played = [c.index for c in state.played]
    held = sorted(state.remaining(state.turn))
    card = held[pick % len(held)]
    trump = None if denom == Denom.NT else denom
    rules_refuse = state.illegal_reason(Card(card))
    if rules_refuse is None:
        pos = dd.position_after(state.deal, trump, (declarer + 1) % 4, played + [card])
        assert card not in pos.hands[int(state.turn)]
    else:
        with pytest.raises(InvalidInput, match=rf"played\[{len(played)}\]"):
            dd.position_after(state.deal, trump, (declarer + 1) % 4, played + [card])


def test_missing_solver_is_reported_even_when_the_answer_is_cached(tmp_path, monkeypatch) -> None:
    pytest.importorskip("endplay._dds")
    deal = random_deal(np.random.default_rng(5))
    path = tmp_path / "c.sqlite"
    planted = np.full((1, 4, 5), 7, dtype=np.uint8)
    dd.DDCache(path).put(deal.to_owners()[None], planted)
    monkeypatch.setitem(sys.modules, "endplay._dds", None)  # what a missing endplay looks like to import
    calls = [
        lambda: dd.dd_tables_array([deal], cache=path, workers=1),
        lambda: dd.dd_tables_array([deal], nt_only=True, cache=path, workers=1),
        lambda: dd.dd_table([deal], cache=path, workers=1),
        lambda: dd.dd_nt_tricks([deal], 0, cache=path, workers=1),
        lambda: dd.dd_declarer_tricks([deal], 1, 2, cache=path, workers=1),
        lambda: dd.solve_position(dd.position_after(deal, None, 0, [])),
        lambda: dd.solve_positions([dd.position_after(deal, 3, 1, [])], best_only=True),
    ]
    for call in calls:
        with pytest.raises(dd.SolverUnavailable, match="tribridge\\[dd\\]"):
            call()
    monkeypatch.undo()
    assert (dd.dd_tables_array([deal], cache=path, workers=1) == planted).all()


def test_importing_the_package_does_not_import_endplay() -> None:
    code = "import sys, tribridge.dd; print(any(m.startswith('endplay') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
