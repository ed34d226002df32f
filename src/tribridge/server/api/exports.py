"""A table's finished deals: the paged history and the game-record exports (JSON, PBN, LIN), for any chair's token.

``GET /api/tables/{id}/history?offset=&limit=`` pages the score sheet's deals (a view carries only the
newest, ``views.VIEW_DEALS``). ``export.json``, ``export.pbn`` and ``export.lin`` are built on a worker thread (never on
the event loop), kept per table version (a second export of an unchanged table costs nothing), and
limited per client (``TableLimits.exports_per_minute_per_client``, 429 past it); ``?deal=N`` exports
one finished deal.
"""

from __future__ import annotations

import asyncio
import json
from collections import OrderedDict
from typing import Any, TypedDict

from fastapi import APIRouter, Header, Request
from fastapi.responses import Response

from tribridge.errors import InvalidInput
from tribridge.rules.game import DealRecord
from tribridge.rules.lin import history_to_lin
from tribridge.server.api.deps import Manager
from tribridge.server.api.tables import client_of, seated
from tribridge.server.errors import NotFound, TooMany
from tribridge.server.tables.limits import RateWindow
from tribridge.server.tables.table import Table, score_sheet
from tribridge.server.tables.wire_view import ChairJson, DealRecordJson, ScoreSheetJson, SheetDealJson

__all__ = [
    "MAX_HISTORY_PAGE",
    "ExportCache",
    "HistoryPageJson",
    "export_json_text",
    "export_pbn_text",
    "history_page",
    "router",
]

MAX_HISTORY_PAGE = 100
KEPT_EXPORTS = 64  # exports kept (table, kind) -> text, the least recently used dropped first

router = APIRouter()


def export_json_text(
    table_id: str, scheme: str, chairs: list[ChairJson], history: list[DealRecordJson], sheet: ScoreSheetJson
) -> str:
    """The JSON export of a table's finished deals (records and the score sheet)."""
    body = {"table_id": table_id, "scheme": scheme, "chairs": chairs, "deals": history, "score_sheet": sheet}
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"))


def export_pbn_text(table_id: str, history: list[DealRecordJson]) -> str:
    """The PBN export of a table's finished deals."""
    return "% PBN 2.1\n% EXPORT\n" + "\n".join(
        DealRecord.from_json(r["record"]).to_pbn(event=f"tribridge table {table_id}", board=r["deal_no"])
        for r in history
    )


def finished_deals(table: Table, deal: int | None) -> list[DealRecordJson]:
    """A copy of the table's finished deals' records, or of deal number ``deal``'s alone (404 when not finished)."""
    if deal is None:
        return list(table.history)
    chosen = [r for r in table.history if r["deal_no"] == deal]
    if not chosen:
        raise NotFound(f"deal {deal} of table {table.table_id} is not finished")
    return chosen


class ExportCache:
    """Exports built off the event loop, kept per table version, and the per-client export rate."""

    def __init__(self) -> None:
        self.kept: OrderedDict[tuple[str, str], tuple[int, str]] = OrderedDict()
        self.rate = RateWindow(60.0)

    def check_rate(self, client: str, per_minute: int) -> None:
        """Count one export by ``client``; ``TooMany`` past ``per_minute``."""
        if self.rate.count(client) >= per_minute:
            raise TooMany(
                f"too many exports from this client in the last minute (limit {per_minute})",
                self.rate.retry_after(client),
            )
        self.rate.add(client)

    async def text(self, table: Table, kind: str, deal: int | None = None) -> str:
        """The ``kind`` ("json", "pbn" or "lin") export of ``table`` at its current version (one deal's, given)."""
        key, version = (table.table_id, f"{kind}:{deal}"), table.version
        kept = self.kept.get(key)
        if kept is not None and kept[0] == version:
            self.kept.move_to_end(key)
            return kept[1]
        history = finished_deals(table, deal)  # a snapshot: the thread never reads the live table
        if kind == "json":
            sheet = score_sheet(table)
            text = await asyncio.to_thread(export_json_text, table.table_id, table.scheme, table.chairs, history, sheet)
        elif kind == "lin":
            text = await asyncio.to_thread(history_to_lin, history)
        else:
            text = await asyncio.to_thread(export_pbn_text, table.table_id, history)
        self.kept[key] = (version, text)
        while len(self.kept) > KEPT_EXPORTS:
            self.kept.popitem(last=False)
        return text


def _export_route(kind: str, media_type: str, doc: str) -> None:
    """Register ``GET /api/tables/{id}/export.<kind>``: any chair's token, the per-client rate, the kept text."""

    async def export(
        manager: Manager,
        request: Request,
        table_id: str,
        deal: int | None = None,
        authorization: str | None = Header(default=None),
    ) -> Response:
        table, _chair = await seated(manager, table_id, authorization)
        cache: ExportCache = request.app.state.exports
        cache.check_rate(client_of(request), manager.limits.exports_per_minute_per_client)
        return Response(await cache.text(table, kind, deal), media_type=media_type)

    export.__doc__ = doc
    router.add_api_route(f"/api/tables/{{table_id}}/export.{kind}", export, methods=["GET"], name=f"export_{kind}")


_export_route("json", "application/json", "Finished deals of the table as JSON records.")
_export_route("pbn", "application/x-chess-pbn", "Finished deals of the table as PBN.")
_export_route(
    "lin", "text/plain; charset=utf-8", "Finished deals of the table as LIN (BBO's hand viewer), one line a deal."
)


class HistoryPageJson(TypedDict):
    """A page of the table's finished deals, oldest first, with their total."""

    table_id: str
    total: int
    offset: int
    limit: int
    deals: list[SheetDealJson]


def _whole(value: str | None, name: str, default: int, low: int, high: int) -> int:
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise InvalidInput(name, f"expected a whole number, got {value[:20]!r}") from None
    if not low <= number <= high:
        raise InvalidInput(name, f"expected {low}..{high}, got {number}")
    return number


def history_page(table: Table, offset: int, limit: int) -> HistoryPageJson:
    """Deals ``offset`` .. ``offset + limit - 1`` (oldest first) of the table's score sheet, with the total."""
    deals = score_sheet(table)["deals"]
    results = {r["deal_no"]: r["result"]["text"] for r in table.history[offset : offset + limit]}
    page: list[SheetDealJson] = [{**d, "result": results.get(d["deal_no"])} for d in deals[offset : offset + limit]]
    return {"table_id": table.table_id, "total": len(deals), "offset": offset, "limit": limit, "deals": page}


@router.get("/api/tables/{table_id}/history")
async def history(
    manager: Manager,
    table_id: str,
    offset: str | None = None,
    limit: str | None = None,
    authorization: str | None = Header(default=None),
) -> Any:
    """One page of the table's finished deals (``offset`` from 0, ``limit`` up to ``MAX_HISTORY_PAGE``)."""
    table, _chair = await seated(manager, table_id, authorization)
    start = _whole(offset, "offset", 0, 0, 10**9)
    size = _whole(limit, "limit", 50, 1, MAX_HISTORY_PAGE)
    return history_page(table, start, size)
