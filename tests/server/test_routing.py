"""The ``--workers`` router's choice of worker (``server.routing.worker_for``)."""

from __future__ import annotations

import zlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tribridge.server.routing import worker_for

TABLE_IDS = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", min_size=1, max_size=64
)


@given(TABLE_IDS, st.integers(1, 8), st.integers(0, 100), st.sampled_from(["/ws", "/actions", "/state", "?x=1", " "]))
def test_a_tables_requests_go_to_the_worker_its_id_hashes_to(table_id, workers, turn, rest):
    first = f"GET /api/tables/{table_id}{rest} HTTP/1.1\r\nHost: x\r\n".encode()
    assert worker_for(first, [True] * workers, turn) == zlib.crc32(table_id.encode()) % workers


@given(TABLE_IDS, st.integers(2, 8), st.data())
def test_a_dead_workers_tables_go_to_the_next_live_one(table_id, workers, data):
    live = data.draw(st.lists(st.booleans(), min_size=workers, max_size=workers).filter(any))
    chosen = worker_for(f"POST /api/tables/{table_id}/actions HTTP/1.1\r\n".encode(), live, 0)
    home = zlib.crc32(table_id.encode()) % workers
    assert live[chosen]
    assert all(not live[(home + step) % workers] for step in range((chosen - home) % workers))


def test_other_requests_and_silent_connections_go_round():
    live = [True, True, True]
    assert [worker_for(b"GET / HTTP/1.1\r\n", live, turn) for turn in range(4)] == [0, 1, 2, 0]
    assert worker_for(b"", live, 5) == 2
    assert worker_for(b"GET /api/tables HTTP/1.1\r\n", live, 1) == 1  # creating a table: no id yet


def test_no_live_worker_is_an_error():
    with pytest.raises(RuntimeError, match="no worker"):
        worker_for(b"GET / HTTP/1.1\r\n", [False, False], 0)
