"""The server's HTTP edge: body and JSON-depth limits, short errors, origin rules, safe headers, /healthz, /docs."""

import asyncio
import json
import socket

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.websockets import WebSocketDisconnect

from live_server import start_server
from tribridge.cli.main import main as cli_main
from tribridge.dd import Priority, configure_pool, shutdown_pool
from tribridge.errors import MAX_FIELD_CHARS, MAX_MESSAGE_CHARS, InvalidInput, quote
from tribridge.server.app import create_app
from tribridge.server.edge import (
    CONTENT_SECURITY_POLICY,
    DEFAULT_MAX_BODY_BYTES,
    DEFAULT_MAX_JSON_DEPTH,
    EdgeMiddleware,
    EdgePolicy,
    json_depth,
    json_depth_reference,
    normalize_origin,
)

BOTS = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
BID = "/apis/brill/bid?seat=N&dealer=N&vul=None&ctx=&hand=AKQ2.KJ4.T98.762"
SHORT = 1024  # what "a short error" means here: the edge's default cap on an error body


def make_client(db, **options):
    app = create_app(db_path=db, bot_delay=3600, log_requests=False, **options)
    return TestClient(app)


@pytest.fixture()
def client(db_url):
    with make_client(db_url) as c:
        yield c


def new_table(client):
    r = client.post("/api/tables", json={"chairs": BOTS, "scheme": "classic", "take": 0})
    assert r.status_code == 200, r.text
    return r.json()["table_id"], {"Authorization": f"Bearer {r.json()['token']}"}


def nested(depth):
    return ("[" * depth + "]" * depth).encode()


# ---------------------------------------------------------------- item 3: request size, short errors


def test_50_mb_field_is_refused_with_413_and_not_stored(tmp_path):
    db = tmp_path / "edge.sqlite"  # the SQLite file grows by no more than the refused body
    with make_client(db) as c:
        tid, auth = new_table(c)
        version = c.get(f"/api/tables/{tid}").json()["version"]
        size_before = db.stat().st_size
        body = json.dumps({"type": "play", "card": "S" * (50 * 1024 * 1024)})
        r = c.post(f"/api/tables/{tid}/actions", content=body, headers={**auth, "Content-Type": "application/json"})
        assert r.status_code == 413
        assert "65536" in r.json()["error"] and len(r.content) < SHORT
        assert c.get(f"/api/tables/{tid}").json()["version"] == version
    wal = db.with_name(db.name + "-wal")
    assert db.stat().st_size + (wal.stat().st_size if wal.exists() else 0) < size_before + 1024 * 1024


def test_body_without_content_length_is_counted_on_the_stream(client):
    tid, auth = new_table(client)

    def chunks():
        yield b'{"type": "play", "card": "'
        for _ in range(40):
            yield b"S" * 4096
        yield b'"}'

    r = client.post(
        f"/api/tables/{tid}/actions", content=chunks(), headers={**auth, "Content-Type": "application/json"}
    )
    assert r.status_code == 413


