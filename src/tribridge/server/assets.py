"""The web table's files, served from memory.

:class:`StaticAssets` reads every file of its directory once, when the server starts, and answers
``GET``/``HEAD`` from memory: no request touches the disk or waits for a worker thread, so loading
the page costs the event loop a dictionary look-up and one write, whatever else the server is doing.

- each file has a strong ``ETag`` (a hash of its bytes) and its ``Last-Modified``; a request whose
  ``If-None-Match`` names it (or, without one, whose ``If-Modified-Since`` is not older) gets ``304``
  with no body;
- ``Cache-Control: no-cache``: a browser keeps the file but asks again each time, so a new version
  shows at once and an unchanged one costs a ``304``;
- a text file worth compressing has a gzip body made at start-up, sent to a client whose
  ``Accept-Encoding`` takes gzip (``Vary: Accept-Encoding``; each body has its own ETag);
- ``/`` and a path ending in ``/`` serve that folder's ``index.html``; a folder's path without the
  ``/`` is redirected (307) to it; anything else is 404, and a method other than ``GET``/``HEAD`` is
  405, as Starlette's ``StaticFiles(html=True)`` answers.

Changing a file takes a restart of the server.
"""

from __future__ import annotations

import email.utils
import gzip
import hashlib
import mimetypes
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from starlette.exceptions import HTTPException

__all__ = ["Asset", "StaticAssets", "accepts_gzip"]

GZIP_MIN_BYTES = 256  # smaller files are sent as they are
_COMPRESSIBLE = ("text/", "application/javascript", "application/json", "image/svg+xml")


@dataclass(frozen=True)
class Asset:
    """One file as it is sent: its headers for the plain and the gzip body, and the bodies."""

    body: bytes
    gzipped: bytes | None
    etag: bytes
    gzip_etag: bytes
    modified: float
    headers: tuple[tuple[bytes, bytes], ...]
    gzip_headers: tuple[tuple[bytes, bytes], ...]

    @classmethod
    def read(cls, path: Path) -> Asset:
        """The asset of the file at ``path``."""
        body = path.read_bytes()
        modified = path.stat().st_mtime
        media = mimetypes.guess_type(path.name)[0] or "text/plain"
        if media.startswith("text/") and "charset=" not in media:
            media += "; charset=utf-8"
        digest = hashlib.sha256(body).hexdigest()[:32]
        etag, gzip_etag = f'"{digest}"'.encode(), f'"{digest}-gz"'.encode()
        gzipped = gzip.compress(body, 9, mtime=0) if media.startswith(_COMPRESSIBLE) else None
        if gzipped is not None and (len(body) < GZIP_MIN_BYTES or len(gzipped) >= len(body)):
            gzipped = None
        common = (
            (b"content-type", media.encode()),
            (b"last-modified", email.utils.formatdate(modified, usegmt=True).encode()),
            (b"cache-control", b"no-cache"),
        ) + (((b"vary", b"Accept-Encoding"),) if gzipped is not None else ())
        headers = common + ((b"etag", etag), (b"content-length", str(len(body)).encode()))
        gzip_headers = common + (
            (b"etag", gzip_etag),
            (b"content-encoding", b"gzip"),
            (b"content-length", str(len(gzipped or b"")).encode()),
        )
        return cls(body, gzipped, etag, gzip_etag, modified, headers, gzip_headers)


def accepts_gzip(accept_encoding: str | None) -> bool:
    """Whether an ``Accept-Encoding`` value takes gzip (by name or ``*``, with a quality above 0)."""
    if not accept_encoding:
        return False
    named: dict[str, float] = {}
    for part in accept_encoding.lower().split(","):
        name, _, params = part.partition(";")
        quality = 1.0
        for param in params.split(";"):
            key, _, value = param.partition("=")
            if key.strip() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        named[name.strip()] = quality
    if "gzip" in named or "x-gzip" in named:
        return max(named.get("gzip", 0.0), named.get("x-gzip", 0.0)) > 0
    return named.get("*", 0.0) > 0


def _header(scope: Any, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return None


def _not_modified(scope: Any, asset: Asset, etag: bytes) -> bool:
    """``If-None-Match`` names this body (or is ``*``); without it, ``If-Modified-Since`` is not older than the file."""
    match = _header(scope, b"if-none-match")
    if match is not None:
        tags = {t.strip().removeprefix("W/") for t in match.split(",")}
        return "*" in tags or etag.decode() in tags
    since = _header(scope, b"if-modified-since")
    if since is None:
        return False
    try:
        when = email.utils.parsedate_to_datetime(since).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return False
    return int(asset.modified) <= when


class StaticAssets:
    """An ASGI app answering with the files of ``directory``, read into memory once (see the module doc)."""

    def __init__(self, directory: str | Path) -> None:
        root = Path(directory)
        self.assets: dict[str, Asset] = {
            path.relative_to(root).as_posix(): Asset.read(path) for path in sorted(root.rglob("*")) if path.is_file()
        }
        self.folders = {name.rsplit("/", 1)[0] for name in self.assets if "/" in name}

    def lookup(self, path: str) -> Asset | None:
        """The asset a request path names (a folder's path ending in ``/`` names its ``index.html``), or None."""
        name = path.lstrip("/")
        if name == "" or name.endswith("/"):
            name += "index.html"
        return self.assets.get(name)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise HTTPException(status_code=404)
        if scope["method"] not in ("GET", "HEAD"):
            raise HTTPException(status_code=405, headers={"Allow": "GET, HEAD"})
        root, path = scope.get("root_path", ""), scope["path"]
        path = path[len(root) :] if root and path.startswith(root) else path
        asset = self.lookup(path)
        if asset is None:
            if path.strip("/") in self.folders and not path.endswith("/"):
                await self._redirect(scope, send)
                return
            raise HTTPException(status_code=404)
        zipped = asset.gzipped is not None and accepts_gzip(_header(scope, b"accept-encoding"))
        headers, body = (asset.gzip_headers, asset.gzipped or b"") if zipped else (asset.headers, asset.body)
        etag = asset.gzip_etag if zipped else asset.etag
        if _not_modified(scope, asset, etag):
            kept = [h for h in headers if h[0] in (b"etag", b"last-modified", b"cache-control", b"vary")]
            await send({"type": "http.response.start", "status": 304, "headers": kept})
            await send({"type": "http.response.body", "body": b""})
            return
        await send({"type": "http.response.start", "status": 200, "headers": list(headers)})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})

    @staticmethod
    async def _redirect(scope: Any, send: Any) -> None:
        query = scope.get("query_string", b"")
        location = scope["path"].encode() + b"/" + (b"?" + query if query else b"")
        headers = [(b"location", location), (b"content-length", b"0")]
        await send({"type": "http.response.start", "status": 307, "headers": headers})
        await send({"type": "http.response.body", "body": b""})
