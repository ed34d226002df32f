"""A minimal keep-alive HTTP/1.1 client for the load generators: one connection, one request at a time.

httpx spends more processor time per request than the server answering it (its connection pool and
async-library detection run on every request), which on a small machine makes the load generator the
bottleneck of a server benchmark. This client writes a request and reads ``Content-Length`` bytes of
answer, nothing more; it reconnects when the server closes the connection.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlsplit

__all__ = ["KeepAlive"]


class KeepAlive:
    """One keep-alive connection to the server at ``url`` (``http://host:port``)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def request(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        """Send one request (``body`` as JSON if given); the status and the decoded JSON answer."""
        payload = b"" if body is None else json.dumps(body).encode()
        lines = [f"{method} {path} HTTP/1.1", f"host: {self.host}:{self.port}", f"content-length: {len(payload)}"]
        if body is not None:
            lines.append("content-type: application/json")
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        for attempt in (0, 1):
            if self._writer is None:
                self._reader, self._writer = await asyncio.open_connection(self.host, self.port)
            try:
                self._writer.write(head + payload)
                return await self._answer()
            except (ConnectionError, asyncio.IncompleteReadError):
                await self.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    async def _answer(self) -> tuple[int, Any]:
        assert self._reader is not None
        head = await self._reader.readuntil(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        headers = dict(line.split(":", 1) for line in header_lines if ":" in line)
        fields = {name.strip().lower(): value.strip() for name, value in headers.items()}
        body = await self._reader.readexactly(int(fields.get("content-length", "0")))
        if fields.get("connection", "").lower() == "close":
            await self.close()
        return int(status_line.split()[1]), json.loads(body) if body else None

    async def close(self) -> None:
        """Close the connection (the next request opens a new one)."""
        if self._writer is not None:
            self._writer.close()
            try:
                await self._writer.wait_closed()
            except OSError:
                pass
        self._reader = self._writer = None