def run_asgi(middleware, scope, messages):
    """Call an ASGI app with ``messages`` as the request; (sent messages, how many body bytes it was fed)."""
    sent, fed = [], [0]
    queue = list(messages)

    async def receive():
        if queue:
            message = queue.pop(0)
            fed[0] += len(message.get("body", b""))
            return message
        return {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    asyncio.run(middleware(scope, receive, send))
    return sent, fed[0]


def http_scope(method="POST", path="/api/tables", headers=()):
    return {
        "type": "http",
        "method": method,
        "path": path,
        "headers": [(k.encode(), v.encode()) for k, v in headers],
        "query_string": b"",
        "scheme": "http",
        "server": ("testserver", 80),
    }


def test_a_lying_content_length_does_not_let_a_big_body_in():
    reached = []

    async def app(scope, receive, send):
        reached.append(await receive())

    edge = EdgeMiddleware(app, EdgePolicy())
    chunk = b"x" * 65536
    messages = [{"type": "http.request", "body": chunk, "more_body": True} for _ in range(20)]
    scope = http_scope(headers=[("content-type", "application/json"), ("content-length", "10")])
    sent, fed = run_asgi(edge, scope, messages)
    assert sent[0]["status"] == 413 and not reached
    assert fed <= DEFAULT_MAX_BODY_BYTES + len(chunk)  # it stopped reading just past the limit


def test_a_get_without_a_body_goes_straight_to_the_app_and_one_with_a_body_is_still_checked():
    seen = []

    async def app(scope, receive, send):
        seen.append(await receive())
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    edge = EdgeMiddleware(app, EdgePolicy(max_body_bytes=10))
    sent, _ = run_asgi(edge, http_scope("GET", "/"), [{"type": "http.request", "body": b"", "more_body": False}])
    assert sent[0]["status"] == 200 and seen == [{"type": "http.request", "body": b"", "more_body": False}]
    big = [{"type": "http.request", "body": b"x" * 64, "more_body": False}]
    for header in (("content-length", "64"), ("transfer-encoding", "chunked")):
        seen.clear()
        sent, _ = run_asgi(edge, http_scope("GET", "/", headers=[header]), big)
        assert sent[0]["status"] == 413 and not seen


def test_a_slow_body_gets_408_at_the_deadline():
    async def app(scope, receive, send):
        raise AssertionError("the app must not see a body that came too late")

    async def receive():
        await asyncio.sleep(10)
        return {"type": "http.request", "body": b"{}", "more_body": False}

    sent = []

    async def send(message):
        sent.append(message)

    edge = EdgeMiddleware(app, EdgePolicy(body_timeout=0.05))
    scope = http_scope(headers=[("content-type", "application/json"), ("content-length", "2")])
    asyncio.run(asyncio.wait_for(edge(scope, receive, send), 5))
    assert sent[0]["status"] == 408


def test_a_body_at_the_limit_passes():
    reached = []

    async def app(scope, receive, send):
        reached.append(await receive())
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    edge = EdgeMiddleware(app, EdgePolicy(max_body_bytes=100))
    body = b'"' + b"x" * 98 + b'"'
    sent, _ = run_asgi(
        edge,
        http_scope(headers=[("content-type", "application/json")]),
        [
            {"type": "http.request", "body": body[:50], "more_body": True},
            {"type": "http.request", "body": body[50:], "more_body": False},
        ],
    )
    assert sent[0]["status"] == 200 and reached[0]["body"] == body


def test_10_mb_bad_call_gets_a_short_400(db_url):
    with make_client(db_url, max_body_bytes=16 * 1024 * 1024) as c:
        tid, auth = new_table(c)
        r = c.post(f"/api/tables/{tid}/actions", json={"type": "call", "call": "Z" * (10 * 1024 * 1024)}, headers=auth)
        assert r.status_code == 400
        assert len(r.content) < SHORT and r.json()["error"].startswith("call")


def test_long_bad_robot_request_gets_a_short_400(client):
    r = client.get(
        "/apis/brill/bid", params={"seat": "N", "dealer": "N", "vul": "None", "ctx": "", "hand": "A" * 10_000}
    )
    assert r.status_code == 400 and len(r.content) < SHORT
    r = client.get(  # past the cap on the request line and headers (16 KiB)
        "/apis/brill/bid", params={"seat": "N", "dealer": "N", "vul": "None", "ctx": "", "hand": "A" * 60_000}
    )
    assert r.status_code == 431 and len(r.content) < SHORT


def test_lone_surrogate_in_a_bad_call_gets_400_not_500(client):
    tid, auth = new_table(client)
    r = client.post(
        f"/api/tables/{tid}/actions",
        content=b'{"type": "call", "call": "\\ud800"}',
        headers={**auth, "Content-Type": "application/json"},
    )
    assert r.status_code == 400, r.text


def test_long_error_bodies_from_any_route_are_cut():
    async def app(scope, receive, send):
        await send({"type": "http.response.start", "status": 400, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": b'{"error": "' + b"y" * 5_000_000, "more_body": True})
        await send({"type": "http.response.body", "body": b'"}', "more_body": False})

    sent, _ = run_asgi(EdgeMiddleware(app), http_scope(method="GET", path="/x"), [])
    bodies = [m for m in sent if m["type"] == "http.response.body"]
    assert sent[0]["status"] == 400 and len(bodies) == 1 and len(bodies[0]["body"]) < SHORT
    assert json.loads(bodies[0]["body"])["error"].startswith("yyy")
    length = dict(sent[0]["headers"])[b"content-length"]
    assert int(length) == len(bodies[0]["body"])


@settings(max_examples=200, deadline=None)
@given(field=st.text(max_size=500), message=st.text(max_size=5000))
def test_invalid_input_messages_are_bounded_and_encodable(field, message):
    text = str(InvalidInput(field, message))
    assert len(text) <= MAX_FIELD_CHARS + 2 + MAX_MESSAGE_CHARS
    text.encode("utf-8")  # no lone surrogate left to break a JSON answer
    if (
        len(message) <= MAX_MESSAGE_CHARS
        and len(field) <= MAX_FIELD_CHARS
        and "\\" not in field + message
        and not any(0xD800 <= ord(ch) <= 0xDFFF for ch in field + message)
    ):
        assert text == f"{field}: {message}"


def test_quote_shows_a_prefix_only():
    assert quote("abc") == "'abc'"
    long = quote("x" * 1_000_000)
    assert len(long) == 80 and long.startswith("'xxx") and long.endswith("…")


# ---------------------------------------------------------------- item 5: deeply nested JSON


@settings(max_examples=300, deadline=None)
@given(
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}"\\ab:,'),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(alphabet='[]{}"\\a'), inner, max_size=3),
        max_leaves=30,
    )
)
def test_json_depth_matches_the_reference_and_the_parsed_value(value):
    def depth(v):
        if isinstance(v, list):
            return 1 + max((depth(x) for x in v), default=0)
        if isinstance(v, dict):
            return 1 + max((depth(x) for x in v.values()), default=0)
        return 0

    body = json.dumps(value, ensure_ascii=False).encode()
    assert json_depth(body) == json_depth_reference(body) == depth(value)


def test_nesting_100000_deep_gets_400_naming_the_limit(db_url):
    with make_client(db_url, max_body_bytes=1024 * 1024) as c:
        tid, auth = new_table(c)
        for url, headers in (("/api/tables", {}), (f"/api/tables/{tid}/actions", auth)):
            r = c.post(url, content=nested(100_000), headers={**headers, "Content-Type": "application/json"})
            assert r.status_code == 400
            assert str(DEFAULT_MAX_JSON_DEPTH) in r.json()["error"]


def test_depth_limit_is_exact(client):
    over = client.post(
        "/api/tables", content=nested(DEFAULT_MAX_JSON_DEPTH + 1), headers={"Content-Type": "application/json"}
    )
    assert over.status_code == 400 and "nested" in over.json()["error"]
    at = client.post(
        "/api/tables", content=nested(DEFAULT_MAX_JSON_DEPTH), headers={"Content-Type": "application/json"}
    )
    assert at.status_code == 400 and "nested" not in at.json()["error"]  # reached the route, which refuses a list


# ---------------------------------------------------------------- item 6: headers and origins


@pytest.mark.parametrize("path", ["/", "/index.html", "/api/bots", BID, "/healthz", "/no-such-page", "/apis/brill/bid"])
def test_security_headers_on_every_response(client, path):
    r = client.get(path)
    assert r.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["x-frame-options"] == "DENY"
    assert r.headers["referrer-policy"] == "no-referrer"


def test_csp_allows_what_the_page_loads(client):
    page = client.get("/").text
    assert "<script>" not in page and " style=" not in page  # no inline script or style to allow
    assert "script-src 'self'" in CONTENT_SECURITY_POLICY and "unsafe-inline" not in CONTENT_SECURITY_POLICY


def test_cors_star_only_on_the_robot_apis(client):
    origin = {"Origin": "https://elsewhere.example"}
    assert client.get(BID, headers=origin).headers["access-control-allow-origin"] == "*"
    assert client.get("/apis/3pab", headers=origin).headers["access-control-allow-origin"] == "*"
    ben_root = BID.replace("/apis/brill/bid", "/bid")  # BEN's API at the root is a robot API too
    assert client.get(ben_root, headers=origin).headers["access-control-allow-origin"] == "*"
    for path in ("/api/bots", "/healthz", "/"):
        assert "access-control-allow-origin" not in client.get(path, headers=origin).headers
    pre = client.options("/apis/brill/bid", headers={**origin, "Access-Control-Request-Method": "GET"})
    assert pre.status_code == 204 and pre.headers["access-control-allow-origin"] == "*"
    pre = client.options("/api/tables", headers={**origin, "Access-Control-Request-Method": "POST"})
    assert pre.status_code == 403 and "access-control-allow-origin" not in pre.headers


def test_cross_origin_post_to_the_game_is_refused(client):
    body = {"chairs": BOTS, "scheme": "classic", "take": 0}
    before = client.get("/healthz").json()["tables"]
    r = client.post("/api/tables", json=body, headers={"Origin": "https://elsewhere.example"})
    assert r.status_code == 403
    assert client.get("/healthz").json()["tables"] == before
    assert client.post("/api/tables", json=body, headers={"Origin": "http://testserver"}).status_code == 200


def test_allowlisted_origin_may_call_the_game(db_url):
    friend = "https://friend.example"
    with make_client(db_url, cors_origins=[friend + "/"]) as c:
        r = c.post("/api/tables", json={"chairs": BOTS, "take": 0}, headers={"Origin": friend})
        assert r.status_code == 200 and r.headers["access-control-allow-origin"] == friend
        pre = c.options("/api/tables", headers={"Origin": friend, "Access-Control-Request-Method": "POST"})
        assert pre.status_code == 204 and pre.headers["access-control-allow-origin"] == friend
        assert (
            c.post("/api/tables", json={"chairs": BOTS}, headers={"Origin": "https://other.example"}).status_code == 403
        )


@pytest.mark.parametrize("bad", ["ftp://x.example", "https://x.example/path", "not a url", ""])
def test_bad_allowlist_entries_are_refused(tmp_path, bad):
    with pytest.raises(InvalidInput, match="cors_origins"):
        create_app(db_path=tmp_path / "x.sqlite", cors_origins=[bad])
    assert normalize_origin("HTTPS://Friend.Example:8443/") == "https://friend.example:8443"


@pytest.mark.parametrize(
    "content_type", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]
)
def test_post_accepts_json_only(client, content_type):
    before = client.get("/healthz").json()["tables"]
    body = json.dumps({"chairs": BOTS, "take": 0})
    r = client.post("/api/tables", content=body, headers={"Content-Type": content_type})
    assert r.status_code == 415 and "application/json" in r.json()["error"]
    assert client.get("/healthz").json()["tables"] == before


