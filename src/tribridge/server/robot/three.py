"""Robot API for three-player auction bridge positions at /apis/3pab (same style as /apis/brill).

Seats are *dealing seats* throughout: ``seat`` is the asking player's seat at the deal, ``dealer``
the dealer, the widow sits opposite the dealer (``widow`` may be given and must say so), ``ctx``
is the three-player auction from the dealer (the same tokens as /apis/brill), ``dummy`` is the
widow's 13 cards. For the play the server reseats the hands itself (docs/rules.md: the widow goes
opposite the declarer, the player who sat there takes the widow's old seat), so clients never
convert seats; ``played`` lists the cards in order exactly as at /apis/brill.
"""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from tribridge.bots import BIDDER_NAMES, get_bidder
from tribridge.cards import SEAT_CHARS, Hand, Seat
from tribridge.errors import IllegalAction, InvalidInput
from tribridge.four.rules import Contract4, parse_ctx
from tribridge.rules.auction import AuctionOptions, AuctionState, Call, reseat
from tribridge.rules.view import bidding_view
from tribridge.server.robot import params as rp
from tribridge.server.robot.answers import ThreeBidJson, ThreeCardJson
from tribridge.server.robot.brill import (
    DEFAULT_LAYOUTS,
    card_answer,
    layouts_for,
    on_solver_pool,
    query_of,
    robot_answer,
)

ENDPOINTS = ["/apis/3pab/bid", "/apis/3pab/lead", "/apis/3pab/play"]
CARD_MODELS = ["pimc"]
DEFAULT_BIDDER = "estimate"

router = APIRouter()


def bid_models() -> list[str]:
    """Bidding bots offered at /apis/3pab/bid (from the bot registry)."""
    return list(BIDDER_NAMES)


def parse_auction3(params: Mapping[str, str]) -> tuple[int, AuctionState]:
    """Dealer, widow check, options and the three-player auction in ``ctx``."""
    dealer = rp.parse_seat(params.get("dealer"), "dealer")
    widow_text = params.get("widow")
    if widow_text not in (None, ""):
        widow = rp.parse_seat(widow_text, "widow")
        if widow != dealer ^ 2:
            raise InvalidInput(
                "widow", f"the widow sits opposite the dealer: {SEAT_CHARS[dealer ^ 2]}, not {SEAT_CHARS[widow]}"
            )
    ranking = (params.get("ranking") or "contract").strip().lower()
    if ranking not in ("contract", "value"):
        raise InvalidInput("ranking", f"expected 'contract' or 'value', got {params.get('ranking')!r}")
    must_bid = (params.get("dealer_must_bid") or "").strip().lower() in ("1", "true", "yes")
    ctx = params.get("ctx")
    if ctx is None:
        raise InvalidInput("ctx", "missing (it must be present, even if empty)")
    state = AuctionState.start(Seat(dealer), AuctionOptions(ranking=ranking, dealer_must_bid=must_bid))  # type: ignore[arg-type]
    for i, token in enumerate(parse_ctx(ctx)):
        call = Call.parse(token, "ctx")
        reason = state.illegal_reason(call)
        if reason is not None:
            who = state.turn.letter if state.turn is not None else "-"
            raise IllegalAction("ctx", f"call {i + 1} ({call.to_brill()}) by {who} is illegal: {reason}")
        state = state.apply(call)
    return dealer, state


