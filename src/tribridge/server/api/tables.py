"""The table API over HTTP and WebSocket (``docs/server.md``): small handlers over a ``TableManager``.

Handlers raise; ``server.errors`` maps every exception to its status code for the whole app. The
manager comes from ``deps.Manager``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from fastapi import APIRouter, Header, Request, Response, WebSocket
from starlette.requests import HTTPConnection

from tribridge.cards import Seat
from tribridge.errors import InvalidInput
from tribridge.rules.scoring import scheme_names
from tribridge.server.api.deps import Manager
from tribridge.server.errors import Forbidden, TooMany
from tribridge.server.events.service import EventService
from tribridge.server.tables.bots import bot_names
from tribridge.server.tables.chat import check_talk_rate
from tribridge.server.tables.hints import hint_for
from tribridge.server.tables.limits import check_name
from tribridge.server.tables.manager import TableManager
from tribridge.server.tables.spectators import spectator_view
from tribridge.server.tables.table import Table, score_sheet
from tribridge.server.tables.views import view_for, view_text, visible_cards
from tribridge.server.tables.wire_view import BotsJson, CreatedTableJson, RefusedViewJson, TableInfoJson, TableViewJson
from tribridge.server.tables.words import bot_descriptions, scheme_descriptions

__all__ = ["check_watch", "client_of", "router", "seated", "token_from"]

BINARY_CLOSE_CODE = 1003  # "unsupported data"
AUTH_SECONDS = 5.0  # a WebSocket must send its token this soon after it opens


def token_from(authorization: str | None) -> str | None:
    """The bearer token of an ``Authorization`` header, or None."""
    if not authorization:
        return None
    parts = authorization.split(None, 1)
    if len(parts) == 2 and parts[0].lower() == "bearer":
        return parts[1].strip()
    return None


async def read_json(request: Request) -> Any:
    """The request body as JSON (an empty body is ``{}``); 400 if it is not JSON."""
    raw = await request.body()
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise InvalidInput("body", "expected a JSON object") from None


def client_of(request: Request) -> str:
    """The client's address (a proxy's client only when the proxy is trusted: ``--forwarded-allow-ips``)."""
    return request.client.host if request.client is not None else "unknown"


def table_info(table: Table) -> TableInfoJson:
    """Public facts about a table: id, scheme, chairs with names, deal number, phase, version, running totals."""
    state = table.current()
    return {
        "table_id": table.table_id,
        "scheme": table.scheme,
        "chairs": table.chairs,
        "deal_no": table.deal_no,
        "phase": state.phase,
        "version": table.version,
        "totals": score_sheet(table)["totals"],
        "waiting_for": waiting_for(table),
    }


def waiting_for(table: Table) -> list[int]:
    """The chairs the table waits for (public): the one on turn, those to answer a claim, people not ready for the next deal."""
    state = table.current()
    chairs: list[int | None]
    if state.claim is not None:
        chairs = [table.chair_of_player(p) for p in state.awaiting]
    elif state.phase == "done":
        waiting = table.people - table.next_ready if table.config.get("next_consent") else table.people
        chairs = list(sorted(waiting))
    else:
        chairs = [table.chair_of_player(state.turn)]
    return [c for c in chairs if c is not None]


router = APIRouter()


async def seated(manager: TableManager, table_id: str, authorization: str | None) -> tuple[Table, int]:
    """The table and the chair of the bearer token (404 unknown table, 403 wrong token)."""
    table = await manager.get(table_id)
    return table, await manager.chair_of(table, token_from(authorization))


@router.get("/api/bots")
async def list_bots() -> Any:
    """Bot names and scoring schemes for the lobby, each with its description."""
    answer: BotsJson = {
        "bots": bot_names(),
        "schemes": scheme_names(),
        "bot_descriptions": bot_descriptions(),
        "scheme_descriptions": scheme_descriptions(),
    }
    return answer


@router.post("/api/tables")
async def create_table(manager: Manager, request: Request) -> Any:
    """Create a table (optionally taking a chair with ``take``); ``seed`` is echoed only when chosen."""
    body = await read_json(request)
    table, token = await manager.create(body, client_of(request))
    out: CreatedTableJson = {"table_id": table.table_id, "chairs": table.chairs, "scheme": table.scheme}
    source = table.config.get("deals", {})
    if "seed" in source:
        out["seed"] = source["seed"]
    if token is not None and table.all_bots:
        out.update({"watch_token": token, "chair": 0})
    elif token is not None:
        out.update({"token": token, "chair": body["take"]})
    return out


@router.get("/api/tables/{table_id}")
async def get_table(manager: Manager, table_id: str) -> Any:
    """Public facts about a table (the lobby's "your tables")."""
    return table_info(await manager.get(table_id))


@router.post("/api/tables/{table_id}/seats/{chair}")
async def take(manager: Manager, table_id: str, chair: str, request: Request) -> Any:
    """Take a free human chair (optional body ``{"name": ...}``); returns its token."""
    table = await manager.get(table_id)
    try:
        number = int(chair)
    except ValueError:
        raise InvalidInput("chair", f"expected 0, 1 or 2, got {chair[:20]!r}") from None
    body = await read_json(request)
    name = body.get("name") if isinstance(body, dict) else None
    token = await manager.take_seat(table, number, None if name is None else check_name(name, "name"))
    manager.notify(table)
    return {"token": token, "chair": number, "table_id": table_id}


@router.get("/api/tables/{table_id}/state")
async def state(manager: Manager, table_id: str, authorization: str | None = Header(default=None)) -> Any:
    """The view of the token's chair."""
    table, chair = await seated(manager, table_id, authorization)
    return view_for(table, chair)


@router.get("/api/tables/{table_id}/hands/{seat}")
async def hand_of(manager: Manager, table_id: str, seat: str, authorization: str | None = Header(default=None)) -> Any:
    """A seat's remaining cards, only if the token's chair may see them (own, dummy after the lead, all when done)."""
    table, chair = await seated(manager, table_id, authorization)
    target = Seat.parse(seat[:10], "seat")
    cards = visible_cards(table.current().view(table.player_of(chair)), target)
    if cards is None:
        raise Forbidden(f"the cards of {target.letter} are hidden from chair {chair}")
    return {"seat": target.letter, "cards": cards}


@router.post("/api/tables/{table_id}/actions")
async def action(
    manager: Manager, table_id: str, request: Request, authorization: str | None = Header(default=None)
) -> Any:
    """Call, play, claim, answer a claim, next, undo, say or share a view; answers the new view (400 if illegal)."""
    table = await manager.find_or_404(table_id)  # (not caught up here: ``act`` catches up when the log moved on)
    chair = await manager.chair_of(table, token_from(authorization))
    body = await read_json(request)
    if not isinstance(body, dict):
        raise InvalidInput("body", "expected a JSON object with a 'type'")
    if body.get("type") == "say":
        check_talk_rate(table, chair)
    await manager.act(table, chair, body, body.get("version"))
    return Response(view_text(table, chair), media_type="application/json")  # the text its push sends too


@router.post("/api/tables/{table_id}/hint")
async def hint(manager: Manager, table_id: str, authorization: str | None = Header(default=None)) -> Any:
    """The hint bot's suggestion for the token's chair on its turn, with the reason (``hints.py``)."""
    table, chair = await seated(manager, table_id, authorization)
    return await hint_for(table, chair)


async def check_watch(connection: HTTPConnection, table: Table, token: str | None, deal_no: int | None = None) -> None:
    """Refuse (403) a spectator at an open event's table (at its board, or deal ``deal_no``'s), but on a board the
    token's entrant has finished there."""
    events = getattr(connection.app.state, "events", None)
    if isinstance(events, EventService):
        await events.check_watch(table, token, deal_no)


class WatchedBoards:
    """A spectator socket's views of a table, each board checked by ``check_watch`` before it is shown.

    Views are rendered on the push path, which must not wait for the store: the check of a new board runs
    as a task of its own, the board is refused until it has passed, and the socket is pushed again then."""

    def __init__(self, connection: HTTPConnection, manager: TableManager, table: Table, token: str | None) -> None:
        self.connection, self.manager, self.table, self.token = connection, manager, table, token
        self.allowed_deal: int | None = None  # the deal number the last check let through
        self.refused = "this board is being checked"
        self.checking: asyncio.Task[None] | None = None

    async def check(self) -> None:
        """Check the table's board now (``Forbidden`` if it may not be watched)."""
        deal = self.table.deal_no
        await check_watch(self.connection, self.table, self.token)
        self.allowed_deal = deal

    async def _recheck(self) -> None:
        try:
            await self.check()
        except Forbidden as exc:
            self.refused = str(exc)
            return
        self.manager.notify(self.table)

    def view(self, chair: int | None) -> TableViewJson | RefusedViewJson:
        """The spectator's view of the board it may see, else what refuses it (and a check of the board begun)."""
        if self.allowed_deal == self.table.deal_no:
            return spectator_view(self.table, chair)
        if self.checking is None or self.checking.done():
            self.checking = asyncio.get_running_loop().create_task(self._recheck())
        return {
            "spectator": True,
            "table_id": self.table.table_id,
            "version": self.table.version,
            "refused": self.refused,
        }


@router.get("/api/tables/{table_id}/watch")
async def watch(
    manager: Manager,
    request: Request,
    table_id: str,
    chair: int | None = None,
    authorization: str | None = Header(default=None),
) -> Any:
    """A spectator's view (no token): nothing hidden until the deal is over, or a chair's view its player shares.
    An open event's table only to an entrant (its token) on a board it has finished in the event (403 else)."""
    table = await manager.get(table_id)
    await check_watch(request, table, token_from(authorization))
    return spectator_view(table, chair)


@router.websocket("/api/tables/{table_id}/ws")
async def ws(
    manager: Manager, websocket: WebSocket, table_id: str, watch: str | None = None, chair: int | None = None
) -> None:
    """Push the chair's view once the first message ``{"token": ...}`` names a chair (a spectator's view with
    ``?watch=1``, no token), and after every change."""
    await subscribe_socket(manager, websocket, table_id, chair if watch is not None else -1)


async def first_message_token(websocket: WebSocket) -> str | None:
    """The token of the socket's first message ``{"token": "..."}`` (sent within ``AUTH_SECONDS``), or None."""
    try:
        message = await asyncio.wait_for(websocket.receive(), AUTH_SECONDS)
    except TimeoutError:
        return None
    text = message.get("text") if message["type"] == "websocket.receive" else None
    try:
        data = json.loads(text) if text else None
    except ValueError:
        return None
    token = data.get("token") if isinstance(data, dict) else None
    return token if isinstance(token, str) else None


async def subscribe_socket(manager: TableManager, websocket: WebSocket, table_id: str, follow: int | None = -1) -> None:
    """Serve one WebSocket: read the token from its first message (``follow`` other than -1: a spectator, no
    token), subscribe (within the per-table limit), read until it closes. A token in the URL is refused (URLs end
    up in logs)."""
    table = await manager.find(table_id)  # on a shared store, also a table another process created
    if table is None:
        await websocket.close(code=4404)
        return
    await manager.catch_up(table)
    await websocket.accept()
    if "token" in websocket.query_params:
        await websocket.close(code=4400, reason='send the token in the first message {"token": ...}, not the URL')
        return
    spectator = follow != -1
    event_table = spectator and table.config.get("event") is not None
    try:
        token = await first_message_token(websocket) if not spectator or event_table else None
        watched = WatchedBoards(websocket, manager, table, token)
        if event_table:
            await watched.check()  # (and again at each new board: the table moves on to other boards)
        chair = 0 if spectator else await manager.chair_of(table, token)
    except Forbidden as exc:
        await websocket.close(code=4403, reason=str(exc)[:120])
        return
    render = (lambda: watched.view(follow) if event_table else spectator_view(table, follow)) if spectator else None
    try:
        sub = await manager.subscribe(table, chair, websocket, render, None if spectator else token)
    except TooMany as exc:
        await websocket.close(code=4429, reason=str(exc)[:120])
        return
    if spectator:
        table.spectators += 1
        manager.notify(table)
    try:
        while not sub.closed:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            if message.get("bytes") is not None:
                await sub.close(BINARY_CLOSE_CODE, "binary frames are not accepted: this socket takes text only")
                break
    except RuntimeError:  # the writer closed the socket while we waited for a message
        pass
    finally:
        await manager.unsubscribe(table, sub)
        if spectator:
            table.spectators -= 1
            manager.notify(table)
