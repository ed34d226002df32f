"""Copying a whole store: every table (configuration, seat-token hashes, names, action log), every event, every
account (with its sessions and held chairs) and the ratings (rated games, ratings, their history).

A table the destination already holds with the same history is skipped, so a copy that stopped
half-way can be run again; one it holds with a different history stops the copy. Accounts are alike:
one already there with the same row is skipped, one there that differs (or whose username another
account has there) stops it. The ratings are copied whole in one transaction, into a destination
that has none or the same ones. Everything copied is read back from the destination and compared
with the source. Not copied: post-deal analyses (derived: the destination computes them again when
asked), the counted wrong passwords (they matter for 15 minutes) and what running processes share
(leases, socket counts).
"""

from __future__ import annotations

from dataclasses import dataclass

from tribridge.errors import InvalidInput
from tribridge.server.store import Store

__all__ = ["CopyReport", "copy_accounts", "copy_ratings", "copy_store"]


@dataclass(frozen=True)
class CopyReport:
    """What ``copy_store`` did: tables copied (and their actions), tables already there, events, accounts and
    rated games copied."""

    tables: int
    actions: int
    already_there: int
    events: int
    accounts: int = 0
    rated_games: int = 0


def copy_store(source: Store, destination: Store) -> CopyReport:
    """Copy every table, event, account and the ratings of ``source`` into ``destination``, verifying each read
    back."""
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
    return CopyReport(
        tables, actions, already, events, copy_accounts(source, destination), copy_ratings(source, destination)
    )


def copy_accounts(source: Store, destination: Store) -> int:
    """Copy each account of ``source`` (its sessions and seats with it) that ``destination`` lacks; how many."""
    copied = 0
    for account in source.list_accounts():
        wanted = source.export_account(account.account_id)
        if wanted is None:
            continue
        there = destination.account_by_id(account.account_id)
        if there is not None:
            if there != wanted.account:
                raise InvalidInput("--to", f"account {account.account_id} is already there and differs")
            continue
        if not destination.import_account(wanted):
            raise InvalidInput("--to", f"another account there has the username of account {account.account_id}")
        if destination.export_account(account.account_id) != wanted:
            raise RuntimeError(f"account {account.account_id} reads back differently after the copy")
        copied += 1
    return copied


def copy_ratings(source: Store, destination: Store) -> int:
    """Copy the rated games, ratings and history into a destination without any (none if it has the same); how many
    games."""
    wanted = source.export_ratings()
    there = destination.export_ratings()
    if there == wanted or not wanted:
        return 0
    if there:
        raise InvalidInput("--to", "the destination holds other rated games already")
    destination.import_ratings(wanted)
    if destination.export_ratings() != wanted:
        raise RuntimeError("the ratings read back differently after the copy")
    return len(wanted.games)
