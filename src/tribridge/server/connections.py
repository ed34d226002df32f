"""Connection hygiene: the timeouts and caps on connections (``ConnectionLimits``) and their counter (``ConnectionGate``).

uvicorn's own HTTP protocol keeps a connection that sends nothing, or trickles its headers a byte at a
time, open for ever, and counts no connections per client. ``server.protocols.uvicorn_options`` gives
``uvicorn.Config`` the server's protocol classes (h11 based), which:

- close a connection whose request headers are not complete within ``header_timeout`` seconds of its
  first byte (or of the connection, or of the end of the previous response): silently when nothing was
  sent, with 408 otherwise;
- close (reset) a connection whose client does not take a response: once more than the transport's
  high-water mark (64 KiB) waits to be sent, the client must take enough of it to bring it under the
  low-water mark within ``send_timeout`` seconds, so a client that never reads holds neither the handler
  nor the buffered response;
- refuse a connection past ``per_client`` open connections from one address, or ``total`` in all,
  with 503 and ``Retry-After`` (WebSocket connections count until they close); addresses of trusted
  proxies (``forwarded_allow_ips``) count only towards the total, since every client of a proxy shares them;
- but first, as nginx and HAProxy do under pressure, make room: a connection that is still waiting for its
  request headers (new, or kept alive between requests) is closed to admit a newcomer when a cap is
  reached — the oldest waiting one of the same address at the per-client cap, else the oldest waiting one of
  the address holding the most connections — and once ``pressure`` of ``total`` is open, a wait for headers
  lasts at most ``pressure_header_timeout`` seconds. Slow connections thus cannot keep a page from loading:
  a connection that has sent its headers is never closed to make room;
- and set uvicorn's header-size cap (``max_header_bytes``), keep-alive timeout, WebSocket message cap
  (``ws_max_bytes``), proxy-header trust (none unless ``forwarded_allow_ips`` names addresses) and no
  ``Server`` header.

A slow request *body* is the edge's to bound (``EdgePolicy.body_timeout``).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Protocol

from tribridge.errors import InvalidInput
from tribridge.server.edge import DEFAULT_MAX_HEADER_BYTES

__all__ = ["ConnectionGate", "ConnectionLimits", "Waiting", "parse_networks"]


@dataclass(frozen=True)
class ConnectionLimits:
    """Timeouts and caps on connections (see the module doc); ``tribridge serve`` flags set them."""

    header_timeout: float = 10.0
    send_timeout: float = 30.0
    keep_alive: int = 5
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES
    per_client: int = 64
    total: int = 512
    ws_max_bytes: int = 1024
    forwarded_allow_ips: tuple[str, ...] = ()
    pressure: float = 0.75  # the share of ``total`` open from which waits for headers are shortened
    pressure_header_timeout: float = 2.0

    def __post_init__(self) -> None:
        for name in (
            "header_timeout",
            "send_timeout",
            "keep_alive",
            "max_header_bytes",
            "per_client",
            "total",
            "ws_max_bytes",
            "pressure",
            "pressure_header_timeout",
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
                raise InvalidInput(name, f"expected a positive number, got {value!r}"[:120])
        parse_networks(self.forwarded_allow_ips)


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_networks(entries: tuple[str, ...], field_name: str = "--forwarded-allow-ips") -> list[Network]:
    """IP addresses or networks (``10.0.0.1``, ``10.0.0.0/8``, ``::1``); ``*`` is every address."""
    out: list[Network] = []
    for entry in entries:
        text = entry.strip()
        if text == "*":
            out += [ipaddress.ip_network("0.0.0.0/0"), ipaddress.ip_network("::/0")]
            continue
        try:
            out.append(ipaddress.ip_network(text, strict=False))
        except ValueError:
            raise InvalidInput(field_name, f"expected an IP address or network, got {text!r}"[:120]) from None
    return out


class Waiting(Protocol):
    """A connection waiting for its request headers, which the gate may close to make room."""

    def close_to_make_room(self) -> None:
        """Close the connection now (the gate has already stopped counting it)."""


@dataclass
class ConnectionGate:
    """Counts open connections per client address and in all; admits new ones, making room by closing
    connections that wait for their headers, or refuses them."""

    limits: ConnectionLimits
    open_by_client: dict[str, int] = field(default_factory=dict)
    open_total: int = 0
    waiting: dict[str, dict[Waiting, None]] = field(default_factory=dict)  # host -> its waiting, oldest first
    made_room: int = 0  # connections closed to admit others

    def __post_init__(self) -> None:
        self._proxies = parse_networks(self.limits.forwarded_allow_ips)

    def is_proxy(self, host: str) -> bool:
        """Whether ``host`` is a trusted proxy (its connections count only towards the total)."""
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self._proxies)

    def admit(self, host: str) -> str | None:
        """Count a new connection from ``host`` (closing a waiting one to make room at a cap); None when admitted,
        else why it is refused (nothing counted)."""
        own_cap = not self.is_proxy(host) and self.open_by_client.get(host, 0) >= self.limits.per_client
        if own_cap and not self._make_room(host):
            return f"too many connections from your address (limit {self.limits.per_client}); close some first"
        if self.open_total >= self.limits.total and not self._make_room(None):
            return f"too many connections to this server (limit {self.limits.total}); try again shortly"
        self.open_total += 1
        self.open_by_client[host] = self.open_by_client.get(host, 0) + 1
        return None

    def header_timeout(self) -> float:
        """How long a connection may now wait for its request headers (shorter under pressure)."""
        if self.open_total >= self.limits.pressure * self.limits.total:
            return min(self.limits.header_timeout, self.limits.pressure_header_timeout)
        return self.limits.header_timeout

    def wait_for_headers(self, host: str, connection: Waiting) -> None:
        """Note that ``connection`` (from ``host``) waits for request headers: it may be closed to make room."""
        self.waiting.setdefault(host, {})[connection] = None

    def headers_came(self, host: str, connection: Waiting) -> None:
        """``connection`` no longer waits for headers (they came, or it closed)."""
        mine = self.waiting.get(host)
        if mine is not None:
            mine.pop(connection, None)
            if not mine:
                del self.waiting[host]

    def _make_room(self, host: str | None) -> bool:
        """Close the oldest connection waiting for headers (of ``host``, or of the address holding the most
        connections); True if one was closed (and no longer counted)."""
        if host is None:
            candidates = [h for h in self.waiting if self.waiting[h]]
            if not candidates:
                return False
            host = max(candidates, key=lambda h: (self.open_by_client.get(h, 0), len(self.waiting[h])))
        mine = self.waiting.get(host)
        if not mine:
            return False
        oldest = next(iter(mine))
        self.headers_came(host, oldest)
        self.release(host)
        self.made_room += 1
        oldest.close_to_make_room()
        return True

    def release(self, host: str) -> None:
        """Forget one connection from ``host``."""
        self.open_total = max(0, self.open_total - 1)
        left = self.open_by_client.get(host, 0) - 1
        if left > 0:
            self.open_by_client[host] = left
        else:
            self.open_by_client.pop(host, None)
