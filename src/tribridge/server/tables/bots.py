"""A bot's action at a table: its call or card from its ``SeatView``, and its answer to a pending claim.

The server runs ``bot_decision`` as one job on the solver pool (``tribridge.dd.solver_pool``) in the
class the caller gives, so a bot's sampling and solving happen in a solver process; called anywhere
else, ``bot_action``'s solves go to the pool in that class (``tribridge.dd.solving_at``).

A bot's call carries how it was chosen (``explain.how_chosen``) and ``explain_due``: what the call shows takes
many runs of the bidder, so the table works it out after the call is made (``meaning_queue``), never on the
bot's turn.

A bot answers a claim by itself: it agrees only when the claim makes, double dummy, on every layout
the claimer could face (``server.tables.claims``), so a dispute tells the claimer nothing about the
cards it has not seen.
"""

from __future__ import annotations

import logging
from typing import Any

from tribridge.bots import BOT_PAIRS, bot_parts, get_bot
from tribridge.cards import Card, Deal, Seat
from tribridge.dd import Priority, solving_at
from tribridge.errors import InvalidInput
from tribridge.rules.auction import PASS
from tribridge.rules.deal import DealState
from tribridge.server.tables.claims import claim_holds_everywhere
from tribridge.server.tables.explain import how_chosen
from tribridge.server.tables.wire import TableAction

__all__ = ["bot_action", "bot_decision", "warm_up", "bot_names", "check_bot_name"]

log = logging.getLogger("tribridge.server.tables")
WARM_UP_DEAL = "N:AKQ2.KJ4.Q73.A95 J84.QT98.K52.J73 T976.753.AJ8.K62 53.A62.T964.QT84"


def bot_names() -> list[str]:
    """Names of the bots a chair can be given (the registry's; ``BIDDER+PLAYER`` pairs are accepted too)."""
    return list(BOT_PAIRS)


def check_bot_name(name: Any, field_name: str) -> str:
    """A valid bot name (registry name or ``BIDDER+PLAYER``), lower-cased."""
    if not isinstance(name, str):
        raise InvalidInput(field_name, f"expected a bot name, got {name!r}"[:200])
    try:
        bot_parts(name)
    except InvalidInput as exc:
        raise InvalidInput(field_name, exc.detail[:200]) from None
    return name.strip().lower()


def bot_action(
    bot_name: str, state: DealState, player: Seat, chair: int, priority: Priority = Priority.INTERACTIVE
) -> TableAction:
    """The JSON action the bot ``bot_name`` takes as ``player`` (its dealing seat) now: an answer, a call (with how it
    was chosen; what it shows is due) or a card."""
    if state.claim is not None:
        return {"type": "accept_claim" if claim_holds_everywhere(state, priority) else "dispute_claim"}
    bot = get_bot(bot_name)
    if state.phase == "auction":
        bidder = getattr(bot, "bidder", bot)
        view = state.view(player)
        with solving_at(priority):  # the simulation bidder solves deals too
            call = bidder.bid(view)
        if call not in view.legal_calls():  # a bot bug: keep the table going, but say so in the log
            reason = state.auction.illegal_reason(call)
            log.error(
                "bot %s chose the illegal call %s for chair %d (%s); passing instead", bot_name, call, chair, reason
            )
            call = PASS
        explain = how_chosen(bot_name, call, state.auction)
        return {"type": "call", "call": str(call), "explain": explain, "explain_due": True}
    card_player = getattr(bot, "player", bot)
    view = state.view(player, reveal_all=bool(getattr(card_player, "sees_all", False)))
    with solving_at(priority):
        card = card_player.play(view)
    if not isinstance(card, Card):
        card = Card.parse(card) if isinstance(card, str) else Card(int(card))
    legal = view.legal_cards()
    if card not in legal:
        assert state.play is not None
        reason = state.play.illegal_reason(card) or "not this player's card to play"
        log.error(
            "bot %s chose the illegal card %s for chair %d (%s); playing %s instead",
            bot_name,
            card,
            chair,
            reason,
            legal[0],
        )
        card = legal[0]
    return {"type": "play", "card": str(card)}


class _Collect(logging.Handler):
    """Keeps the messages of the records it is given."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def bot_decision(
    bot_name: str, state: DealState, player: Seat, chair: int, priority: Priority = Priority.INTERACTIVE
) -> tuple[TableAction, list[str]]:
    """``bot_action`` and the warnings it logged (a solver process has no log of its own; the server repeats them)."""
    collect = _Collect()
    log.addHandler(collect)
    try:
        return bot_action(bot_name, state, player, chair, priority), collect.messages
    finally:
        log.removeHandler(collect)


def warm_up() -> None:
    """Load the bots, their compiled kernels and the solver in this process: a pimc call and a pimc card late in play."""
    state = DealState.start(Deal.from_pbn(WARM_UP_DEAL), Seat.N)
    bot_action("pimc", state, Seat.N, 0)
    for call in ("1N", "P", "P"):
        state = state.apply(call)
    while state.play is not None and len(state.play.played) < 40:
        state = state.apply(state.legal_actions(state.turn)[0], state.turn)
    assert state.turn is not None
    bot_action("pimc", state, state.turn, 0)
