"""BiddingBatch against DealState: the same random auctions give the same masks, endings, observations and scores."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.cards import Seat, random_deal
from tribridge.dealing.streams import random_stream
from tribridge.errors import IllegalAction, InvalidInput
from tribridge.estimators.tricks import estimate_tricks, whole_tricks
from tribridge.rules.auction import AuctionOptions
from tribridge.rules.deal import DealState
from tribridge.selfplay import BiddingBatch
from tribridge.selfplay.actions import N_CALLS, action_of, call_of
from tribridge.selfplay.encoding import encode_view

SIZE = 6


def _mask_of(state: DealState) -> np.ndarray:
    """The legal calls of the player on turn, from the rules."""
    mask = np.zeros(N_CALLS, dtype=bool)
    for call in state.legal_actions():
        mask[action_of(call)] = True
    return mask


def _estimated_tricks(state: DealState) -> int:
    """The estimator's whole tricks for the contract of a finished auction, read off the play deal."""
    assert state.play is not None and state.contract is not None
    declarer = state.contract.declarer
    hands = state.play.deal
    got = estimate_tricks(np.array(hands[declarer].masks()), np.array(hands[declarer.partner].masks()))
    return int(whole_tricks(got)[0, int(state.contract.denom)])


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    pass_weight=st.floats(0.5, 20.0),
    ranking=st.sampled_from(["contract", "value"]),
    must_bid=st.booleans(),
)
def test_batch_follows_the_rules(seed: int, pass_weight: float, ranking: str, must_bid: bool) -> None:
    """Random auctions stepped in the batch and through DealState agree call by call and in the end."""
    options = AuctionOptions(ranking=ranking, dealer_must_bid=must_bid)  # type: ignore[arg-type]
    rng = np.random.default_rng(seed)
    deals = [random_deal(random_stream(seed, i)) for i in range(SIZE)]
    dealers = rng.integers(0, 4, SIZE)
    batch = BiddingBatch(SIZE, options=options, relative=True)
    batch.reset(owners=np.stack([d.to_owners() for d in deals]), dealers=dealers)
    states = [DealState.start(d, int(s), options) for d, s in zip(deals, dealers)]
    while not batch.done.all():
        mask, obs = batch.legal_mask(), batch.observation()
        actions = np.zeros(SIZE, dtype=np.int64)
        for i, state in enumerate(states):
            assert batch.done[i] == (state.phase != "auction")
            if batch.done[i]:
                continue
            assert state.turn == state.players[batch.to_act[i]]
            np.testing.assert_array_equal(mask[i], _mask_of(state))
            np.testing.assert_array_equal(obs[i], encode_view(state.view(state.turn), bidding_only=True))
            weights = mask[i] * rng.random(N_CALLS)
            weights[0] *= pass_weight
            actions[i] = int(np.argmax(weights))
            states[i] = state.apply(call_of(actions[i]))
        batch.step(actions)
    for i, state in enumerate(states):
        _check_result(batch, i, state)


def _check_result(batch: BiddingBatch, i: int, state: DealState) -> None:
    """Auction ``i`` of the batch ended as ``state`` did, and scored what DealState scores for its tricks."""
    assert state.phase != "auction"
    assert batch.call_numbers(i) == [action_of(c) for c in state.auction.calls]
    if state.contract is None:
        assert batch.scores[i].tolist() == [0, 0, 0] and batch.declarer_tricks[i] == -1
        return
    tricks = int(batch.declarer_tricks[i])
    assert tricks == _estimated_tricks(state)
    assert state.play is not None
    finished = replace(state, play=state.play.agreed_claim(state.contract.declarer, tricks))
    points = finished.points("classic")
    expected = np.array([points[p] for p in state.players], dtype=np.float64)
    assert batch.scores[i].tolist() == expected.astype(int).tolist()
    others = (expected.sum() - expected) / 2
    np.testing.assert_allclose(batch.rewards[i], expected - others)


def test_batch_refuses_an_illegal_call() -> None:
    """A call the rules forbid is refused with the auction's number."""
    batch = BiddingBatch(2)
    with pytest.raises(IllegalAction, match="auction 0"):
        batch.step(np.array([1, 0]))  # a double with no bid to double


def test_batch_checks_its_input() -> None:
    """Bad sizes, deals and action arrays raise InvalidInput naming the field."""
    with pytest.raises(InvalidInput, match="size"):
        BiddingBatch(0)
    batch = BiddingBatch(2)
    with pytest.raises(InvalidInput, match="owners"):
        batch.reset(owners=np.zeros((2, 52), dtype=np.uint8))
    with pytest.raises(InvalidInput, match="actions"):
        batch.step(np.array([0, 0, 0]))
    with pytest.raises(InvalidInput, match="tricks"):
        BiddingBatch(2, tricks="guess")


def test_batch_reset_is_reproducible() -> None:
    """The same seed deals the same cards; another seed deals others."""
    batch = BiddingBatch(8)
    batch.reset(seed=3)
    first = batch.owners.copy()
    batch.reset(seed=3)
    np.testing.assert_array_equal(first, batch.owners)
    batch.reset(seed=4)
    assert not np.array_equal(first, batch.owners)


def test_batch_dd_tricks_match_the_solver_on_the_play_deal() -> None:
    """With tricks="dd" a contract's tricks are the double-dummy tricks of the deal as DealState seats it."""
    from tribridge.dd import dd_declarer_tricks

    deals = [random_deal(random_stream(11, i)) for i in range(3)]
    batch = BiddingBatch(3, tricks="dd")
    batch.reset(owners=np.stack([d.to_owners() for d in deals]), dealers=np.array([0, 1, 2]))
    # position 0 passes, position 1 bids 1NT (action 7), then two passes
    for actions in ([0, 0, 0], [7, 7, 7], [0, 0, 0], [0, 0, 0]):
        batch.step(np.array(actions))
    assert batch.done.all()
    for i, deal in enumerate(deals):
        state = DealState.start(deal, Seat(i))
        for call in ("P", "1N", "P", "P"):
            state = state.apply(call)
        assert state.play is not None and state.contract is not None
        dd = dd_declarer_tricks(state.play.deal.to_owners()[None, :], int(state.contract.declarer), 4, cache=False)
        assert batch.declarer_tricks[i] == int(dd[0])
