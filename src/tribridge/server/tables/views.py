"""The JSON view of a chair: the serialisation of ``DealState.view`` for its player, plus table facts.

What a chair may see is defined once, by ``rules.deal.DealState.view`` (a ``SeatView``); this
module only writes that view as JSON and adds what every chair may know about the table (chairs
and names, scores, the post-deal analysis). ``seat_view_json`` is the game part, ``view_for`` the
whole answer of ``GET /api/tables/{id}/state`` and of every WebSocket push.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import cast

from tribridge.cards import Card, Seat
from tribridge.rules.view import AgreeClaim, MakeClaim, SeatView
from tribridge.server.tables.explain import MEANING_PENDING
from tribridge.server.tables.table import Table, score_sheet
from tribridge.server.tables.undo import can_undo, undo_json
from tribridge.server.tables.wire_view import (
    AnalysisJson,
    ClaimJson,
    LastActionJson,
    PendingAnalysisJson,
    ScoreSummaryJson,
    SeatViewJson,
    TableViewJson,
    TrickJson,
)

__all__ = [
    "view_text",
    "VIEW_DEALS",
    "VIEW_RUBBERS",
    "card_list",
    "pending_analysis",
    "score_summary",
    "seat_view_json",
    "view_for",
    "visible_cards",
]

VIEW_DEALS = 20  # deals of the score sheet a view carries (the newest); the rest: GET /api/tables/{id}/history
VIEW_RUBBERS = 10

ChairOf = Callable[[Seat | None], int | None]


def card_list(cards: Iterable[int | Card]) -> list[str]:
    """Cards as strings, spades first, high to low within a suit."""
    idx = sorted((c.index if isinstance(c, Card) else int(c) for c in cards), key=lambda c: (-(c // 13), c % 13))
    return [str(Card(c)) for c in idx]


def _letter(seat: Seat | None) -> str | None:
    return None if seat is None else seat.letter


def _claim_json(sv: SeatView, chair_of: ChairOf) -> ClaimJson | None:
    claim = sv.claim
    if claim is None:
        return None
    awaiting = [p for p in sv.seats if p != claim.player and p not in claim.agreed]
    return {
        "chair": chair_of(claim.player),
        "tricks": claim.tricks,
        "tricks_left": claim.tricks_left,
        "agreed_chairs": sorted(c for c in map(chair_of, claim.agreed) if c is not None),
        "awaiting_chairs": sorted(c for c in map(chair_of, awaiting) if c is not None),
        "claimer_hand": None if sv.claimer_held is None else card_list(sv.claimer_held),
    }


def _trick_counts(sv: SeatView) -> dict[str, int]:
    """Cards left in each seat's hand (public: 13 less the cards that seat has played)."""
    counts = {s.letter: 13 for s in Seat}
    for played in sv.played:
        counts[played.seat.letter] -= 1
    return counts


def _turn_seat(sv: SeatView) -> Seat | None:
    """The seat whose call or card is due (dummy's seat when dummy plays); None during a claim or when done."""
    if sv.phase == "play":
        return sv.to_play
    return sv.turn if sv.phase == "auction" else None


def seat_view_json(sv: SeatView, chair_of: ChairOf) -> SeatViewJson:
    """The game part of a chair's JSON view, written from its ``SeatView`` (``chair_of``: player -> chair)."""
    last_trick: TrickJson | None = None
    if sv.tricks:
        trick = sv.tricks[-1]
        last_trick = {
            "leader": trick.leader.letter,
            "winner": trick.winner.letter,
            "cards": [{"seat": p.seat.letter, "card": str(p.card)} for p in trick.cards],
        }
    contract = sv.contract
    widow_seat = sv.widow if contract is None else contract.declarer.partner
    return {
        "phase": sv.phase,
        "dealer": sv.dealer.letter,
        "dealer_chair": chair_of(sv.dealer),
        "my_seat": sv.seat.letter,
        "seats": dict(sorted((str(chair_of(p)), seat.letter) for p, seat in sv.seats.items())),
        "widow_seat": widow_seat.letter,
        "dummy_seat": _letter(sv.dummy_seat),
        "hand": card_list(sv.held),
        "widow": None if sv.dummy_held is None else card_list(sv.dummy_held),
        "hand_counts": _trick_counts(sv),
        "auction": [{"chair": chair_of(c.player), "seat": c.player.letter, "call": str(c.call)} for c in sv.calls],
        "legal_calls": [str(c) for c in sv.legal_calls()],
        "turn": _letter(_turn_seat(sv)),
        "turn_chair": chair_of(sv.turn),
        "my_turn": sv.turn is not None and sv.turn == sv.player,
        "legal_cards": [str(c) for c in sv.legal_cards()],
        "current_trick": [{"seat": p.seat.letter, "card": str(p.card)} for p in sv.current_trick],
        "last_trick": last_trick,
        "tricks": {"declarer": sv.declarer_tricks, "defenders": sv.defender_tricks},
        "contract": None if contract is None else str(contract),
        "declarer": _letter(sv.declarer),
        "declarer_chair": chair_of(sv.declarer),
        "claim": _claim_json(sv, chair_of),
        "can_claim": any(isinstance(a, MakeClaim) for a in sv.legal),
        "must_answer_claim": any(isinstance(a, AgreeClaim) for a in sv.legal),
    }


