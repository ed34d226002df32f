"""``tribridge ratings rebuild``: recompute every rating from the stored rated games (docs/cli.md)."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``ratings`` command group (``ratings rebuild``)."""
    p = sub.add_parser("ratings", help="player and bot ratings: rebuild them from the rated games")
    group = p.add_subparsers(dest="ratings_command", metavar="RATINGS_COMMAND", required=True)
    rebuild = group.add_parser(
        "rebuild",
        help="recompute every rating from the stored games, in their order, and compare with the kept ones",
        description="Recompute every rating and its history from the store's rated games in the order they were "
        "applied, compare with the ratings kept game by game, and write the recomputed ones.",
    )
    rebuild.add_argument("--db", metavar="PATH|URL", help="the game store (default: the server's)")
    rebuild.set_defaults(func=run_rebuild)


def run_rebuild(args: argparse.Namespace) -> int:
    """Replay the games, print how far the kept ratings were from the replayed ones, write the replayed ones."""
    from tribridge.server.accounts.ratings import replay
    from tribridge.server.app import default_db_path
    from tribridge.server.store import open_store

    store = open_store(args.db or default_db_path())
    try:
        games = store.rating_games()
        kept = store.ratings()
        ratings, history = replay(games)
        gap = max(
            (abs(kept[e].mu - r.mu) + abs(kept[e].sigma - r.sigma) for e, r in ratings.items() if e in kept),
            default=0.0,
        )
        same = set(kept) == set(ratings) and gap == 0.0 and all(kept[e].games == r.games for e, r in ratings.items())
        store.replace_ratings(ratings, history)
    finally:
        store.close()
    verdict = "equal to the kept ones" if same else f"the kept ones differed (largest gap {gap:.6g})"
    print(f"rebuilt {len(ratings)} ratings from {len(games)} games: {verdict}")
    return 0
