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
import zlib
from pathlib import Path

import httpx
import pytest
from websockets.sync.client import connect

from tribridge.testing import child_pids, free_port, start_server, ws_token_message

pytestmark = pytest.mark.slow

DEPLOY = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"
NGINX = "/usr/sbin/nginx"


def play_a_little(base, ws_base=None):
    """Create a table of three people through ``base``, make its six calls, and check a socket's pushes follow; the
    table's id and its chairs' tokens."""
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
    return tid, tokens


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


def holder_of(client: tuple[str, int], pids: list[int]) -> int | None:
    """Which of ``pids`` holds the server's end of the TCP connection whose client end is at ``client`` (Linux /proc)."""
    wanted = f"{client[1]:04X}"
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[2].endswith(":" + wanted):  # the remote address of the server's end is the client's
            inodes.add(fields[9])
    for pid in pids:
        folder = Path(f"/proc/{pid}/fd")
        for fd in folder.iterdir() if folder.is_dir() else ():
            try:
                target = os.readlink(fd)
            except OSError:
                continue
            if target.startswith("socket:[") and target[8:-1] in inodes:
                return pid
    return None


def socket_holder(url: str, tid: str, token: str, workers: list[int]) -> int | None:
    """The worker that serves a WebSocket opened to table ``tid`` through ``url``."""
    with connect(url.replace("http://", "ws://") + f"/api/tables/{tid}/ws", open_timeout=10) as ws:
        ws.send(ws_token_message(token))
        ws.recv(timeout=10)
        return holder_of(ws.socket.getsockname()[:2], workers)


def test_workers_keep_each_table_on_one_worker_and_the_other_takes_over(pg_server):
    proc, url = start_server(pg_server.new_database(), "--workers", "2")
    try:
        workers = child_pids(proc.pid)
        holders: dict[int, set[int]] = {0: set(), 1: set()}  # the table id's hash -> the workers its sockets were on
        for played in range(20):
            tid, tokens = play_a_little(url)
            holders[zlib.crc32(tid.encode()) % 2].add(socket_holder(url, tid, tokens[0], workers))
            if played >= 3 and all(holders.values()):
                break
        assert all(len(h) == 1 for h in holders.values()), holders  # each hash's tables on one worker
        assert holders[0] != holders[1] and None not in holders[0] | holders[1], holders  # one hash each

        (victim,) = holders[0]
        os.kill(victim, signal.SIGKILL)  # a worker dies: the tables that hash to it are served by the other
        time.sleep(0.5)
        for _ in range(20):
            tid, tokens = play_a_little(url)
            if zlib.crc32(tid.encode()) % 2 == 0:
                break
        assert zlib.crc32(tid.encode()) % 2 == 0
        assert socket_holder(url, tid, tokens[0], workers) in holders[1]
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)


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
        f"events {{}}\nhttp {{ log_format routed '$request_uri $upstream_addr';\n"
        f"access_log {folder}/access.log routed; {temps}\n{block}\n}}\n"
    )


def table_owners(access_log: Path) -> dict[str, set[str]]:
    """Table id -> the upstream addresses nginx sent that table's requests to (from the ``routed`` access log)."""
    owners: dict[str, set[str]] = {}
    for line in access_log.read_text(encoding="utf-8").splitlines():
        uri, _, upstream = line.partition(" ")
        found = re.match(r"/api/tables/([^/?]+)/", uri)
        if found:
            owners.setdefault(found.group(1), set()).add(upstream)
    return owners


def act_on(base: str, tid: str, tokens: dict[int, str]) -> int:
    """The chair on turn at table ``tid`` plays its first legal card through ``base``, which must be accepted; the new
    version."""
    head = httpx.get(f"{base}/api/tables/{tid}/state", headers={"Authorization": f"Bearer {tokens[0]}"}).json()
    auth = {"Authorization": f"Bearer {tokens[head['turn_chair']]}"}
    mine = httpx.get(f"{base}/api/tables/{tid}/state", headers=auth).json()
    r = httpx.post(
        f"{base}/api/tables/{tid}/actions", headers=auth, json={"type": "play", "card": mine["legal_cards"][0]}
    )
    assert r.status_code == 200, r.text
    return int(r.json()["version"])


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
    access_log = Path(folder) / "access.log"
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
        played = dict(play_a_little(base) for _ in range(3))
        while len(set().union(*table_owners(access_log).values())) < 2 and len(played) < 20:
            played.update([play_a_little(base)])  # until the hash has given tables to both processes
        for _proc, url in servers:  # both processes know the tables played through the proxy
            assert all(httpx.get(f"{url}/api/tables/{tid}").json()["version"] == 9 for tid in played)
        owners = table_owners(access_log)
        assert all(len(owners[tid]) == 1 for tid in played), owners  # each table's requests reached one process
        assert len({next(iter(owners[tid])) for tid in played}) == 2, owners  # and the tables were spread

        tid = next(
            iter(played)
        )  # the process that served it stops: the proxy sends the table to the other, which goes on
        owner = next(iter(owners[tid]))
        stopped = next(proc for proc, url in servers if url.endswith(owner.rsplit(":", 1)[1]))
        stopped.send_signal(signal.SIGTERM)
        stopped.communicate(timeout=30)
        assert act_on(base, tid, played[tid]) == 10  # the opening lead, taken by the process left
        assert httpx.get(f"{base}/api/tables/{tid}").json()["version"] == 10
    finally:
        nginx.send_signal(signal.SIGQUIT)
        nginx.wait(15)
        shutil.rmtree(folder, ignore_errors=True)
        for proc, _url in servers:
            proc.send_signal(signal.SIGTERM)
            proc.communicate(timeout=30)
