"""Undo by consent: a player takes back their last call or card when the other people at the table agree.

``undo`` asks (only for the newest game action of the deal, when it was the asker's call or card and
the deal is not over); the others answer ``undo_agree`` or ``undo_refuse``; bots always agree, so at a
table where everyone else is a bot the undo happens at once. Any other game action ends the request
(it must come "before the next action"), and bots wait while one is open. The undo itself replays the
deal's log without the undone action through the rules (``Table.replay_deal``): no second rules
engine. It stays in the log (so a restarted table replays it too) and in the deal's record
(``undone``: chair, the action and the position in the deal's actions), for the review.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tribridge.errors import IllegalAction, InvalidInput
from tribridge.server.tables.prepared import Prepared
from tribridge.server.tables.wire import UNDO_TYPES
from tribridge.server.tables.wire_view import UndoJson, UndoneJson

if TYPE_CHECKING:
    from tribridge.server.tables.table import Table

__all__ = ["MAX_UNDO_ASKS", "UNDO_TYPES", "UndoRequest", "can_undo", "prepare_undo", "undo_json"]

MAX_UNDO_ASKS = 3  # undo requests per player in a deal


@dataclass(frozen=True)
class UndoRequest:
    """An open request: who asked, and the people who agreed so far."""

    chair: int
    agreed: frozenset[int] = frozenset()


def _others(table: Table, chair: int) -> frozenset[int]:
    """The people who must agree to ``chair``'s undo."""
    return table.people - {chair}


def _take_back(table: Table, chair: int) -> Prepared:
    """The table after the undo: the deal replayed without its newest action."""
    kept = table.deal_actions[:-1]
    state = table.replay_deal(kept)
    undone: UndoneJson = {"chair": chair, "action": table.deal_actions[-1][1].copy(), "at": len(kept)}

    def drop(t: Table) -> None:
        t.deal_actions = list(kept)
        t.undone = [*t.undone, undone]
        t.undo_request = None

    return Prepared(state, table.deal_no, actor=chair, kind="undone", effect=drop)


def _refusal(table: Table, chair: int) -> str | None:
    """Why ``chair`` may not ask to take back its newest action now, or None when it may."""
    if table.current().phase == "done":
        return "the deal is over: nothing can be taken back"
    if table.undo_request is not None:
        return "an undo is already asked for; wait for the answer"
    if not table.deal_actions or table.deal_actions[-1][0] != chair:
        return "only your own last call or card can be taken back, before the next action"
    kind = table.deal_actions[-1][1]["type"]
    if kind not in ("call", "play"):
        return "only a call or a card can be taken back"
    if kind == "play" and not any(a["type"] == "play" for _, a in table.deal_actions[:-1]):
        return "the opening lead showed the widow: it cannot be taken back"
    if table.undo_asks.get(chair, 0) >= MAX_UNDO_ASKS:
        return f"at most {MAX_UNDO_ASKS} undo requests per player in a deal: play on"
    if table.undo_refused == (chair, len(table.deal_actions)):
        return "this undo was refused: it cannot be asked for again"
    return None


def _ask(table: Table, chair: int) -> Prepared:
    state = table.current()
    refusal = _refusal(table, chair)
    if refusal is not None:
        raise IllegalAction("type", refusal)
    if not _others(table, chair):
        return _take_back(table, chair)

    def ask(t: Table) -> None:
        t.undo_request = UndoRequest(chair)
        t.undo_asks[chair] = t.undo_asks.get(chair, 0) + 1

    return Prepared(state, table.deal_no, actor=chair, kind="undo_asked", effect=ask)


def _answer(table: Table, chair: int, agree: bool) -> Prepared:
    request = table.undo_request
    if request is None:
        raise IllegalAction("type", "no undo is asked for")
    if chair == request.chair or chair not in _others(table, request.chair):
        raise IllegalAction("type", "only the other players answer an undo")
    if agree and _others(table, request.chair) <= request.agreed | {chair}:
        return _take_back(table, request.chair)
    new = UndoRequest(request.chair, request.agreed | {chair}) if agree else None
    refused = None if agree else (request.chair, len(table.deal_actions))

    def answer(t: Table) -> None:
        t.undo_request = new
        if refused is not None:
            t.undo_refused = refused

    return Prepared(
        table.current(), table.deal_no, actor=chair, kind="undo_agree" if agree else "undo_refuse", effect=answer
    )


def prepare_undo(table: Table, chair: int | None, kind: str) -> Prepared:
    """Check ``undo`` (ask), ``undo_agree`` or ``undo_refuse`` by a person's chair."""
    if chair is None or not 0 <= chair <= 2 or table.is_bot(chair):
        raise InvalidInput("chair", "only a person at the table asks for or answers an undo")
    if kind == "undo":
        return _ask(table, chair)
    return _answer(table, chair, kind == "undo_agree")


def can_undo(table: Table, chair: int) -> bool:
    """Whether ``chair`` may ask to take back its newest action now (its own call or card, nothing after it)."""
    return not table.is_bot(chair) and _refusal(table, chair) is None


def undo_json(table: Table) -> UndoJson | None:
    """The open undo request as every chair sees it (who asked, who agreed, who is still to answer)."""
    request = table.undo_request
    if request is None:
        return None
    waiting = sorted(_others(table, request.chair) - request.agreed)
    return {"chair": request.chair, "agreed_chairs": sorted(request.agreed), "awaiting_chairs": waiting}
