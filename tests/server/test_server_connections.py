"""Connection hygiene on a live server over loopback: header, body and send deadlines, header cap, connection caps,
WebSocket message cap, no Server header, proxy headers believed only from named proxies, the Host allow-list."""

import contextlib
import json
import select
import socket
import time

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as ws_connect

from live_server import start_server
from tribridge.testing import ws_token_message

pytestmark = pytest.mark.slow

HEADER_TIMEOUT = 1.0
SEND_TIMEOUT = 1.0
PER_CLIENT = 4


def port_of(url):
    return int(url.rsplit(":", 1)[1])


@pytest.fixture(scope="module")
def guarded(tmp_path_factory):
    """A server with short header and body deadlines and a small per-client connection cap."""
    db = tmp_path_factory.mktemp("conn") / "conn.sqlite"
    flags = ["--header-timeout", str(HEADER_TIMEOUT), "--body-timeout", "1", "--send-timeout", str(SEND_TIMEOUT)]
    flags += ["--max-connections-per-client"]
    proc, url = start_server(db, *flags, str(PER_CLIENT), "--allowed-hosts", "127.0.0.1", "--allowed-hosts", "*.ex.org")
    yield url
    proc.terminate()
    proc.wait(60)


def wait_closed(sock, limit):
    """Everything the server sends until it closes the socket; None if still open after ``limit`` seconds."""
    sock.settimeout(limit)
    data = b""
    try:
        while chunk := sock.recv(65536):
            data += chunk
    except TimeoutError:
        return None
    return data


def test_a_silent_connection_is_closed_after_the_header_deadline(guarded):
    with socket.create_connection(("127.0.0.1", port_of(guarded))) as sock:
        start = time.monotonic()
        assert wait_closed(sock, HEADER_TIMEOUT + 4) == b""
        assert time.monotonic() - start >= HEADER_TIMEOUT * 0.9


def test_trickled_headers_get_408_by_the_deadline(guarded):
    with socket.create_connection(("127.0.0.1", port_of(guarded))) as sock:
        request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * 200
        start, answer = time.monotonic(), b""
        for byte in request:  # one byte every 50 ms: the request never ends
            if select.select([sock], [], [], 0.05)[0]:
                answer = wait_closed(sock, 2) or b""
                break
            sock.sendall(bytes([byte]))
        assert answer.startswith(b"HTTP/1.1 408"), answer[:80]
        assert time.monotonic() - start < HEADER_TIMEOUT + 2


def test_a_client_that_never_reads_is_reset_after_the_send_deadline(guarded):
    script = httpx.get(guarded + "/app.js", headers={"Accept-Encoding": "identity"}).content
    request = b"GET /app.js HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: identity\r\n\r\n"
    asked = 1000  # answers far beyond what the sockets' buffers and the server's high-water mark hold
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", port_of(guarded)))
        sock.sendall(request * asked)
        time.sleep(SEND_TIMEOUT + 3)  # the server gives up on this client meanwhile
        sock.settimeout(5)
        received = 0
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                received += len(chunk)
    assert received < asked * len(script) // 2
    for _ in range(PER_CLIENT):  # its connection's slot was given back
        assert httpx.get(guarded + "/healthz", timeout=5).status_code == 200


def test_the_next_request_on_a_kept_alive_connection_has_a_deadline_too(guarded):
    with socket.create_connection(("127.0.0.1", port_of(guarded))) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        sock.settimeout(5)
        assert sock.recv(65536).startswith(b"HTTP/1.1 200")
        sock.sendall(b"GET /healthz HTTP/1.1\r\n")  # and never the rest
        rest = wait_closed(sock, HEADER_TIMEOUT + 4) or b""  # may begin with the end of the first answer's body
        assert b"HTTP/1.1 408" in rest and rest.count(b"HTTP/1.1") == 1


def test_a_slow_body_gets_408(guarded):
    with socket.create_connection(("127.0.0.1", port_of(guarded))) as sock:
        sock.sendall(
            b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n{"
        )
        answer = wait_closed(sock, 6)
        assert answer is not None and answer.startswith(b"HTTP/1.1 408") and b"body" in answer


def test_headers_past_the_cap_are_refused(guarded):
    def status(pad):
        with socket.create_connection(("127.0.0.1", port_of(guarded))) as sock:
            try:
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * pad + b"\r\n\r\n")
            except OSError:  # closed while sending: the answer is already there
                pass
            sock.settimeout(5)
            return sock.recv(65536).split(b"\r\n", 1)[0]

    assert status(4000) == b"HTTP/1.1 200 OK"
    for pad in (40_000, 300_000):  # one read or several: refused either way
        assert status(pad).startswith((b"HTTP/1.1 400", b"HTTP/1.1 431")), pad


def test_at_the_per_client_cap_a_connection_waiting_for_headers_makes_room(guarded):
    """At the per-client cap the oldest of that address's connections still waiting for headers is closed so a new
    one gets in (one address cannot lock out everyone behind it); connections are given back when they close."""
    socks = [socket.create_connection(("127.0.0.1", port_of(guarded))) for _ in range(PER_CLIENT)]
    try:
        time.sleep(0.2)
        answer = httpx.get(guarded + "/healthz", timeout=5)
        assert answer.status_code == 200
        assert wait_closed(socks[0], 3) == b""  # the oldest silent one made room
    finally:
        for sock in socks:
            sock.close()
    time.sleep(0.3)
    assert httpx.get(guarded + "/healthz", timeout=5).status_code == 200


