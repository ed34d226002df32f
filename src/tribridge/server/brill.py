"""Robot API (docs/server.md): BEN/Brill-compatible /apis/brill for four-handed positions and /apis/3pab for three-player ones."""

from __future__ import annotations

from typing import Any, Callable, Mapping

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from tribridge.bots import natural4
from tribridge.cards import Card
from tribridge.dd import Priority, solving_at
from tribridge.errors import InvalidInput
from tribridge.rules.bridge4 import to_brill
from tribridge.server import robot_params as rp

API_NAME = "tribridge robot API (Brill Seat Robot API, BEN-compatible)"
BRILL_MODELS = ["tribridge"]
BRILL_ENDPOINTS = ["/apis/brill/bid", "/apis/brill/lead", "/apis/brill/play"]
THREE_ENDPOINTS = ["/apis/3pab/bid", "/apis/3pab/lead", "/apis/3pab/play"]
# Card search: layouts sampled per decision (the /play benchmark target is stated for 32).
DEFAULT_LAYOUTS = 32

router = APIRouter()


def error_response(exc: Exception) -> JSONResponse:
    """HTTP 400 ``{"error": ...}`` for a bad request."""
    return JSONResponse({"error": str(exc)}, status_code=400)


def _params(request: Request) -> Mapping[str, str]:
    return request.query_params


def layouts_for(request: Request) -> int:
    """Layouts per card decision configured on the app (``create_app(robot_layouts=...)``)."""
    return int(getattr(request.app.state, "robot_layouts", DEFAULT_LAYOUTS))


def _guard(fn: Callable[[], dict[str, Any]]) -> JSONResponse:
    try:
        return JSONResponse(fn())
    except InvalidInput as exc:
        return error_response(exc)


# ---- four-handed: /apis/brill -------------------------------------------------------------


def brill_info() -> dict[str, Any]:
    """The service description answered at /apis/brill."""
    return {
        "ok": True,
        "api": API_NAME,
        "models": BRILL_MODELS,
        "default_model": BRILL_MODELS[0],
        "endpoints": BRILL_ENDPOINTS,
        "bidder": natural4.NAME,
        "player": "pimc",
        "three_player": {"endpoints": THREE_ENDPOINTS},
    }


@router.get("/apis/brill")
@router.get("/apis/brill/")
async def brill_root() -> JSONResponse:
    """Service description."""
    return JSONResponse(brill_info())


def answer_bid(params: Mapping[str, str]) -> dict[str, Any]:
    """Answer a four-handed /bid request with the natural bidder."""
    pos = rp.parse_bid_request(params, BRILL_MODELS)
    view = natural4.Bid4View(pos.seat, pos.dealer, pos.vul, tuple(pos.hand), pos.auction)
    call, why = natural4.decide(view)
    if pos.auction.is_legal(call) is not None:
        call, why = "P", "fallback pass"
    cands = natural4.candidates(view)
    return {
        "bid": to_brill(call),
        "alert": False,
        "explanation": why,
        "candidates": [{"bid": to_brill(c), "score": round(s, 4)} for c, s in cands],
        "model": pos.model or BRILL_MODELS[0],
    }


@router.get("/apis/brill/bid")
async def brill_bid(request: Request) -> JSONResponse:
    """The natural bidder's call for the seat on turn."""
    return _guard(lambda: answer_bid(_params(request)))


def card_answer(pos: rp.PlayPosition, layouts: int = DEFAULT_LAYOUTS) -> dict[str, Any]:
    """Choose a card for a checked play position (PIMC over sampled layouts)."""
    from tribridge.server.cardplay import choose_card

    with solving_at(Priority.ROBOT_API):
        card, cands = choose_card(pos, layouts=layouts, seed=rp.position_seed(pos.key()))
    return {
        "card": str(Card(card)),
        "candidates": [{"card": str(Card(c)), "score": None if s is None else round(float(s), 4)} for c, s in cands],
        "model": pos.model or BRILL_MODELS[0],
    }


def answer_card(params: Mapping[str, str], lead: bool, layouts: int = DEFAULT_LAYOUTS) -> dict[str, Any]:
    """Answer a four-handed /lead or /play request."""
    pos = rp.parse_card_request(params, BRILL_MODELS, lead)
    return card_answer(pos, layouts)


@router.get("/apis/brill/lead")
def brill_lead(request: Request) -> JSONResponse:
    """The opening lead of declarer's left-hand opponent."""
    return _guard(lambda: answer_card(_params(request), lead=True, layouts=layouts_for(request)))


@router.get("/apis/brill/play")
def brill_play(request: Request) -> JSONResponse:
    """The next card (dummy's when declarer asks on dummy's turn)."""
    return _guard(lambda: answer_card(_params(request), lead=False, layouts=layouts_for(request)))