def test_body_without_a_type_is_415_but_an_empty_post_is_fine(client):
    tid, _ = new_table(client)
    assert client.post("/api/tables", content=b'{"chairs": []}', headers={"Content-Type": ""}).status_code == 415
    assert client.post(f"/api/tables/{tid}/seats/0").status_code == 409  # no body: reaches the route (chair taken)


def test_websocket_origin_is_checked(db_url):
    with make_client(db_url, cors_origins=["https://friend.example"]) as c:
        tid, auth = new_table(c)
        token = auth["Authorization"].split()[1]
        url = f"/api/tables/{tid}/ws"
        with pytest.raises(WebSocketDisconnect) as refused:
            with c.websocket_connect(url, headers={"Origin": "https://elsewhere.example"}):
                pass
        assert refused.value.code == 1008
        for origin in ("http://testserver", "https://friend.example"):
            with c.websocket_connect(url, headers={"Origin": origin}) as ws:
                ws.send_json({"token": token})
                assert ws.receive_json()["table_id"] == tid


# ---------------------------------------------------------------- /healthz, /docs, busy


def test_healthz_shows_no_paths(db_url):
    with make_client(db_url) as c:
        r = c.get("/healthz")
        assert r.status_code == 200 and r.json()["ok"] is True
        assert db_url not in r.text and "sqlite" not in r.text and "db" not in r.json()


