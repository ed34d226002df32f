"""One three-player table: configuration, chairs and names, the current ``DealState``, finished deals, score sheet.

A table is its configuration plus an ordered action log kept in the store (``store.py``); the
in-memory state is rebuilt by replaying the log. ``Table.prepare`` checks an action through the
rules (``rules.deal.DealState``) and changes nothing; ``Table.install`` makes the checked result
current once it is committed.

Chairs 0..2 are the three players. For deal ``k`` (1-based) the dealer is chair ``(k-1) % 3`` at
dealing seat ``(k-1) % 4``; the next chair clockwise sits at the dealer's left, the third at the
dealer's right, and the widow opposite the dealer. Each chair plays as its dealing seat (a
*player* of the ``DealState``); after the auction its hand sits in its play seat.

Deals come from the table's deal source (``config["deals"]``): a server secret that is never sent
(``{"secret": hex}``, every table with more than one person), or, at a table whose other chairs
are all bots, a chosen seed (``{"seed": n}``) or PBN deal set (``{"pbn": [...]}``). An event's table
(``config.event_table_config``) plays exactly the event's boards (``{"boards": [...]}``), each with its own
dealer and dealer's chair, and refuses ``next`` after the last one.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

from tribridge.cards import Card, Deal, Seat, random_deal
from tribridge.dealing.streams import random_stream
from tribridge.errors import IllegalAction, InvalidInput
from tribridge.rules.auction import AuctionOptions, Call
from tribridge.rules.deal import DealState, options_from
from tribridge.rules.game import DealRecord
from tribridge.rules.scoring import DealScore, Rubber, get_scheme
from tribridge.rules.view import Action, AgreeClaim, DisputeClaim, MakeClaim
from tribridge.server.tables.chat import TableTalk, prepare_side
from tribridge.server.tables.config import bot_label
from tribridge.server.tables.meanings import prepare_meaning
from tribridge.server.tables.prepared import Prepared
from tribridge.server.tables.undo import UndoRequest, prepare_undo
from tribridge.server.tables.wire import ACTION_TYPES, UNDO_TYPES, GameAction, TableAction, TableConfig
from tribridge.server.tables.wire_view import (
    AnalysisJson,
    ChairJson,
    DealRecordJson,
    EventFactsJson,
    ResultJson,
    RubberJson,
    ScoreSheetJson,
    SheetDealJson,
    UndoneJson,
)

__all__ = [
    "ACTION_TYPES",
    "Prepared",
    "Table",
    "chair_seats",
    "deal_for",
    "deal_from_source",
    "deal_layout",
    "result_of",
    "score_sheet",
]


def deal_for(seed: int, deal_no: int) -> Deal:
    """Deal number ``deal_no`` of the stream keyed by ``seed`` (deterministic; a table's secret or chosen seed)."""
    return random_deal(random_stream(int(seed), int(deal_no)))


def stored_seed_deal(seed: int, deal_no: int) -> Deal:
    """Deal ``deal_no`` of a table stored with a bare ``seed`` (before deal sources): its original stream, so it replays."""
    return random_deal(random_stream(int(seed), int(deal_no)))


def deal_from_source(config: TableConfig, deal_no: int) -> Deal:
    """Deal ``deal_no`` of a table from its configured source (secret, chosen seed or PBN set)."""
    source = config.get("deals")
    if source is None:
        return stored_seed_deal(int(config["seed"]), deal_no)
    if "secret" in source:
        return deal_for(int(source["secret"], 16), deal_no)
    if "seed" in source:
        return deal_for(int(source["seed"]), deal_no)
    if "boards" in source:  # an event's table: exactly the event's boards, in order
        return Deal.from_pbn(source["boards"][deal_no - 1]["deal"])
    pbn = source["pbn"]
    return Deal.from_pbn(pbn[(deal_no - 1) % len(pbn)])


def deal_layout(config: TableConfig, deal_no: int) -> tuple[Seat, int]:
    """(the dealer's seat, the dealer's chair) of deal ``deal_no``: rotating, or as an event's board sets them."""
    boards = (config.get("deals") or {}).get("boards")
    if boards is not None:
        board = boards[deal_no - 1]
        return Seat.parse(board["dealer"], "dealer"), int(board["dealer_chair"])
    return Seat((deal_no - 1) % 4), (deal_no - 1) % 3


def chair_seats(deal_no: int, layout: tuple[Seat, int] | None = None) -> tuple[Seat, Seat, Seat]:
    """The dealing seat of each chair in deal ``deal_no`` (the dealer rotates through chairs and seats, unless
    ``layout`` gives the dealer's seat and chair)."""
    dealer, dealer_chair = layout if layout is not None else (Seat((deal_no - 1) % 4), (deal_no - 1) % 3)
    seats = [dealer] * 3
    seats[(dealer_chair + 1) % 3] = dealer.lho
    seats[(dealer_chair + 2) % 3] = dealer.rho
    return seats[0], seats[1], seats[2]


@dataclass
class Table:
    """A table: configuration, seat-token hashes, names, the current deal, finished deals, analyses, log length."""

    table_id: str
    config: TableConfig
    token_hashes: dict[int, str] = field(default_factory=dict)
    taken_names: dict[int, str] = field(default_factory=dict)
    log_len: int = 0
    deal_no: int = 0
    state: DealState | None = None
    history: list[DealRecordJson] = field(default_factory=list)  # finished deals (records)
    analysis: dict[int, AnalysisJson] = field(default_factory=dict)
    last_action: tuple[int | None, str] | None = None  # (chair, action type) of the newest action
    next_ready: frozenset[int] = frozenset()  # chairs that pressed Next deal on this finished deal
    spectators: int = 0  # WebSocket watchers without a chair (kept by the manager)
    side_len: int = 0  # side actions (table talk, watcher permissions) in the log: they leave the version alone
    deal_actions: list[tuple[int | None, GameAction]] = field(default_factory=list)  # this deal's game actions
    undone: list[UndoneJson] = field(default_factory=list)  # this deal's undos (for its record)
    undo_request: UndoRequest | None = None
    undo_asks: dict[int, int] = field(default_factory=dict)  # undo requests per chair in the current deal
    undo_refused: tuple[int, int] | None = None  # (chair, deal actions) of the newest refused undo request
    talk: TableTalk = field(default_factory=TableTalk)
    last_active: float = field(default_factory=time.monotonic)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    claims: dict[int, int] = field(default_factory=dict)  # claims per chair in the current deal
    sheet_memo: tuple[int, ScoreSheetJson] | None = None  # (deals finished, their score sheet)
    _seats_of_deal: tuple[int, tuple[Seat, Seat, Seat]] = (-1, (Seat.N, Seat.E, Seat.S))  # (deal_no, its seats)
    changes: int = 0  # grows with every change the subscribers are told of (``TableManager.notify``)
    view_texts: dict[int, tuple[tuple[int, ...], str]] = field(default_factory=dict)  # chair -> (when, view JSON)

    # --- facts -----------------------------------------------------------------------------------
    @property
    def version(self) -> int:
        """Grows with every change of the game: actions logged (not table talk) plus seats taken."""
        return self.log_len - self.side_len + len(self.token_hashes)

    @property
    def scheme(self) -> str:
        """The table's scoring scheme name."""
        return str(self.config["scheme"])

    @property
    def people(self) -> frozenset[int]:
        """The chairs played by people."""
        return frozenset(c for c in range(3) if not self.is_bot(c))

    def is_bot(self, chair: int) -> bool:
        """Whether a chair is played by a bot."""
        return self.config["chairs"][chair]["kind"] == "bot"

    @property
    def seats_open(self) -> bool:
        """Whether a person's chair has no token yet (as far as this process knows)."""
        return any(not self.is_bot(c) and c not in self.token_hashes for c in range(3))

    @property
    def all_bots(self) -> bool:
        """Whether every chair is a bot."""
        return all(self.is_bot(c) for c in range(3))

    def chair_name(self, chair: int) -> str:
        """The name shown for a chair: the bot's, the name its player gave, or ``Player N``."""
        spec = self.config["chairs"][chair]
        if spec["kind"] == "bot":
            return f"Bot ({spec['bot']})"
        return self.taken_names.get(chair) or spec.get("name") or f"Player {chair + 1}"

    def named(self, chair: int) -> str:
        """A chair's name in a sentence: the person's name, or ``the pimc bot``."""
        spec = self.config["chairs"][chair]
        return f"the {spec['bot']} bot" if spec["kind"] == "bot" else self.chair_name(chair)

    @property
    def chairs(self) -> list[ChairJson]:
        """The three chairs: kind, bot name, the record's name, taken, and a bot's ``label`` (``config.bot_label``:
        how every page names it; None for a person)."""
        specs = self.config["chairs"]
        return [
            {
                "kind": c["kind"],
                "bot": c.get("bot"),
                "name": self.chair_name(i),
                "taken": c["kind"] == "bot" or i in self.token_hashes,
                "label": bot_label(specs, i) if c["kind"] == "bot" else None,
            }
            for i, c in enumerate(specs)
        ]

    def options(self) -> AuctionOptions:
        """Auction options of this table."""
        return options_from(self.config.get("options"))

    # --- chairs and players of the current deal --------------------------------------------------
    @property
    def seats(self) -> tuple[Seat, Seat, Seat]:
        """The dealing seat (the player) of each chair in the current deal."""
        deal_no, seats = self._seats_of_deal
        if deal_no != self.deal_no:
            seats = chair_seats(self.deal_no, deal_layout(self.config, self.deal_no))
            self._seats_of_deal = (self.deal_no, seats)
        return seats

    @property
    def board_count(self) -> int | None:
        """How many deals an event's table plays (None: deals without end)."""
        boards = (self.config.get("deals") or {}).get("boards")
        return None if boards is None else len(boards)

    @property
    def boards_over(self) -> bool:
        """Whether an event's table has finished its last board (no ``next`` then)."""
        count = self.board_count
        return count is not None and self.deal_no >= count and self.current().phase == "done"

    def event_facts(self) -> EventFactsJson | None:
        """For an event's table: the event's id and the number of boards (None at an ordinary table)."""
        event = self.config.get("event")
        if event is None:
            return None
        return {"event_id": event["event_id"], "boards": self.board_count, "over": self.boards_over}

    def player_of(self, chair: int) -> Seat:
        """The player (dealing seat) a chair plays as in the current deal."""
        return self.seats[chair]

    def chair_of_player(self, player: Seat | None) -> int | None:
        """The chair playing as ``player`` (a dealing seat) in the current deal; None for None or the widow."""
        if player is None:
            return None
        seats = self.seats
        return seats.index(player) if player in seats else None

    def current(self) -> DealState:
        """The current deal state (the table has begun)."""
        if self.state is None:
            raise RuntimeError(f"table {self.table_id} has not begun")
        return self.state

    # --- actions ---------------------------------------------------------------------------------
    def start_deal(self, deal_no: int) -> DealState:
        """The opening state of deal ``deal_no``."""
        dealer, _chair = deal_layout(self.config, deal_no)
        return DealState.start(deal_from_source(self.config, deal_no), dealer, self.options())

    def begin(self) -> None:
        """Start deal 1 (a fresh or replayed table)."""
        self.deal_no = 1
        self.state = self.start_deal(1)

    def prepare(self, chair: int | None, action: TableAction) -> Prepared:
        """Check an action (``wire.parse_action``'s) by ``chair`` (None: the table itself, for ``next`` at an all-bot
        table); changes nothing."""
        state = self.current()
        if action["type"] == "next":
            return self._prepare_next(state, chair)
        if action["type"] == "say" or action["type"] == "watchers":
            return prepare_side(self, chair, action)
        if action["type"] == "undo" or action["type"] == "undo_agree" or action["type"] == "undo_refuse":
            return prepare_undo(self, chair, action["type"])
        if action["type"] == "explain":
            return prepare_meaning(self, chair, action)
        if chair is None or not 0 <= chair <= 2:
            raise InvalidInput("chair", "unknown chair")
        player = self.player_of(chair)
        new = state.apply(self._action_of(state, chair, action), player)
        record = self.record_of(new, self.deal_no) if new.phase == "done" else None
        return Prepared(new, self.deal_no, record, actor=chair, kind=action["type"], action=action)

    def replay_deal(self, actions: list[tuple[int | None, GameAction]]) -> DealState:
        """The current deal's state after ``actions`` from its start (an undo replays the log without one)."""
        state = self.start_deal(self.deal_no)
        for chair, action in actions:
            assert chair is not None
            state = state.apply(self._action_of(state, chair, action), self.player_of(chair))
        return state

    def call_notes(self) -> list[tuple[str | None, bool]]:
        """The explanation of each call of this deal (a bot's; None for a person's), and whether what the call shows
        is still being worked out (the explanation is then how it was chosen: ``meanings``)."""
        return [(a.get("explain"), bool(a.get("explain_due"))) for _, a in self.deal_actions if a["type"] == "call"]

    def _prepare_next(self, state: DealState, chair: int | None) -> Prepared:
        """Next deal: at once at a bots' table or an old one; by consent once every person pressed it."""
        if state.phase != "done":
            raise IllegalAction(
                "type", f"the deal is not over (phase {state.phase}): 'next' is only allowed when it is done"
            )
        if self.boards_over:
            raise IllegalAction("type", f"this table's {self.board_count} boards are all played")
        if chair is not None and self.config.get("next_consent"):
            if chair in self.next_ready:
                waiting = ", ".join(self.chair_name(c) for c in sorted(self.people - self.next_ready))
                raise IllegalAction("type", f"you are ready for the next deal already; waiting for {waiting}")
            ready = self.next_ready | {chair}
            if not self.people <= ready:
                return Prepared(state, self.deal_no, actor=chair, kind="next", ready=ready)
        return Prepared(self.start_deal(self.deal_no + 1), self.deal_no + 1, actor=chair, kind="next")

    def _action_of(self, state: DealState, chair: int, action: GameAction) -> Action:
        """The rules' action for a table's action; the turn checked for calls and cards."""
        if action["type"] == "claim":
            return MakeClaim(action["tricks"])
        if action["type"] == "accept_claim":
            return AgreeClaim()
        if action["type"] == "dispute_claim":
            return DisputeClaim()
        key = action["type"] if action["type"] == "call" else "card"
        if state.claim is None and state.phase != "done" and state.turn != self.player_of(chair):
            turn_chair = self.chair_of_player(state.turn)
            raise IllegalAction(key, f"not your turn: chair {turn_chair} acts next")
        if action["type"] == "call":
            return Call.parse(action["call"], "call")
        return Card.parse(action["card"], "card")

    def check_caps(self, chair: int | None, action: TableAction, claims_per_deal: int, deals: int) -> None:
        """Refuse (400) a claim by a chair that made ``claims_per_deal`` claims in this deal, and the ``next``
        past the table's ``deals`` deals."""
        kind = action["type"]
        if kind == "claim" and chair is not None and self.claims.get(chair, 0) >= claims_per_deal:
            raise IllegalAction("type", f"at most {claims_per_deal} claims per player in a deal: play on")
        if kind == "next" and self.deal_no >= deals:
            raise IllegalAction("type", f"this table has played its limit of {deals} deals: start a new table")

    def install(self, prepared: Prepared) -> None:
        """Make a prepared state current (after it is committed)."""
        if prepared.deal_no != self.deal_no:
            self.analysis.clear()  # analyses are kept for the current deal only
            self.claims.clear()
            self.next_ready, self.deal_actions, self.undone = frozenset(), [], []
            self.undo_asks, self.undo_refused = {}, None
        if prepared.ready is not None:
            self.next_ready = prepared.ready
        if prepared.counts:
            self.last_action = (prepared.actor, prepared.kind)
            if prepared.kind not in UNDO_TYPES:
                self.undo_request = None  # asked "before the next action": the next action ends it
        else:
            self.side_len += 1
        if prepared.action is not None:
            self.deal_actions.append((prepared.actor, prepared.action))
        if prepared.effect is not None:
            prepared.effect(self)
        if prepared.kind == "claim" and prepared.actor is not None:
            self.claims[prepared.actor] = self.claims.get(prepared.actor, 0) + 1
        self.state, self.deal_no = prepared.state, prepared.deal_no
        self.log_len += 1
        if prepared.record is not None:
            self.history.append(prepared.record)

    # --- records and scores ----------------------------------------------------------------------
    def record_of(self, state: DealState, deal_no: int) -> DealRecordJson:
        """The game record of a finished deal (JSON-ready): the rules engine's record plus table facts."""
        record = DealRecord.from_state(state, self.scheme)
        seats = chair_seats(deal_no, deal_layout(self.config, deal_no))
        undone = list(self.undone)
        contract = state.contract
        defenders = None
        if contract is not None:
            declarer = contract.declarer
            lho, rho = state.player_at(declarer.lho), state.player_at(declarer.rho)
            defenders = [seats.index(lho), seats.index(rho)] if lho is not None and rho is not None else None
        points = state.points(self.scheme)
        score = record.score
        return {
            "deal_no": deal_no,
            "dealer": state.dealer.letter,
            "dealer_chair": seats.index(state.dealer),
            "chair_seats": [s.letter for s in seats],
            "players": [self.chair_name(c) for c in range(3)],
            "contract": None if contract is None else str(contract),
            "declarer_chair": None if contract is None else seats.index(contract.declarer),
            "defender_chairs": defenders,
            "declarer_tricks": state.declarer_tricks,
            "result": result_of(state, seats),
            "scores": {
                "per_chair": [points[s] for s in seats],
                "breakdown": {k: int(v) for k, v in score.breakdown.items()},
                "trick_points": int(score.trick_points),
            },
            "record": record.to_json(),
            "undone": undone,
        }


def result_of(state: DealState, seats: tuple[Seat, Seat, Seat]) -> ResultJson:
    """The ``result`` object of a finished deal (``seats``: each chair's dealing seat)."""
    contract = state.contract
    if contract is None:
        return {
            "passed_out": True,
            "contract": None,
            "declarer": None,
            "declarer_chair": None,
            "declarer_tricks": 0,
            "made": False,
            "text": "Passed out: no score",
        }
    tricks = state.declarer_tricks
    diff = tricks - contract.tricks_needed
    made = diff >= 0
    how = ("made exactly" if diff == 0 else f"made with {diff} over") if made else f"down {-diff}"
    return {
        "passed_out": False,
        "contract": str(contract),
        "declarer": contract.declarer.letter,
        "declarer_chair": seats.index(contract.declarer),
        "declarer_tricks": tricks,
        "made": made,
        "text": f"{contract} by {contract.declarer.letter}, {tricks} tricks: {how}",
    }


def score_sheet(table: Table) -> ScoreSheetJson:
    """The running score sheet: per-deal scores and rubbers (``rules.scoring.Rubber``; a new rubber starts when one is won).

    Kept on the table until another deal finishes (treat it as read-only)."""
    memo = table.sheet_memo
    if memo is None or memo[0] != len(table.history):
        table.sheet_memo = memo = (len(table.history), _score_sheet(table))
    return memo[1]


def _score_sheet(table: Table) -> ScoreSheetJson:
    scheme = get_scheme(table.scheme)
    names = ("0", "1", "2")
    deals: list[SheetDealJson] = []
    rubbers: list[RubberJson] = []
    rubber = Rubber(names, scheme)
    finished = [0, 0, 0]
    for r in table.history:
        before = rubber.totals()
        entry: SheetDealJson = {
            "deal_no": r["deal_no"],
            "contract": r["contract"],
            "declarer_chair": r["declarer_chair"],
            "declarer_tricks": r["declarer_tricks"],
            "per_chair": r["scores"]["per_chair"],
            "bonuses": [],
            "change": [0, 0, 0],
        }
        deals.append(entry)
        defenders = r["defender_chairs"]
        if r["contract"] is None or defenders is None:
            continue
        score = DealScore.from_json(r["record"]["score"])
        lho, rho = defenders
        events = rubber.record(str(r["declarer_chair"]), (str(lho), str(rho)), score)
        won = {
            "game_bonus": (" wins a game", scheme.game_bonus),
            "rubber_bonus": (" wins the rubber", scheme.rubber_bonus),
        }
        entry["bonuses"] = [
            {"kind": kind, "chair": r["declarer_chair"], "points": points}
            for kind, (event, points) in won.items()
            if any(e.endswith(event) for e in events)
        ]
        after = rubber.totals()
        entry["change"] = [after[n] - before[n] for n in names]
        if rubber.is_over:
            rubbers.append({"winner_chair": int(str(rubber.winner)), "per_chair": [after[n] for n in names]})
            finished = [finished[i] + after[n] for i, n in enumerate(names)]
            rubber = Rubber(names, scheme)
    current = rubber.totals()
    return {
        "deals": deals,
        "games": [rubber.games[n] for n in names],
        "below": [rubber.below[n] for n in names],
        "above": [rubber.above[n] for n in names],
        "totals": [finished[i] + current[n] for i, n in enumerate(names)],
        "rubbers": rubbers,
    }
