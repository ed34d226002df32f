"""The web table's files from memory: ETag and 304, gzip bodies, index and folder redirects, 404/405, no disk reads."""

from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tribridge.server.app import STATIC_DIR, create_app
from tribridge.server.assets import StaticAssets, accepts_gzip
from tribridge.server.edge import CONTENT_SECURITY_POLICY

SCRIPT = "export const hello = () => 'hello';\n" * 40
PLAIN = {"Accept-Encoding": "identity"}


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    (tmp_path / "index.html").write_text("<!doctype html><title>t</title>" + "<p>x</p>" * 100)
    (tmp_path / "app.js").write_text(SCRIPT)
    (tmp_path / "tiny.css").write_text("p{}")
    (tmp_path / "pic.png").write_bytes(b"\x89PNG" + bytes(600))
    (tmp_path / "guide").mkdir()
    (tmp_path / "guide" / "index.html").write_text("<p>guide</p>")
    return tmp_path


@pytest.fixture()
def client(folder: Path):
    app = FastAPI()
    app.mount("/", StaticAssets(folder), name="static")
    with TestClient(app) as c:
        yield c


def test_files_are_served_from_memory(client, folder):
    first = client.get("/app.js", headers=PLAIN)
    (folder / "app.js").write_text("changed on disk")
    again = client.get("/app.js", headers=PLAIN)
    assert first.status_code == again.status_code == 200
    assert first.text == again.text == SCRIPT
    assert first.headers["content-type"].startswith(("text/javascript", "application/javascript"))
    assert first.headers["cache-control"] == "no-cache"
    assert first.headers["content-length"] == str(len(SCRIPT))
    assert "content-encoding" not in first.headers


def test_gzip_body_for_clients_that_take_it(client):
    r = client.get("/app.js", headers={"Accept-Encoding": "gzip, deflate"})
    assert r.headers["content-encoding"] == "gzip" and r.headers["vary"] == "Accept-Encoding"
    assert r.text == SCRIPT  # the client unzipped it
    assert int(r.headers["content-length"]) < len(SCRIPT)
    raw = client.get("/app.js", headers={"Accept-Encoding": "gzip"}).headers["etag"]
    plain = client.get("/app.js", headers=PLAIN).headers["etag"]
    assert raw != plain  # each body has its own tag


def test_small_and_binary_files_are_never_zipped(client):
    for path in ("/tiny.css", "/pic.png"):
        r = client.get(path, headers={"Accept-Encoding": "gzip"})
        assert r.status_code == 200 and "content-encoding" not in r.headers


def test_etag_and_if_modified_since_give_304(client):
    for encoding in ("gzip", "identity"):
        first = client.get("/app.js", headers={"Accept-Encoding": encoding})
        tag = first.headers["etag"]
        same = client.get("/app.js", headers={"Accept-Encoding": encoding, "If-None-Match": tag})
        assert same.status_code == 304 and same.content == b"" and same.headers["etag"] == tag
        listed = client.get("/app.js", headers={"Accept-Encoding": encoding, "If-None-Match": f'"other", W/{tag}'})
        assert listed.status_code == 304
    other = client.get("/app.js", headers={"If-None-Match": '"not-this-one"'})
    assert other.status_code == 200 and other.text == SCRIPT
    modified = client.get("/app.js").headers["last-modified"]
    assert client.get("/app.js", headers={"If-Modified-Since": modified}).status_code == 304
    old = "Mon, 01 Jan 1990 00:00:00 GMT"
    assert client.get("/app.js", headers={"If-Modified-Since": old}).status_code == 200
    assert client.get("/app.js", headers={"If-Modified-Since": "garbage"}).status_code == 200


def test_index_redirects_head_and_errors(client):
    root = client.get("/", headers=PLAIN)
    assert root.status_code == 200 and root.text.startswith("<!doctype html>")
    assert root.headers["content-type"] == "text/html; charset=utf-8"
    assert client.get("/guide/").text == "<p>guide</p>"
    moved = client.get("/guide", follow_redirects=False)
    assert moved.status_code == 307 and moved.headers["location"] == "/guide/"
    head = client.head("/app.js", headers=PLAIN)
    assert head.status_code == 200 and head.content == b"" and head.headers["content-length"] == str(len(SCRIPT))
    assert client.get("/no-such-file.js").status_code == 404
    assert client.get("/../app.js").status_code in (200, 404)  # never outside the folder: only files read at start
    refused = client.post("/app.js")
    assert refused.status_code == 405 and refused.headers["allow"] == "GET, HEAD"


@pytest.mark.parametrize(
    ("value", "takes"),
    [
        (None, False),
        ("", False),
        ("gzip", True),
        ("deflate, gzip;q=0.5", True),
        ("gzip;q=0", False),
        ("br, *", True),
        ("*;q=0", False),
        ("identity", False),
        ("gzip;q=0, *", False),
        ("x-gzip", True),
        ("gzip;q=bad", False),
    ],
)
def test_accepts_gzip(value, takes):
    assert accepts_gzip(value) is takes


def test_the_server_serves_the_page_with_its_headers(tmp_path):
    with TestClient(create_app(db_path=tmp_path / "t.sqlite", bot_delay=3600, log_requests=False)) as client:
        for path in ("/", "/app.js", "/api.js", "/style.css", "/events.html"):
            r = client.get(path)
            assert r.status_code == 200 and r.headers["content-encoding"] == "gzip", path
            assert r.content == (STATIC_DIR / (path.strip("/") or "index.html")).read_bytes()
            assert r.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
            assert client.get(path, headers={"If-None-Match": r.headers["etag"]}).status_code == 304
        missing = client.get("/no-such-page")
        assert missing.status_code == 404 and "error" in missing.json()
