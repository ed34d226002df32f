"""Robot API: Brill's Seat Robot API at /apis/brill for four-handed positions (its two-character call tokens),
the shared answer builders of BEN's root API (``server/ben.py``), and helpers /apis/3pab uses."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from tribridge.bots.play import CardPosition
from tribridge.cards import Card
from tribridge.dd import Priority, solver_pool, solving_at
from tribridge.dd.pool import in_solver_process
from tribridge.four import bidders, natural4
from tribridge.four.natural4.inference import pimc_with_auction
from tribridge.four.rules import Auction4, to_brill
from tribridge.server.errors import Overdue
from tribridge.server.heap import freeze_heap_once
from tribridge.server.robot import ROBOT_DEADLINE_SECONDS
from tribridge.server.robot import params as rp
from tribridge.server.robot.answers import BidAnswerJson, CallCandidate, CardAnswerJson

API_NAME = "tribridge robot API (Brill Seat Robot API, BEN-compatible)"
BRILL_MODELS = ["tribridge"]
BRILL_ENDPOINTS = ["/apis/brill/bid", "/apis/brill/lead", "/apis/brill/play"]
THREE_ENDPOINTS = ["/apis/3pab/bid", "/apis/3pab/lead", "/apis/3pab/play"]
BEN_ENDPOINTS = ["/bid", "/lead", "/play", "/explain"]
# Card search: layouts sampled per decision (the /play benchmark target is stated for 32).
DEFAULT_LAYOUTS = 32

Answer = TypeVar("Answer")  # an answer builder's JSON type
router = APIRouter()


def layouts_for(request: Request) -> int:
    """Layouts per card decision configured on the app (``create_app(robot_layouts=...)``)."""
    return int(getattr(request.app.state, "robot_layouts", DEFAULT_LAYOUTS))


def answer_json(fn: Callable[[], Mapping[str, object]]) -> JSONResponse:
    """Run a cheap answer builder here and send its dict as JSON (bad input raises ``InvalidInput``: 400)."""
    answer = fn()
    freeze_heap_once("robot answer")  # the first answer has loaded the bidder or player: freeze what it loaded
    return JSONResponse(answer)


def deadline_for(request: Request) -> float:
    """Seconds a robot-API request may wait for its answer (``create_app(robot_deadline=...)``)."""
    return float(getattr(request.app.state, "robot_deadline", ROBOT_DEADLINE_SECONDS))


async def robot_answer(request: Request, fn: Callable[..., Mapping[str, object]], *args: Any) -> JSONResponse:
    """One robot-API decision as one ``ROBOT_API`` job on the solver pool, awaited (the event loop never waits).

    ``fn`` is a top-level answer builder and ``args`` plain values (the query as a dict), since the job
    runs in a solver process. Bad input raises ``InvalidInput`` (400); a full queue ``QueueFull`` (503);
    no answer within the app's robot deadline ``Overdue`` (503 with ``Retry-After``; the queued job is dropped).
    """
    deadline = deadline_for(request)
    try:
        answer = await asyncio.wait_for(solver_pool().run(fn, *args, priority=Priority.ROBOT_API), deadline)
    except TimeoutError:
        raise Overdue(f"no robot answer within {deadline:g} s") from None
    freeze_heap_once("robot answer")  # what the first answer left here (the pool's machinery) lives on: freeze it
    return JSONResponse(answer)


def query_of(request: Request) -> dict[str, str]:
    """The request's query parameters as a plain dict (the last value of a repeated one, as ``.get`` reads)."""
    return dict(request.query_params)


# ---- four-handed: /apis/brill -------------------------------------------------------------


def brill_info() -> dict[str, Any]:
    """The service description answered at /apis/brill."""
    return {
        "ok": True,
        "api": API_NAME,
        "models": BRILL_MODELS,
        "default_model": BRILL_MODELS[0],
        "endpoints": BRILL_ENDPOINTS,
        "bidder": bidders.DEFAULT_BIDDER,
        "bidders": list(bidders.BIDDERS),
        "systems": list(natural4.SYSTEMS),
        "default_system": natural4.SYSTEM,
        "player": "pimc",
        "three_player": {"endpoints": THREE_ENDPOINTS},
        "ben_endpoints": BEN_ENDPOINTS,
    }


@router.get("/apis/brill")
@router.get("/apis/brill/")
async def brill_root() -> JSONResponse:
    """Service description."""
    return JSONResponse(brill_info())


@dataclass(frozen=True)
class BidAnswer:
    """The bidder's answer to a checked /bid position, before it is spelled for a client."""

    decision: natural4.Decision
    bidder: str
    candidates: list[tuple[str, float]]
    model: str
    system: str
    notes: list[str]
    auction_meanings: list[tuple[str, str]]


def request_systems(params: Mapping[str, str], seat: int) -> tuple[tuple[str, str], list[str]]:
    """The systems of North-South and East-West that ``ourSystem`` (``seat``'s side) and ``theirSystem`` ask
    for, and a note for each name the bidder does not play (that side is read as SAYC)."""
    chosen, notes = [], []
    for name in rp.SYSTEM_PARAMS:  # ourSystem, theirSystem
        played, note = natural4.system_for(params.get(name))
        chosen.append(played)
        if note:
            notes.append(f"{name}: {note}")
    return natural4.side_systems(seat, chosen[0], chosen[1]), notes