def test_api_docs_off_by_default_and_never_from_a_cdn(db_url):
    with make_client(db_url) as c:
        for path in ("/docs", "/redoc", "/openapi.json", "/docs/oauth2-redirect"):
            assert c.get(path).status_code == 404
    with make_client(db_url, api_docs=True) as c:
        schema = c.get("/openapi.json")
        assert schema.status_code == 200 and "/api/tables" in schema.json()["paths"]
        assert c.get("/docs").status_code == 404 and c.get("/redoc").status_code == 404


def test_full_solver_queue_answers_503_with_retry_after(client):
    params = {
        "seat": "N",
        "dealer": "N",
        "vul": "None",
        "ctx": "1S------",
        "hand": "AKQJ2.K32.A32.32",
        "dummy": "7654.A54.654.654",
        "played": "CA",
    }
    configure_pool(workers=1, queue_limits={Priority.ROBOT_API: 0})  # every robot-API solve finds its queue full
    try:
        r = client.get("/apis/brill/play", params=params)
    finally:
        shutdown_pool()
    assert r.status_code == 503 and r.headers["retry-after"] == "1"
    assert "ROBOT_API" in r.json()["error"] and r.headers["access-control-allow-origin"] == "*"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(size=st.integers(1, DEFAULT_MAX_BODY_BYTES * 2), declare=st.booleans())
