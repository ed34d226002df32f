"""The server's errors and their one mapping to HTTP answers, for the robot API and the tables alike.

Every handler raises; nothing builds an error response by hand. Bad input 400 (``InvalidInput``,
whose message is already bounded), a wrong token 403, an unknown table 404, a stale version or a
taken chair 409, a limit 429 with ``Retry-After``, a full solver queue, a robot answer past its deadline or a
store that cannot be reached 503 with ``Retry-After``.
Every answer is ``{"error": message}``.
"""

from __future__ import annotations

import logging
import math

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from tribridge.dd import QueueFull
from tribridge.errors import InvalidInput, shorten
from tribridge.server.edge import ERROR_QUOTE_CHARS
from tribridge.server.store import StoreUnavailable
from tribridge.server.tables.limits import TooMany  # the limits own their exception: the CLI reads them without FastAPI

__all__ = ["Conflict", "Forbidden", "NotFound", "Overdue", "TooMany", "add_error_handlers", "error_json"]


class Forbidden(Exception):
    """A missing or wrong seat token (HTTP 403)."""


class NotFound(Exception):
    """An unknown table (HTTP 404)."""


class Conflict(Exception):
    """A stale ``version`` or a chair already taken (HTTP 409)."""


class Overdue(Exception):
    """No answer could be had within the request's deadline (HTTP 503 with ``Retry-After``)."""


def error_json(message: str, status: int, headers: dict[str, str] | None = None) -> JSONResponse:
    """``{"error": message}`` with ``status``, the message cut to a short prefix."""
    return JSONResponse({"error": shorten(message, ERROR_QUOTE_CHARS)}, status_code=status, headers=headers)


log = logging.getLogger("tribridge.server")

STATUS_OF: dict[type[Exception], int] = {Forbidden: 403, NotFound: 404, Conflict: 409}


def add_error_handlers(app: FastAPI, busy_retry_after: float = 1.0) -> None:
    """Register the one mapping from the server's exceptions to JSON error answers."""

    @app.exception_handler(InvalidInput)
    async def invalid_input(request: Request, exc: InvalidInput) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=400)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors()[:5]:
            where = ".".join(shorten(str(x), 40) for x in err.get("loc", ()) if x != "body")
            parts.append(f"{where or 'body'}: {shorten(str(err.get('msg', 'invalid')), 80)}")
        return error_json("; ".join(parts) or "invalid request", 400)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return error_json(str(exc.detail), exc.status_code)

    async def table_error(request: Request, exc: Exception) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=STATUS_OF[type(exc)])

    for exc_class in STATUS_OF:
        app.add_exception_handler(exc_class, table_error)

    @app.exception_handler(TooMany)
    async def too_many(request: Request, exc: TooMany) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=429, headers={"Retry-After": str(exc.retry_after)})

    @app.exception_handler(QueueFull)
    async def busy(request: Request, exc: QueueFull) -> JSONResponse:
        return error_json(f"busy: {exc}; retry later", 503, {"Retry-After": str(max(1, math.ceil(busy_retry_after)))})

    @app.exception_handler(Overdue)
    async def overdue(request: Request, exc: Overdue) -> JSONResponse:
        return error_json(f"busy: {exc}; retry later", 503, {"Retry-After": str(max(1, math.ceil(busy_retry_after)))})

    @app.exception_handler(StoreUnavailable)
    async def store_unavailable(request: Request, exc: StoreUnavailable) -> JSONResponse:
        log.warning("store unavailable: %s", exc.__cause__ or exc, extra={"event": "store_unavailable"})
        return error_json(f"the game store is unavailable: {exc}", 503, {"Retry-After": "1"})
