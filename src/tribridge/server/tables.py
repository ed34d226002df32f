"""Three-player game tables: sessions, seat tokens, actions, bots on their turn, per-chair views, REST + WebSocket.

A table is its configuration plus an ordered action log kept in the store (``store.py``); the
in-memory state is rebuilt by replaying the log, so a restarted server shows every acknowledged
action. Each action is checked first, committed second, installed third: an invalid action
changes nothing, and nothing is acknowledged before it is on disk.

Chairs 0..2 are the three players. For deal ``k`` (1-based) the dealer is chair ``(k-1) % 3`` at
dealing seat ``(k-1) % 4``; the next chair clockwise sits at the dealer's left, the third at the
dealer's right, and the widow opposite the dealer. After the auction the hands are reseated
(``rules.auction.reseat``): views then give play seats.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from fastapi import APIRouter, Header, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse, PlainTextResponse

from tribridge.cards import SEAT_CHARS, Card, Deal, Seat, random_deal
from tribridge.dd import Priority, solving_at
from tribridge.errors import IllegalAction, InvalidInput
from tribridge.rules.auction import AuctionState, Call, play_deal, reseat
from tribridge.rules.play import PlayState
from tribridge.server.store import Store, token_hash

log = logging.getLogger("tribridge.server.tables")

SCHEMES = ["classic", "tribridge"]

# One thread asks for every bot's action; its double-dummy solves run on the solver pool (tribridge.dd.pool).
BOT_EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tribridge-bot")
# Post-deal analysis has its own thread; it runs on the solver pool below the bots' priority.
ANALYSIS_EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tribridge-analysis")


class Forbidden(Exception):
    """A missing or wrong seat token (HTTP 403)."""


class NotFound(Exception):
    """An unknown table (HTTP 404)."""


class Conflict(Exception):
    """A stale ``version`` or a chair already taken (HTTP 409)."""


def bot_names() -> list[str]:
    """Names of the bots a chair can be given (the registry's; ``BIDDER+PLAYER`` pairs are accepted too)."""
    from tribridge.bots import BOT_PAIRS

    return list(BOT_PAIRS)


def check_bot_name(name: str, field_name: str) -> str:
    """A valid bot name (registry name or ``BIDDER+PLAYER``), lower-cased."""
    from tribridge.bots import bot_parts

    if not isinstance(name, str):
        raise InvalidInput(field_name, f"expected a bot name, got {name!r}")
    try:
        bot_parts(name)
    except InvalidInput as exc:
        raise InvalidInput(field_name, exc.detail) from None
    return name.strip().lower()


# ------------------------------------------------------------------------------------------------
# Game state of one deal
# ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DealState:
    """One deal at a table: dealing seats, the auction, and (after it) the play in play seats."""

    deal_no: int
    dealer: Seat
    dealer_chair: int
    chair_seat: tuple[Seat, Seat, Seat]  # dealing seat of each chair
    deal: Deal  # in dealing seats
    auction: AuctionState
    seat_map: dict[Seat, Seat] | None = None  # dealing seat -> play seat
    play: PlayState | None = None

    @property
    def phase(self) -> str:
        """auction, play or done."""
        if not self.auction.is_over:
            return "auction"
        if self.auction.passed_out or (self.play is not None and self.play.is_over):
            return "done"
        return "play"

    def seat_of(self, chair: int) -> Seat:
        """The chair's current seat (dealing seat in the auction, play seat afterwards)."""
        seat = self.chair_seat[chair]
        return self.seat_map[seat] if self.seat_map is not None else seat

    def chair_at(self, seat: Seat) -> int | None:
        """The chair sitting at a current seat, or None for the widow/dummy."""
        for chair in range(3):
            if self.seat_of(chair) == seat:
                return chair
        return None

    @property
    def widow_seat(self) -> Seat:
        """The widow's current seat (dummy's seat once reseated)."""
        if self.seat_map is not None:
            return self.seat_map[self.dealer.partner]
        return self.dealer.partner

    @property
    def declarer_chair(self) -> int | None:
        """The declarer's chair once the auction has a contract."""
        contract = self.auction.contract
        if contract is None:
            return None
        return self.chair_seat.index(contract.declarer)

    @property
    def turn(self) -> Seat | None:
        """The seat whose call or card is due (dummy's seat when dummy plays)."""
        phase = self.phase
        if phase == "auction":
            return self.auction.turn
        if phase == "play":
            return self.play.turn  # type: ignore[union-attr]
        return None

    @property
    def turn_chair(self) -> int | None:
        """The chair that must act (the declarer's chair for dummy)."""
        seat = self.turn
        if seat is None:
            return None
        if self.phase == "play" and seat == self.play.dummy:  # type: ignore[union-attr]
            return self.declarer_chair
        return self.chair_at(seat)


def deal_for(seed: int, deal_no: int) -> Deal:
    """The deal number ``deal_no`` of a table seeded with ``seed`` (deterministic)."""
    rng = np.random.default_rng(np.random.SeedSequence([int(seed), int(deal_no)]))
    return random_deal(rng)


def start_deal(seed: int, deal_no: int, options: Any = None) -> DealState:
    """The opening state of deal ``deal_no``."""
    dealer_chair = (deal_no - 1) % 3
    dealer = Seat((deal_no - 1) % 4)
    chair_seat = [dealer] * 3
    chair_seat[(dealer_chair + 1) % 3] = dealer.lho
    chair_seat[(dealer_chair + 2) % 3] = dealer.rho
    return DealState(
        deal_no, dealer, dealer_chair, tuple(chair_seat),  # type: ignore[arg-type]
        deal_for(seed, deal_no), AuctionState.start(dealer, options),
    )


# ------------------------------------------------------------------------------------------------
# Scores
# ------------------------------------------------------------------------------------------------


def deal_record(ds: DealState, scheme_name: str) -> Any:
    """The rules engine's ``DealRecord`` of a finished deal (scored with the table's scheme)."""
    from tribridge.rules.game import DealRecord
    from tribridge.rules.scoring import get_scheme, honours_held, score_deal

    scheme = get_scheme(scheme_name)
    contract = ds.auction.contract
    if contract is None or ds.play is None:
        return DealRecord(ds.deal, ds.dealer, ds.auction.calls, None, {s: s for s in Seat}, (), None, None,
                          score_deal(None, 0, scheme), scheme.name, ds.auction.options)
    play = ds.play
    honours = honours_held(play.deal, contract) if scheme.honours else None
    score = score_deal(contract, play.declarer_tricks, scheme, honours)
    return DealRecord(ds.deal, ds.dealer, ds.auction.calls, contract, dict(ds.seat_map or {}), play.played,
                      play.claimed, play.declarer_tricks, score, scheme.name, ds.auction.options)


def deal_scores(ds: DealState, score: Any) -> dict[str, Any]:
    """Per-chair scores of a finished deal from its ``DealScore`` (passed out: zeros)."""
    per = [0, 0, 0]
    contract = ds.auction.contract
    if contract is not None and ds.play is not None:
        declarer = ds.play.declarer
        per[ds.chair_at(declarer)] = int(score.declarer)  # type: ignore[index]
        per[ds.chair_at(declarer.lho)] = int(score.defenders[0])  # type: ignore[index]
        per[ds.chair_at(declarer.rho)] = int(score.defenders[1])  # type: ignore[index]
    return {"per_chair": per, "breakdown": {k: int(v) for k, v in score.breakdown.items()},
            "trick_points": int(score.trick_points)}


def result_of(ds: DealState) -> dict[str, Any]:
    """The ``result`` object of a finished deal."""
    contract = ds.auction.contract
    if contract is None or ds.play is None:
        return {"passed_out": True, "contract": None, "declarer": None, "declarer_chair": None,
                "declarer_tricks": 0, "made": False, "text": "Passed out: no score"}
    tricks = ds.play.declarer_tricks
    need = contract.tricks_needed
    made = tricks >= need
    diff = tricks - need
    how = ("made exactly" if diff == 0 else f"made with {diff} over") if made else f"down {-diff}"
    return {
        "passed_out": False, "contract": str(contract), "declarer": contract.declarer.letter,
        "declarer_chair": ds.declarer_chair, "declarer_tricks": tricks, "made": made,
        "text": f"{contract} by {contract.declarer.letter}, {tricks} tricks: {how}",
    }


# ------------------------------------------------------------------------------------------------
# A table
# ------------------------------------------------------------------------------------------------


@dataclass
class Table:
    """A table: configuration, seat-token hashes, the current deal, finished deals, and the log length."""

    table_id: str
    config: dict[str, Any]
    token_hashes: dict[int, str] = field(default_factory=dict)
    log_len: int = 0
    current: DealState | None = None
    history: list[dict[str, Any]] = field(default_factory=list)  # finished deals (records)
    analysis: dict[int, dict[str, Any]] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def version(self) -> int:
        """Grows with every change: actions logged plus seats taken."""
        return self.log_len + len(self.token_hashes)

    @property
    def chairs(self) -> list[dict[str, Any]]:
        """The three chairs: kind, bot name, taken."""
        out = []
        for i, chair in enumerate(self.config["chairs"]):
            out.append({"kind": chair["kind"], "bot": chair.get("bot"), "taken": chair["kind"] == "bot" or i in self.token_hashes})
        return out

    def is_bot(self, chair: int) -> bool:
        """Whether a chair is played by a bot."""
        return self.config["chairs"][chair]["kind"] == "bot"

    def options(self) -> Any:
        """Auction options of this table."""
        from tribridge.rules.auction import AuctionOptions

        opts = self.config.get("options") or {}
        return AuctionOptions(ranking=opts.get("ranking", "contract"), dealer_must_bid=bool(opts.get("dealer_must_bid", False)))

    def begin(self) -> None:
        """Start deal 1 (a fresh or replayed table)."""
        self.current = start_deal(self.config["seed"], 1, self.options())

    def prepare(self, chair: int | None, action: dict[str, Any]) -> tuple[DealState, dict[str, Any] | None]:
        """Check an action; return the new deal state and a finished-deal record (or None). Changes nothing."""
        ds = self.current
        assert ds is not None
        if not isinstance(action, dict):
            raise InvalidInput("action", "expected a JSON object with a 'type'")
        kind = action.get("type")
        phase = ds.phase
        if kind == "next":
            if phase != "done":
                raise IllegalAction("type", f"the deal is not over (phase {phase}): 'next' is only allowed when it is done")
            return start_deal(self.config["seed"], ds.deal_no + 1, self.options()), None
        if kind not in ("call", "play", "claim"):
            raise InvalidInput("type", f"expected 'call', 'play', 'claim' or 'next', got {kind!r}")
        if chair is None or not 0 <= chair <= 2:
            raise InvalidInput("chair", "unknown chair")
        if kind == "call":
            if phase != "auction":
                raise IllegalAction("type", f"no call is due: the auction is over (phase {phase})")
            if ds.turn_chair != chair:
                raise IllegalAction("call", f"not your turn: chair {ds.turn_chair} ({ds.turn.letter}) calls next")  # type: ignore[union-attr]
            text = action.get("call")
            if not isinstance(text, str):
                raise InvalidInput("call", f"expected a call like '1N', 'P', 'X', got {text!r}")
            auction = ds.auction.apply(Call.parse(text, "call"))
            new = replace(ds, auction=auction)
            if auction.is_over and not auction.passed_out:
                contract = auction.contract
                assert contract is not None
                mapping = reseat(ds.dealer, contract.declarer)
                new = replace(new, seat_map=mapping, play=PlayState.start(play_deal(ds.deal, ds.dealer, contract.declarer), contract))
        elif kind == "play":
            if phase != "play":
                raise IllegalAction("type", f"no card is due (phase {phase})")
            if ds.turn_chair != chair:
                raise IllegalAction("card", f"not your turn: chair {ds.turn_chair} plays next")
            text = action.get("card")
            if not isinstance(text, str):
                raise InvalidInput("card", f"expected a card like 'SA', got {text!r}")
            new = replace(ds, play=ds.play.apply(Card.parse(text, "card")))  # type: ignore[union-attr]
        else:
            if phase != "play":
                raise IllegalAction("type", f"nothing to claim (phase {phase})")
            tricks = action.get("tricks")
            if not isinstance(tricks, int) or isinstance(tricks, bool):
                raise InvalidInput("tricks", f"expected a whole number of tricks, got {tricks!r}")
            new = replace(ds, play=ds.play.apply_claim(ds.seat_of(chair), tricks))  # type: ignore[union-attr]
        record = self.record_of(new) if new.phase == "done" else None
        return new, record

    def install(self, new: DealState, record: dict[str, Any] | None) -> None:
        """Make a prepared state current (after it is committed)."""
        self.current = new
        self.log_len += 1
        if record is not None:
            self.history.append(record)

    def record_of(self, ds: DealState) -> dict[str, Any]:
        """The game record of a finished deal (JSON-ready): the rules engine's record plus table facts."""
        record = deal_record(ds, self.config["scheme"])
        contract = ds.auction.contract
        play = ds.play
        chair_names = [
            (c.get("name") or (f"bot {c.get('bot')}" if c["kind"] == "bot" else f"chair {i}"))
            for i, c in enumerate(self.config["chairs"])
        ]
        defenders = None
        if play is not None:
            defenders = [ds.chair_at(play.declarer.lho), ds.chair_at(play.declarer.rho)]
        return {
            "deal_no": ds.deal_no,
            "dealer": ds.dealer.letter,
            "dealer_chair": ds.dealer_chair,
            "chair_seats": [s.letter for s in ds.chair_seat],
            "players": chair_names,
            "contract": None if contract is None else str(contract),
            "declarer_chair": ds.declarer_chair,
            "defender_chairs": defenders,
            "declarer_tricks": 0 if play is None else play.declarer_tricks,
            "result": result_of(ds),
            "scores": deal_scores(ds, record.score),
            "record": record.to_json(),
        }


def score_sheet(table: Table) -> dict[str, Any]:
    """The running score sheet: per-deal scores and rubbers (``rules.scoring.Rubber``; a new rubber starts when one is won)."""
    from tribridge.rules.scoring import DealScore, Rubber, get_scheme

    scheme = get_scheme(table.config["scheme"])
    names = ("0", "1", "2")
    deals = []
    rubbers = []
    rubber = Rubber(names, scheme)
    for r in table.history:
        deals.append({"deal_no": r["deal_no"], "contract": r["contract"], "declarer_chair": r["declarer_chair"],
                      "declarer_tricks": r["declarer_tricks"], "per_chair": r["scores"]["per_chair"]})
        if r["contract"] is None:
            continue
        score = DealScore.from_json(r["record"]["score"])
        lho, rho = r["defender_chairs"]
        rubber.record(str(r["declarer_chair"]), (str(lho), str(rho)), score)
        if rubber.is_over:
            totals = rubber.totals()
            rubbers.append({"winner_chair": int(rubber.winner), "per_chair": [totals[n] for n in names]})  # type: ignore[arg-type]
            rubber = Rubber(names, scheme)
    finished = [sum(rb["per_chair"][i] for rb in rubbers) for i in range(3)]
    current = rubber.totals()
    return {
        "deals": deals,
        "games": [rubber.games[n] for n in names],
        "below": [rubber.below[n] for n in names],
        "above": [rubber.above[n] for n in names],
        "totals": [finished[i] + current[n] for i, n in enumerate(names)],
        "rubbers": rubbers,
    }


# ------------------------------------------------------------------------------------------------
# Views (what one chair may see)
# ------------------------------------------------------------------------------------------------


def _cards(cards: Any) -> list[str]:
    idx = sorted((c.index if isinstance(c, Card) else int(c) for c in cards), key=lambda c: (-(c // 13), c % 13))
    return [str(Card(c)) for c in idx]


def view_for(table: Table, chair: int) -> dict[str, Any]:
    """The view of ``chair``: its own hand, dummy's after the opening lead, the cards played; never hidden cards."""
    ds = table.current
    assert ds is not None
    phase = ds.phase
    my_seat = ds.seat_of(chair)
    play = ds.play
    turn = ds.turn
    turn_chair = ds.turn_chair
    my_turn = turn_chair == chair
    contract = ds.auction.contract
    dealing = {chair_i: ds.chair_seat[chair_i] for chair_i in range(3)}
    if play is not None:
        hand = sorted(play.remaining(my_seat))
        counts = {s.letter: len(play.remaining(s)) for s in Seat}
        dummy_exposed = len(play.played) > 0
        widow = _cards(play.remaining(play.dummy)) if dummy_exposed else None
    else:
        hand = sorted(ds.deal[dealing[chair]].cards)
        counts = {s.letter: 13 for s in Seat}
        widow = None
    legal_calls = [str(c) for c in ds.auction.legal_calls()] if phase == "auction" and my_turn else []
    legal_cards: list[str] = []
    if phase == "play" and my_turn:
        legal_cards = [str(c) for c in play.legal_cards()]  # type: ignore[union-attr]
    current_trick: list[dict[str, str]] = []
    last_trick = None
    tricks = {"declarer": 0, "defenders": 0}
    if play is not None:
        current_trick = [{"seat": s.letter, "card": str(c)} for s, c in play.current_trick]
        done_tricks = play.tricks
        if done_tricks:
            leader, cards, winner = done_tricks[-1]
            last_trick = {
                "leader": leader.letter, "winner": winner.letter,
                "cards": [{"seat": Seat((int(leader) + i) % 4).letter, "card": str(c)} for i, c in enumerate(cards)],
            }
        tricks = {"declarer": play.declarer_tricks, "defenders": play.defender_tricks}
    view: dict[str, Any] = {
        "version": table.version,
        "table_id": table.table_id,
        "scheme": table.config["scheme"],
        "deal_no": ds.deal_no,
        "phase": phase,
        "dealer": ds.dealer.letter,
        "dealer_chair": ds.dealer_chair,
        "chairs": table.chairs,
        "my_chair": chair,
        "my_seat": my_seat.letter,
        "seats": {str(c): ds.seat_of(c).letter for c in range(3)},
        "widow_seat": ds.widow_seat.letter,
        "dummy_seat": None if play is None else play.dummy.letter,
        "hand": _cards(hand),
        "widow": widow,
        "hand_counts": counts,
        "auction": [{"seat": ds.auction.seat_of_call(i).letter, "call": str(c)} for i, c in enumerate(ds.auction.calls)],
        "legal_calls": legal_calls,
        "turn": None if turn is None else turn.letter,
        "turn_chair": turn_chair,
        "my_turn": my_turn,
        "legal_cards": legal_cards,
        "current_trick": current_trick,
        "last_trick": last_trick,
        "tricks": tricks,
        "contract": None if contract is None else str(contract),
        "declarer": None if contract is None else (ds.seat_map or {}).get(contract.declarer, contract.declarer).letter,
        "declarer_chair": ds.declarer_chair,
        "result": None,
        "scores": None,
        "score_sheet": score_sheet(table),
        "analysis": None,
    }
    if phase == "done":
        record = table.history[-1] if table.history and table.history[-1]["deal_no"] == ds.deal_no else table.record_of(ds)
        view["result"] = record["result"]
        view["scores"] = {"per_chair": record["scores"]["per_chair"], "breakdown": record["scores"]["breakdown"]}
        view["analysis"] = table.analysis.get(ds.deal_no) or {
            "pending": True, "hands": _all_hands(ds), "dd": None, "capture": None, "nt_calls": None,
            "best_contract": None, "notes": ["analysis in progress"],
        }
    return view


def _all_hands(ds: DealState) -> dict[str, list[str]]:
    """All four original hands (play seats; dealing seats if passed out): shown only once the deal is done."""
    if ds.play is not None:
        return {s.letter: _cards(ds.play.deal[s].cards) for s in Seat}
    return {s.letter: _cards(ds.deal[s].cards) for s in Seat}


# ------------------------------------------------------------------------------------------------
# The manager: tables in memory, store, bots, subscribers
# ------------------------------------------------------------------------------------------------


class TableManager:
    """Owns the store, the tables in memory, the WebSocket subscribers and the bot tasks."""

    def __init__(self, db_path: str | Path, bot_delay: float = 0.6) -> None:
        self.db_path = str(db_path)
        self.bot_delay = float(bot_delay)
        self.store: Store | None = None
        self.tables: dict[str, Table] = {}
        self.subscribers: dict[str, set[tuple[int, WebSocket]]] = {}
        self.tasks: set[asyncio.Task[Any]] = set()
        self.stopping = False

    # --- lifecycle -------------------------------------------------------------------------
    async def start(self) -> None:
        """Open the store and replay every table."""
        self.store = Store(self.db_path)
        self.stopping = False
        for table_id in self.store.table_ids():
            table = self._replay(table_id)
            if table is not None:
                self.tables[table_id] = table
        for table in self.tables.values():
            self._schedule_bot(table)

    async def stop(self) -> None:
        """Cancel bot tasks, close sockets and the store."""
        self.stopping = True
        for task in list(self.tasks):
            task.cancel()
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)
        for subs in self.subscribers.values():
            for _, ws in list(subs):
                try:
                    await ws.close(code=1001)
                except Exception:  # noqa: BLE001
                    pass
        if self.store is not None:
            self.store.close()
            self.store = None

    def table_count(self) -> int:
        """Number of tables known."""
        return len(self.tables)

    def _replay(self, table_id: str) -> Table | None:
        assert self.store is not None
        stored = self.store.load(table_id)
        if stored is None:
            return None
        table = Table(table_id, stored.config, dict(stored.token_hashes))
        table.begin()
        for seq, chair, action in stored.actions:
            new, record = table.prepare(chair, action)
            table.install(new, record)
            if seq != table.log_len:
                raise RuntimeError(f"table {table_id}: action log out of order at {seq}")
        if table.current is not None and table.current.phase == "done":
            self._schedule_analysis(table)
        return table

    # --- tables ----------------------------------------------------------------------------
    def create(self, body: dict[str, Any]) -> tuple[Table, str | None]:
        """Create a table from ``{"chairs": [...], "scheme", "seed", "take"}``; returns it and a token if a chair was taken."""
        assert self.store is not None
        if not isinstance(body, dict):
            raise InvalidInput("body", "expected a JSON object")
        chairs_in = body.get("chairs")
        if chairs_in is None:
            chairs_in = [{"kind": "human"}, {"kind": "bot", "bot": "pimc"}, {"kind": "bot", "bot": "pimc"}]
        if not isinstance(chairs_in, list) or len(chairs_in) != 3:
            raise InvalidInput("chairs", "expected a list of three chairs")
        chairs = []
        for i, c in enumerate(chairs_in):
            if not isinstance(c, dict) or c.get("kind") not in ("human", "bot"):
                raise InvalidInput(f"chairs[{i}]", "expected {\"kind\": \"human\"} or {\"kind\": \"bot\", \"bot\": NAME}")
            if c["kind"] == "bot":
                bot = check_bot_name(c.get("bot") or "pimc", f"chairs[{i}].bot")
                chairs.append({"kind": "bot", "bot": bot})
            else:
                name = c.get("name")
                chairs.append({"kind": "human", **({"name": str(name)[:40]} if isinstance(name, str) else {})})
        scheme = body.get("scheme") or "classic"
        if scheme not in SCHEMES:
            raise InvalidInput("scheme", f"unknown scheme {scheme!r}: expected one of {', '.join(SCHEMES)}")
        seed = body.get("seed")
        if seed is None:
            seed = secrets.randbits(63)
        if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0 or seed >= 2**63:
            raise InvalidInput("seed", f"expected a whole number 0..2**63-1 or null, got {seed!r}")
        options = body.get("options") or {}
        if not isinstance(options, dict):
            raise InvalidInput("options", "expected an object")
        config = {"chairs": chairs, "scheme": scheme, "seed": seed,
                  "options": {"ranking": options.get("ranking", "contract"), "dealer_must_bid": bool(options.get("dealer_must_bid", False))}}
        take = body.get("take")
        if take is not None and (not isinstance(take, int) or isinstance(take, bool) or not 0 <= take <= 2 or chairs[take]["kind"] != "human"):
            raise InvalidInput("take", "expected the number of a human chair 0..2")
        table_id = secrets.token_urlsafe(8)
        table = Table(table_id, config)
        table.options()  # validates ranking
        table.begin()
        self.store.create_table(table_id, config)
        self.tables[table_id] = table
        token = self.take_seat(table, take) if take is not None else None
        self._schedule_bot(table)
        log.info("table created", extra={"event": "create", "table_id": table_id})
        return table, token

    def get(self, table_id: str) -> Table:
        """A table by id (404 if unknown)."""
        table = self.tables.get(table_id)
        if table is None:
            raise NotFound(f"no table {table_id!r}")
        return table

    def take_seat(self, table: Table, chair: int) -> str:
        """Give a free human chair a new token (committed before it is returned)."""
        assert self.store is not None
        if not 0 <= chair <= 2:
            raise InvalidInput("chair", "expected 0, 1 or 2")
        if table.is_bot(chair):
            raise Conflict(f"chair {chair} is a bot")
        if chair in table.token_hashes:
            raise Conflict(f"chair {chair} is already taken")
        token = secrets.token_urlsafe(24)
        if not self.store.set_token(table.table_id, chair, token):
            raise Conflict(f"chair {chair} is already taken")
        table.token_hashes[chair] = token_hash(token)
        return token

    def chair_of(self, table: Table, token: str | None) -> int:
        """The chair a bearer token belongs to (403 if none)."""
        if not token:
            raise Forbidden("missing seat token: send 'Authorization: Bearer <token>'")
        digest = token_hash(token)
        for chair, h in table.token_hashes.items():
            if secrets.compare_digest(h, digest):
                return chair
        raise Forbidden("wrong seat token for this table")

    # --- actions ---------------------------------------------------------------------------
    async def act(self, table: Table, chair: int | None, action: dict[str, Any], expect_version: Any = None) -> None:
        """Check, commit, install one action; then notify subscribers and wake the bots."""
        assert self.store is not None
        async with table.lock:
            if expect_version is not None:
                if not isinstance(expect_version, int) or isinstance(expect_version, bool):
                    raise InvalidInput("version", f"expected a whole number, got {expect_version!r}")
                if expect_version != table.version:
                    raise Conflict(f"stale version {expect_version}: the table is at version {table.version}")
            new, record = table.prepare(chair, action)
            clean = {k: action[k] for k in ("type", "call", "card", "tricks") if k in action}
            self.store.append_action(table.table_id, table.log_len + 1, chair, clean)
            table.install(new, record)
        if record is not None:
            self._schedule_analysis(table)
        await self.broadcast(table)
        self._schedule_bot(table)

    async def broadcast(self, table: Table) -> None:
        """Push each subscribed chair its new view."""
        for chair, ws in list(self.subscribers.get(table.table_id, ())):
            try:
                await ws.send_text(json.dumps(view_for(table, chair)))
            except Exception:  # noqa: BLE001 - a closed socket: drop it
                self.subscribers.get(table.table_id, set()).discard((chair, ws))

    # --- bots ------------------------------------------------------------------------------
    def _schedule_bot(self, table: Table) -> None:
        if self.stopping or table.current is None:
            return
        ds = table.current
        chair = ds.turn_chair
        if ds.phase == "done":
            if not all(table.is_bot(c) for c in range(3)):
                return
            chair = None
        elif chair is None or not table.is_bot(chair):
            return
        task = asyncio.get_running_loop().create_task(self._bot_turn(table, chair, table.version))
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def _bot_turn(self, table: Table, chair: int | None, version: int) -> None:
        try:
            if self.bot_delay > 0:
                await asyncio.sleep(self.bot_delay)
            if table.version != version or self.stopping:
                return
            ds = table.current
            assert ds is not None
            if chair is None:
                action: dict[str, Any] = {"type": "next"}
            else:
                bot_name = table.config["chairs"][chair]["bot"]
                loop = asyncio.get_running_loop()
                action = await loop.run_in_executor(BOT_EXECUTOR, bot_action, bot_name, ds, chair)
            if table.version != version or self.stopping:
                return
            await self.act(table, chair, action, expect_version=version)
        except asyncio.CancelledError:
            raise
        except Conflict:
            return
        except Exception:  # noqa: BLE001 - a bot failure must not kill the server; log it
            log.exception("bot failed", extra={"table_id": table.table_id, "event": "bot_error"})

    # --- analysis --------------------------------------------------------------------------
    def _schedule_analysis(self, table: Table) -> None:
        ds = table.current
        if ds is None or ds.phase != "done" or ds.deal_no in table.analysis or self.stopping:
            return
        if all(table.is_bot(c) for c in range(3)):
            return  # nobody can look at it: bots-only tables skip the analysis
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return

        async def run() -> None:
            try:
                result = await loop.run_in_executor(ANALYSIS_EXECUTOR, _analyse_locked, ds, table.config["scheme"])
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001
                log.exception("analysis failed", extra={"table_id": table.table_id})
                result = {"hands": _all_hands(ds), "dd": None, "capture": None, "nt_calls": None,
                          "best_contract": None, "notes": [f"analysis failed: {exc}"]}
            table.analysis[ds.deal_no] = result
            await self.broadcast(table)

        task = loop.create_task(run())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)


def _analyse_locked(ds: DealState, scheme: str) -> dict[str, Any]:
    """Post-deal analysis; its double-dummy solves run on the solver pool in the ANALYSIS class."""
    from tribridge.server.analysis import analyse

    with solving_at(Priority.ANALYSIS):
        return analyse(ds, scheme)


def bot_action(bot_name: str, ds: DealState, chair: int) -> dict[str, Any]:
    """The action a bot takes for ``chair`` now (runs in the bot thread)."""
    from tribridge.bots import get_bot
    from tribridge.rules.deal import replay

    bot = get_bot(bot_name)
    player = ds.chair_seat[chair]
    game = replay(ds.deal, ds.dealer, ds.auction.calls, ds.play.played if ds.play is not None else (),
                  ds.auction.options)
    if ds.phase == "auction":
        bidder = getattr(bot, "bidder", bot)
        call = bidder.bid(game.view(player))
        reason = ds.auction.is_legal(call)
        if reason is not None:  # a bot bug: keep the table going, but say so in the log
            log.error("bot %s chose the illegal call %s for chair %d (%s); passing instead", bot_name, call, chair, reason)
            call = Call.parse("P")
        return {"type": "call", "call": str(call)}
    play = ds.play
    assert play is not None
    player_bot = getattr(bot, "player", bot)
    with solving_at(Priority.INTERACTIVE):
        card = player_bot.play(game.view(player, reveal_all=bool(getattr(player_bot, "sees_all", False))))
    if isinstance(card, str):
        card = Card.parse(card)
    reason = play.is_legal(card)
    if reason is not None:
        fallback = play.legal_cards()[0]
        log.error("bot %s chose the illegal card %s for chair %d (%s); playing %s instead", bot_name, card, chair,
                  reason, fallback)
        card = fallback
    return {"type": "play", "card": str(card)}


# ------------------------------------------------------------------------------------------------
# HTTP
# ------------------------------------------------------------------------------------------------


def _token_from(authorization: str | None) -> str | None:
    if not authorization:
        return None
    parts = authorization.split(None, 1)
    if len(parts) == 2 and parts[0].lower() == "bearer":
        return parts[1].strip()
    return None


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def make_router(manager: TableManager) -> APIRouter:
    """The REST and WebSocket routes of the table API (docs/dev/interfaces.md)."""
    router = APIRouter()

    def guarded(fn: Any) -> Any:
        async def run(*args: Any, **kwargs: Any) -> Any:
            try:
                return await fn(*args, **kwargs)
            except InvalidInput as exc:
                return _error(400, str(exc))
            except Forbidden as exc:
                return _error(403, str(exc))
            except NotFound as exc:
                return _error(404, str(exc))
            except Conflict as exc:
                return _error(409, str(exc))
        return run

    async def read_json(request: Request) -> Any:
        raw = await request.body()
        if not raw.strip():
            return {}
        try:
            return json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            raise InvalidInput("body", "expected a JSON object") from None

    @router.get("/api/bots")
    async def list_bots() -> dict[str, Any]:
        """Bot names and scoring schemes for the lobby."""
        return {"bots": bot_names(), "schemes": SCHEMES}

    @router.post("/api/tables")
    async def create_table(request: Request) -> Any:
        """Create a table (optionally taking a chair with ``take``)."""
        async def run() -> Any:
            body = await read_json(request)
            table, token = manager.create(body)
            out: dict[str, Any] = {"table_id": table.table_id, "chairs": table.chairs, "scheme": table.config["scheme"],
                                   "seed": table.config["seed"]}
            if token is not None:
                out.update({"token": token, "chair": body["take"]})
            return out
        return await guarded(run)()

    @router.get("/api/tables/{table_id}")
    async def table_info(table_id: str) -> Any:
        """Public facts about a table: id, scheme, chairs (who is free)."""
        async def run() -> Any:
            table = manager.get(table_id)
            return {"table_id": table.table_id, "scheme": table.config["scheme"], "chairs": table.chairs,
                    "deal_no": table.current.deal_no if table.current else None,
                    "phase": table.current.phase if table.current else None, "version": table.version}
        return await guarded(run)()

    @router.post("/api/tables/{table_id}/seats/{chair}")
    async def take(table_id: str, chair: str) -> Any:
        """Take a free human chair; returns its token."""
        async def run() -> Any:
            table = manager.get(table_id)
            try:
                number = int(chair)
            except ValueError:
                raise InvalidInput("chair", f"expected 0, 1 or 2, got {chair!r}") from None
            token = manager.take_seat(table, number)
            await manager.broadcast(table)
            return {"token": token, "chair": number, "table_id": table_id}
        return await guarded(run)()

    @router.get("/api/tables/{table_id}/state")
    async def state(table_id: str, authorization: str | None = Header(default=None)) -> Any:
        """The view of the token's chair."""
        async def run() -> Any:
            table = manager.get(table_id)
            chair = manager.chair_of(table, _token_from(authorization))
            return view_for(table, chair)
        return await guarded(run)()

    @router.get("/api/tables/{table_id}/hands/{seat}")
    async def hand_of(table_id: str, seat: str, authorization: str | None = Header(default=None)) -> Any:
        """A seat's remaining cards, only if the token's chair may see them (own, dummy after the lead, all when done)."""
        async def run() -> Any:
            table = manager.get(table_id)
            chair = manager.chair_of(table, _token_from(authorization))
            target = Seat.parse(seat, "seat")
            ds = table.current
            assert ds is not None
            if ds.phase == "done":
                return {"seat": target.letter, "cards": _all_hands(ds)[target.letter]}
            if ds.seat_of(chair) == target:
                return {"seat": target.letter, "cards": view_for(table, chair)["hand"]}
            if ds.play is not None and ds.play.played and target == ds.play.dummy:
                return {"seat": target.letter, "cards": _cards(ds.play.remaining(target))}
            raise Forbidden(f"the cards of {target.letter} are hidden from chair {chair}")
        return await guarded(run)()

    @router.post("/api/tables/{table_id}/actions")
    async def action(table_id: str, request: Request, authorization: str | None = Header(default=None)) -> Any:
        """Call, play, claim or next; answers the new view (400 with the reason if illegal)."""
        async def run() -> Any:
            table = manager.get(table_id)
            chair = manager.chair_of(table, _token_from(authorization))
            body = await read_json(request)
            if not isinstance(body, dict):
                raise InvalidInput("body", "expected a JSON object with a 'type'")
            await manager.act(table, chair, body, body.get("version"))
            return view_for(table, chair)
        return await guarded(run)()

    @router.get("/api/tables/{table_id}/export.json")
    async def export_json(table_id: str, authorization: str | None = Header(default=None)) -> Any:
        """Finished deals of the table as JSON records."""
        async def run() -> Any:
            table = manager.get(table_id)
            manager.chair_of(table, _token_from(authorization))
            return {"table_id": table_id, "scheme": table.config["scheme"], "chairs": table.chairs,
                    "deals": table.history, "score_sheet": score_sheet(table)}
        return await guarded(run)()

    @router.get("/api/tables/{table_id}/export.pbn")
    async def export_pbn(table_id: str, authorization: str | None = Header(default=None)) -> Any:
        """Finished deals of the table as PBN."""
        async def run() -> Any:
            table = manager.get(table_id)
            manager.chair_of(table, _token_from(authorization))
            from tribridge.rules.game import DealRecord

            text = "% PBN 2.1\n% EXPORT\n" + "\n".join(
                DealRecord.from_json(r["record"]).to_pbn(event=f"tribridge table {table_id}", board=r["deal_no"])
                for r in table.history
            )
            return PlainTextResponse(text, media_type="application/x-chess-pbn")
        return await guarded(run)()

    @router.websocket("/api/tables/{table_id}/ws")
    async def ws(websocket: WebSocket, table_id: str, token: str | None = None) -> None:
        """Push the chair's view on connect and after every change."""
        table = manager.tables.get(table_id)
        if table is None:
            await websocket.close(code=4404)
            return
        try:
            chair = manager.chair_of(table, token)
        except Forbidden:
            await websocket.close(code=4403)
            return
        await websocket.accept()
        entry = (chair, websocket)
        manager.subscribers.setdefault(table_id, set()).add(entry)
        try:
            await websocket.send_text(json.dumps(view_for(table, chair)))
            while True:
                await websocket.receive_text()  # clients may send pings; actions go through REST
        except WebSocketDisconnect:
            pass
        finally:
            manager.subscribers.get(table_id, set()).discard(entry)

    return router
