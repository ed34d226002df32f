"""BEN's robot API at the server root (``GET /bid``, ``/lead``, ``/play``, ``/explain``), as BEN's ``gameapi``
answers it: calls spelled ``PASS``, ``X``, ``XX``, ``1N``; BEN's field names (``who``, ``hcp``, ``shape``,
``samples``, ``player``); ``details`` adds the candidates (each with ``call`` and ``bid``) and the auction's
explanations. The same request parsing and bots as ``/apis/brill`` serve it; errors are 400 ``{"error"}``.
"""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from tribridge.cards import Card
from tribridge.errors import InvalidInput
from tribridge.four import natural4
from tribridge.four.rules import PASS, Auction4, parse_ctx, winner_of_trick
from tribridge.server.robot import brill
from tribridge.server.robot import params as rp
from tribridge.server.robot.answers import BenBidJson, BenCardCandidate, BenCardJson, BenExplainJson

__all__ = ["router", "ben_call", "answer_ben_bid", "answer_ben_card", "answer_ben_explain", "pbn_play_order"]

router = APIRouter()
TRUE_WORDS = ("1", "true", "t", "y", "yes")


def ben_call(call: str) -> str:
    """A call in BEN's spelling: ``PASS``, ``X``, ``XX``, ``1C`` … ``7N``."""
    return "PASS" if call == PASS else call


def _flag(params: Mapping[str, str], name: str) -> bool:
    value = params.get(name)
    return value is not None and value.strip().lower() in TRUE_WORDS


def answer_ben_bid(params: Mapping[str, str]) -> BenBidJson:
    """Answer BEN's ``/bid``: ``bid``, ``who``, ``alert``, ``explanation``; with ``details`` also candidates."""
    ans = brill.bid_answer(params)
    out: BenBidJson = {
        "bid": ben_call(ans.decision.call),
        "who": ans.bidder,
        "alert": ans.decision.alert,
        "explanation": ans.decision.explanation,
        "model": ans.model,
        "system": ans.system,
    }
    if ans.notes:
        out["note"] = "; ".join(ans.notes)
    if params.get("details"):
        out["candidates"] = brill.candidate_rows(ans.candidates, ben_call)
        out["samples"] = []
        out["hcp"] = -1
        out["shape"] = -1
        out["explanations"] = [[ben_call(call), text] for call, text in ans.auction_meanings]
    return out


def pbn_play_order(cards: list[int], trump: int | None) -> list[int]:
    """Cards listed as PBN's play section does (every trick in the same seat order as the first) put in the
    order they were played: each trick after the first starts with the winner of the one before."""
    out: list[int] = []
    lead_col = 0
    for start in range(0, len(cards), 4):
        row = cards[start : start + 4]
        if len(row) < 4:
            out += row
            break
        trick = row[lead_col:] + row[:lead_col]
        out += trick
        lead_col = (lead_col + winner_of_trick(trick, 0, trump)) % 4
    return out


def _card_params(params: Mapping[str, str], lead: bool) -> dict[str, str]:
    """BEN's card requests as this server's: ``/lead`` ignores ``dummy``/``played``; ``format=true`` reorders."""
    out = dict(params)
    if lead:
        out.pop("dummy", None)
        out.pop("played", None)
        return out
    if _flag(params, "format") and params.get("played"):
        dealer = rp.parse_seat(params.get("dealer"), "dealer")
        contract = rp.finished_contract(Auction4.from_calls(dealer, parse_ctx(params.get("ctx") or ""), "ctx"))
        cards = pbn_play_order(rp.parse_played(params["played"]), contract.trump)
        out["played"] = "".join(str(Card(c)) for c in cards)
    return out


def answer_ben_card(params: Mapping[str, str], lead: bool, layouts: int = brill.DEFAULT_LAYOUTS) -> BenCardJson:
    """Answer BEN's ``/lead`` or ``/play``: ``card``, ``who``, BEN's extra fields; ``details`` adds candidates."""
    pos = rp.parse_card_request(_card_params(params, lead), brill.BRILL_MODELS, lead)
    base = brill.on_solver_pool(brill.card_answer4, pos, layouts, brill.request_systems(params, pos.seat)[0])
    out: BenCardJson = {
        "card": base["card"],
        "who": "pimc",
        "quality": None,
        "hcp": -1,
        "shape": -1,
        "model": base["model"],
    }
    if params.get("details"):
        out["candidates"] = [ben_card_candidate(c["card"], c["score"]) for c in base["candidates"]]
        out["samples"] = []
    if not lead:
        declarer = pos.contract.declarer
        out["player"] = {0: 3, 1: 0, 3: 2}[(pos.seat - declarer) % 4]
        out["matchpoint"] = (params.get("tournament") or "").strip().lower() == "mp"
        out["MP_or_IMP"] = False
    return out


def ben_card_candidate(card: str, score: float | None) -> BenCardCandidate:
    """A candidate card as BEN's ``details`` list it: the expected tricks only when searched."""
    out: BenCardCandidate = {"card": card}
    if score is not None:
        out["expected_tricks_dd"] = score
    return out


def answer_ben_explain(params: Mapping[str, str]) -> BenExplainJson:
    """Answer BEN's ``/explain``: the meaning of the last call of ``ctx`` and whether it is alertable."""
    dealer = rp.parse_seat(params.get("dealer"), "dealer")
    ctx = params.get("ctx")
    if ctx is None:
        raise InvalidInput("ctx", "missing (it must be present, even if empty)")
    auction = Auction4.from_calls(dealer, parse_ctx(ctx), "ctx")
    if not auction.calls:
        raise InvalidInput("ctx", "empty: there is no call to explain")
    _, meanings = natural4.read_auction(auction, rp.parse_vul(params.get("vul")))
    return {"explanation": meanings[-1].text(), "Alert": meanings[-1].alert}


@router.get("/bid")
async def ben_bid(request: Request) -> JSONResponse:
    """BEN's /bid: the call for the seat on turn."""
    return await brill.robot_answer(request, answer_ben_bid, brill.query_of(request))


@router.get("/lead")
async def ben_lead(request: Request) -> JSONResponse:
    """BEN's /lead: the opening lead."""
    return await brill.robot_answer(request, answer_ben_card, brill.query_of(request), True, brill.layouts_for(request))


@router.get("/play")
async def ben_play(request: Request) -> JSONResponse:
    """BEN's /play: the next card (dummy's when the declarer asks on dummy's turn)."""
    return await brill.robot_answer(
        request, answer_ben_card, brill.query_of(request), False, brill.layouts_for(request)
    )


@router.get("/explain")
async def ben_explain(request: Request) -> JSONResponse:
    """BEN's /explain: what the last call of the auction shows."""
    return brill.answer_json(lambda: answer_ben_explain(request.query_params))
