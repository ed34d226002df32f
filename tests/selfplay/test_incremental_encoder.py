"""The fast observation equals the readable one: ``IncrementalEncoder`` against ``encode_view(state.view(p))``.

Random deals are played through ``DealState`` (claims, agreements and disputes included) and through
the environment; after every step every player's fast observation and action mask are compared with
the reference built from its ``SeatView``, in every phase (auction, play, a pending claim, done).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.cards import Card, Seat, random_deal
from tribridge.dealing.streams import random_stream
from tribridge.env import AGENTS, raw_env
from tribridge.errors import InvalidInput
from tribridge.rules.auction import PASS, AuctionOptions, Call
from tribridge.rules.deal import DealState
from tribridge.rules.view import AgreeClaim, DisputeClaim, MakeClaim, SeatView
from tribridge.selfplay.actions import N_ACTIONS, N_CALLS, action_mask, action_of
from tribridge.selfplay.encoding import IncrementalEncoder, encode_view

OPTIONS = st.builds(AuctionOptions, st.sampled_from(["contract", "value"]), st.booleans())


def _random_states(seed: int, options: AuctionOptions, claim_rate: float) -> Iterator[DealState]:
    """Every state of one random deal, the first to the last (random legal calls, cards and claims)."""
    rng = np.random.default_rng(seed)
    state = DealState.start(random_deal(rng), Seat(int(rng.integers(4))), options)
    yield state
    while not state.is_terminal():
        if state.claim is not None:
            player = state.awaiting[int(rng.integers(len(state.awaiting)))]
            state = state.apply(AgreeClaim() if rng.random() < 0.5 else DisputeClaim(), player)
        elif state.phase == "play" and rng.random() < claim_rate:
            assert state.play is not None
            claim = MakeClaim(int(rng.integers(state.play.tricks_left + 1)))
            state = state.apply(claim, state.players[int(rng.integers(3))])
        else:
            moves = state.legal_moves()
            prefer_pass = state.phase == "auction" and PASS in moves and rng.random() < 0.5
            state = state.apply(PASS if prefer_pass else moves[int(rng.integers(len(moves)))])
        yield state


def _reference_mask(view: SeatView, size: int) -> np.ndarray:
    """The mask of the calls and cards in the view's legal actions (claims and answers have no number)."""
    mask = np.zeros(size, dtype=np.int8)
    for action in view.legal:
        if isinstance(action, (Call, Card)):
            mask[action_of(action)] = 1
    return mask


def _check_every_state(seed: int, options: AuctionOptions, claim_rate: float) -> set[str]:
    """Compare every player's encoders (full, bidding-only) and masks with the view's at every state; the phases seen."""
    states = _random_states(seed, options, claim_rate)
    first = next(states)
    encoders = [IncrementalEncoder(first, p, bidding_only) for p in first.players for bidding_only in (False, True)]
    phases = set()
    for state in [first, *states]:
        claimed = state.play is not None and state.play.claimed is not None
        phases.add("claim pending" if state.claim is not None else "claimed" if claimed else state.phase)
        for encoder in encoders:
            view = state.view(encoder.player)
            np.testing.assert_array_equal(encoder.encode(state), encode_view(view, encoder.bidding_only))
            moves = state.legal_moves(encoder.player)
            assert moves == [a for a in view.legal if isinstance(a, (Call, Card))]
            np.testing.assert_array_equal(action_mask(moves), _reference_mask(view, N_ACTIONS))
    return phases


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), options=OPTIONS, claim_rate=st.sampled_from([0.0, 0.03, 0.2]))
def test_encoder_equals_the_view_encoding_after_every_step(seed: int, options: AuctionOptions, claim_rate: float):
    """Every player's encoder, full and bidding-only, and its legal moves' mask match the view at every state."""
    phases = _check_every_state(seed, options, claim_rate)
    assert "auction" in phases and phases & {"done", "claimed"}


def test_every_phase_is_compared():
    """A few fixed deals take the comparison through the play, pending claims and deals ended by a claim."""
    seen: set[str] = set()
    for seed in range(12):
        seen |= _check_every_state(seed, AuctionOptions(), 0.1)
    assert seen == {"auction", "play", "claim pending", "claimed", "done"}


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), looks=st.lists(st.booleans(), min_size=1, max_size=30))
def test_encoder_catches_up_over_skipped_states(seed: int, looks: list[bool]):
    """An encoder asked only now and then (after several calls and cards) still gives the reference."""
    states = list(_random_states(seed, AuctionOptions(), 0.0))
    encoder = IncrementalEncoder(states[0], states[0].players[seed % 3])
    for i, state in enumerate(states):
        if looks[i % len(looks)] or i == len(states) - 1:
            np.testing.assert_array_equal(encoder.encode(state), encode_view(state.view(encoder.player)))


def test_encoder_refuses_another_deal_an_earlier_state_and_the_widow():
    """A state of another deal, one before the last encoded, or the widow as the observer is bad input."""
    states = list(_random_states(1, AuctionOptions(), 0.0))
    encoder = IncrementalEncoder(states[0], states[0].players[0])
    encoder.encode(states[5])
    with pytest.raises(InvalidInput):
        encoder.encode(states[2])
    encoder.encode(states[-1])
    assert states[-2].auction.calls == states[-1].auction.calls  # the earlier state differs in its cards only
    with pytest.raises(InvalidInput):
        encoder.encode(states[-2])
    other = DealState.start(random_deal(random_stream(9, 0)), states[0].dealer)
    with pytest.raises(InvalidInput):
        encoder.encode(other)
    with pytest.raises(InvalidInput):
        IncrementalEncoder(states[0], states[0].widow)


def test_encoded_vectors_are_fresh_arrays():
    """Changing a returned observation changes neither the encoder nor the next observation."""
    states = list(_random_states(4, AuctionOptions(), 0.0))
    encoder = IncrementalEncoder(states[0], states[0].players[1])
    encoder.encode(states[0])[:] = 7.0
    np.testing.assert_array_equal(encoder.encode(states[1]), encode_view(states[1].view(encoder.player)))


@settings(max_examples=20, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    mode=st.sampled_from(["full", "bidding"]),
    bot_seat=st.sampled_from([None, "player_0", "player_2"]),
)
def test_environment_observations_equal_the_reference_for_every_agent(seed: int, mode: str, bot_seat: str | None):
    """Through the environment, after every step, every agent's observation and mask match its view's."""
    e = raw_env(mode=mode, opponents={bot_seat: "random"} if bot_seat else None)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    size = N_CALLS if mode == "bidding" else N_ACTIONS
    while True:
        state = e.state
        for agent in e.possible_agents:
            view = state.view(state.players[AGENTS.index(agent)])
            obs = e.observe(agent)
            np.testing.assert_array_equal(obs["observation"], encode_view(view, bidding_only=mode == "bidding"))
            over = state.is_terminal() or (mode == "bidding" and state.phase != "auction")
            expected = np.zeros(size, dtype=np.int8) if over else _reference_mask(view, size)
            np.testing.assert_array_equal(obs["action_mask"], expected)
        if all(e.terminations.values()):
            break
        mask = e.observe(e.agent_selection)["action_mask"]
        e.step(int(rng.choice(np.flatnonzero(mask))))
    assert e.state.is_terminal()
