"""The server: one FastAPI app over two applications, the robot API (``server.robot``) and the tables (``server.tables``).

Health check, the web table's files (``server.assets``), JSON logging and the one error mapping (``server.errors``)
live here.

The HTTP edge (limits, origin rules, headers) is :mod:`tribridge.server.edge`."""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException
from starlette.types import Message

from tribridge import __version__
from tribridge.dd import solver_pool
from tribridge.server.accounts.rating_service import RatingService
from tribridge.server.accounts.service import AccountService
from tribridge.server.api import accounts as account_routes
from tribridge.server.api import events as event_routes
from tribridge.server.api import exports, review
from tribridge.server.api import ratings as rating_routes
from tribridge.server.api import tables as routes
from tribridge.server.assets import StaticAssets
from tribridge.server.edge import (
    DEFAULT_BODY_TIMEOUT,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_HEADER_BYTES,
    DEFAULT_MAX_JSON_DEPTH,
    SECURITY_HEADERS,
    EdgeMiddleware,
    EdgePolicy,
)
from tribridge.server.errors import add_error_handlers
from tribridge.server.events.service import EventService
from tribridge.server.heap import freeze_heap
from tribridge.server.loop_watch import stop_watching_the_loop, watch_the_loop
from tribridge.server.robot import ROBOT_DEADLINE_SECONDS, ben, brill, three
from tribridge.server.store import store_label
from tribridge.server.tables.manager import TableManager

STATIC_DIR = Path(__file__).parent / "static"
log = logging.getLogger("tribridge.server")


def default_db_path() -> Path:
    """The default game store: ``$XDG_DATA_HOME/tribridge/tribridge.sqlite`` (``~/.local/share`` if unset)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "tribridge" / "tribridge.sqlite"


class JsonLogFormatter(logging.Formatter):
    """One JSON object per log line: time, level, logger, message and any ``extra`` fields."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, object] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key in ("method", "path", "status", "ms", "table_id", "event", "url", "db"):
            if hasattr(record, key):
                data[key] = getattr(record, key)
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return json.dumps(data)


def setup_logging(level: str = "info") -> None:
    """Send tribridge's server logs to stderr as JSON lines."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLogFormatter())
    root = logging.getLogger("tribridge")
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    root.propagate = False


class LogMiddleware:
    """Pure ASGI middleware: one JSON log line per request, and a JSON 500 (never a traceback page) for an
    unhandled error. Origin rules, limits and headers are :class:`~tribridge.server.edge.EdgeMiddleware`'s."""

    def __init__(self, app: Any, log_requests: bool = True) -> None:
        self.app = app
        self.log_requests = log_requests

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        state = {"status": 500, "started": False}

        async def send_logged(message: Any) -> None:
            if message["type"] == "http.response.start":
                state["status"], state["started"] = message["status"], True
            await send(message)

        try:
            await self.app(scope, receive, send_logged)
        except Exception:  # noqa: BLE001 - answer JSON, log the trace
            log.exception("unhandled error", extra={"method": scope["method"], "path": scope["path"]})
            if not state["started"]:
                response = JSONResponse({"error": "internal server error"}, status_code=500)
                response.raw_headers.extend(SECURITY_HEADERS)
                await response(scope, receive, send_logged)
        if self.log_requests:
            log.info(
                "request",
                extra={
                    "method": scope["method"],
                    "path": scope["path"],
                    "status": state["status"],
                    "ms": round((time.perf_counter() - start) * 1000, 2),
                },
            )


async def warm_the_routes(app: FastAPI) -> None:
    """Have the router build every route's handler now, at start-up, rather than on the first request.

    FastAPI builds a route's handler (its dependencies, its parameters) the first time a request is
    matched against it; for the first request of a process that is every route, 50–100 ms on the event
    loop. One request for a path no route matches, sent straight to the router, builds them all."""
    scope = {
        "type": "http",
        "method": "GET",
        "path": "/-/warm-up",
        "raw_path": b"/-/warm-up",
        "root_path": "",
        "query_string": b"",
        "headers": [],
        "app": app,
        "http_version": "1.1",
        "scheme": "http",
        "server": None,
        "client": None,
    }

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        return None

    try:
        await app.router(scope, receive, send)
    except HTTPException:  # the static files' mount, last, answers every unmatched path with 404
        pass


