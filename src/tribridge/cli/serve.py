"""``tribridge serve``: run the robot API, the three-player tables and the web table on an SQLite or PostgreSQL store."""

from __future__ import annotations

import argparse
import sys

from tribridge.errors import InvalidInput
from tribridge.server.connections import ConnectionLimits
from tribridge.server.edge import DEFAULT_BODY_TIMEOUT
from tribridge.server.robot import ROBOT_DEADLINE_SECONDS
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
    p.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server processes on the one port (default 1); more than one needs --db postgresql://...",
    )
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
    add_connection_flags(p)
    p.set_defaults(func=run)


def add_connection_flags(p: argparse.ArgumentParser) -> None:
    """Flags for the connection timeouts and caps, proxy trust and the Host allow-list (docs/server.md)."""
    d = ConnectionLimits()
    p.add_argument(
        "--forwarded-allow-ips",
        action="append",
        default=[],
        metavar="IP",
        help="a proxy (IP address or network, or *) whose X-Forwarded-For/-Proto are believed (repeatable; "
        "default: none, every client is its socket's address)",
    )
    p.add_argument(
        "--allowed-hosts",
        action="append",
        default=[],
        metavar="HOST",
        help="a Host name the server answers for, e.g. bridge.example.org or *.example.org (repeatable; default: any)",
    )
    numbers = [  # (flag, type, default, what it bounds)
        ("--header-timeout", float, d.header_timeout, "seconds a client has to send its request headers"),
        ("--body-timeout", float, DEFAULT_BODY_TIMEOUT, "seconds a client has to send a request body"),
        ("--send-timeout", float, d.send_timeout, "seconds a client has to take a response held up for it"),
        ("--keep-alive", int, d.keep_alive, "seconds an idle kept-alive connection stays open"),
        ("--max-header-bytes", int, d.max_header_bytes, "cap on the request line and headers in bytes"),
        ("--max-connections", int, d.total, "open connections in all"),
        ("--max-connections-per-client", int, d.per_client, "open connections from one address"),
        ("--ws-max-bytes", int, d.ws_max_bytes, "cap on a WebSocket message from a client in bytes"),
    ]
    for flag, kind, default, what in numbers:
        p.add_argument(flag, type=kind, default=default, help=f"{what} (default {default:g})")
    p.add_argument(
        "--robot-queue",
        type=int,
        default=None,
        help="robot-API jobs that may wait for a solver process; past it the robot API answers 503 "
        "(default: the solver pool's limit, see docs/server.md)",
    )
    p.add_argument(
        "--robot-deadline",
        type=float,
        default=ROBOT_DEADLINE_SECONDS,
        help="seconds a robot-API request may wait for its answer; past it 503 with Retry-After "
        f"(default {ROBOT_DEADLINE_SECONDS:g})",
    )


def connection_limits(args: argparse.Namespace) -> ConnectionLimits:
    """The ``ConnectionLimits`` of a parsed command line (``InvalidInput`` naming the flag of a bad value)."""
    chosen = {
        "--header-timeout": ("header_timeout", args.header_timeout),
        "--send-timeout": ("send_timeout", args.send_timeout),
        "--keep-alive": ("keep_alive", args.keep_alive),
        "--max-header-bytes": ("max_header_bytes", args.max_header_bytes),
        "--max-connections": ("total", args.max_connections),
        "--max-connections-per-client": ("per_client", args.max_connections_per_client),
        "--ws-max-bytes": ("ws_max_bytes", args.ws_max_bytes),
        "--body-timeout": ("body_timeout", args.body_timeout),
    }
    for flag, (_name, value) in chosen.items():
        if value <= 0:
            raise InvalidInput(flag, f"expected a number > 0, got {value}")
    fields = {name: value for name, value in chosen.values() if name != "body_timeout"}
    return ConnectionLimits(**fields, forwarded_allow_ips=tuple(args.forwarded_allow_ips))


