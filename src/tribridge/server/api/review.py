"""The deal review: a finished deal's auction by player and its play trick by trick, double dummy after each card.

``GET /api/tables/{id}/deals/{deal_no}/review`` (any chair's token; the session of an account holding a chair of
the table, from any device, as "My deals" lists its deals; or none: a spectator, under the watching rule of an
open event's table, where an account holding no chair gets 404; finished deals only). For every
card: the double-dummy tricks of the declaring side once it is played, and the tricks it cost its
side (0 for a double-dummy best card) with the cards that were best instead. Computed with
``tribridge.dd`` (one batched DDS call per deal) as one ``ANALYSIS`` job on the solver pool, awaited
(never on the server's threads), and cached per deal.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NotRequired, TypedDict

from fastapi import APIRouter, Header, Request

from tribridge.cards import Card, Seat
from tribridge.dd import Priority, position_after, solve_positions, solver_pool
from tribridge.errors import InvalidInput
from tribridge.rules.deal import DealState
from tribridge.rules.game import DealRecord
from tribridge.server.api.accounts import COOKIE, get_accounts
from tribridge.server.api.deps import Manager
from tribridge.server.api.tables import check_watch, token_from
from tribridge.server.errors import Forbidden, NotFound
from tribridge.server.tables.manager import TableManager
from tribridge.server.tables.table import Table
from tribridge.server.tables.wire import JsonObject
from tribridge.server.tables.wire_view import DealRecordJson, UndoneJson

__all__ = ["ReviewJson", "named_review", "review_deal", "review_on_pool", "review_record", "review_text", "router"]


class ReviewCallJson(TypedDict):
    """A call of the reviewed auction, by the player (dealing seat) who made it."""

    player: str
    call: str


class ReviewCardJson(TypedDict):
    """A card of the reviewed play: who played it, the declaring side's double-dummy tricks after it, what it cost
    its side, and the cards that were best instead."""

    seat: str
    card: str
    dd_after: int
    cost: int
    best: list[str]


class ReviewTrickJson(TypedDict):
    """A trick of the reviewed play (``winner``: None while it is not complete)."""

    leader: str
    cards: list[ReviewCardJson]
    winner: str | None


class ReviewClaimJson(TypedDict):
    """The claim that ended the play."""

    seat: str
    tricks: int
    tricks_left: int


class ReviewJson(TypedDict):
    """A finished deal's review; ``deal_no`` and ``undone`` added by the route, the names by ``named_review``."""

    dealer: str
    widow: str
    auction: list[ReviewCallJson]
    contract: str | None
    declarer: str | None
    dd_start: int | None
    tricks: list[ReviewTrickJson]
    claim: ReviewClaimJson | None
    declarer_tricks: int
    hands: dict[str, str] | None
    dummy: NotRequired[str]
    seats: NotRequired[dict[str, str]]
    chair_of_player: NotRequired[dict[str, int | None]]
    names: NotRequired[list[str] | None]
    deal_no: NotRequired[int]
    undone: NotRequired[list[UndoneJson]]


router = APIRouter()


def review_deal(state: DealState) -> ReviewJson:
    """The review of a finished deal (JSON-ready, seats as letters): auction by player, play with double-dummy marks."""
    auction: list[ReviewCallJson] = [
        {"player": state.auction.seat_of_call(i).letter, "call": str(call)}
        for i, call in enumerate(state.auction.calls)
    ]
    out: ReviewJson = {
        "dealer": state.dealer.letter,
        "widow": state.widow.letter,
        "auction": auction,
        "contract": None,
        "declarer": None,
        "dd_start": None,
        "tricks": [],
        "claim": None,
        "declarer_tricks": state.declarer_tricks,
        "hands": None,
    }
    play = state.play
    if play is None or state.contract is None:
        out["hands"] = {s.letter: state.deal[s].to_pbn() for s in Seat}
        return out
    contract = state.contract
    declarer = contract.declarer
    out["contract"] = str(contract)
    out["declarer"] = declarer.letter
    out["dummy"] = play.dummy.letter
    out["seats"] = {p.letter: state.seat_of(p).letter for p in Seat if p != state.widow}
    out["hands"] = {s.letter: play.deal[s].to_pbn() for s in Seat}
    trump = None if play.trump is None else int(play.trump)
    leader = declarer.lho
    played = list(play.played)
    positions = [position_after(play.deal, trump, int(leader), played[:k]) for k in range(len(played))]
    solutions = solve_positions(positions) if positions else []
    won_before = _declarer_tricks_before(state)
    for k, card in enumerate(played):
        pos, solution = positions[k], solutions[k]
        left = 13 - k // 4
        ours = Seat(pos.turn) in (declarer, play.dummy)
        best = max(solution.values())
        # the declaring side's total: its tricks so far plus its share of the rest after this card
        totals = {c: won_before[k] + (v if ours else left - v) for c, v in solution.items()}
        if k == 0:
            out["dd_start"] = max(totals.values()) if ours else min(totals.values())
        chosen = solution[card.index]
        entry: ReviewCardJson = {
            "seat": Seat(pos.turn).letter,
            "card": str(card),
            "dd_after": totals[card.index],
            "cost": best - chosen,
            "best": [] if chosen == best else sorted(str(Card(c)) for c, v in solution.items() if v == best),
        }
        if k % 4 == 0:
            out["tricks"].append({"leader": Seat(pos.turn).letter, "cards": [], "winner": None})
        out["tricks"][-1]["cards"].append(entry)
    for trick, (_leader, _cards, winner) in zip(out["tricks"], play.tricks):
        trick["winner"] = winner.letter
    if play.claimed is not None:
        seat, tricks = play.claimed
        out["claim"] = {"seat": Seat(seat).letter, "tricks": int(tricks), "tricks_left": play.tricks_left}
    return out