def pending_analysis(sv: SeatView) -> PendingAnalysisJson:
    """The placeholder ``analysis`` of a finished deal until the real one is ready (all hands are public then)."""
    hands = sv.all_hands
    return {
        "pending": True,
        "hands": None if hands is None else {s.letter: card_list(hands[s].cards) for s in Seat},
        "dd": None,
        "capture": None,
        "nt_calls": None,
        "best_contract": None,
        "notes": ["analysis in progress"],
    }


def _analysis_for(table: Table, sv: SeatView) -> AnalysisJson:
    """The finished deal's analysis (or its placeholder), with the best contract's declarer named by chair."""
    analysis = table.analysis.get(table.deal_no)
    if analysis is None:
        return pending_analysis(sv)
    if analysis.get("hands") is None:
        analysis = cast(AnalysisJson, {**analysis, "hands": pending_analysis(sv)["hands"]})
    best = analysis.get("best_contract")
    if isinstance(best, dict) and isinstance(best.get("declarer"), str):
        chair = table.chair_of_player(Seat.parse(best["declarer"], "declarer"))
        analysis = cast(AnalysisJson, {**analysis, "best_contract": {**best, "declarer_chair": chair}})
    return analysis


def score_summary(table: Table) -> ScoreSummaryJson:
    """The score sheet as a view carries it: totals, games, the newest ``VIEW_DEALS`` deals and ``VIEW_RUBBERS``
    rubbers, and how many there are in all (a view stays small however long the table plays)."""
    sheet = score_sheet(table)
    return {
        **sheet,
        "deals": sheet["deals"][-VIEW_DEALS:],
        "rubbers": sheet["rubbers"][-VIEW_RUBBERS:],
        "deals_total": len(sheet["deals"]),
        "rubbers_total": len(sheet["rubbers"]),
    }


def _last_action(table: Table) -> LastActionJson | None:
    """Who did what last (a chair, or None for the table itself, and the action's type): every chair saw it."""
    if table.last_action is None:
        return None
    chair, kind = table.last_action
    return {"chair": chair, "type": kind}


def view_for(table: Table, chair: int) -> TableViewJson:
    """The view of ``chair``: its ``SeatView`` as JSON plus the table's public facts; never a hidden card."""
    state = table.current()
    sv = state.view(table.player_of(chair))
    view: TableViewJson = {
        "version": table.version,
        "table_id": table.table_id,
        "scheme": table.scheme,
        "deal_no": table.deal_no,
        "chairs": table.chairs,
        "my_chair": chair,
        "last_action": _last_action(table),
        "next_ready": sorted(table.next_ready),
        "next_consent": bool(table.config.get("next_consent")),
        "watchers": table.spectators,
        "hints": bool(table.config.get("hints")),
        "shown_to_watchers": sorted(table.talk.shown_to_watchers),
        "talk": [{"chair": c, "text": text} for c, text in table.talk.messages],
        "undo": undo_json(table),
        "can_undo": can_undo(table, chair),
        "undone": table.undone,
        "event": table.event_facts(),
        **seat_view_json(sv, table.chair_of_player),
        "result": None,
        "scores": None,
        "score_sheet": score_summary(table),
        "analysis": None,
    }
    for entry, (note, due) in zip(view["auction"], table.call_notes()):
        entry["explain"] = f"{MEANING_PENDING}\n{note}" if due else note
        entry["explain_pending"] = due
    if sv.phase == "done":
        last = table.history[-1] if table.history and table.history[-1]["deal_no"] == table.deal_no else None
        record = last or table.record_of(state, table.deal_no)
        view["result"] = record["result"]
        view["scores"] = {"per_chair": record["scores"]["per_chair"], "breakdown": record["scores"]["breakdown"]}
        view["analysis"] = _analysis_for(table, sv)
    if table.seats_open:  # a friends' table starts when every person has taken a chair
        view.update({"my_turn": False, "legal_calls": [], "legal_cards": [], "waiting_for_friends": True})
    return view


def view_text(table: Table, chair: int) -> str:
    """``view_for`` as JSON text, rendered once per change of the table: the chair's pushes and the answer to its
    action share it."""
    when = (table.changes, table.version, table.log_len, table.spectators)
    cached = table.view_texts.get(chair)
    if cached is not None and cached[0] == when:
        return cached[1]
    text = json.dumps(view_for(table, chair))
    table.view_texts[chair] = (when, text)
    return text


def visible_cards(sv: SeatView, seat: Seat) -> list[str] | None:
    """The remaining cards of ``seat`` (a current seat) if ``sv``'s player may see them, else None."""
    if sv.phase == "done" and sv.all_hands is not None:
        return card_list(sv.all_hands[seat].cards)
    if seat == sv.seat:
        return card_list(sv.held)
    if sv.dummy_held is not None and seat == sv.dummy_seat:
        return card_list(sv.dummy_held)
    return None
