"""The accounts API (docs/server.md, "Accounts"): sign up, log in and out, sessions, password, deletion, export.

The session travels in the ``tribridge_session`` cookie (``HttpOnly``, ``SameSite=Lax``, ``Secure`` when the
request came over https). Every state-changing request the cookie authenticates must carry this site's own
``Origin`` (browsers send it with every such request), so no other page can make a logged-in browser act:
403 otherwise. Bearer seat tokens are untouched by any of this.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Annotated, Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Depends, Request, Response
from starlette.exceptions import HTTPException
from starlette.requests import HTTPConnection

from tribridge.errors import InvalidInput
from tribridge.server.accounts.deals import DealFilter, my_deals, parse_selection, selected_records, selection_text
from tribridge.server.accounts.service import SESSION_SECONDS, AccountService, LoggedIn, session_json
from tribridge.server.api.deps import Manager
from tribridge.server.api.tables import client_of, read_json
from tribridge.server.errors import Forbidden
from tribridge.server.store import token_hash
from tribridge.server.store.accounts import Account
from tribridge.server.tables.push import end_replaced

__all__ = ["COOKIE", "router"]

COOKIE = "tribridge_session"
SAFE = frozenset({"GET", "HEAD", "OPTIONS"})


async def get_accounts(connection: HTTPConnection) -> AccountService:
    """The app's account service (set by ``create_app``)."""
    service = connection.app.state.accounts
    if not isinstance(service, AccountService):
        raise RuntimeError("the app has no account service")
    return service


Accounts = Annotated[AccountService, Depends(get_accounts)]


def same_origin(request: Request) -> bool:
    """Whether the request carries an ``Origin`` that is this server's own (scheme http(s), same host and port)."""
    origin = request.headers.get("origin")
    host = request.headers.get("host", "")
    if not origin:
        return False
    parts = urlsplit(origin.strip())
    return parts.scheme in ("http", "https") and bool(host) and parts.netloc.lower() == host.strip().lower()


def check_origin(request: Request) -> None:
    """403 unless a state-changing request comes from this site's own pages (the cookie's CSRF guard)."""
    if request.method not in SAFE and not same_origin(request):
        raise Forbidden("a request with the session cookie must come from this site's pages (Origin)")


async def logged_in(request: Request, accounts: Accounts) -> LoggedIn:
    """The request's account (401 without a live session); state-changing requests must pass ``check_origin``."""
    who = await accounts.logged_in(request.cookies.get(COOKIE))
    if who is None:
        raise HTTPException(401, "not logged in")
    check_origin(request)
    return who


Me = Annotated[LoggedIn, Depends(logged_in)]
router = APIRouter()


def _set_session(request: Request, response: Response, secret: str) -> None:
    response.set_cookie(
        COOKIE,
        secret,
        max_age=int(SESSION_SECONDS),
        httponly=True,
        samesite="lax",
        secure=request.url.scheme == "https",
        path="/",
    )


def _clear_session(request: Request, response: Response) -> None:
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax", secure=request.url.scheme == "https")


def _account_json(account: Account) -> dict[str, Any]:
    return {"username": account.username, "created": account.created}


def _agent(request: Request) -> str:
    return request.headers.get("user-agent", "")


@router.post("/api/accounts", status_code=201)
async def sign_up(request: Request, response: Response, accounts: Accounts) -> Any:
    """Sign up with ``{"username", "password"}``; logged in at once (the session cookie)."""
    check_origin(request)
    account, secret = await accounts.sign_up(await read_json(request), client_of(request), _agent(request))
    _set_session(request, response, secret)
    return _account_json(account)


@router.post("/api/session")
async def log_in(request: Request, response: Response, accounts: Accounts) -> Any:
    """Log in with ``{"username", "password"}``: a new session cookie (401 when wrong, 429 after too many)."""
    check_origin(request)
    account, secret = await accounts.log_in(await read_json(request), client_of(request), _agent(request))
    _set_session(request, response, secret)
    return _account_json(account)


@router.delete("/api/session")
async def log_out(request: Request, response: Response, accounts: Accounts, who: Me) -> Any:
    """Log out: this session ends and its cookie is cleared."""
    await accounts.log_out(who)
    _clear_session(request, response)
    return {"ok": True}


@router.get("/api/account")
async def me(who: Me) -> Any:
    """The logged-in account (401 when none)."""
    return _account_json(who.account)


@router.get("/api/account/sessions")
async def sessions(accounts: Accounts, who: Me) -> Any:
    """The account's sessions, each with its id, times, client and browser."""
    return {"sessions": [session_json(s, who) for s in await accounts.sessions(who)]}


@router.delete("/api/account/sessions/{session_id}")
async def revoke(accounts: Accounts, who: Me, session_id: str) -> Any:
    """End one of the account's sessions (404 if the account has no such session)."""
    await accounts.revoke(who, session_id)
    return {"ok": True}


