"""The deal pool of the bidding-only training: double-dummy tables, renamed suits, and the batch's table lookup."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.dealing.random import deal_batch
from tribridge.dealing.streams import random_stream
from tribridge.errors import InvalidInput
from tribridge.selfplay import BiddingBatch
from tribridge.selfplay.actions import N_CALLS
from tribridge.selfplay.contracts import dd_contract_tricks, dd_trick_tables
from tribridge.selfplay.pool import POOL_SEED, SUIT_PERMUTATIONS, DealPool, permute_suits


@pytest.fixture
def dd_cache(tmp_path, monkeypatch):
    """A fresh double-dummy cache for the test."""
    path = tmp_path / "dd.sqlite"
    monkeypatch.setenv("TRIBRIDGE_DD_CACHE", str(path))
    return path


def test_tables_are_the_solver_cells_of_each_position(dd_cache) -> None:
    """Cell [position, strain] of a deal's table is what dd_contract_tricks gives that declarer in that strain."""
    owners, dealers = deal_batch(3, 41), np.array([0, 1, 3])
    tables = dd_trick_tables(owners, dealers, cache=False, workers=1)
    assert tables.shape == (3, 3, 5) and tables.dtype == np.uint8
    for position in range(3):
        for strain in (0, 4):
            single = dd_contract_tricks(owners, dealers, np.full(3, position), np.full(3, strain))
            np.testing.assert_array_equal(tables[:, position, strain], single)


def test_renamed_suits_give_the_renamed_tables(dd_cache) -> None:
    """Solving the deals with their suits renamed gives their tables with the strains renamed alike."""
    owners, dealers = deal_batch(4, 42), np.arange(4) % 4
    tables = dd_trick_tables(owners, dealers, cache=False, workers=1)
    perms = SUIT_PERMUTATIONS[[1, 7, 16, 23]]
    moved, renamed = permute_suits(owners, tables, perms)
    np.testing.assert_array_equal(renamed, dd_trick_tables(moved, dealers, cache=False, workers=1))


@settings(max_examples=50, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), which=st.lists(st.integers(0, 23), min_size=3, max_size=3))
def test_renaming_keeps_the_hands_shapes_and_undoes(seed: int, which: list[int]) -> None:
    """Each seat keeps its cards' ranks and its suit lengths renamed; the inverse renaming restores the deal."""
    owners = deal_batch(3, seed)
    tables = random_stream(seed, 1).integers(0, 14, size=(3, 3, 5)).astype(np.uint8)
    perms = SUIT_PERMUTATIONS[which]
    moved, renamed = permute_suits(owners, tables, perms)
    lengths = np.stack([(owners.reshape(3, 4, 13) == s).sum(axis=2) for s in range(4)], axis=1)  # [deal, seat, suit]
    moved_lengths = np.stack([(moved.reshape(3, 4, 13) == s).sum(axis=2) for s in range(4)], axis=1)
    for i in range(3):
        np.testing.assert_array_equal(moved_lengths[i][:, perms[i]], lengths[i])
        np.testing.assert_array_equal(renamed[i][:, perms[i]], tables[i][:, :4])
        assert (renamed[i][:, 4] == tables[i][:, 4]).all()
    inverse = np.argsort(perms, axis=1)
    back, back_tables = permute_suits(moved, renamed, inverse)
    np.testing.assert_array_equal(back, owners)
    np.testing.assert_array_equal(back_tables, tables)


def test_pool_draws_renamed_deals_of_its_stream(dd_cache) -> None:
    """The pool holds its seed's first deals; each drawn deal is a renaming of one of them, with its table renamed."""
    pool = DealPool.solve(4, workers=1)
    np.testing.assert_array_equal(pool.owners, deal_batch(4, POOL_SEED))
    owners, dealers, tables = pool.draw(6, random_stream(5))
    renamings = [
        (i, *permute_suits(pool.owners[[i]], pool.tables[[i]], SUIT_PERMUTATIONS[[p]]))
        for i in range(4)
        for p in range(24)
    ]
    for k in range(6):
        i, moved, renamed = next(r for r in renamings if np.array_equal(r[1][0], owners[k]))
        assert dealers[k] == pool.dealers[i]
        np.testing.assert_array_equal(tables[k], renamed[0])
    with pytest.raises(InvalidInput, match="pool"):
        DealPool.solve(0)


def test_batch_looks_up_given_tables() -> None:
    """With dd_tables, every ended auction's tricks are its declarer's cell; bad tables are refused by name."""
    n = 200
    owners, dealers = deal_batch(n, 43), np.arange(n) % 4
    tables = random_stream(43, 2).integers(0, 14, size=(n, 3, 5)).astype(np.uint8)
    batch = BiddingBatch(n, tricks="dd")
    batch.reset(owners=owners, dealers=dealers, dd_tables=tables)
    rng = random_stream(43, 3)
    while not batch.done.all():
        mask = batch.legal_mask()
        weights = np.where(mask, rng.random((n, N_CALLS)), -1.0)
        weights[:, 0] += 0.4  # pass more often, so auctions end
        batch.step(np.argmax(weights, axis=1))
    played = np.flatnonzero(batch.top_bid >= 0)
    assert len(played) > n // 2
    expected = tables[played, batch.holder[played], batch.top_bid[played] % 5]
    np.testing.assert_array_equal(batch.declarer_tricks[played], expected)
    with pytest.raises(InvalidInput, match="dd_tables"):
        BiddingBatch(n, tricks="estimate").reset(owners=owners, dealers=dealers, dd_tables=tables)
    with pytest.raises(InvalidInput, match="dd_tables"):
        batch.reset(owners=owners, dealers=dealers, dd_tables=tables[:, :2])
    with pytest.raises(InvalidInput, match="dd_tables"):
        batch.reset(owners=owners, dealers=dealers, dd_tables=tables.astype(np.int64) + 13)
