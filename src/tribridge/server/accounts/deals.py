"""An account's deals ("My deals"): every finished deal at the chairs it holds, filtered, and their PBN/LIN.

Only finished deals are listed (a deal's cards are the person's own until it is over). Each row names the
table, the deal, the person's chair and role (declarer, defender, or passed out), the contract, the result,
the person's score, and the double-dummy par difference: the score minus what the person's chair would
score if the deal's best contract (the stored post-deal analysis's ``best_contract``) were played and made
at its double-dummy tricks; None while the deal has no analysis in the store.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from tribridge.cards import Seat
from tribridge.errors import InvalidInput
from tribridge.rules.auction import Contract, Denom
from tribridge.rules.lin import history_to_lin
from tribridge.rules.scoring import score_deal
from tribridge.server.api.exports import export_pbn_text
from tribridge.server.errors import NotFound
from tribridge.server.tables.manager import TableManager
from tribridge.server.tables.table import Table
from tribridge.server.tables.wire import JsonObject
from tribridge.server.tables.wire_view import DealRecordJson

__all__ = [
    "MAX_LISTED_TABLES",
    "DealFilter",
    "DealRow",
    "deal_rows",
    "my_deals",
    "par_score_of",
    "parse_selection",
    "selected_records",
    "selection_text",
]

MAX_LISTED_TABLES = 200  # the newest held chairs read for one listing (each table is loaded to read its deals)
MAX_SELECTION = 500
ROLES = ("declarer", "defender", "passed")


@dataclass(frozen=True)
class DealRow:
    """One finished deal as "My deals" lists it."""

    table_id: str
    deal_no: int
    chair: int
    role: str
    contract: str | None
    result: str
    score: int
    par_diff: int | None
    event_id: str | None
    since: float

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict with the deal's links."""
        return dict(asdict(self), table_url=f"./?table={self.table_id}")


@dataclass(frozen=True)
class DealFilter:
    """The filters of a listing (each None: any)."""

    role: str | None = None
    contract: str | None = None  # a prefix of the contract: "4", "4S", "3NT"
    event_id: str | None = None
    since: float | None = None
    until: float | None = None

    @classmethod
    def from_query(cls, query: dict[str, str]) -> DealFilter:
        """The filter from a request's query (``role``, ``contract``, ``event``, ``since``, ``until``)."""
        role = query.get("role") or None
        if role is not None and role not in ROLES:
            raise InvalidInput("role", f"expected one of {', '.join(ROLES)}")
        contract = (query.get("contract") or "").strip().upper() or None
        if contract is not None and len(contract) > 6:
            raise InvalidInput("contract", "expected a contract such as 4S, 3NT or 4")
        times = {}
        for name in ("since", "until"):
            text = query.get(name)
            try:
                times[name] = None if not text else float(text)
            except ValueError:
                raise InvalidInput(name, "expected seconds since the epoch") from None
        return cls(role, contract, (query.get("event") or None), times["since"], times["until"])

    def keeps(self, row: DealRow) -> bool:
        """Whether ``row`` passes every filter."""
        return (
            (self.role is None or row.role == self.role)
            and (self.contract is None or (row.contract or "").startswith(self.contract))
            and (self.event_id is None or row.event_id == self.event_id)
            and (self.since is None or row.since >= self.since)
            and (self.until is None or row.since <= self.until)
        )


def par_score_of(analysis: JsonObject | None, chair: int, scheme: str) -> int | None:
    """What ``chair`` scores if the analysis's best contract is made at its double-dummy tricks (None: unknown)."""
    best = (analysis or {}).get("best_contract")
    if not best:
        return None
    text = str(best["contract"]).upper().replace("NT", "N")
    contract = Contract(int(text[0]), Denom.parse(text[1:2]), 0, Seat.parse(best["declarer"], "declarer"))
    if int(best["declarer_chair"]) == chair:
        return int(best["score"])
    return int(score_deal(contract, int(best["tricks"]), scheme).each_defender)


def deal_rows(table: Table, chair: int, since: float, analyses: dict[int, str | None]) -> list[DealRow]:
    """The finished deals of ``table`` seen from ``chair`` (``analyses``: each deal's stored analysis JSON)."""
    rows = []
    event = table.config.get("event")
    for record in table.history:
        result = record["result"]
        declarer = record.get("declarer_chair")
        role = "passed" if result.get("passed_out") else ("declarer" if declarer == chair else "defender")
        score = int(record["scores"]["per_chair"][chair])
        text = analyses.get(record["deal_no"])
        par = par_score_of(json.loads(text) if text else None, chair, table.scheme)
        rows.append(
            DealRow(
                table.table_id,
                int(record["deal_no"]),
                chair,
                role,
                record.get("contract"),
                str(result.get("text", "")),
                score,
                None if par is None else score - par,
                None if event is None else str(event.get("event_id")),
                since,
            )
        )
    return rows


def parse_selection(text: str | None) -> list[tuple[str, int]]:
    """``TABLE:DEAL,TABLE:DEAL,...`` as pairs (``InvalidInput`` naming ``deals`` when malformed)."""
    if not text:
        raise InvalidInput("deals", "expected TABLE:DEAL,TABLE:DEAL,...")
    picked = []
    for part in text.split(",")[: MAX_SELECTION + 1]:
        table_id, _, number = part.strip().partition(":")
        if not table_id or not number.isdigit() or len(table_id) > 40:
            raise InvalidInput("deals", f"expected TABLE:DEAL, got {part[:40]!r}")
        picked.append((table_id, int(number)))
    if len(picked) > MAX_SELECTION:
        raise InvalidInput("deals", f"at most {MAX_SELECTION} deals at once")
    return picked


async def my_deals(manager: TableManager, account_id: str) -> list[DealRow]:
    """Every finished deal at the chairs the account holds (its newest ``MAX_LISTED_TABLES``), newest table first."""
    store = manager.store
    assert store is not None
    seats = (await store.call(store.sync.seats_of, account_id))[-MAX_LISTED_TABLES:]
    rows: list[DealRow] = []
    for seat in reversed(seats):
        table = await manager.find(seat.table_id)
        if table is None:
            continue
        analyses = {r["deal_no"]: await store.get_analysis(table.table_id, r["deal_no"]) for r in table.history}
        rows.extend(deal_rows(table, seat.chair, seat.created, analyses))
    return rows


async def selected_records(
    manager: TableManager, account_id: str, picked: list[tuple[str, int]]
) -> dict[str, list[DealRecordJson]]:
    """The finished deals picked, grouped by table in the order given; 404 for a deal at a table the account holds
    no chair at (another person's history) or not finished."""
    store = manager.store
    assert store is not None
    held = {s.table_id for s in await store.call(store.sync.seats_of, account_id)}
    grouped: dict[str, list[DealRecordJson]] = {}
    for table_id, deal_no in picked:
        table = await manager.find(table_id) if table_id in held else None
        record = None if table is None else next((r for r in table.history if r["deal_no"] == deal_no), None)
        if record is None:
            raise NotFound(f"no finished deal {table_id[:40]}:{deal_no} of yours")
        grouped.setdefault(table_id, []).append(record)
    return grouped


def selection_text(grouped: dict[str, list[DealRecordJson]], kind: str) -> str:
    """The picked deals as PBN (one file) or LIN (one line a deal)."""
    if kind == "lin":
        return "".join(history_to_lin(records) for records in grouped.values())
    parts = [export_pbn_text(table_id, records) for table_id, records in grouped.items()]
    return parts[0] + "".join(p.split("% EXPORT\n", 1)[1] for p in parts[1:]) if parts else "% PBN 2.1\n"
