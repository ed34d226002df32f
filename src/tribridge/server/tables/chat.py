"""Table talk and watcher permissions: side actions of a table, kept in its log but outside the game.

A side action is logged like a call or a card (so a restarted server replays it), but it changes
neither the deal nor the table's version, so a message never makes another player's click stale.
``say`` posts a short message (``MAX_TALK`` characters, control characters refused; the page shows
it as text, never as markup) to everyone at the table; ``watchers`` lets spectators follow a
chair's own view (``allow``: true) or stops it. Only people talk: bots never do, and a seat's rate
is limited (``TALK_RATE`` messages per ``TALK_WINDOW`` seconds) where the request comes in.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tribridge.errors import InvalidInput
from tribridge.server.errors import TooMany
from tribridge.server.tables.limits import RateWindow, check_marks
from tribridge.server.tables.prepared import Prepared
from tribridge.server.tables.wire import SIDE_TYPES, SayAction, WatchersAction

if TYPE_CHECKING:
    from tribridge.server.tables.table import Table

__all__ = ["KEPT_MESSAGES", "MAX_TALK", "SIDE_TYPES", "TableTalk", "check_talk_rate", "prepare_side", "talk_text"]

MAX_TALK = 200  # characters (code points) in one message
KEPT_MESSAGES = 50  # the newest messages a view carries
TALK_RATE, TALK_WINDOW = 5, 10.0


@dataclass
class TableTalk:
    """The table's messages (chair, text), the chairs whose view watchers may follow, and the talk rate."""

    messages: list[tuple[int, str]] = field(default_factory=list)
    shown_to_watchers: set[int] = field(default_factory=set)
    rate: RateWindow = field(default_factory=lambda: RateWindow(TALK_WINDOW))


def talk_text(value: object) -> str:
    """A message's text: 1..MAX_TALK characters (longer is cut), trimmed; no control characters, no bidirectional
    overrides, few combining marks on a character (``limits.check_marks``)."""
    if not isinstance(value, str):
        raise InvalidInput("text", f"expected a message (text), got {type(value).__name__}")
    text = " ".join(value.split())[:MAX_TALK]
    if not text:
        raise InvalidInput("text", "the message is empty")
    if any(unicodedata.category(ch) in ("Cc", "Cs", "Co", "Cn") for ch in text):
        raise InvalidInput("text", "a message may not hold control or unassigned characters")
    check_marks(text, "text")
    return text


def check_talk_rate(table: Table, chair: int) -> None:
    """Raise ``TooMany`` when the chair talked ``TALK_RATE`` times in the last ``TALK_WINDOW`` seconds; else count it."""
    key = str(chair)
    if table.talk.rate.count(key) >= TALK_RATE:
        raise TooMany(f"too many messages: at most {TALK_RATE} in {TALK_WINDOW:g} s", table.talk.rate.retry_after(key))
    table.talk.rate.add(key)


def prepare_side(table: Table, chair: int | None, action: SayAction | WatchersAction) -> Prepared:
    """Check a side action (``say`` or ``watchers``) by a person's chair; the game stays as it is."""
    if chair is None or not 0 <= chair <= 2 or table.is_bot(chair):
        raise InvalidInput("chair", "only a person at the table talks or shares a view")
    state = table.current()
    if action["type"] == "say":
        text = talk_text(action["text"])

        def post(t: Table) -> None:
            t.talk.messages = [*t.talk.messages, (chair, text)][-KEPT_MESSAGES:]

        return Prepared(state, table.deal_no, actor=chair, kind="say", effect=post, counts=False)
    allow = action["allow"]

    def share(t: Table) -> None:
        if allow:
            t.talk.shown_to_watchers.add(chair)
        else:
            t.talk.shown_to_watchers.discard(chair)

    return Prepared(state, table.deal_no, actor=chair, kind="watchers", effect=share, counts=False)