def run(args: argparse.Namespace) -> int:
    """Start uvicorn with the app; prints the URL once listening; stops cleanly on SIGINT/SIGTERM."""
    # imported here: start-up time
    import signal
    import socket
    from pathlib import Path

    import uvicorn

    from tribridge.bots import plugins
    from tribridge.dd import Priority, configure_pool, shutdown_pool
    from tribridge.dd.pool import DEFAULT_QUEUE_LIMITS
    from tribridge.server.app import create_app, default_db_path, setup_logging
    from tribridge.server.edge import normalize_host, normalize_origin
    from tribridge.server.loop_watch import slow_callback_seconds
    from tribridge.server.protocols import uvicorn_options
    from tribridge.server.routing import RoutedServer
    from tribridge.server.store import is_postgres_url, sqlite_path, store_label
    from tribridge.server.workers import run_workers

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
    if args.workers < 1:
        raise InvalidInput("--workers", f"expected a whole number >= 1, got {args.workers}")
    if args.workers > 1 and not is_postgres_url(args.db or ""):
        raise InvalidInput("--workers", "several workers need a shared store: --db postgresql://USER@HOST/DB")
    origins = [normalize_origin(o, "--cors-origin") for o in args.cors_origin]
    for spec in args.plugin:
        plugins.enable(spec)
    hosts = [normalize_host(h) for h in args.allowed_hosts]
    connections = connection_limits(args)
    if args.robot_queue is not None and args.robot_queue < 1:
        raise InvalidInput("--robot-queue", f"expected a whole number >= 1, got {args.robot_queue}")
    if not 0 < args.robot_deadline <= 600:
        raise InvalidInput("--robot-deadline", f"expected seconds in (0, 600], got {args.robot_deadline}")
    setup_logging(args.log_level)
    db = args.db or str(default_db_path())
    sock = socket.socket(socket.AF_INET6 if ":" in args.host else socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as exc:
        raise InvalidInput("--port", f"cannot listen on {args.host}:{args.port}: {exc.strerror}") from None
    port = sock.getsockname()[1]
    if args.robot_queue is not None:
        configure_pool(queue_limits={**DEFAULT_QUEUE_LIMITS, Priority.ROBOT_API: args.robot_queue})
    app = create_app(
        db_path=db,
        bot_delay=args.bot_delay,
        log_requests=not args.no_access_log,
        robot_deadline=args.robot_deadline,
        cors_origins=origins,
        api_docs=args.api_docs,
        body_timeout=args.body_timeout,
        allowed_hosts=hosts,
        max_header_bytes=connections.max_header_bytes,
    )
    app.state.manager.limits = limits_from_args(args)
    shown_host = f"[{args.host}]" if ":" in args.host else args.host
    workers = f", {args.workers} workers" if args.workers > 1 else ""
    print(f"tribridge serving on http://{shown_host}:{port}/  (store: {store_label(db)}{workers})", flush=True)

    def serve_one(channel: socket.socket | None = None) -> int:
        config = uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=5,
            # the slow-callback watch times asyncio's own loop (``server.loop_watch``); uvloop's handles it cannot
            loop="asyncio" if slow_callback_seconds() is not None else "auto",
            **uvicorn_options(connections),
        )
        # one process accepts on the socket; a worker serves the connections the parent routes to it
        server = uvicorn.Server(config) if channel is None else RoutedServer(config, channel)
        # uvicorn shuts down gracefully on SIGINT/SIGTERM and then re-raises the signal to the handler
        # that was installed before it: make that one a no-op so a clean shutdown exits with status 0.
        received: list[int] = []
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda number, frame: received.append(number))
        server.run(sockets=[sock] if channel is None else [])
        shutdown_pool(wait=False)  # solver jobs still running are of no use now: end them rather than wait
        print("tribridge server stopped", file=sys.stderr, flush=True)
        return 0

    return run_workers(args.workers, sock, serve_one) if args.workers > 1 else serve_one()
