"""``tribridge serve``: run the robot API, the three-player tables and the web table on an SQLite or PostgreSQL store."""

from __future__ import annotations

import argparse
import sys

from tribridge.server.tables.limits import add_limit_flags, limits_from_args


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``serve`` command."""
    p = sub.add_parser(
        "serve",
        help="run the server: robot API, three-player tables, web table",
        description="Run the tribridge server (robot API at /apis/brill and /apis/3pab, tables at /api/tables, "
        "web table at /). Games are stored in SQLite or PostgreSQL; see docs/server.md and docs/deploy.md.",
    )
    p.add_argument("--host", default="127.0.0.1", help="interface to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="TCP port (default 8080; 0 picks a free port)")
    p.add_argument(
        "--db",
        default=None,
        help="game store: an SQLite file (or sqlite:///PATH) whose directory must exist, or "
        "postgresql://USER@HOST[:PORT]/DB (default $XDG_DATA_HOME/tribridge/tribridge.sqlite, whose directory "
        "is created)",
    )
    p.add_argument(
        "--bot-delay", type=float, default=0.6, help="seconds a bot waits before acting at a table (default 0.6)"
    )
    p.add_argument(
        "--log-level", default="info", choices=["debug", "info", "warning", "error"], help="log level (default info)"
    )
    p.add_argument("--no-access-log", action="store_true", help="do not log every request")
    add_limit_flags(p)
    p.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="URL",
        help="another origin allowed to call the game endpoints, e.g. https://example.org (repeatable; "
        "default: same origin only; the robot APIs allow any origin)",
    )
    p.add_argument(
        "--plugin",
        action="append",
        default=[],
        metavar="SPEC",
        help="accept the plug-in bot pkg.module:factory or file.py:factory as a bot name (repeatable; "
        "clients can name only the plug-ins enabled here; see docs/research.md)",
    )
    p.add_argument("--api-docs", action="store_true", help="serve the OpenAPI schema at /openapi.json (off by default)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Start uvicorn with the app; prints the URL once listening; stops cleanly on SIGINT/SIGTERM."""
    # imported here: start-up time
    import signal
    import socket
    from pathlib import Path

    import uvicorn

    from tribridge.bots import plugins
    from tribridge.dd import shutdown_pool
    from tribridge.errors import InvalidInput
    from tribridge.server.app import create_app, default_db_path, setup_logging
    from tribridge.server.edge import normalize_origin
    from tribridge.server.tables.store import sqlite_path, store_label

    if not 0 <= args.port <= 65535:
        raise InvalidInput("--port", f"expected 0..65535, got {args.port}")
    if args.bot_delay < 0:
        raise InvalidInput("--bot-delay", f"expected seconds >= 0, got {args.bot_delay}")
    sqlite_file = sqlite_path(args.db) if args.db is not None else None
    if sqlite_file is not None:
        folder = Path(sqlite_file).expanduser().resolve().parent
        if not folder.is_dir():
            raise InvalidInput("--db", f"the directory {str(folder)!r} does not exist; create it first")
        if Path(sqlite_file).is_dir():
            raise InvalidInput("--db", f"{args.db!r} is a directory; give a file name such as games.sqlite")
    origins = [normalize_origin(o, "--cors-origin") for o in args.cors_origin]
    for spec in args.plugin:
        plugins.enable(spec)
    setup_logging(args.log_level)
    db = args.db or str(default_db_path())
    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as exc:
        raise InvalidInput("--port", f"cannot listen on {args.host}:{args.port}: {exc.strerror}") from None
    port = sock.getsockname()[1]
    app = create_app(
        db_path=db,
        bot_delay=args.bot_delay,
        log_requests=not args.no_access_log,
        cors_origins=origins,
        api_docs=args.api_docs,
    )
    app.state.manager.limits = limits_from_args(args)
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"tribridge serving on http://{shown_host}:{port}/  (store: {store_label(db)})", flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=5)
    server = uvicorn.Server(config)
    # uvicorn shuts down gracefully on SIGINT/SIGTERM and then re-raises the signal to the handler
    # that was installed before it: make that one a no-op so a clean shutdown exits with status 0.
    received: list[int] = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda number, frame: received.append(number))
    server.run(sockets=[sock])
    shutdown_pool(wait=False)  # solver jobs still running are of no use now: end them rather than wait
    print("tribridge server stopped", file=sys.stderr, flush=True)
    return 0
