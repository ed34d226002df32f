"""The Hint button: a bot's suggestion for a person's call or card, with its reason.

The suggestion comes from the hint bot (``HINT_BOT``, the registry's strongest pair) looking at the
person's own view only (``DealState.view``: never a hidden card), ranked by its ``candidates``: for a
call, what the call shows (``explain.py``) and its score against the runner-up; for a card, the mean
tricks PIMC gives it. It runs as one job on the solver pool in the ``INTERACTIVE`` class, like a bot's
turn (``bots.bot_decision``). The table's creator can turn hints off (``"hints": false``), and each
person may ask ``HINT_RATE`` times per ``HINT_WINDOW`` seconds.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from tribridge.bots import get_bot
from tribridge.cards import Seat
from tribridge.dd import Priority, QueueFull, solver_pool, solving_at
from tribridge.errors import IllegalAction
from tribridge.rules.deal import DealState
from tribridge.server.errors import Forbidden, TooMany
from tribridge.server.tables.explain import explain_call
from tribridge.server.tables.limits import RateWindow
from tribridge.server.tables.table import Table

__all__ = ["HINT_BOT", "HINT_RATE", "HINT_WINDOW", "Hint", "bot_hint", "hint_for"]

HINT_BOT = "pimc"
HINT_RATE, HINT_WINDOW = 6, 60.0
_asked = RateWindow(HINT_WINDOW)  # per person: "table id:chair"


@dataclass(frozen=True)
class Hint:
    """A suggestion: ``kind`` call or card, the suggestion (``1N``, ``SA``), the reason, the bot, the runners-up."""

    kind: str
    suggestion: str
    reason: str
    bot: str
    others: list[tuple[str, float]]


def _call_hint(state: DealState, player: Seat, bot_name: str) -> Hint:
    view = state.view(player)
    ranked = get_bot(bot_name).bidder.candidates(view)  # type: ignore[attr-defined]
    call, score = ranked[0]
    reason = explain_call(bot_name, call, view.auction)
    if len(ranked) > 1:
        reason += f" Its score {score:.1f} against {ranked[1][1]:.1f} for {ranked[1][0].to_pbn()}."
    return Hint("call", str(call), reason, bot_name, [(str(c), round(float(s), 2)) for c, s in ranked[1:4]])


def _card_hint(state: DealState, player: Seat, bot_name: str) -> Hint:
    view = state.view(player)  # the person's own view: the hint bot never sees a hidden card
    ranked = get_bot(bot_name).player.candidates(view)  # type: ignore[attr-defined]
    card, tricks = ranked[0]
    reason = (
        f"Over layouts of the hidden cards that fit what you have seen, solved double dummy, {card} takes "
        f"{tricks:.1f} tricks on average for your side"
    )
    reason += f" ({ranked[1][0]}: {ranked[1][1]:.1f})." if len(ranked) > 1 else " (your only card)."
    return Hint("card", str(card), reason, bot_name, [(str(c), round(float(m), 2)) for c, m in ranked[1:4]])


def bot_hint(bot_name: str, state: DealState, player: Seat, priority: Priority = Priority.INTERACTIVE) -> Hint:
    """The hint bot's suggestion for ``player`` now (a solver-pool job)."""
    with solving_at(priority):
        if state.phase == "auction":
            return _call_hint(state, player, bot_name)
        return _card_hint(state, player, bot_name)


async def hint_for(table: Table, chair: int) -> dict[str, object]:
    """A person's hint (JSON-ready), refused when hints are off, it is not their turn, or they asked too often."""
    if not table.config.get("hints"):
        raise Forbidden("hints are turned off at this table")
    if table.is_bot(chair):
        raise Forbidden("a watcher's token gets no hints")
    state = table.current()
    if state.claim is not None or state.turn is None or state.turn != table.player_of(chair):
        raise IllegalAction("type", "a hint is given on your own turn only")
    key = f"{table.table_id}:{chair}"
    if _asked.count(key) >= HINT_RATE:
        raise TooMany(f"too many hints: at most {HINT_RATE} a minute", _asked.retry_after(key))
    _asked.add(key)
    try:
        hint = await solver_pool().run(
            bot_hint, HINT_BOT, state, table.player_of(chair), Priority.INTERACTIVE, priority=Priority.INTERACTIVE
        )
    except QueueFull:
        raise TooMany("the server is busy; ask for a hint again in a moment", 2) from None
    return {**asdict(hint), "version": table.version}
