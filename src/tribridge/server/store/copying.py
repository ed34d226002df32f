"""Copying every table (configuration, seat-token hashes, names, action log) and every event between two stores.

A table the destination already holds with the same history is skipped, so a copy that stopped
half-way can be run again; one it holds with a different history stops the copy. Each copied
table is read back from the destination and compared with the source. Post-deal analyses are
derived data and are not copied: the destination computes them again when asked.
"""

from __future__ import annotations

from dataclasses import dataclass

from tribridge.errors import InvalidInput
from tribridge.server.store import Store

__all__ = ["CopyReport", "copy_store"]


@dataclass(frozen=True)
class CopyReport:
    """What ``copy_store`` did: tables copied (and their actions), tables already there, events copied."""

    tables: int
    actions: int
    already_there: int
    events: int


def copy_store(source: Store, destination: Store) -> CopyReport:
    """Copy every table and event of ``source`` into ``destination``, verifying each table read back."""
    tables = actions = already = 0
    for table_id in source.table_ids():
        stored = source.load(table_id)
        if stored is None:
            continue
        there = destination.load(table_id)
        if there is not None:
            if there != stored:
                raise InvalidInput("--to", f"table {table_id} is already there with a different history")
            already += 1
            continue
        destination.import_table(stored)
        if destination.load(table_id) != stored:
            raise RuntimeError(f"table {table_id} reads back differently after the copy")
        tables += 1
        actions += len(stored.actions)
    events = 0
    for event_id in source.event_ids():
        document = source.load_event(event_id)
        if document is not None and destination.load_event(event_id) != document:
            destination.put_event(event_id, document)
            events += 1
    return CopyReport(tables, actions, already, events)
