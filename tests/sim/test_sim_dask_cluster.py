"""A real Dask scheduler and two workers on loopback run a small game study through ``--scheduler``."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_workers(address: str, count: int, timeout: float = 60) -> None:
    from dask.distributed import Client

    with Client(address, timeout="30s") as client:
        client.wait_for_workers(count, timeout=timeout)


def test_study_through_a_real_scheduler_and_two_workers(tmp_path):
    dask_cli = BIN / "dask"
    if not dask_cli.exists():
        dask_cli = Path(shutil.which("dask") or "dask")
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = dict(os.environ, DASK_DISTRIBUTED__WORKER__DAEMON="False")
    procs = [
        subprocess.Popen(
            [str(dask_cli), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
        )
    ]
    try:
        time.sleep(1.0)
        for _ in range(2):
            procs.append(
                subprocess.Popen(
                    [
                        str(dask_cli),
                        "worker",
                        address,
                        "--nthreads",
                        "1",
                        "--no-dashboard",
                        "--host",
                        "127.0.0.1",
                        "--local-directory",
                        str(tmp_path),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    env=env,
                )
            )
        _wait_for_workers(address, 2)
        base = [
            sys.executable,
            "-m",
            "tribridge.cli.main",
            "study",
            "game",
            "--deals",
            "70000",
            "--runs",
            "2",
            "--seed",
            "12",
            "--json",
        ]
        remote = subprocess.run(
            base + ["--scheduler", address, "--chunk-size", "65536"], capture_output=True, text=True, timeout=300
        )
        assert remote.returncode == 0, remote.stderr
        local = subprocess.run(base + ["--workers", "1"], capture_output=True, text=True, timeout=300)
        assert local.returncode == 0, local.stderr
        assert remote.stdout == local.stdout
        assert json.loads(remote.stdout)["results"][1]["deals"] == 70000
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
