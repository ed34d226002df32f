"""``tribridge store copy``: copy every table, event, account and rating from one game store to another (SQLite,
PostgreSQL)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``store`` command group (``store copy``)."""
    p = sub.add_parser(
        "store",
        help="game store tools: copy every table between SQLite and PostgreSQL",
        description="Game store tools (see docs/server.md and docs/deploy.md).",
    )
    group = p.add_subparsers(dest="store_command", metavar="STORE_COMMAND", required=True)
    copy = group.add_parser(
        "copy",
        help="copy every table (seats, action log), event, account and the ratings to another store",
        description="Copy every table (configuration, seat-token hashes, names, action log), every event, every "
        "account (password hash, sessions, held chairs) and the ratings (rated games, ratings, history) from one "
        "store to another, reading each back to verify it. Tables and accounts the destination already holds "
        "the same are skipped; stop the servers of both stores first.",
    )
    copy.add_argument("--from", dest="source", required=True, metavar="STORE", help="source: FILE.sqlite or URL")
    copy.add_argument(
        "--to", dest="destination", required=True, metavar="STORE", help="destination: postgresql://... or FILE"
    )
    copy.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Open both stores (the destination is created and migrated), copy, print what was copied."""
    from pathlib import Path

    from tribridge.errors import InvalidInput
    from tribridge.server.store import open_store, sqlite_path, store_label
    from tribridge.server.store.copying import copy_store

    source_file = sqlite_path(args.source)
    if source_file is not None and not Path(source_file).is_file():
        raise InvalidInput("--from", f"no store file {source_file!r}")
    if store_label(args.source) == store_label(args.destination):
        raise InvalidInput("--to", "the destination is the source")
    source = open_store(args.source)
    try:
        destination = open_store(args.destination)
        try:
            report = copy_store(source, destination)
        finally:
            destination.close()
    finally:
        source.close()
    print(
        f"copied {report.tables} tables ({report.actions} actions), {report.events} events, "
        f"{report.accounts} accounts and {report.rated_games} rated games "
        f"from {store_label(args.source)} to {store_label(args.destination)}; "
        f"{report.already_there} tables were already there; everything copied read back the same"
    )
    return 0
