"""Helpers for driving a real tribridge server from tests, benchmarks and scripts.

``start_server`` runs ``tribridge serve`` in a child process on a free loopback port and waits until
``/healthz`` answers; ``ws_token_message`` is the first message a table's WebSocket sends (its token);
``CHROMIUM`` and ``CHROMIUM_ARGS`` are how the browser checks start Debian's Chromium headless.
``PgServer`` is a throwaway PostgreSQL from Debian's binaries in a temporary
folder on a free port: ``start()`` runs ``initdb`` (trust authentication) and ``pg_ctl start`` as
the ``postgres`` user when run as root (initdb refuses root), ``new_database()`` gives the URL of a
fresh database, ``drop_connections(url)`` cuts every connection to one database from the database's
side, ``refusing(url)`` also keeps new ones out for a while (an outage), ``stop()`` stops it and
removes the folder; ``pg_bin_dir()`` is None when the binaries are missing (``apt-get install postgresql``).
"""

from __future__ import annotations

import glob
import json
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import httpx
import psycopg

__all__ = [
    "CHROMIUM",
    "CHROMIUM_ARGS",
    "MISSING_REASON",
    "PgServer",
    "child_pids",
    "free_port",
    "pg_bin_dir",
    "next_presser",
    "start_server",
    "ws_token_message",
]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def next_presser(view: dict[str, object]) -> int:
    """The chair that presses Next deal now in a finished deal's view: the first not yet ready (every person must)."""
    ready = view.get("next_ready") or []
    return next(c for c in (0, 1, 2) if c not in ready)  # type: ignore[operator]


def ws_token_message(token: str) -> str:
    """The first message of a table's WebSocket: the chair's token (``{"token": ...}``)."""
    return json.dumps({"token": token})


def free_port() -> int:
    """A TCP port that is free right now on the loopback interface."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def child_pids(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry))
    return found


def start_server(
    db: Path | str,
    *extra: str,
    bot_delay: float = 0.0,
    log_level: str | None = None,
    wait_s: float = 20.0,
    prefix: Sequence[str] = (),
) -> tuple[subprocess.Popen, str]:
    """Start ``tribridge serve`` on ``db`` (a file or a store URL) with ``extra`` arguments (through the command
    ``prefix`` names, if any, such as one that joins a cgroup); the process and its URL once /healthz answers."""
    command = [sys.executable, "-m", "tribridge.cli.main", "serve", "--port", "0", "--db", str(db)]
    command += ["--bot-delay", str(bot_delay), "--no-access-log"]
    if log_level:
        command += ["--log-level", log_level]
    proc = subprocess.Popen([*prefix, *command, *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    if "http://" not in line:
        proc.kill()
        raise RuntimeError(f"the server did not start: {line!r} (exit status {proc.poll()})")
    url = line.split()[3].rstrip("/")
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("the server did not answer /healthz")


MISSING_REASON = "PostgreSQL's server binaries are missing: apt-get install postgresql"


def pg_bin_dir() -> Path | None:
    """The newest ``/usr/lib/postgresql/<version>/bin`` holding initdb and pg_ctl, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    return Path(found[-1]).parent if found else None


class PgServer:
    """One PostgreSQL server in a temporary directory, listening on 127.0.0.1 at a free port."""

    def __init__(self, bin_dir: Path, fsync: bool = False) -> None:
        self.bin_dir = bin_dir
        self.fsync = fsync
        self.root = Path(tempfile.mkdtemp(prefix="tribridge-pg-"))
        self.data = self.root / "data"
        self.port = free_port()
        self.as_postgres = os.geteuid() == 0
        self.user = "postgres" if self.as_postgres else pwd.getpwuid(os.geteuid()).pw_name

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if self.as_postgres else []
        done = subprocess.run([*prefix, *command], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{Path(command[0]).name} failed: {done.stderr.strip()[-800:]}")

    def start(self) -> PgServer:
        """initdb and start the server (by default with fsync off: a test database need not survive a power cut)."""
        if self.as_postgres:
            shutil.chown(self.root, "postgres", "postgres")
        self._run(str(self.bin_dir / "initdb"), "-D", str(self.data), "-A", "trust", "-U", self.user, "-E", "UTF8")
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c max_connections=200"
        if not self.fsync:
            options += " -c fsync=off"
        log = str(self.root / "server.log")
        self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-l", log, "-o", options, "-w", "start")
        return self

    def url(self, database: str = "postgres") -> str:
        """The URL of one database on this server."""
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """Create an empty database ``t_<random>`` and return its URL."""
        name = "t_" + secrets.token_hex(6)
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def drop_connections(self, url: str) -> int:
        """Terminate every backend of ``url``'s database but this call's own (``pg_terminate_backend``); how many."""
        with psycopg.connect(url, autocommit=True) as conn:
            rows = conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchall()
        return len(rows)

    @contextmanager
    def refusing(self, url: str) -> Iterator[None]:
        """While in the block ``url``'s database has no connections and refuses new ones (``ALLOW_CONNECTIONS``)."""
        database = url.rsplit("/", 1)[1]
        with psycopg.connect(self.url(), autocommit=True) as admin:
            admin.execute(f"ALTER DATABASE {database} ALLOW_CONNECTIONS false")
            try:
                admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (database,))
                yield
            finally:
                admin.execute(f"ALTER DATABASE {database} ALLOW_CONNECTIONS true")

    def stop(self) -> None:
        """Stop the server (fast shutdown) and remove its directory."""
        try:
            self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
