"""The tables benchmark's bidding through DealState agrees with the training's batched evaluation, exactly."""

from __future__ import annotations

import numpy as np
import pytest
from benchmarks.bench_learned_tables import bidder_of, per_deal

from tribridge.bots.learned import default_policy
from tribridge.bots.learned_train import evaluate_against_reference
from tribridge.dealing.random import deal_batch
from tribridge.selfplay.contracts import dd_trick_tables


@pytest.fixture(scope="module")
def deals(tmp_path_factory):
    """Twelve deals with their double-dummy tables (a fresh cache)."""
    path = tmp_path_factory.mktemp("dd") / "dd.sqlite"
    owners, dealers = deal_batch(12, 46), np.arange(12) % 4
    return owners, dealers, dd_trick_tables(owners, dealers, cache=path, workers=1)


def test_paper_against_itself_scores_nothing(deals) -> None:
    """With PaperBidder in every seat the three positions' relative rewards sum to zero on every deal."""
    np.testing.assert_array_equal(per_deal(bidder_of("paper"), *deals), np.zeros(12))


def test_the_learned_bidder_scores_as_the_batched_curve(deals) -> None:
    """LearnedBidder bidding through DealState gets the reward the network gets in BiddingBatch, deal by deal."""
    owners, dealers, tables = deals
    mean, _ = evaluate_against_reference(default_policy(), owners, dealers, "paper", tricks="dd", dd_tables=tables)
    rows = per_deal(bidder_of("learned"), owners, dealers, tables)
    assert rows.mean() == pytest.approx(mean)
    assert np.count_nonzero(rows) > 0
