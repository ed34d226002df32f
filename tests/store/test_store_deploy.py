"""Deployment as docs/deploy.md describes it: `serve --workers 2`, and two `serve` processes behind its nginx config."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from tribridge.testing import child_pids, free_port, start_server, ws_token_message

pytestmark = pytest.mark.slow

DEPLOY = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"
NGINX = "/usr/sbin/nginx"


def play_a_little(base, ws_base=None):
    """Create a table of three people through ``base``, make its six calls, and check a socket's pushes follow."""
    made = httpx.post(f"{base}/api/tables", json={"chairs": [{"kind": "human"}] * 3, "take": 0}).json()
    tid, tokens = made["table_id"], {0: made["token"]}
    for chair in (1, 2):
        tokens[chair] = httpx.post(f"{base}/api/tables/{tid}/seats/{chair}").json()["token"]
    ws_url = (ws_base or base).replace("http://", "ws://") + f"/api/tables/{tid}/ws"
    with connect(ws_url, open_timeout=10) as ws:
        ws.send(ws_token_message(tokens[0]))
        assert json.loads(ws.recv(timeout=10))["version"] == 3
        for step in range(6):
            head = httpx.get(f"{base}/api/tables/{tid}/state", headers={"Authorization": f"Bearer {tokens[0]}"})
            token = tokens[head.json()["turn_chair"]]
            call = ("1C", "1D", "1H", "1S", "P", "P")[step]
            r = httpx.post(
                f"{base}/api/tables/{tid}/actions",
                headers={"Authorization": f"Bearer {token}"},
                json={"type": "call", "call": call},
            )
            assert r.status_code == 200, r.text
            version = r.json()["version"]
            pushed = json.loads(ws.recv(timeout=10))
            while pushed["version"] < version:
                pushed = json.loads(ws.recv(timeout=10))
            assert pushed["version"] == version
    return tid


def test_serve_with_two_workers_on_one_port(pg_server):
    proc, url = start_server(pg_server.new_database(), "--workers", "2")
    try:
        workers = child_pids(proc.pid)
        assert len(workers) == 2, workers
        play_a_little(url)
    finally:
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err[-2000:]
    assert err.count("tribridge server stopped") == 2


def test_workers_need_a_shared_store(tmp_path):
    from tribridge.cli.main import main

    assert main(["serve", "--db", str(tmp_path / "x.sqlite"), "--workers", "2"]) == 2


def nginx_config(upstreams, port, folder):
    """The nginx configuration of docs/deploy.md on the given ports, wrapped to run unprivileged in ``folder``."""
    block = re.search(r"```nginx\n(.*?)```", DEPLOY.read_text(encoding="utf-8"), flags=re.S).group(1)
    block = block.replace("server 127.0.0.1:8081;", f"server 127.0.0.1:{upstreams[0]};")
    block = block.replace("server 127.0.0.1:8082;", f"server 127.0.0.1:{upstreams[1]};")
    block = block.replace("listen 80;", f"listen 127.0.0.1:{port};")
    temps = " ".join(
        f"{kind}_temp_path {folder}/{kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return (
        f"daemon off; worker_processes 1; pid {folder}/nginx.pid; error_log {folder}/error.log;\n"
        f"events {{}}\nhttp {{ access_log off; {temps}\n{block}\n}}\n"
    )


@pytest.mark.skipif(not Path(NGINX).exists(), reason="nginx is missing: apt-get install nginx")
def test_two_processes_behind_the_documented_nginx(pg_server):
    db = pg_server.new_database()
    servers = [start_server(db) for _ in range(2)]
    folder = tempfile.mkdtemp(prefix="tribridge-nginx-")
    os.chmod(folder, 0o777)  # nginx's workers run as an unprivileged user when started as root
    port = free_port()
    conf = Path(folder) / "nginx.conf"
    conf.write_text(nginx_config([int(u.rsplit(":", 1)[1]) for _p, u in servers], port, folder))
    nginx = subprocess.Popen([NGINX, "-c", str(conf), "-p", folder], stderr=subprocess.PIPE, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 15
        while True:
            try:
                if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline and nginx.poll() is None, "nginx did not start"
            time.sleep(0.1)
        tid = play_a_little(base)
        for _proc, url in servers:  # both processes know the table played through the proxy
            assert httpx.get(f"{url}/api/tables/{tid}").json()["version"] == 9
    finally:
        nginx.send_signal(signal.SIGQUIT)
        nginx.wait(15)
        shutil.rmtree(folder, ignore_errors=True)
        for proc, _url in servers:
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=30)