@router.post("/api/account/logout-everywhere")
async def log_out_everywhere(request: Request, response: Response, accounts: Accounts, who: Me) -> Any:
    """End every session of the account, this one too unless ``{"keep_this": true}``."""
    body = await read_json(request)
    keep = body.get("keep_this", False) if isinstance(body, dict) else None
    if not isinstance(keep, bool):
        raise InvalidInput("keep_this", "expected true or false")
    ended = await accounts.log_out_everywhere(who, keep)
    if not keep:
        _clear_session(request, response)
    return {"ended": ended}


@router.post("/api/account/password")
async def change_password(request: Request, accounts: Accounts, who: Me) -> Any:
    """Change the password (``{"current", "new"}``); the account's other sessions end."""
    await accounts.change_password(who, await read_json(request))
    return {"ok": True}


@router.post("/api/account/delete")
async def delete_account(request: Request, response: Response, accounts: Accounts, who: Me) -> Any:
    """Delete the account (``{"password"}``): every row of it leaves the store."""
    await accounts.delete(who, await read_json(request))
    await request.app.state.events.forget_account(who.account.account_id)  # its entries keep a neutral name
    _clear_session(request, response)
    return {"ok": True}


@router.get("/api/account/export")
async def export(accounts: Accounts, who: Me) -> Any:
    """The account's own data as JSON."""
    return await accounts.export(who)


@router.post("/api/account/seats")
async def hold_seat(request: Request, accounts: Accounts, manager: Manager, who: Me) -> Any:
    """Tie a chair to the account (``{"table_id", "token"}``: the chair's seat token proves it is the asker's)."""
    body = await read_json(request)
    if not isinstance(body, dict) or not isinstance(body.get("table_id"), str):
        raise InvalidInput("table_id", "expected a table id")
    token = body.get("token")
    if not isinstance(token, str) or not token:
        raise InvalidInput("token", "expected the chair's seat token")
    table = await manager.get(body["table_id"])
    chair = await manager.chair_of(table, token)
    await accounts.store.call(accounts.store.sync.hold_seat, who.account.account_id, table.table_id, chair)
    await request.app.state.ratings.rate_table(table)  # the deals played before the chair was the account's
    return {"table_id": table.table_id, "chair": chair}


@router.get("/api/account/tables")
async def my_tables(accounts: Accounts, who: Me) -> Any:
    """The chairs the account holds, from any device."""
    seats = await accounts.store.call(accounts.store.sync.seats_of, who.account.account_id)
    return {"tables": [{"table_id": s.table_id, "chair": s.chair, "since": s.created} for s in seats]}


@router.post("/api/account/tables/{table_id}/seats/{chair}/token")
async def take_seat_back(accounts: Accounts, manager: Manager, who: Me, table_id: str, chair: int) -> Any:
    """A new token for a chair the account holds (the seat taken back on this device; the old token stops working and
    its sockets are closed)."""
    table = await manager.get(table_id)
    token = secrets.token_urlsafe(24)
    digest = token_hash(token)
    store = accounts.store
    if not await store.call(store.sync.replace_seat_token, who.account.account_id, table.table_id, chair, digest):
        raise HTTPException(404, "this account holds no such chair")
    table.token_hashes[chair] = digest
    await end_replaced(manager.watchers(table.table_id), table.token_hashes)  # (other processes: at the notice)
    return {"table_id": table.table_id, "chair": chair, "token": token}


@router.get("/api/account/deals")
async def list_deals(request: Request, manager: Manager, who: Me) -> Any:
    """ "My deals": every finished deal at the account's chairs, filtered (``role``, ``contract``, ``event``,
    ``since``, ``until``)."""
    keep = DealFilter.from_query(dict(request.query_params))
    rows = [r for r in await my_deals(manager, who.account.account_id) if keep.keeps(r)]
    return {"deals": [r.to_json() for r in rows]}


async def _selection(request: Request, manager: Manager, who: LoggedIn, kind: str) -> str:
    cache = request.app.state.exports
    cache.check_rate(client_of(request), manager.limits.exports_per_minute_per_client)
    grouped = await selected_records(
        manager, who.account.account_id, parse_selection(request.query_params.get("deals"))
    )
    return await asyncio.to_thread(selection_text, grouped, kind)


@router.get("/api/account/deals/export.pbn")
async def deals_pbn(request: Request, manager: Manager, who: Me) -> Response:
    """The picked deals (``deals=TABLE:DEAL,...``, the account's own) as PBN."""
    return Response(await _selection(request, manager, who, "pbn"), media_type="application/x-chess-pbn")


@router.get("/api/account/deals/export.lin")
async def deals_lin(request: Request, manager: Manager, who: Me) -> Response:
    """The picked deals (``deals=TABLE:DEAL,...``, the account's own) as LIN, one line a deal."""
    return Response(await _selection(request, manager, who, "lin"), media_type="text/plain; charset=utf-8")
