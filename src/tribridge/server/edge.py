"""The server's HTTP edge: bounded request bodies, JSON depth, origin rules (CORS, WebSocket), safe headers.

:class:`EdgeMiddleware` is pure ASGI and sits outermost, so every limit holds before any route
reads the request:

- a request body is read on the stream and refused with 413 once it passes ``max_body_bytes``
  (a ``Content-Length`` above the limit is refused before reading; a missing or lying one is no
  way round, since the bytes are counted as they arrive);
- a ``POST``/``PUT``/``PATCH`` body must be ``application/json`` (415 otherwise; an empty body
  may come without a type), which rules out the cross-origin "simple request" with ``text/plain``;
- a request body not complete within ``body_timeout`` seconds of its headers gets 408 (and the
  connection is closed): a slow body holds no handler;
- a JSON body nested deeper than ``max_json_depth`` is refused with 400, measured on the decoded
  text (UTF-8, -16 or -32, as JSON allows) by a linear scan (:func:`json_depth`), never by a
  recursive parser;
- request headers (with the target) larger than ``max_header_bytes`` get 431 (uvicorn's own cap,
  set to the same size, stops a slow sender's headers before they are complete);
- with ``allowed_hosts`` set, a request or WebSocket whose ``Host`` is not one of them gets 400
  (``*.example.org`` allows the subdomains);
- the robot APIs (:meth:`EdgePolicy.is_robot_path`) answer any origin (``Access-Control-Allow-Origin: *``);
  everything else is same-origin, plus the origins of ``cors_origins``: a request or WebSocket
  handshake whose ``Origin`` is neither gets 403 (safe methods excepted for plain HTTP, whose
  answers a browser keeps from the other page anyway);
- every response carries :data:`SECURITY_HEADERS` (a strict Content-Security-Policy,
  ``nosniff``, ``X-Frame-Options: DENY``, ``Referrer-Policy: no-referrer``);
- an error response (status >= 400) longer than ``max_error_bytes`` is replaced by a short one
  that quotes its start (:func:`error_body`).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from starlette.types import Message, Receive, Send

from tribridge.errors import InvalidInput, shorten

__all__ = [
    "CONTENT_SECURITY_POLICY",
    "DEFAULT_BODY_TIMEOUT",
    "DEFAULT_MAX_BODY_BYTES",
    "DEFAULT_MAX_ERROR_BYTES",
    "DEFAULT_MAX_HEADER_BYTES",
    "DEFAULT_MAX_JSON_DEPTH",
    "ERROR_QUOTE_CHARS",
    "SECURITY_HEADERS",
    "EdgeMiddleware",
    "EdgePolicy",
    "decode_json_text",
    "error_body",
    "header_bytes",
    "json_depth",
    "json_depth_reference",
    "normalize_host",
    "normalize_origin",
]

DEFAULT_MAX_BODY_BYTES = 64 * 1024
DEFAULT_MAX_JSON_DEPTH = 32
DEFAULT_MAX_ERROR_BYTES = 1024
DEFAULT_BODY_TIMEOUT = 10.0
DEFAULT_MAX_HEADER_BYTES = 16 * 1024
ERROR_QUOTE_CHARS = 200

# Scripts, styles, images and connections from this server only; nothing may frame the page.
CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)
BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
SAFE_METHODS = frozenset({"GET", "HEAD"})
ROBOT_ALLOW_HEADERS = [
    (b"access-control-allow-methods", b"GET, POST, OPTIONS"),
    (b"access-control-allow-headers", b"Authorization, Content-Type"),
    (b"access-control-max-age", b"600"),
]
_CORS_NAMES = frozenset(
    {
        b"access-control-allow-origin",
        b"access-control-allow-methods",
        b"access-control-allow-headers",
        b"access-control-max-age",
        b"access-control-allow-credentials",
    }
)
_SECURITY_NAMES = frozenset(name for name, _ in SECURITY_HEADERS)
# a JSON string (escapes included); what is left once strings are removed holds the brackets that nest
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_JSON_BRACKET = re.compile(r"[\[\]{}]")

Scope = Mapping[str, Any]


def json_depth(body: bytes) -> int:
    """The deepest nesting of arrays and objects in JSON text (brackets inside strings do not count).

    The body is decoded first as a JSON parser reads it (UTF-8, -16 or -32, told by its first
    bytes), so no encoding hides a bracket. Linear and non-recursive: strings are cut out by one
    regular expression, then the brackets left are counted. Text that is not JSON gets a number
    too (the parser refuses it later).
    """
    depth = deepest = 0
    for bracket in _JSON_BRACKET.findall(_JSON_STRING.sub('""', decode_json_text(body))):
        if bracket in ("[", "{"):
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def decode_json_text(body: bytes) -> str:
    """JSON bytes as text, in the encoding ``json.loads`` would read them with (bad bytes replaced)."""
    return body.decode(json.detect_encoding(body), "replace")


def json_depth_reference(body: bytes) -> int:
    """The same as :func:`json_depth`, one character at a time (the readable reference)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in decode_json_text(body):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def normalize_origin(origin: str, field_name: str = "cors_origins") -> str:
    """An origin as browsers send it (``scheme://host[:port]``, lower case, no path); InvalidInput if it is not one."""
    text = str(origin).strip().rstrip("/")
    parts = urlsplit(text)
    if (
        parts.scheme not in ("http", "https")
        or not parts.hostname
        or parts.path
        or parts.query
        or parts.fragment
        or parts.username
        or parts.password
    ):
        raise InvalidInput(field_name, f"expected an origin such as https://example.org, got {shorten(repr(text), 80)}")
    return f"{parts.scheme}://{parts.netloc.lower()}"


