"""The events API tests' client: the real app on a fresh store of each backend, bots without delay."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tribridge.server.app import create_app


@pytest.fixture()
def client(db_url):
    """A test client of the whole app on ``db_url`` (both backends)."""
    app = create_app(db_path=db_url, bot_delay=0, log_requests=False)
    with TestClient(app) as c:
        yield c