def test_slow_connections_from_many_addresses_do_not_keep_the_page_from_loading(tmp_path):
    """Eight addresses each holding their share of the total cap with trickled headers: the page still loads, and
    the slow connections are the ones closed (the connection fairness of ``server.connections``)."""
    proc, url = start_server(tmp_path / "s.sqlite", "--max-connections", "40", "--max-connections-per-client", "5")
    port, slow = port_of(url), []
    try:
        for attacker in range(2, 10):
            for _ in range(5):
                sock = socket.create_connection(("127.0.0.1", port), source_address=(f"127.0.0.{attacker}", 0))
                sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # headers that never end
                slow.append(sock)
        time.sleep(0.3)
        loads = [httpx.get(url + "/", timeout=5).status_code for _ in range(10)]
        assert loads == [200] * 10
        closed = sum(1 for sock in slow if wait_closed(sock, 0.05) is not None)
        assert closed >= 1
    finally:
        for sock in slow:
            sock.close()
        proc.terminate()
        proc.wait(60)


def new_table_socket(url):
    """A new table's WebSocket address and chair 0's token."""
    body = httpx.post(url + "/api/tables", json={"take": 0}, timeout=30).json()
    return url.replace("http", "ws") + f"/api/tables/{body['table_id']}/ws", body["token"]


def test_websockets_count_towards_the_cap_and_a_big_message_closes_them(guarded):
    ws_url, token = new_table_socket(guarded)
    with ws_connect(ws_url, max_size=None) as ws:
        ws.send(ws_token_message(token))
        assert json.loads(ws.recv(timeout=10))["my_chair"] == 0
        ws.send("x" * 2048)
        with pytest.raises(ConnectionClosed) as closed:
            for _ in range(10):
                ws.recv(timeout=5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    with contextlib.ExitStack() as stack:
        for _ in range(PER_CLIENT):
            stack.enter_context(ws_connect(ws_url, max_size=None)).send(ws_token_message(token))
        with socket.create_connection(("127.0.0.1", port_of(guarded))) as extra:
            assert (wait_closed(extra, 5) or b"").startswith(b"HTTP/1.1 503")
    time.sleep(0.3)
    assert httpx.get(guarded + "/healthz", timeout=5).status_code == 200


def test_no_server_header(guarded):
    assert "server" not in httpx.get(guarded + "/healthz", timeout=5).headers


def test_a_host_not_allowed_gets_400(guarded):
    assert httpx.get(guarded + "/healthz", headers={"Host": "evil.example"}, timeout=5).status_code == 400
    assert httpx.get(guarded + "/healthz", headers={"Host": "a.ex.org:8080"}, timeout=5).status_code == 200


def creations(url, forwarded):
    """Statuses of table creations, each claiming to come from the given X-Forwarded-For address."""
    return [
        httpx.post(url + "/api/tables", json={}, headers={"X-Forwarded-For": ip}, timeout=30).status_code
        for ip in forwarded
    ]


def test_forwarded_for_from_an_untrusted_peer_is_ignored(tmp_path):
    proc, url = start_server(tmp_path / "p.sqlite", "--max-client-creations-per-minute", "2")
    try:
        assert creations(url, ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) == [200, 200, 429]
    finally:
        proc.terminate()
        proc.wait(60)


def test_forwarded_for_from_a_named_proxy_is_believed_and_the_total_is_capped(tmp_path):
    flags = ["--max-client-creations-per-minute", "2", "--forwarded-allow-ips", "127.0.0.1", "--max-connections", "3"]
    proc, url = start_server(tmp_path / "p.sqlite", *flags)
    try:
        assert creations(url, ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) == [200, 200, 200]
        assert creations(url, ["10.0.0.9"] * 3) == [200, 200, 429]
        socks = [socket.create_connection(("127.0.0.1", port_of(url))) for _ in range(3)]
        try:
            assert httpx.get(url + "/healthz", timeout=5).status_code == 200  # at the total cap a silent one made room
            assert sum(1 for sock in socks if wait_closed(sock, 1) == b"") >= 1
        finally:
            for sock in socks:
                sock.close()
    finally:
        proc.terminate()
        proc.wait(60)


def close_code(ws):
    """The close code the server sent on ``ws`` (receiving until it closes)."""
    with pytest.raises(ConnectionClosed) as closed:
        for _ in range(10):
            ws.recv(timeout=10)
    return closed.value.rcvd.code if closed.value.rcvd is not None else None


def test_the_websocket_token_travels_in_the_first_message_not_the_url(guarded):
    base, token = new_table_socket(guarded)
    with ws_connect(base, max_size=None) as ws:
        ws.send(ws_token_message(token))
        assert json.loads(ws.recv(timeout=10))["my_chair"] == 0
    with ws_connect(f"{base}?token={token}", max_size=None) as ws:
        assert close_code(ws) == 4400
    with ws_connect(base, max_size=None) as ws:
        ws.send(ws_token_message("wrong"))
        assert close_code(ws) == 4403
    with ws_connect(base, max_size=None) as ws:  # says nothing: closed once the wait for a token is over
        assert close_code(ws) == 4403
