"""FastAPI application factory: robot API, three-player tables, health check, static web table, JSON logging."""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from tribridge import __version__
from tribridge.errors import InvalidInput

STATIC_DIR = Path(__file__).parent / "static"
log = logging.getLogger("tribridge.server")


def default_db_path() -> Path:
    """The default game store: ``$XDG_DATA_HOME/tribridge/tribridge.sqlite`` (``~/.local/share`` if unset)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "tribridge" / "tribridge.sqlite"


class JsonLogFormatter(logging.Formatter):
    """One JSON object per log line: time, level, logger, message and any ``extra`` fields."""

    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
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


class CorsAndLogMiddleware:
    """Pure ASGI middleware: ``Access-Control-Allow-Origin: *`` on every response, CORS preflight,
    one JSON log line per request, and a JSON 500 (never a traceback page) for an unhandled error."""

    def __init__(self, app: Any, log_requests: bool = True) -> None:
        self.app = app
        self.log_requests = log_requests

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        state = {"status": 500, "started": False}
        if scope["method"] == "OPTIONS":
            await send({"type": "http.response.start", "status": 204, "headers": [
                (b"access-control-allow-origin", b"*"), (b"access-control-allow-methods", b"GET, POST, OPTIONS"),
                (b"access-control-allow-headers", b"Authorization, Content-Type"), (b"content-length", b"0")]})
            await send({"type": "http.response.body", "body": b""})
            return

        async def send_with_cors(message: Any) -> None:
            if message["type"] == "http.response.start":
                state["status"], state["started"] = message["status"], True
                headers = [h for h in message.get("headers", []) if h[0].lower() != b"access-control-allow-origin"]
                message = dict(message, headers=headers + [(b"access-control-allow-origin", b"*")])
            await send(message)

        try:
            await self.app(scope, receive, send_with_cors)
        except Exception:  # noqa: BLE001 - answer JSON, log the trace
            log.exception("unhandled error", extra={"method": scope["method"], "path": scope["path"]})
            if not state["started"]:
                await JSONResponse({"error": "internal server error"}, status_code=500)(scope, receive, send_with_cors)
        if self.log_requests:
            log.info("request", extra={"method": scope["method"], "path": scope["path"], "status": state["status"],
                                       "ms": round((time.perf_counter() - start) * 1000, 2)})


def create_app(
    db_path: str | Path | None = None, bot_delay: float = 0.6, log_requests: bool = True, robot_layouts: int = 32,
) -> FastAPI:
    """The tribridge server app on the SQLite store at ``db_path`` (default: the user's data dir).

    ``bot_delay``: seconds a bot waits before acting at a table (0 in tests); ``robot_layouts``:
    layouts the PIMC card search of the robot API samples per card.
    """
    from tribridge.server import ben, brill, review, three
    from tribridge.server.manager import TableManager
    from tribridge.server.routes import make_router

    path = Path(db_path) if db_path is not None else default_db_path()
    manager = TableManager(path, bot_delay=bot_delay)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await manager.start()
        log.info("store open", extra={"event": "startup", "db": str(path)})
        try:
            yield
        finally:
            await manager.stop()
            log.info("shut down cleanly", extra={"event": "shutdown", "db": str(path)})

    app = FastAPI(title="tribridge", version=__version__, lifespan=lifespan)
    app.state.manager = manager
    app.state.robot_layouts = int(robot_layouts)

    app.add_middleware(CorsAndLogMiddleware, log_requests=log_requests)

    @app.exception_handler(InvalidInput)
    async def invalid_input(request: Request, exc: InvalidInput) -> JSONResponse:
        return JSONResponse({"error": str(exc)}, status_code=400)

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        parts = []
        for err in exc.errors():
            where = ".".join(str(x) for x in err.get("loc", ()) if x != "body")
            parts.append(f"{where or 'body'}: {err.get('msg', 'invalid')}")
        return JSONResponse({"error": "; ".join(parts) or "invalid request"}, status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code)

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        """Liveness and store check."""
        return {"ok": True, "version": __version__, "db": str(path), "tables": manager.table_count()}

    app.include_router(brill.router)
    app.include_router(ben.router)
    app.include_router(three.router)
    app.include_router(make_router(manager))
    app.include_router(review.router)
    if STATIC_DIR.is_dir():
        app.mount("/", StaticFiles(directory=str(STATIC_DIR), html=True), name="static")
    return app
