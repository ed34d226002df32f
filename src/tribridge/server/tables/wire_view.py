"""What a table answers, typed once: a chair's or a spectator's view, a finished deal's record, the score sheet.

``TableViewJson`` is the whole answer of ``GET /api/tables/{id}/state``, of an action and of every
WebSocket push (``views.view_for``); a spectator's (``spectators.spectator_view``) is the same with the
chair's private parts taken out and ``spectator`` set. ``DealRecordJson`` is a finished deal as the table
keeps it (``Table.record_of``: the exports, the review, the events and the accounts read it). The actions
and the configuration are in ``wire``.
"""

from __future__ import annotations

from typing import Literal, NotRequired, TypeAlias, TypedDict

from tribridge.analysis import TableAnalysis
from tribridge.server.tables.wire import GameAction, JsonObject

__all__ = [
    "AnalysisJson",
    "AuctionEntryJson",
    "BotsJson",
    "CreatedTableJson",
    "ChairJson",
    "ClaimJson",
    "DealRecordJson",
    "EventFactsJson",
    "LastActionJson",
    "PendingAnalysisJson",
    "PlayedCardJson",
    "RefusedViewJson",
    "ResultJson",
    "RubberJson",
    "ScoreSheetJson",
    "ScoreSummaryJson",
    "SeatViewJson",
    "SheetBonusJson",
    "SheetDealJson",
    "TableInfoJson",
    "TableViewJson",
    "TalkJson",
    "TrickJson",
    "UndoJson",
    "UndoneJson",
]


class ChairJson(TypedDict):
    """A chair as every client sees it: a person's or a bot's, its shown name, whether it is taken, and a bot's
    label (``config.bot_label``; None for a person)."""

    kind: Literal["human", "bot"]
    bot: str | None
    name: str
    taken: bool
    label: str | None


class UndoneJson(TypedDict):
    """A call or card taken back by consent: who, what, and its place among the deal's actions."""

    chair: int
    action: GameAction
    at: int


class UndoJson(TypedDict):
    """The open undo request: who asked, who agreed, who is still to answer."""

    chair: int
    agreed_chairs: list[int]
    awaiting_chairs: list[int]


class ResultJson(TypedDict):
    """A finished deal's result: the contract and its declarer, the tricks, made or not, in words."""

    passed_out: bool
    contract: str | None
    declarer: str | None
    declarer_chair: int | None
    declarer_tricks: int
    made: bool
    text: str


class ScoresJson(TypedDict):
    """A finished deal's points per chair, their parts, and the trick points (below the line)."""

    per_chair: list[int]
    breakdown: dict[str, int]
    trick_points: int


class ViewScoresJson(TypedDict):
    """The scores a view carries of the deal just finished."""

    per_chair: list[int]
    breakdown: dict[str, int]


class DealRecordJson(TypedDict):
    """A finished deal as the table keeps it: table facts around the rules' record (``DealRecord.to_json``)."""

    deal_no: int
    dealer: str
    dealer_chair: int
    chair_seats: list[str]
    players: list[str]
    contract: str | None
    declarer_chair: int | None
    defender_chairs: list[int] | None
    declarer_tricks: int
    result: ResultJson
    scores: ScoresJson
    record: JsonObject
    undone: list[UndoneJson]


class SheetBonusJson(TypedDict):
    """A game or rubber bonus a deal won."""

    kind: str
    chair: int | None
    points: int


class SheetDealJson(TypedDict):
    """A deal's line of the score sheet (``result``: its words, in the history's pages only)."""

    deal_no: int
    contract: str | None
    declarer_chair: int | None
    declarer_tricks: int
    per_chair: list[int]
    bonuses: list[SheetBonusJson]
    change: list[int]
    result: NotRequired[str | None]


class RubberJson(TypedDict):
    """A finished rubber: its winner and each chair's total."""

    winner_chair: int
    per_chair: list[int]


class ScoreSheetJson(TypedDict):
    """The running score sheet: deals, games, below and above the line, totals, finished rubbers."""

    deals: list[SheetDealJson]
    games: list[int]
    below: list[int]
    above: list[int]
    totals: list[int]
    rubbers: list[RubberJson]


class ScoreSummaryJson(ScoreSheetJson):
    """The score sheet as a view carries it: its newest deals and rubbers, and how many there are in all."""

    deals_total: int
    rubbers_total: int


class PendingAnalysisJson(TypedDict):
    """The analysis of a finished deal before it is ready (``pending``), or when it was refused or failed."""

    pending: NotRequired[bool]
    hands: dict[str, list[str]] | None
    dd: None
    capture: None
    nt_calls: None
    best_contract: None
    notes: list[str]


