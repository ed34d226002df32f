"""The events API over HTTP (docs/events.md, "In the server"): small handlers over an ``EventService``.

A request with a live session cookie acts as its account (an entry under the username, the asker's entry found
on any device); a state-changing one must then come from this site's pages (``accounts.check_origin``).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Request
from fastapi.responses import PlainTextResponse
from starlette.requests import HTTPConnection

from tribridge.events.export import event_pbn
from tribridge.server.api.accounts import COOKIE, check_origin, get_accounts
from tribridge.server.api.tables import client_of, read_json, token_from
from tribridge.server.errors import Forbidden
from tribridge.server.events.series import BEST
from tribridge.server.events.service import EventService
from tribridge.server.events.state import EventState
from tribridge.server.events.views import event_summary, event_view
from tribridge.server.store.accounts import Account

__all__ = ["router"]


async def get_events(connection: HTTPConnection) -> EventService:
    """The app's event service (set by ``create_app``; async, so FastAPI calls it on the event loop, not a thread)."""
    service = connection.app.state.events
    if not isinstance(service, EventService):
        raise RuntimeError("the app has no event service")
    return service


Events = Annotated[EventService, Depends(get_events)]
router = APIRouter()


async def account_of(request: Request) -> Account | None:
    """The account of the request's live session cookie, or None (a guest); a state-changing request with one must
    pass ``check_origin`` (403)."""
    who = await (await get_accounts(request)).logged_in(request.cookies.get(COOKIE))
    if who is None:
        return None
    check_origin(request)
    return who.account


Asker = Annotated[Account | None, Depends(account_of)]


def _account_id(account: Account | None) -> str | None:
    return None if account is None else account.account_id


@router.post("/api/events")
async def create_event(events: Events, request: Request) -> Any:
    """Create an event: ``{"form": "daily", "name", "boards": N | "pbn": text, "scheme", "closes_in_hours"}``; an
    event of the creator's own boards (``pbn``) is private: its ``invite`` goes to the creator only. The limits are
    checked before the boards are read, and the boards are read on a worker thread (never on the event loop)."""
    body = await read_json(request)
    document, invite = await events.create(body, client_of(request))
    summary: dict[str, Any] = dict(event_summary(document, True))
    if invite is not None:
        summary["invite"] = invite
    return summary


@router.get("/api/events")
async def open_events(events: Events) -> Any:
    """The open public events, oldest first (a private event is found only by its invitees' link), the house's
    daily event among them (opened now if its task has not yet)."""
    await events.ensure_daily()
    listed = [d for d in await events.documents() if events.is_open(d) and not events.is_private(d)]
    return {"events": [event_summary(d, True) for d in listed]}


@router.get("/api/events/series")
async def series(events: Events, request: Request) -> Any:
    """The daily series of a ``period`` (``week`` or ``month``) holding ``date`` (``YYYY-MM-DD``, default today)."""
    period = request.query_params.get("period", "week")
    days, lines = await events.series(period, request.query_params.get("date"))
    return {
        "period": period,
        "first": days[0].isoformat(),
        "last": days[-1].isoformat(),
        "best": BEST[period],
        "lines": [line.to_json() for line in lines],
    }


@router.get("/api/events/{event_id}")
async def get_event(
    events: Events, account: Asker, event_id: str, authorization: str | None = Header(default=None)
) -> Any:
    """Standings so far; the travellers of the boards the asking entrant finished (all once the event closed)."""
    return event_view(await events.state(event_id, token_from(authorization), _account_id(account)))


@router.post("/api/events/{event_id}/entries")
async def enter(events: Events, account: Asker, event_id: str, request: Request) -> dict[str, Any]:
    """Enter the event (``{"name"}``, or as the logged-in account): a table of the entrant's own with two bots, and
    its chair's token."""
    document, entry, token = await events.join(event_id, await read_json(request), client_of(request), account)
    return {
        "event_id": document["event_id"],
        "name": entry["name"],
        "table_id": entry["table_id"],
        "token": token,
        "chair": 0,
        "account": account is not None,
    }


@router.delete("/api/events/{event_id}/entries/mine")
async def withdraw(
    events: Events, account: Asker, event_id: str, authorization: str | None = Header(default=None)
) -> Any:
    """Withdraw the asker's entry (its token, or its account) from an individual event before the start."""
    await events.withdraw(event_id, token_from(authorization), _account_id(account))
    return {"ok": True}


async def _exportable(
    events: EventService, event_id: str, authorization: str | None, account: Account | None
) -> EventState:
    state = await events.state(event_id, token_from(authorization), _account_id(account))
    if not state.closed and state.me is None:
        raise Forbidden("the event is open: only its entrants may export it (their finished boards)")
    return state


@router.get("/api/events/{event_id}/export.json")
async def export_json(
    events: Events, account: Asker, event_id: str, authorization: str | None = Header(default=None)
) -> Any:
    """The event as ``EventResult`` JSON: all once closed, else the asking entrant's finished boards."""
    return (await _exportable(events, event_id, authorization, account)).result().to_json()


@router.get("/api/events/{event_id}/export.pbn")
async def export_pbn(
    events: Events, account: Asker, event_id: str, authorization: str | None = Header(default=None)
) -> Any:
    """The event as PBN with score tables: all once closed, else the asking entrant's finished boards."""
    state = await _exportable(events, event_id, authorization, account)
    text = event_pbn(state.result(), f"tribridge {state.document['name']}")
    if events.is_private(state.document):
        text = "% a private event: its boards came from its creator's PBN file, not the server's dealer\n" + text
    return PlainTextResponse(text, media_type="application/x-chess-pbn")
