"""A real, throwaway PostgreSQL server for the tests: Debian's binaries in a temporary directory on a free port.

``PgServer.start()`` runs ``initdb`` (trust authentication, no password) and ``pg_ctl start`` as the
``postgres`` user when the tests run as root (initdb refuses root), as the current user otherwise;
``new_database()`` creates an empty database and returns its URL; ``stop()`` stops the server and
removes the directory. ``pg_bin_dir()`` is None when the binaries are missing (``apt-get install
postgresql``).
"""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import psycopg

__all__ = ["MISSING_REASON", "PgServer", "pg_bin_dir"]

MISSING_REASON = "PostgreSQL's server binaries are missing: apt-get install postgresql"


def pg_bin_dir() -> Path | None:
    """The newest ``/usr/lib/postgresql/<version>/bin`` holding initdb and pg_ctl, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    return Path(found[-1]).parent if found else None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PgServer:
    """One PostgreSQL server in a temporary directory, listening on 127.0.0.1 at a free port."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="tribridge-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.as_postgres = os.geteuid() == 0
        self.user = "postgres" if self.as_postgres else pwd.getpwuid(os.geteuid()).pw_name

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if self.as_postgres else []
        done = subprocess.run([*prefix, *command], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"{Path(command[0]).name} failed: {done.stderr.strip()[-800:]}")

    def start(self) -> PgServer:
        """initdb and start the server (fsync off: a test database need not survive a power cut)."""
        if self.as_postgres:
            shutil.chown(self.root, "postgres", "postgres")
        self._run(str(self.bin_dir / "initdb"), "-D", str(self.data), "-A", "trust", "-U", self.user, "-E", "UTF8")
        options = f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.root} -c fsync=off -c max_connections=200"
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

    def stop(self) -> None:
        """Stop the server (fast shutdown) and remove its directory."""
        try:
            self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