def normalize_host(host: str) -> str:
    """A host name for ``allowed_hosts`` (``example.org``, ``*.example.org``, ``127.0.0.1``, ``[::1]``), lower case."""
    text = str(host).strip().lower().rstrip(".")
    bare = text[2:] if text.startswith("*.") else text
    if not bare or not re.fullmatch(r"[a-z0-9.\-]+|\[[0-9a-f:.]+\]", bare):
        raise InvalidInput(
            "--allowed-hosts", f"expected a host name such as example.org, got {shorten(repr(host), 80)}"
        )
    return text


def _host_name(host: str) -> str:
    """The name part of a ``Host`` header (no port), lower case."""
    text = host.strip().lower()
    if text.startswith("["):
        return text.split("]", 1)[0] + "]"
    return text.rsplit(":", 1)[0].rstrip(".") if ":" in text else text.rstrip(".")


def error_body(message: str) -> bytes:
    """``{"error": message}`` as JSON bytes, the message cut to a short prefix."""
    return json.dumps({"error": shorten(message, ERROR_QUOTE_CHARS)}).encode()


@dataclass(frozen=True)
class EdgePolicy:
    """The edge's limits and origin rules (see the module doc)."""

    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    max_json_depth: int = DEFAULT_MAX_JSON_DEPTH
    max_error_bytes: int = DEFAULT_MAX_ERROR_BYTES
    cors_origins: tuple[str, ...] = ()
    robot_prefixes: tuple[str, ...] = ("/apis/",)
    robot_paths: frozenset[str] = field(default_factory=lambda: frozenset({"/apis"}))
    body_timeout: float = DEFAULT_BODY_TIMEOUT
    allowed_hosts: tuple[str, ...] = ()
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES

    def __post_init__(self) -> None:
        for name in ("max_body_bytes", "max_json_depth", "max_error_bytes", "max_header_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidInput(name, f"expected a positive integer, got {shorten(repr(value), 80)}")
        if isinstance(self.body_timeout, bool) or not isinstance(self.body_timeout, (int, float)):
            raise InvalidInput("body_timeout", f"expected seconds, got {shorten(repr(self.body_timeout), 80)}")
        if self.body_timeout <= 0:
            raise InvalidInput("body_timeout", f"expected seconds > 0, got {self.body_timeout}")
        origins = tuple(normalize_origin(o) for o in self.cors_origins)
        object.__setattr__(self, "cors_origins", origins)
        object.__setattr__(self, "robot_paths", frozenset(self.robot_paths))
        object.__setattr__(self, "allowed_hosts", tuple(normalize_host(h) for h in self.allowed_hosts))

    def with_robot_paths(self, paths: Iterable[str]) -> EdgePolicy:
        """This policy with more exact robot-API paths (e.g. the routes of a robot router at the root)."""
        return replace(self, robot_paths=self.robot_paths | frozenset(paths))

    def host_allowed(self, host: str | None) -> bool:
        """True without an allow-list, else when ``Host`` (its name, port dropped) is listed or under a ``*.`` entry."""
        if not self.allowed_hosts:
            return True
        name = _host_name(host or "")
        return any(name == h or (h.startswith("*.") and name.endswith(h[1:])) for h in self.allowed_hosts)

    def is_robot_path(self, path: str) -> bool:
        """True for the robot APIs, which answer any origin."""
        return path in self.robot_paths or path.startswith(self.robot_prefixes)

    def origin_allowed(self, origin: str | None, host: str | None) -> bool:
        """True when there is no ``Origin``, it is the server's own (same host and port), or it is allowlisted."""
        if origin is None:
            return True
        parts = urlsplit(origin.strip())
        if parts.scheme in ("http", "https") and host and parts.netloc.lower() == host.strip().lower():
            return True
        return origin.strip().rstrip("/").lower() in self.cors_origins


def header_bytes(scope: Scope) -> int:
    """The size of a request's target and headers as sent (names, values and their separators)."""
    target = len(scope.get("raw_path") or b"") + len(scope.get("query_string") or b"")
    return target + sum(len(k) + len(v) + 4 for k, v in scope.get("headers", ()))


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def _is_json_type(content_type: str | None) -> bool:
    return content_type is not None and content_type.split(";", 1)[0].strip().lower() == "application/json"


@dataclass
class _HeldError:
    """An error response held back until its body is known to be short enough: its start, the body so far."""

    start: Message | None = None
    parts: list[bytes] = field(default_factory=list)
    size: int = 0
    done: bool = False  # the rest of a long error body is dropped (a short one was sent instead)


class _TooLarge(Exception):
    """The body passed the limit while it was read."""


class _TooSlow(Exception):
    """The body was not complete by the deadline."""


async def _send_error(send: Send, status: int, message: str, extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = error_body(message)
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())] + (extra or [])
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class EdgeMiddleware:
    """Pure ASGI middleware that enforces an :class:`EdgePolicy` on every HTTP request and WebSocket handshake."""

    def __init__(self, app: Any, policy: EdgePolicy | None = None) -> None:
        self.app = app
        self.policy = policy or EdgePolicy()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        elif scope["type"] == "http":
            await self._http(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        origin, host = _header(scope, b"origin"), _header(scope, b"host")
        if header_bytes(scope) > self.policy.max_header_bytes:
            reason = "headers too large"
        elif not self.policy.host_allowed(host):
            reason = "host not served here"
        elif self.policy.is_robot_path(scope["path"]) or self.policy.origin_allowed(origin, host):
            await self.app(scope, receive, send)
            return
        else:
            reason = "origin not allowed"
        message = await receive()  # websocket.connect; closing before accepting answers the handshake with 403
        if message["type"] == "websocket.connect":
            await send({"type": "websocket.close", "code": 1008, "reason": reason})

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        path, method = scope["path"], scope["method"]
        origin = _header(scope, b"origin")
        robot = self.policy.is_robot_path(path)
        cors = self._cors_headers(robot, origin)
        reply = self._wrap_send(send, cors)
        if header_bytes(scope) > self.policy.max_header_bytes:
            message = f"headers: larger than the limit of {self.policy.max_header_bytes} bytes"
            await _send_error(reply, 431, message, [(b"connection", b"close")])
            return
        if not self.policy.host_allowed(_header(scope, b"host")):
            await _send_error(reply, 400, "host: this server does not answer for that Host (see --allowed-hosts)")
            return
        if method == "OPTIONS" and origin is not None and _header(scope, b"access-control-request-method"):
            await self._preflight(robot, origin, scope, reply)
            return
        if not robot and method not in SAFE_METHODS and not self.policy.origin_allowed(origin, _header(scope, b"host")):
            await _send_error(reply, 403, f"origin {origin} may not call {path}; see the server's CORS settings")
            return
        content_type = _header(scope, b"content-type")
        if method in BODY_METHODS and content_type is not None and not _is_json_type(content_type):
            await _send_error(reply, 415, f"{method} bodies must be application/json, got {content_type}")
            return
        declared = _header(scope, b"content-length")
        if declared is not None and declared.strip().isdigit() and int(declared) > self.policy.max_body_bytes:
            await _send_error(reply, 413, self._too_large(), [(b"connection", b"close")])
            return
        if not self._may_have_body(method, scope):
            await self.app(scope, receive, reply)  # nothing to read or check: the app reads the empty body itself
            return
        try:
            body = await self._read_body(receive)
        except _TooLarge:
            await _send_error(reply, 413, self._too_large(), [(b"connection", b"close")])
            return
        except _TooSlow:
            message = f"body: not received within {self.policy.body_timeout:g} s"
            await _send_error(reply, 408, message, [(b"connection", b"close")])
            return
        if method in BODY_METHODS and body and content_type is None:
            await _send_error(reply, 415, f"{method} bodies must be application/json (no Content-Type was sent)")
            return
        if body and _is_json_type(content_type) and json_depth(body) > self.policy.max_json_depth:
            await _send_error(
                reply, 400, f"body: JSON nested deeper than the limit of {self.policy.max_json_depth} levels"
            )
            return
        await self.app(scope, self._replay(body, receive), reply)

    def _too_large(self) -> str:
        return f"body: larger than the limit of {self.policy.max_body_bytes} bytes"

    @staticmethod
    def _may_have_body(method: str, scope: Scope) -> bool:
        """False for a ``GET``/``HEAD`` with neither ``Content-Length`` nor ``Transfer-Encoding`` (HTTP/1.1: no body)."""
        if method not in SAFE_METHODS:
            return True
        return any(key.lower() in (b"content-length", b"transfer-encoding") for key, _ in scope.get("headers", ()))

    async def _read_body(self, receive: Receive) -> bytes:
        """The whole request body, counted as it arrives; _TooLarge past the limit, _TooSlow past the deadline."""
        chunks: list[bytes] = []
        size = 0
        deadline = asyncio.get_running_loop().time() + self.policy.body_timeout
        while True:
            try:
                async with asyncio.timeout_at(deadline):  # no task per read, unlike wait_for
                    message = await receive()
            except TimeoutError:
                raise _TooSlow from None
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.policy.max_body_bytes:
                raise _TooLarge
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks)

    @staticmethod
    def _replay(body: bytes, receive: Receive) -> Receive:
        """A receive that hands the app the buffered body once, then waits on the real one (disconnects)."""
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return replay

    def _cors_headers(self, robot: bool, origin: str | None) -> list[tuple[bytes, bytes]]:
        if robot:
            return [(b"access-control-allow-origin", b"*")]
        if origin is not None and origin.strip().rstrip("/").lower() in self.policy.cors_origins:
            return [(b"access-control-allow-origin", origin.strip().encode("latin-1")), (b"vary", b"Origin")]
        return [(b"vary", b"Origin")] if self.policy.cors_origins else []

    async def _preflight(self, robot: bool, origin: str, scope: Scope, reply: Send) -> None:
        if not robot and not self.policy.origin_allowed(origin, _header(scope, b"host")):
            await _send_error(
                reply, 403, f"origin {origin} may not call {scope['path']}; see the server's CORS settings"
            )
            return
        await reply(
            {"type": "http.response.start", "status": 204, "headers": ROBOT_ALLOW_HEADERS + [(b"content-length", b"0")]}
        )
        await reply({"type": "http.response.body", "body": b""})

    def _wrap_send(self, send: Send, cors: list[tuple[bytes, bytes]]) -> Send:
        """A send that sets the security and CORS headers and shortens a long error body."""
        limit = self.policy.max_error_bytes
        held = _HeldError()

        async def reply(message: Message) -> None:
            if held.done:
                return  # the rest of an error body already replaced by a short one
            if message["type"] == "http.response.start":
                drop = _CORS_NAMES | _SECURITY_NAMES
                headers = [h for h in message.get("headers", []) if h[0].lower() not in drop]
                message = dict(message, headers=headers + cors + list(SECURITY_HEADERS))
                if message["status"] >= 400:
                    held.start = message  # sent once the body is known to be short enough
                    return
            elif message["type"] == "http.response.body" and held.start is not None:
                chunk = message.get("body", b"")
                held.parts.append(chunk)
                held.size += len(chunk)
                more = message.get("more_body", False)
                if held.size > limit:
                    held.done = more
                    await _send_short_error(send, held.start, b"".join(held.parts))
                elif not more:
                    await send(held.start)
                    await send({"type": "http.response.body", "body": b"".join(held.parts)})
                else:
                    return
                held.start, held.parts = None, []
                return
            await send(message)

        return reply


async def _send_short_error(send: Send, start: Message, body: bytes) -> None:
    """Send an error response whose body was too long as ``{"error": <its start>}``."""
    text = body[: ERROR_QUOTE_CHARS * 4].decode("utf-8", "replace")
    prefix = '{"error": "'
    text = text[len(prefix) :] if text.startswith(prefix) else text
    short = error_body(text)
    headers = [h for h in start["headers"] if h[0].lower() not in (b"content-length", b"content-type")]
    headers += [(b"content-type", b"application/json"), (b"content-length", str(len(short)).encode())]
    await send(dict(start, headers=headers))
    await send({"type": "http.response.body", "body": short})