AnalysisJson: TypeAlias = TableAnalysis | PendingAnalysisJson


class LastActionJson(TypedDict):
    """Who did what last: a chair (None: the table itself) and the action's type."""

    chair: int | None
    type: str


class TalkJson(TypedDict):
    """A message of the table talk."""

    chair: int
    text: str


class EventFactsJson(TypedDict):
    """An event's table: the event, its number of boards, whether they are all played."""

    event_id: str
    boards: int | None
    over: bool


class PlayedCardJson(TypedDict):
    """A card played to a trick, by its seat."""

    seat: str
    card: str


class TrickJson(TypedDict):
    """A finished trick."""

    leader: str
    winner: str
    cards: list[PlayedCardJson]


class AuctionEntryJson(TypedDict):
    """A call of the auction, by chair and seat; a bot's call carries what it shows (``explain``) and whether that
    is still being worked out (``explain_pending``)."""

    chair: int | None
    seat: str
    call: str
    explain: NotRequired[str | None]
    explain_pending: NotRequired[bool]


class ClaimJson(TypedDict):
    """The pending claim: who claims how many of the tricks left, who agreed, who is to answer."""

    chair: int | None
    tricks: int
    tricks_left: int
    agreed_chairs: list[int]
    awaiting_chairs: list[int]
    claimer_hand: list[str] | None


class TricksJson(TypedDict):
    """Tricks won so far by each side."""

    declarer: int
    defenders: int


class SeatViewJson(TypedDict):
    """The game part of a chair's view (``views.seat_view_json``): what its player may see of the deal."""

    phase: str
    dealer: str
    dealer_chair: int | None
    my_seat: str
    seats: dict[str, str]
    widow_seat: str
    dummy_seat: str | None
    hand: list[str]
    widow: list[str] | None
    hand_counts: dict[str, int]
    auction: list[AuctionEntryJson]
    legal_calls: list[str]
    turn: str | None
    turn_chair: int | None
    my_turn: bool
    legal_cards: list[str]
    current_trick: list[PlayedCardJson]
    last_trick: TrickJson | None
    tricks: TricksJson
    contract: str | None
    declarer: str | None
    declarer_chair: int | None
    claim: ClaimJson | None
    can_claim: bool
    must_answer_claim: bool


class TableViewJson(SeatViewJson):
    """A chair's whole view: the table's public facts, the game part, the result and the analysis once done.

    A spectator's has no ``talk`` and says ``spectator``; ``waiting_for_friends`` while a person's chair is free."""

    version: int
    table_id: str
    scheme: str
    deal_no: int
    chairs: list[ChairJson]
    my_chair: int | None
    last_action: LastActionJson | None
    next_ready: list[int]
    next_consent: bool
    watchers: int
    hints: bool
    shown_to_watchers: list[int]
    talk: NotRequired[list[TalkJson]]
    undo: UndoJson | None
    can_undo: bool
    undone: list[UndoneJson]
    event: EventFactsJson | None
    result: ResultJson | None
    scores: ViewScoresJson | None
    score_sheet: ScoreSummaryJson
    analysis: AnalysisJson | None
    waiting_for_friends: NotRequired[bool]
    hand_hidden: NotRequired[bool]
    spectator: NotRequired[bool]
    watching_chair: NotRequired[int | None]


class TableInfoJson(TypedDict):
    """Public facts about a table (``GET /api/tables/{id}``): chairs, deal, phase, version, totals, whom it waits for."""

    table_id: str
    scheme: str
    chairs: list[ChairJson]
    deal_no: int
    phase: str
    version: int
    totals: list[int]
    waiting_for: list[int]


class CreatedTableJson(TypedDict):
    """A new table (``POST /api/tables``): its chairs, the chosen seed, the token of the chair taken or to watch."""

    table_id: str
    chairs: list[ChairJson]
    scheme: str
    seed: NotRequired[int]
    token: NotRequired[str]
    watch_token: NotRequired[str]
    chair: NotRequired[int]


class BotsJson(TypedDict):
    """The bots and scoring schemes for the lobby, each with its description (``GET /api/bots``)."""

    bots: list[str]
    schemes: list[str]
    bot_descriptions: dict[str, str]
    scheme_descriptions: dict[str, str]


class RefusedViewJson(TypedDict):
    """What a spectator of an open event's table gets for a board it may not watch (yet)."""

    spectator: bool
    table_id: str
    version: int
    refused: str
