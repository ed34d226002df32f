"""uvicorn protocol classes that enforce ``server.connections``' limits, and the ``uvicorn.Config`` options for them."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol

from tribridge.server.connections import ConnectionGate, ConnectionLimits

__all__ = ["protocol_classes", "uvicorn_options"]


def _raw_response(status: int, reason: str, message: str, extra: str = "") -> bytes:
    body = json.dumps({"error": message}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
        f"connection: close\r\n{extra}\r\n"
    )
    return head.encode("latin-1") + body


def _peer_host(transport: asyncio.BaseTransport) -> str:
    peer = transport.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, (tuple, list)) and peer else "unknown"


def protocol_classes(gate: ConnectionGate) -> tuple[type[asyncio.Protocol], type[asyncio.Protocol]]:
    """The HTTP and WebSocket protocol classes for uvicorn that enforce ``gate``'s caps and header deadline."""
    send_timeout = gate.limits.send_timeout

    class GatedWebSocket(WebSocketsSansIOProtocol):
        """uvicorn's WebSocket protocol that gives its connection's slot back when it closes."""

        def connection_lost(self, exc: Exception | None) -> None:
            gate.release(_peer_host(self.transport))
            super().connection_lost(exc)

    class GatedHTTP(H11Protocol):
        """uvicorn's h11 protocol with connection caps, a deadline on each request's headers and one on a
        response the client does not take."""

        _host = "unknown"
        _counted = False
        _header_timer: asyncio.TimerHandle | None = None
        _send_timer: asyncio.TimerHandle | None = None
        _seen_bytes = False
        _header_seconds = 0.0

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._host = _peer_host(transport)
            refused = gate.admit(self._host)
            if refused is not None:
                transport.write(_raw_response(503, "Service Unavailable", refused, "retry-after: 5\r\n"))
                transport.close()
                return
            self._counted = True
            self._arm_header_timer()

        def close_to_make_room(self) -> None:
            """Closed by the gate to admit another connection (it no longer counts this one)."""
            self._counted = False
            self._cancel_header_timer()
            self.transport.close()

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_header_timer()
            self._cancel_send_timer()
            if self._counted:
                self._counted = False
                gate.release(self._host)
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            if self._header_timer is None and self.conn.their_state is h11.IDLE:
                self._arm_header_timer()  # the next request on a kept-alive connection
            self._seen_bytes = True
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:
                self._cancel_header_timer()

        def pause_writing(self) -> None:
            super().pause_writing()
            if self._send_timer is None:
                self._send_timer = self.loop.call_later(send_timeout, self._send_too_slow)

        def resume_writing(self) -> None:
            self._cancel_send_timer()
            super().resume_writing()

        def _cancel_send_timer(self) -> None:
            if self._send_timer is not None:
                self._send_timer.cancel()
                self._send_timer = None

        def _send_too_slow(self) -> None:
            self._send_timer = None
            self.transport.abort()  # close() would wait for the client to take what is buffered

        def handle_websocket_upgrade(self, event: h11.Request) -> None:
            self._cancel_header_timer()
            self._counted = False  # the WebSocket protocol gives the slot back when it closes
            super().handle_websocket_upgrade(event)

        def _arm_header_timer(self) -> None:
            self._cancel_header_timer()
            self._seen_bytes = False
            self._header_seconds = gate.header_timeout()
            self._header_timer = self.loop.call_later(self._header_seconds, self._headers_too_slow)
            gate.wait_for_headers(self._host, self)

        def _cancel_header_timer(self) -> None:
            gate.headers_came(self._host, self)
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_too_slow(self) -> None:
            self._header_timer = None
            gate.headers_came(self._host, self)
            if self.transport.is_closing() or self.conn.their_state is not h11.IDLE:
                return
            if self._seen_bytes:
                message = f"request headers not received within {self._header_seconds:g} s"
                self.transport.write(_raw_response(408, "Request Timeout", message))
            self.transport.close()

    return GatedHTTP, GatedWebSocket


def uvicorn_options(limits: ConnectionLimits) -> dict[str, Any]:
    """Keyword arguments for ``uvicorn.Config`` that apply ``limits`` (protocol classes, caps, proxy trust)."""
    http, ws = protocol_classes(ConnectionGate(limits))
    proxies = list(limits.forwarded_allow_ips)
    return {
        "http": http,
        "ws": ws,
        "h11_max_incomplete_event_size": limits.max_header_bytes,
        "timeout_keep_alive": int(limits.keep_alive),
        "ws_max_size": limits.ws_max_bytes,
        "server_header": False,
        "proxy_headers": bool(proxies),
        "forwarded_allow_ips": proxies or [],
    }
