"""Fixtures of the store tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tribridge.server.store import Store, open_store


@pytest.fixture()
def store(db_url: str) -> Iterator[Store]:
    """The store ``db_url`` names, open for one test (closed after it)."""
    s = open_store(db_url)
    yield s
    s.close()