def answer_bid3(params: Mapping[str, str]) -> ThreeBidJson:
    """A three-player bid from a registry bot."""
    models = bid_models()
    seat = rp.parse_seat(params.get("seat"), "seat")
    rp.parse_vul(params.get("vul"))
    hand = rp.parse_hand(params.get("hand"), "hand")
    model = rp.parse_model(params, models) or (DEFAULT_BIDDER if DEFAULT_BIDDER in models else models[0])
    dealer, state = parse_auction3(params)
    if seat == dealer ^ 2:
        raise InvalidInput("seat", f"{SEAT_CHARS[seat]} is the widow's seat: the widow does not call")
    if state.is_over:
        raise InvalidInput("ctx", "the auction is already over: no call is due")
    if state.turn != seat:
        raise InvalidInput("seat", f"{SEAT_CHARS[seat]} is not on turn: {state.turn.letter} calls next")  # type: ignore[union-attr]
    view = bidding_view(Seat(seat), Hand(frozenset(hand)), state)
    bidder = get_bidder(model)
    call = bidder.bid(view)
    cands = list(bidder.candidates(view)) if hasattr(bidder, "candidates") else [(call, 1.0)]
    if not state.is_legal(call):
        call = Call.parse("P")
    return {
        "bid": call.to_brill(),
        "alert": False,
        "explanation": "",
        "candidates": [{"bid": c.to_brill(), "score": round(float(s), 4)} for c, s in cands],
        "model": model,
    }


def parse_card3(params: Mapping[str, str], lead: bool) -> tuple[rp.PlayPosition, dict[int, int]]:
    """Check a three-player /lead or /play request; returns the position in play seats and the seat map."""
    seat = rp.parse_seat(params.get("seat"), "seat")
    vul = rp.parse_vul(params.get("vul"))
    hand = rp.parse_hand(params.get("hand"), "hand")
    rp.parse_model(params, CARD_MODELS)
    dummy, played = rp.parse_dummy_and_played(params, lead)
    dealer, state = parse_auction3(params)
    if not state.is_over:
        raise InvalidInput("ctx", "the auction is not over: no card can be played yet")
    if state.passed_out:
        raise InvalidInput("ctx", "the auction was passed out (all three passed): there is no play")
    contract = state.contract
    assert contract is not None
    widow = dealer ^ 2
    if seat == widow:
        raise InvalidInput(
            "seat", f"{SEAT_CHARS[seat]} is the widow's seat: ask as the declarer {contract.declarer.letter}"
        )
    mapping = {int(k): int(v) for k, v in reseat(Seat(dealer), contract.declarer).items()}
    c4 = Contract4(contract.level, int(contract.denom), contract.doubling, int(contract.declarer))
    play_seat = mapping[seat]
    due, trace = rp.check_play_position(play_seat, hand, dummy, c4, played, lead)
    pos = rp.PlayPosition(
        play_seat, due, dealer, vul, hand, dummy, c4, tuple(str(c) for c in state.calls), played, trace, None
    )
    return pos, mapping


def answer_card3(params: Mapping[str, str], lead: bool, layouts: int = DEFAULT_LAYOUTS) -> ThreeCardJson:
    """A three-player opening lead or card by PIMC (no auction inference)."""
    pos, mapping = parse_card3(params, lead)
    base = on_solver_pool(card_answer, pos, layouts)
    out: ThreeCardJson = {"card": base["card"], "candidates": base["candidates"], "model": base["model"]}
    out["model"] = "pimc"
    out["play_seats"] = {SEAT_CHARS[k]: SEAT_CHARS[v] for k, v in mapping.items()}
    return out


@router.get("/apis/3pab")
@router.get("/apis/3pab/")
async def three_root() -> JSONResponse:
    """Service description of the three-player robot API."""
    return JSONResponse(
        {
            "ok": True,
            "api": "tribridge three-player robot API",
            "models": bid_models(),
            "default_model": DEFAULT_BIDDER,
            "card_models": CARD_MODELS,
            "endpoints": ENDPOINTS,
        }
    )


@router.get("/apis/3pab/bid")
async def three_bid(request: Request) -> JSONResponse:
    """A bot's call for the three-player seat on turn (every model, ``simulation`` too, on the solver pool)."""
    return await robot_answer(request, answer_bid3, query_of(request))


@router.get("/apis/3pab/lead")
async def three_lead(request: Request) -> JSONResponse:
    """The opening lead (declarer's left-hand opponent in play seats)."""
    return await robot_answer(request, answer_card3, query_of(request), True, layouts_for(request))


@router.get("/apis/3pab/play")
async def three_play(request: Request) -> JSONResponse:
    """The next card; the declarer asks for the widow's (dummy's) card."""
    return await robot_answer(request, answer_card3, query_of(request), False, layouts_for(request))
