"""A WebSocket that never reads cannot freeze a table: actions stay acknowledged, the socket is closed, memory is bounded.

`tribridge serve` runs in a subprocess; chair 0 opens its WebSocket with a small receive buffer
and never reads it, while the three chairs act over HTTP as usual.
"""

import base64
import os
import socket
import threading
import time

import httpx
import pytest

from live_server import start_server
from tribridge.testing import ws_token_message

pytestmark = [pytest.mark.slow, pytest.mark.loop_watch]  # servers watched for a blocked loop (loop_watch_check)

ACTIONS = 2500


def silent_websocket(url, path):
    """Open a WebSocket with a tiny receive buffer, complete the handshake, and never read again."""
    host, port = url.removeprefix("http://").split(":")
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((host, int(port)))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return sock


def client_text_frame(text):
    """A masked WebSocket text frame (what a client sends) holding ``text`` (under 126 bytes)."""
    data, mask = text.encode(), os.urandom(4)
    return bytes([0x81, 0x80 | len(data)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


def close_codes(data):
    """The close codes of the close frames in a stream of server-to-client WebSocket frames (unmasked)."""
    codes, i = [], 0
    while i + 2 <= len(data):
        opcode, length, i = data[i] & 0x0F, data[i + 1] & 0x7F, i + 2
        if length == 126:
            length, i = int.from_bytes(data[i : i + 2], "big"), i + 2
        elif length == 127:
            length, i = int.from_bytes(data[i : i + 8], "big"), i + 8
        if opcode == 0x8 and length >= 2:
            codes.append(int.from_bytes(data[i : i + 2], "big"))
        i += length
    return codes


def test_never_reading_socket_does_not_freeze_the_table(db_url):
    proc, url = start_server(db_url)
    log: list[str] = []
    reader = threading.Thread(target=lambda: log.extend(proc.stderr), daemon=True)  # a full pipe would stall the server
    reader.start()
    try:
        with httpx.Client(base_url=url, timeout=10) as c:
            body = c.post("/api/tables", json={"chairs": [{"kind": "human"}] * 3, "take": 0}).json()
            tid, tokens = body["table_id"], {0: body["token"]}
            for chair in (1, 2):
                tokens[chair] = c.post(f"/api/tables/{tid}/seats/{chair}").json()["token"]
            headers = {ch: {"Authorization": f"Bearer {t}"} for ch, t in tokens.items()}
            silent = silent_websocket(url, f"/api/tables/{tid}/ws")
            silent.sendall(client_text_frame(ws_token_message(tokens[0])))
            view = c.get(f"/api/tables/{tid}/state", headers=headers[0]).json()
            slowest, rss_early = 0.0, None
            for i in range(ACTIONS):  # every chair passes, then the next deal: views grow with the score sheet
                if view["phase"] == "done":  # every person asks for the next deal
                    chair, action = next(c for c in (0, 1, 2) if c not in view["next_ready"]), {"type": "next"}
                else:
                    chair, action = view["turn_chair"], {"type": "call", "call": "P"}
                start = time.perf_counter()
                r = c.post(f"/api/tables/{tid}/actions", headers=headers[chair], json=action)
                slowest = max(slowest, time.perf_counter() - start)
                assert r.status_code == 200, (i, r.text)
                view = r.json()
                if i == ACTIONS // 5:
                    rss_early = rss_kib(proc.pid)
            rss_late = rss_kib(proc.pid)
            assert view["version"] == ACTIONS + 3
        assert slowest < 1.0, f"an action waited {slowest:.2f} s for its acknowledgement"
        assert (rss_late - rss_early) < 20 * 1024, f"memory grew by {(rss_late - rss_early) / 1024:.1f} MiB"
        # the server gave up on the silent socket: what it had queued ends with a close frame, then the connection
        silent.settimeout(30)
        received = b""
        try:
            while chunk := silent.recv(1 << 20):
                received += chunk
        except ConnectionResetError:
            pass
        codes = close_codes(received)
        assert codes and codes[0] in (1013, 1011), codes  # 1013: too slow; 1011: the keepalive ping went unanswered
    finally:
        proc.terminate()
        proc.wait(20)
        reader.join(10)
    if codes[0] == 1013:  # the writer gave up on it (a keepalive close, 1011, is uvicorn's and logs nothing of ours)
        assert any("slow subscriber closed" in line for line in log)
