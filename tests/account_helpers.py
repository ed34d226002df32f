"""Helpers for the accounts tests: every value a store holds, in every one of its tables."""

from __future__ import annotations

from typing import Any

__all__ = ["every_cell"]


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
