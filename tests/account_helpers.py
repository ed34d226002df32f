"""Helpers for the accounts tests: a browser of the site's own pages, signing up, and every value a store holds."""

from __future__ import annotations

import itertools
from typing import Any

import httpx

__all__ = ["PASSWORD", "browser", "every_cell", "sign_up"]

PASSWORD = "a long enough phrase"
ADDRESSES = itertools.count(1)


def browser(url: str) -> httpx.Client:
    """A client that acts as this site's page from an address of its own (forwarded by the trusted proxy, so each
    test's limits are its own): its requests carry the site's Origin."""
    n = next(ADDRESSES)
    address = f"10.0.{n // 250}.{n % 250 + 1}"
    return httpx.Client(base_url=url, headers={"Origin": url, "X-Forwarded-For": address}, timeout=30)


def sign_up(url: str, username: str, password: str = PASSWORD) -> httpx.Client:
    """A new account, logged in: a ``browser`` holding its session cookie."""
    client = browser(url)
    answer = client.post("/api/accounts", json={"username": username, "password": password})
    assert answer.status_code == 201, answer.text
    return client


def every_cell(store: Any) -> list[str]:
    """Every value in every table of the store, as text (a deletion test looks for the account in all of them)."""
    with store.transaction() as tx:
        if hasattr(store, "path"):
            names = [r[0] for r in tx.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()]
        else:
            names = [
                r[0]
                for r in tx.execute(
                    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
                ).fetchall()
            ]
        cells = []
        for name in names:
            for row in tx.execute(f"SELECT * FROM {name}").fetchall():
                cells.extend(str(v) for v in row)
    return cells
