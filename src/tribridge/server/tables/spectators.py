"""What a spectator (a watcher without a chair) sees: nothing hidden until the deal is over.

A spectator's view is a chair's view with everything private to that chair taken out: its hand
until the deal is over, its legal calls and cards, the claimer's hand shown to defenders; it can
never act. A player may let spectators follow their own chair's view (``watchers`` with ``allow``:
true, ``chat.py``); then a spectator asking for that chair sees that player's hand as well. A
spectator's socket counts against the table's socket limit like any other.
"""

from __future__ import annotations

from typing import Any

from tribridge.server.tables.table import Table
from tribridge.server.tables.views import view_for

__all__ = ["spectator_view"]

PRIVATE_TO_CHAIR = ("talk", "hint")  # never shown to a spectator


def spectator_view(table: Table, chair: int | None = None) -> dict[str, Any]:
    """The view of a spectator, following ``chair``'s own view when its player allows it (else chair 0's seat)."""
    follow = chair if chair is not None and chair in table.talk.shown_to_watchers else None
    view = view_for(table, 0 if follow is None else follow)
    for key in PRIVATE_TO_CHAIR:
        view.pop(key, None)
    if follow is None:
        if view["phase"] != "done":
            view["hand"] = []
            view["hand_hidden"] = True
        if view.get("claim"):
            view["claim"] = dict(view["claim"], claimer_hand=None)
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