def test_body_limit_property(size, declare):
    async def app(scope, receive, send):
        message = await receive()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": str(len(message["body"])).encode()})

    headers = [("content-type", "application/json")] + ([("content-length", str(size))] if declare else [])
    body = b"1" * size
    messages = [
        {"type": "http.request", "body": body[i : i + 8192], "more_body": i + 8192 < size} for i in range(0, size, 8192)
    ]
    sent, _ = run_asgi(EdgeMiddleware(app), http_scope(headers=headers), messages)
    assert sent[0]["status"] == (200 if size <= DEFAULT_MAX_BODY_BYTES else 413)


def test_serve_refuses_a_bad_cors_origin(capsys):
    assert cli_main(["serve", "--port", "0", "--cors-origin", "ftp://files.example"]) == 2
    assert "--cors-origin" in capsys.readouterr().err


def raw_exchange(port, request):
    """Send raw bytes to a live server; the status line and headers it answers."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer:
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
    return answer.split(b"\r\n\r\n", 1)[0].decode("latin-1").lower()


@pytest.mark.slow
def test_live_server_counts_chunked_and_refuses_declared_big_bodies(db_url):
    proc, url = start_server(db_url)
    try:
        port = int(url.rsplit(":", 1)[1])
        body = b"[" + b"1," * 400_000 + b"1]"
        chunked = (
            b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked"
            b"\r\n\r\n" + f"{len(body):x}".encode() + b"\r\n" + body + b"\r\n0\r\n\r\n"
        )
        head = raw_exchange(port, chunked)
        assert head.startswith("http/1.1 413") and "x-frame-options: deny" in head
        declared = (
            b"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 50000000\r\n\r\n{}"
        )
        assert raw_exchange(port, declared).startswith("http/1.1 413")
    finally:
        proc.terminate()
        proc.wait(60)
