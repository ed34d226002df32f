"""The rules engine's fast paths keep its behaviour: legal calls from the presorted bids, cached state facts."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.cards import Seat, random_deal
from tribridge.rules.auction import ALL_BIDS, DOUBLE, PASS, REDOUBLE, AuctionOptions, AuctionState, bid_rank_key
from tribridge.rules.deal import DealState, replay


def _readable_legal_calls(auction: AuctionState) -> list:
    """Pass if legal, every bid that outranks the highest (all bids in their table order before any), X, XX."""
    if auction.is_over:
        return []
    ranking = auction.options.ranking
    highest = auction.highest_bid
    if highest is None:
        bids = list(ALL_BIDS)
    else:
        bids = sorted(
            (b for b in ALL_BIDS if bid_rank_key(b, ranking) > bid_rank_key(highest, ranking)),
            key=lambda b: bid_rank_key(b, ranking),
        )
    pass_ = [PASS] if auction.is_legal(PASS) else []
    return pass_ + bids + [c for c in (DOUBLE, REDOUBLE) if auction.is_legal(c)]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), ranking=st.sampled_from(["contract", "value"]), must_bid=st.booleans())
def test_legal_calls_equal_the_readable_rule(seed: int, ranking: str, must_bid: bool):
    """At every call of a random auction the legal calls are the readable rule's, in its order."""
    rng = np.random.default_rng(seed)
    auction = AuctionState.start(Seat(seed % 4), AuctionOptions(ranking, must_bid))  # type: ignore[arg-type]
    while not auction.is_over:
        legal = auction.legal_calls()
        assert legal == _readable_legal_calls(auction)
        auction = auction.apply(PASS if PASS in legal and rng.random() < 0.5 else legal[rng.integers(len(legal))])
    assert auction.legal_calls() == []


def test_cached_facts_leave_equality_and_hashing_alone():
    """A state whose cached facts were read equals, and hashes as, the same state fresh from a replay."""
    deal = random_deal(np.random.default_rng(3))
    calls = ["1S", "P", "2S", "X", "P", "P"]
    cards = replay(deal, "N", calls).legal_moves()[:1]
    cards.append(replay(deal, "N", calls, cards).legal_moves()[-1])
    read = replay(deal, "N", calls, cards)
    facts = (read.phase, read.turn, read.to_play, read.contract, read.auction.is_over, read.player_at(Seat.N))
    fresh = replay(deal, "N", calls, cards)
    assert read == fresh and hash(read) == hash(fresh)
    assert facts == (
        fresh.phase,
        fresh.turn,
        fresh.to_play,
        fresh.contract,
        fresh.auction.is_over,
        fresh.player_at(Seat.N),
    )
    assert DealState.start(deal, "N") != read