def _declarer_tricks_before(state: DealState) -> list[int]:
    """For each card of the play, the tricks the declaring side had won before it."""
    assert state.play is not None and state.contract is not None
    side = (state.contract.declarer, state.play.dummy)
    out: list[int] = []
    won = 0
    for _leader, cards, winner in state.play.tricks:
        out.extend([won] * len(cards))
        won += winner in side
    out.extend([won] * len(state.play.current_trick))
    return out


REVIEW_CACHE_SIZE = 256


def review_text(record_text: str) -> str:
    """The review of a stored finished deal (its ``DealRecord`` JSON text) as JSON text."""
    return json.dumps(review_deal(DealRecord.from_json(record_text).state()))


@lru_cache(maxsize=REVIEW_CACHE_SIZE)
def _review_cached(record_text: str) -> str:
    return review_text(record_text)


_REVIEWS: OrderedDict[str, str] = OrderedDict()  # record text -> review text, computed on the pool


async def review_on_pool(record: JsonObject) -> str:
    """The review text of a stored finished deal, from the cache or as one ``ANALYSIS`` job on the solver pool."""
    key = json.dumps(record, sort_keys=True)
    if key in _REVIEWS:
        _REVIEWS.move_to_end(key)
        return _REVIEWS[key]
    text = await solver_pool().run(review_text, key, priority=Priority.ANALYSIS)
    _REVIEWS[key] = text
    while len(_REVIEWS) > REVIEW_CACHE_SIZE:
        _REVIEWS.popitem(last=False)
    return str(text)


def named_review(text: str, chair_seats: Sequence[str] | None = None, names: Sequence[str] | None = None) -> ReviewJson:
    """A review's JSON with the players named by chair when known."""
    review: ReviewJson = json.loads(text)
    chair_of = {seat: i for i, seat in enumerate(chair_seats or ())}
    review["chair_of_player"] = {seat: chair_of.get(seat) for seat in review.get("seats", {}) or {}}
    review["names"] = list(names) if names is not None else None
    return review


def review_record(
    record: JsonObject, chair_seats: Sequence[str] | None = None, names: Sequence[str] | None = None
) -> ReviewJson:
    """The review of a stored finished deal (``DealRecord.to_json()``), cached; players named by chair when known."""
    return named_review(_review_cached(json.dumps(record, sort_keys=True)), chair_seats, names)


async def _is_chair(manager: TableManager, table: Table, token: str | None) -> bool:
    """Whether ``token`` is one of the table's chairs' tokens."""
    if not token:
        return False
    try:
        await manager.chair_of(table, token)
    except Forbidden:
        return False
    return True


async def _account_holds(request: Request, table: Table) -> bool | None:
    """Whether the request's logged-in account holds a chair of ``table`` (None: no account is logged in)."""
    if not request.cookies.get(COOKIE):
        return None
    accounts = await get_accounts(request)
    who = await accounts.logged_in(request.cookies.get(COOKIE))
    if who is None:
        return None
    holders = await accounts.store.call(accounts.store.sync.holders_of, table.table_id)
    return any(account_id == who.account.account_id for account_id, _chair in holders)


async def _check_reviewer(
    manager: TableManager, request: Request, table: Table, token: str | None, number: int
) -> None:
    """Let a chair's token, an account holding a chair, or a spectator the watching rule allows see deal ``number``;
    403 for a spectator it refuses, 404 for a logged-in account holding no chair there (as "My deals" answers)."""
    if await _is_chair(manager, table, token):
        return
    held = await _account_holds(request, table)
    if held:
        return
    try:
        await check_watch(request, table, token, number)
    except Forbidden:
        if held is False:
            raise NotFound(f"no finished deal {table.table_id[:40]}:{number} of yours") from None
        raise


def _find_record(history: list[DealRecordJson], deal_no: int) -> DealRecordJson | None:
    for entry in history:
        if entry.get("deal_no") == deal_no:
            return entry
    return None


@router.get("/api/tables/{table_id}/deals/{deal_no}/review")
async def deal_review(
    manager: Manager,
    request: Request,
    table_id: str,
    deal_no: str,
    authorization: str | None = Header(default=None),
) -> Any:
    """A finished deal's review for a chair of the table (Bearer token), the logged-in account holding a chair of it,
    or a spectator who may watch it (an open event's table: an entrant who has finished that board); 404 until the
    deal is over."""
    try:
        number = int(deal_no)
    except ValueError:
        raise InvalidInput("deal_no", f"expected a deal number, got {deal_no!r}") from None
    table = await manager.get(table_id)
    await _check_reviewer(manager, request, table, token_from(authorization), number)
    entry = _find_record(table.history, number)
    if entry is None:
        raise NotFound(f"deal_no: deal {number} of table {table_id} is not finished")
    review = named_review(await review_on_pool(entry["record"]), entry.get("chair_seats"), entry.get("players"))
    review["deal_no"] = number
    review["undone"] = entry.get("undone", [])  # calls and cards taken back by consent (chair, action, at)
    return review