def create_app(
    db_path: str | Path | None = None,
    bot_delay: float = 0.6,
    log_requests: bool = True,
    robot_layouts: int = 32,
    robot_deadline: float = ROBOT_DEADLINE_SECONDS,
    cors_origins: Iterable[str] = (),
    api_docs: bool = False,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    max_json_depth: int = DEFAULT_MAX_JSON_DEPTH,
    body_timeout: float = DEFAULT_BODY_TIMEOUT,
    allowed_hosts: Iterable[str] = (),
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES,
) -> FastAPI:
    """The tribridge server app on the store ``db_path`` names (``store.open_store``; default: the user's data dir).

    ``bot_delay``: seconds a bot waits before acting at a table (0 in tests); ``robot_layouts``:
    layouts the PIMC card search of the robot API samples per card; ``robot_deadline``: seconds a
    robot-API request may wait for its answer before a 503 with ``Retry-After``; ``cors_origins``: other origins
    allowed to call the game endpoints (the robot APIs allow any); ``api_docs``: serve the OpenAPI
    schema at ``/openapi.json``; ``max_body_bytes``, ``max_json_depth``, ``body_timeout``, ``max_header_bytes``: request limits,
    ``allowed_hosts``: the ``Host`` names answered (empty: any) (``server.edge``).
    """
    robot_routers = [brill.router, ben.router, three.router]  # stateless robot APIs: their paths answer any origin
    policy = EdgePolicy(
        max_body_bytes=max_body_bytes,
        max_json_depth=max_json_depth,
        cors_origins=tuple(cors_origins),
        body_timeout=body_timeout,
        allowed_hosts=tuple(allowed_hosts),
        max_header_bytes=max_header_bytes,
    )
    policy = policy.with_robot_paths(getattr(route, "path", "") for router in robot_routers for route in router.routes)
    path = db_path if db_path is not None else default_db_path()
    manager = TableManager(path, bot_delay=bot_delay)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await manager.start()
        app.state.events.open_daily()  # the house's daily event, always open (events.daily)
        log.info("store open", extra={"event": "startup", "db": store_label(path)})
        await warm_the_routes(app)
        freeze_heap()  # what is loaded by now lives as long as the server: out of the collector's full passes
        watch_the_loop()  # while serving, asyncio's debug mode when TRIBRIDGE_SLOW_CALLBACK_MS asks (loop_watch)
        try:
            yield
        finally:
            stop_watching_the_loop()
            await manager.stop()
            log.info("shut down cleanly", extra={"event": "shutdown", "db": store_label(path)})

    # the interactive explorers (/docs, /redoc) load their scripts from a CDN: never served
    app = FastAPI(
        title="tribridge",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url="/openapi.json" if api_docs else None,
    )
    app.state.manager = manager
    app.state.events = EventService(manager)
    app.state.robot_layouts = int(robot_layouts)
    app.state.robot_deadline = float(robot_deadline)
    app.state.exports = exports.ExportCache()
    app.state.accounts = AccountService(manager)
    app.state.ratings = RatingService(manager)

    app.add_middleware(EdgeMiddleware, policy=policy)
    app.add_middleware(LogMiddleware, log_requests=log_requests)
    add_error_handlers(app)

    @app.get("/healthz")
    async def healthz() -> JSONResponse:
        """Health: ok (503 when not), the version, the number of tables, whether the solver processes have started,
        and whether the store can commit (no paths)."""
        store = manager.store
        problem = "the store is not open" if store is None else await store.can_commit()
        body = {
            "ok": problem is None,
            "version": __version__,
            "tables": manager.table_count(),
            "solvers_ready": solver_pool().warmed(),
            "store": problem or "ok",
        }
        return JSONResponse(body, status_code=200 if problem is None else 503)

    for router in robot_routers:
        app.include_router(router)
    app.include_router(routes.router)
    app.include_router(exports.router)
    app.include_router(review.router)
    app.include_router(event_routes.router)
    app.include_router(account_routes.router)
    app.include_router(rating_routes.router)
    if STATIC_DIR.is_dir():
        app.mount("/", StaticAssets(STATIC_DIR), name="static")
    return app
