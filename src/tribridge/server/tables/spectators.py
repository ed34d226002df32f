"""What a spectator (a watcher without a chair) sees: nothing hidden until the deal is over.

A spectator's view is a chair's view with everything private to that chair taken out: its hand
until the deal is over, its legal calls and cards, the claimer's hand shown to defenders; it can
never act. A player may let spectators follow their own chair's view (``watchers`` with ``allow``:
true, ``chat.py``); then a spectator asking for that chair sees that player's hand as well. A
spectator's socket counts against the table's socket limit like any other.
"""

from __future__ import annotations

from tribridge.server.tables.table import Table
from tribridge.server.tables.views import view_for
from tribridge.server.tables.wire_view import TableViewJson

__all__ = ["spectator_view"]


def spectator_view(table: Table, chair: int | None = None) -> TableViewJson:
    """The view of a spectator, following ``chair``'s own view when its player allows it (else chair 0's seat)."""
    follow = chair if chair is not None and chair in table.talk.shown_to_watchers else None
    view = view_for(table, 0 if follow is None else follow)
    view.pop("talk", None)  # the table talk is the chairs' own (never shown to a spectator)
    if follow is None:
        if view["phase"] != "done":
            view["hand"] = []
            view["hand_hidden"] = True
        claim = view["claim"]
        if claim:
            view["claim"] = {**claim, "claimer_hand": None}
    view.update(
        {
            "spectator": True,
            "watching_chair": follow,
            "my_chair": None,
            "my_turn": False,
            "legal_calls": [],
            "legal_cards": [],
            "can_claim": False,
            "must_answer_claim": False,
            "can_undo": False,
            "undo": None if follow is None else view.get("undo"),
        }
    )
    return view
