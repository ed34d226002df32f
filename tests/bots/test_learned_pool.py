"""Training the learned bidder on a fixed pool of deals with their double-dummy tables (``TrainConfig.pool``)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tribridge.bots.learned import PolicyNetwork
from tribridge.bots.learned_train import (
    EVAL_SEED,
    TrainConfig,
    call_values,
    evaluate_against_reference,
    play_auctions,
    solve_tables,
    train_bidder,
)
from tribridge.cli.main import main
from tribridge.dealing.random import deal_batch
from tribridge.errors import InvalidInput
from tribridge.selfplay import BiddingBatch
from tribridge.selfplay.contracts import dd_trick_tables


@pytest.fixture(autouse=True)
def dd_cache(tmp_path, monkeypatch):
    """A fresh double-dummy cache for each test."""
    monkeypatch.setenv("TRIBRIDGE_DD_CACHE", str(tmp_path / "dd.sqlite"))


def test_a_pool_needs_double_dummy_tricks() -> None:
    with pytest.raises(InvalidInput, match="pool"):
        TrainConfig(pool=10, tricks="spread").check()
    with pytest.raises(InvalidInput, match="pool"):
        TrainConfig(pool=-1, tricks="dd").check()
    assert TrainConfig(pool=10, tricks="dd").check().pool == 10


def test_rollouts_score_from_the_tables_as_the_solver_does() -> None:
    """Each tried call's value is the same from the deals' tables as from solving each contract."""
    n = 6
    owners, dealers = deal_batch(n, 44), np.arange(n) % 4
    policy = PolicyNetwork.initial(hidden=8, seed=2)
    learner = np.zeros((n, 3), dtype=bool)
    learner[np.arange(n), np.arange(n) % 3] = True
    values = []
    for tables in (dd_trick_tables(owners, dealers, workers=1), None):
        batch = BiddingBatch(n, tricks="dd", relative=True)
        batch.reset(owners=owners, dealers=dealers, dd_tables=tables)
        decisions = play_auctions(batch, policy, learner, "paper", np.random.default_rng(0))
        assert decisions is not None
        picked = np.array([int(np.flatnonzero(decisions.rows == i)[0]) for i in range(n)])
        values.append(
            call_values(batch, decisions, picked, policy, learner, TrainConfig(tricks="dd"), np.random.default_rng(1))
        )
    np.testing.assert_array_equal(values[0], values[1])
    assert np.count_nonzero(values[0]) > n


def test_a_pool_run_writes_weights_whose_curve_is_scored_by_double_dummy(tmp_path, capsys) -> None:
    """The command solves the pool, trains on it, and its last curve point is the weights' reward by double dummy."""
    out = tmp_path / "pool.npz"
    args = ["train-bidder", "--iterations", "2", "--batch", "32", "--hidden", "8", "--tricks", "dd"]
    assert main([*args, "--pool", "6", "--eval-deals", "5", "--out", str(out), "--quiet"]) == 0
    assert "reward_vs_reference_end" in capsys.readouterr().out
    report = json.loads(out.with_suffix(".json").read_text())
    assert report["config"]["pool"] == 6 and len(report["curves"]) == 2
    policy = PolicyNetwork.load(out)
    assert policy.info["pool"] == "6" and policy.info["tricks"] == "dd"
    owners, dealers = deal_batch(5, EVAL_SEED), np.arange(5) % 4
    solved, _ = evaluate_against_reference(policy, owners, dealers, "paper", tricks="dd")
    assert report["curves"][-1]["reward_vs_reference"] == pytest.approx(solved)


def test_tables_of_another_pool_are_refused() -> None:
    solved = solve_tables(TrainConfig(tricks="dd", pool=3, eval_deals=2))
    with pytest.raises(InvalidInput, match="solved"):
        train_bidder(TrainConfig(tricks="dd", pool=4, eval_deals=2, iterations=1, batch=8), solved=solved)


def test_greedy_rollouts_do_not_depend_on_the_random_stream() -> None:
    """With ``rollouts="greedy"`` the network bids its most valuable call after the tried one, so the values
    are the same whatever the random stream; sampled rollouts differ."""
    n = 40
    owners = deal_batch(n, 45)
    policy = PolicyNetwork.initial(hidden=8, seed=3, temperature=5.0)  # a hot policy: sampling differs often
    learner = np.ones((n, 3), dtype=bool)
    batch = BiddingBatch(n, relative=True)
    batch.reset(owners=owners)
    decisions = play_auctions(batch, policy, learner, "paper", np.random.default_rng(0))
    assert decisions is not None
    picked = np.array([int(np.flatnonzero(decisions.rows == i)[0]) for i in range(n)])

    def values(rollouts: str, seed: int) -> np.ndarray:
        config = TrainConfig(rollouts=rollouts)
        return call_values(batch, decisions, picked, policy, learner, config, np.random.default_rng(seed))

    np.testing.assert_array_equal(values("greedy", 1), values("greedy", 2))
    assert not np.array_equal(values("sample", 1), values("sample", 2))
