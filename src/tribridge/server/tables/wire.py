"""A table's action and configuration as JSON, typed once: what a client sends, what the log stores, what a table is.

An action is one of the ``TableAction`` shapes, told apart by its ``type``. ``parse_action`` reads a
client's JSON (or a logged action read back from the store) into one of them, checking every field's
JSON type and naming the field it refuses; what the rules then say of a call or card (its spelling, its
turn, its legality) is judged by ``Table.prepare``. Only the fields of its type are kept, so the log
holds exactly what the table replays. ``ExplainAction`` is the server's own entry that gives a bot's call
its words (``meanings``): read only from a bot or the server itself (``explain=True``). ``TableConfig`` is a
table's stored configuration (``config.table_config`` checks a request's, ``config.event_table_config``
builds an event's).

The JSON a table answers with (views, records, the score sheet) is typed in ``wire_view``.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypeAlias, TypedDict

from tribridge.errors import InvalidInput

__all__ = [
    "ACTION_TYPES",
    "GAME_TYPES",
    "SIDE_TYPES",
    "UNDO_TYPES",
    "CallAction",
    "ChairConfig",
    "ClaimAction",
    "ClaimAnswerAction",
    "DealSource",
    "EventBoardConfig",
    "ExplainAction",
    "GameAction",
    "JsonObject",
    "NextAction",
    "OptionsJson",
    "PlayAction",
    "SayAction",
    "TableAction",
    "TableConfig",
    "UndoAction",
    "WatchersAction",
    "parse_action",
]

JsonObject: TypeAlias = dict[str, Any]
"""A JSON object whose fields are not this module's to type: a request body before its own checks, a document
another layer defines (the rules' ``DealRecord.to_json``)."""

GAME_TYPES = ("call", "play", "claim", "accept_claim", "dispute_claim", "next")
SIDE_TYPES = ("say", "watchers")
UNDO_TYPES = ("undo", "undo_agree", "undo_refuse")
ACTION_TYPES = (*GAME_TYPES, *SIDE_TYPES, *UNDO_TYPES)


class CallAction(TypedDict):
    """A call as the player spelt it (``1N``, ``P``, ``X``); a bot's carries what it shows (``explain``)."""

    type: Literal["call"]
    call: str
    explain: NotRequired[str | None]
    explain_due: NotRequired[bool]


class PlayAction(TypedDict):
    """A card as the player spelt it (``SA``)."""

    type: Literal["play"]
    card: str


class ClaimAction(TypedDict):
    """A claim: the claimer's side takes ``tricks`` of the tricks left."""

    type: Literal["claim"]
    tricks: int


class ClaimAnswerAction(TypedDict):
    """An answer to the pending claim."""

    type: Literal["accept_claim", "dispute_claim"]


class NextAction(TypedDict):
    """The next deal (at once, or once every person at the table asked for it)."""

    type: Literal["next"]


class SayAction(TypedDict):
    """Table talk: a message to everyone at the table (``chat.talk_text`` checks its text)."""

    type: Literal["say"]
    text: str


class WatchersAction(TypedDict):
    """Let spectators follow the chair's own view, or stop it."""

    type: Literal["watchers"]
    allow: bool


class UndoAction(TypedDict):
    """Ask to take back one's last call or card, or answer another player's request."""

    type: Literal["undo", "undo_agree", "undo_refuse"]


class ExplainAction(TypedDict):
    """The server's own entry giving a bot's call of deal ``deal_no`` (the last of ``auction``) its words."""

    type: Literal["explain"]
    explain: str
    deal_no: int
    auction: list[str]


GameAction: TypeAlias = CallAction | PlayAction | ClaimAction | ClaimAnswerAction
"""The actions a deal's undo replays (``Table.deal_actions``)."""
TableAction: TypeAlias = GameAction | NextAction | SayAction | WatchersAction | UndoAction | ExplainAction


def parse_action(data: object, explain: bool = False) -> TableAction:
    """The typed action of a JSON action (a client's, or one read back from the log), its fields' JSON types
    checked (``InvalidInput`` names the field); ``explain``: keep a call's explanation and whether its words are
    due (a bot's, or a logged one), and allow the server's ``explain`` entry."""
    if not isinstance(data, dict):
        raise InvalidInput("action", "expected a JSON object with a 'type'")
    kind = data.get("type")
    if kind == "call":
        call = data.get("call")
        if not isinstance(call, str):
            raise InvalidInput("call", f"expected a call like '1N', 'P', 'X', got {call!r}"[:200])
        out: CallAction = {"type": "call", "call": call}
        if explain and "explain" in data:
            note = data["explain"]
            out["explain"] = None if note is None else str(note)
        if explain and "explain_due" in data:
            out["explain_due"] = bool(data["explain_due"])
        return out
    if kind == "explain":
        return _explain_entry(data, explain)
    if kind == "play":
        card = data.get("card")
        if not isinstance(card, str):
            raise InvalidInput("card", f"expected a card like 'SA', got {card!r}"[:200])
        return {"type": "play", "card": card}
    if kind == "claim":
        tricks = data.get("tricks")
        if not isinstance(tricks, int) or isinstance(tricks, bool):
            raise InvalidInput("tricks", f"expected a whole number of tricks, got {tricks!r}"[:200])
        return {"type": "claim", "tricks": tricks}
    if kind == "say":
        text = data.get("text")
        if not isinstance(text, str):
            raise InvalidInput("text", f"expected a message (text), got {type(text).__name__}")
        return {"type": "say", "text": text}
    if kind == "watchers":
        allow = data.get("allow")
        if not isinstance(allow, bool):
            raise InvalidInput("allow", f"expected true or false, got {allow!r}"[:200])
        return {"type": "watchers", "allow": allow}
    if kind == "accept_claim":
        return {"type": "accept_claim"}
    if kind == "dispute_claim":
        return {"type": "dispute_claim"}
    if kind == "next":
        return {"type": "next"}
    if kind == "undo":
        return {"type": "undo"}
    if kind == "undo_agree":
        return {"type": "undo_agree"}
    if kind == "undo_refuse":
        return {"type": "undo_refuse"}
    raise InvalidInput("type", f"expected one of {', '.join(repr(t) for t in ACTION_TYPES)}, got {kind!r}"[:200])


def _explain_entry(data: JsonObject, by_server: bool) -> ExplainAction:
    """The server's ``explain`` entry (``meanings``), its fields checked; refused from anyone else."""
    if not by_server:
        raise InvalidInput("type", "only the server explains a bot's call")
    deal_no, auction, text = data.get("deal_no"), data.get("auction"), data.get("explain")
    if (
        not isinstance(deal_no, int)
        or not isinstance(auction, list)
        or not auction
        or not all(isinstance(c, str) for c in auction)
        or not isinstance(text, str)
    ):
        raise InvalidInput("explain", "expected the deal number, the auction up to the call, and the call's words")
    return {"type": "explain", "explain": text, "deal_no": deal_no, "auction": list(auction)}


class ChairConfig(TypedDict):
    """A chair of a table's configuration: a person (perhaps named by the creator) or a bot."""

    kind: Literal["human", "bot"]
    bot: NotRequired[str]
    name: NotRequired[str]


class EventBoardConfig(TypedDict):
    """A board of an event's table: its number, dealer, deal (PBN) and the table chair that deals it."""

    board: int
    dealer: str
    deal: str
    dealer_chair: int


class DealSource(TypedDict, total=False):
    """Where a table's deals come from: one of a server secret (hex), a chosen seed, PBN deals, an event's boards."""

    secret: str
    seed: int
    pbn: list[str]
    boards: list[EventBoardConfig]


class OptionsJson(TypedDict):
    """The auction options of a table."""

    ranking: Literal["contract", "value"]
    dealer_must_bid: bool


class EventOfTable(TypedDict):
    """The event a table plays for."""

    event_id: str


class TableConfig(TypedDict):
    """A table's stored configuration: its chairs, scoring scheme, deal source and options (``seed`` alone: a
    table stored before deal sources)."""

    chairs: list[ChairConfig]
    scheme: str
    deals: NotRequired[DealSource]
    seed: NotRequired[int]
    options: NotRequired[OptionsJson]
    next_consent: NotRequired[bool]
    hints: NotRequired[bool]
    event: NotRequired[EventOfTable]
