"""Ratings over HTTP (docs/server.md, "Ratings"): the leaderboard, a player's profile and rating graph (public)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from tribridge.errors import InvalidInput
from tribridge.server.accounts.rating_service import account_entity
from tribridge.server.accounts.ratings import Rating, head_to_head, rating_svg
from tribridge.server.accounts.service import username_key
from tribridge.server.api.accounts import Accounts
from tribridge.server.api.events import Events
from tribridge.server.errors import NotFound
from tribridge.server.events.series import recent_entries
from tribridge.server.store.accounts import Account

__all__ = ["router"]

MAX_LEADERS = 100
GRAPH_POINTS = 500  # the newest games drawn
HEAD_TO_HEAD_GAMES = 2000  # the newest games the head-to-head records count
HEAD_TO_HEAD_OPPONENTS = 20  # the opponents met most often, each looked up
RECENT_EVENTS = 10
router = APIRouter()


def _rating_json(rating: Rating) -> dict[str, Any]:
    return {
        "mu": round(rating.mu, 3),
        "sigma": round(rating.sigma, 3),
        "conservative": round(rating.conservative, 3),
        "games": rating.games,
    }


@router.get("/api/ratings")
async def leaderboard(accounts: Accounts, request: Request) -> Any:
    """The rated accounts and bots with at least ``min_games`` games (default 10), best first (``mu - 3 sigma``)."""
    text = request.query_params.get("min_games", "10")
    if not text.isdigit() or int(text) > 10**6:
        raise InvalidInput("min_games", "expected a whole number of games")
    store = accounts.store
    ratings = await store.call(store.sync.ratings)
    names = {account_entity(a.account_id): a.username for a in await store.call(store.sync.list_accounts)}
    rows = []
    for entity, rating in ratings.items():
        if rating.games < int(text) or not (entity in names or entity.startswith("bot:")):
            continue
        name = names.get(entity, entity)
        rows.append({"name": name, "bot": entity.startswith("bot:"), **_rating_json(rating)})
    rows.sort(key=lambda r: (-r["conservative"], r["name"]))
    return {"leaders": rows[:MAX_LEADERS], "min_games": int(text)}


async def _player(accounts: Accounts, username: str) -> Account:
    store = accounts.store
    account = await store.call(store.sync.account_by_key, username_key(username[:64]))
    if account is None or account.disabled:
        raise NotFound(f"no player {username[:40]!r}")
    return account


async def _opponent_names(accounts: Accounts, entities: list[str]) -> dict[str, str]:
    """The shown names of rating entities: a bot's as it is, an account's its username (a deleted one left out)."""
    names = {}
    for entity in entities:
        if entity.startswith("bot:"):
            names[entity] = entity
        elif entity.startswith("acct:"):
            found = await accounts.store.call(accounts.store.sync.account_by_id, entity.removeprefix("acct:"))
            if found is not None:
                names[entity] = found.username
    return names


@router.get("/api/players/{username}")
async def profile(accounts: Accounts, events: Events, username: str) -> Any:
    """A player's rating with its uncertainty, the rating after each of the newest games, its head-to-head records
    over its newest rated games and its most recent events."""
    account = await _player(accounts, username)
    store = accounts.store
    entity = account_entity(account.account_id)
    rating = (await store.call(store.sync.ratings)).get(entity, Rating())
    history = (await store.call(store.sync.rating_history, entity))[-GRAPH_POINTS:]
    records = head_to_head(entity, await store.call(store.sync.games_of, entity, HEAD_TO_HEAD_GAMES))
    names = await _opponent_names(accounts, [r.opponent for r in records[:HEAD_TO_HEAD_OPPONENTS]])
    return {
        "username": account.username,
        "rating": _rating_json(rating),
        "history": [{"game": seq, "mu": round(r.mu, 3), "sigma": round(r.sigma, 3)} for seq, r in history],
        "graph": f"/api/players/{account.username}/rating.svg",
        "head_to_head": [
            {"opponent": names.get(r.opponent, r.opponent), "bot": r.opponent.startswith("bot:")}
            | {"wins": r.wins, "ties": r.ties, "losses": r.losses}
            for r in records[:HEAD_TO_HEAD_OPPONENTS]
            if r.opponent in names
        ],
        "recent_events": recent_entries(await events.documents(), account.account_id, RECENT_EVENTS, events.clock()),
    }


@router.get("/api/players/{username}/rating.svg")
async def graph(accounts: Accounts, username: str) -> Response:
    """The player's rating graph, an SVG picture."""
    account = await _player(accounts, username)
    store = accounts.store
    history = (await store.call(store.sync.rating_history, account_entity(account.account_id)))[-GRAPH_POINTS:]
    points = [Rating()] + [Rating(r.mu, r.sigma, n) for n, (_seq, r) in enumerate(history, start=1)]
    return Response(rating_svg(points), media_type="image/svg+xml")