def bid_answer(params: Mapping[str, str]) -> BidAnswer:
    """Check a four-handed /bid request and choose the call, with the system notes and the auction's meanings."""
    pos = rp.parse_bid_request(params, BRILL_MODELS)
    bidder = bidders.bidder_named(params.get("bidder"))
    systems, notes = request_systems(params, pos.seat)
    system = systems[pos.seat % 2]
    view = natural4.Bid4View(pos.seat, pos.dealer, pos.vul, tuple(pos.hand), pos.auction, systems)
    with solving_at(Priority.ROBOT_API):  # the searching bidder's double-dummy batches
        decision = bidders.decide_with(bidder, view)
    if not pos.auction.is_legal(decision.call):  # the bidder only makes legal calls; never answer an illegal one
        raise RuntimeError(f"bidder chose an illegal call {decision.call}")
    _, meanings = natural4.read_auction(pos.auction, pos.vul, systems)
    read = [(call, m.text()) for call, m in zip(pos.auction.calls, meanings)]
    cands = natural4.candidates_of(decision)
    return BidAnswer(decision, bidder, cands, pos.model or BRILL_MODELS[0], system, notes, read)


def candidate_rows(cands: list[tuple[str, float]], spell: Callable[[str], str]) -> list[CallCandidate]:
    """Candidates carrying both ``bid`` and ``call`` (the same call in the client's spelling) and a score."""
    return [{"bid": spell(c), "call": spell(c), "score": round(s, 4), "insta_score": round(s, 4)} for c, s in cands]


def answer_bid(params: Mapping[str, str]) -> BidAnswerJson:
    """Answer a four-handed /apis/brill/bid request (Brill/Pidgin spelling: ``--``, ``Db``, ``Rd``, ``1N``)."""
    ans = bid_answer(params)
    out: BidAnswerJson = {
        "bid": to_brill(ans.decision.call),
        "alert": ans.decision.alert,
        "explanation": ans.decision.explanation,
        "candidates": candidate_rows(ans.candidates, to_brill),
        "model": ans.model,
        "system": ans.system,
        "bidder": ans.bidder,
    }
    if ans.notes:
        out["note"] = "; ".join(ans.notes)
    return out


@router.get("/apis/brill/bid")
async def brill_bid(request: Request) -> JSONResponse:
    """The natural bidder's call for the seat on turn."""
    return await robot_answer(request, answer_bid, query_of(request))


def on_solver_pool(fn: Callable[..., Answer], *args: Any) -> Answer:
    """Run a card decision (sampling and solving) as one ROBOT_API job on the solver pool; QueueFull if full.

    Inside a solver process (a robot-API job already) it runs right here."""
    if in_solver_process():
        return fn(*args)
    return solver_pool().call(fn, *args, priority=Priority.ROBOT_API)


def card_answer(pos: rp.PlayPosition, layouts: int = DEFAULT_LAYOUTS) -> CardAnswerJson:
    """Choose a card for a checked play position (PIMC over sampled layouts)."""
    from tribridge.server.robot.cardplay import choose_card

    with solving_at(Priority.ROBOT_API):
        card, cands = choose_card(pos, layouts=layouts, seed=rp.position_seed(pos.key()))
    return {
        "card": str(Card(card)),
        "candidates": [{"card": str(Card(c)), "score": None if s is None else round(float(s), 4)} for c, s in cands],
        "model": pos.model or BRILL_MODELS[0],
    }


def card_answer4(
    pos: rp.PlayPosition, layouts: int = DEFAULT_LAYOUTS, systems: tuple[str, str] = natural4.BOTH_SAYC
) -> CardAnswerJson:
    """Choose a card for a checked four-handed position: PIMC over layouts that fit what the auction showed
    (each side's calls read by its system of ``systems``, North-South then East-West)."""
    shown, _ = natural4.read_auction(Auction4(pos.dealer, pos.auction_calls), pos.vul, systems)
    hands = {pos.seat: tuple(sorted(pos.hand))}
    if pos.dummy is not None and pos.played:  # the opening leader does not see dummy
        hands[pos.contract.dummy] = tuple(sorted(pos.dummy))
    position = CardPosition(pos.contract.declarer, pos.contract.trump, tuple(sorted(hands.items())), tuple(pos.played))
    with solving_at(Priority.ROBOT_API):
        decision = pimc_with_auction(position, shown, layouts, rp.position_seed(pos.key()))
    cands = [(int(c), None if isinstance(m, float) and math.isnan(m) else float(m)) for c, m in decision.candidates]
    return {
        "card": str(Card(int(decision.card))),
        "candidates": [{"card": str(Card(c)), "score": None if s is None else round(s, 4)} for c, s in cands],
        "model": pos.model or BRILL_MODELS[0],
    }


def answer_card(params: Mapping[str, str], lead: bool, layouts: int = DEFAULT_LAYOUTS) -> CardAnswerJson:
    """Answer a four-handed /lead or /play request."""
    pos = rp.parse_card_request(params, BRILL_MODELS, lead)
    return on_solver_pool(card_answer4, pos, layouts, request_systems(params, pos.seat)[0])


@router.get("/apis/brill/lead")
async def brill_lead(request: Request) -> JSONResponse:
    """The opening lead of declarer's left-hand opponent."""
    return await robot_answer(request, answer_card, query_of(request), True, layouts_for(request))


@router.get("/apis/brill/play")
async def brill_play(request: Request) -> JSONResponse:
    """The next card (dummy's when declarer asks on dummy's turn)."""
    return await robot_answer(request, answer_card, query_of(request), False, layouts_for(request))
