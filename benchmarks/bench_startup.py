"""Benchmark: start-up time of the ``tribridge`` command against a bare Python that imports argparse and json.

    .venv/bin/python -m benchmarks startup --repeats 21

Each repeat starts, side by side, ``tribridge --version`` (the installed console script next to
this Python) and the baseline ``python -c "import argparse, json"``, plus the light commands
(``score``, ``deal``, ``nt-call`` on one hand, ``--help``). Reports the median wall time of each
in milliseconds and its ratio to the baseline's median (target for ``--version``: at most 3×),
and whether each light command loaded numba (``python -X importtime``).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

BASELINE = [sys.executable, "-c", "import argparse, json"]
COMMANDS: dict[str, list[str]] = {
    "--version": ["--version"],
    "--help": ["--help"],
    "score": ["score", "--contract", "4S", "--tricks", "10"],
    "deal": ["deal", "--count", "1", "--seed", "1"],
    "nt-call": ["nt-call", "K84.AJ85.AK6.AKQ"],
}
HEAVY_MODULES = ("numba", "llvmlite", "endplay", "uvicorn", "fastapi")


def tribridge_script() -> str:
    """The console script installed beside this Python (falls back to ``python -m tribridge.cli.main``)."""
    script = Path(sys.executable).with_name("tribridge")
    return str(script) if script.exists() else ""


def command_line(args: list[str]) -> list[str]:
    """The process to start for ``tribridge ARGS``."""
    script = tribridge_script()
    return [script, *args] if script else [sys.executable, "-m", "tribridge.cli.main", *args]


def wall_time(argv: list[str]) -> float:
    """Seconds from start to exit of one process (output discarded)."""
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def heavy_imports(args: list[str]) -> list[str]:
    """The heavy packages a command imports, read from ``python -X importtime``."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "tribridge.cli.main", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    names = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in proc.stderr.splitlines() if "|" in line}
    return sorted(names & set(HEAVY_MODULES))


def main() -> None:
    """Run the benchmark and print JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=21, help="starts of each process (default 21; median reported)")
    args = ap.parse_args()
    for argv in [BASELINE, *(command_line(a) for a in COMMANDS.values())]:
        wall_time(argv)  # warm the file cache and the byte-code caches
    times: dict[str, list[float]] = {"baseline": [], **{name: [] for name in COMMANDS}}
    for _ in range(args.repeats):  # interleaved, so that machine load hits both sides alike
        times["baseline"].append(wall_time(BASELINE))
        for name, extra in COMMANDS.items():
            times[name].append(wall_time(command_line(extra)))
    base = statistics.median(times["baseline"])
    out = {
        "baseline": "python -c 'import argparse, json'",
        "repeats": args.repeats,
        "median_ms": {name: round(1e3 * statistics.median(t), 1) for name, t in times.items()},
        "ratio_to_baseline": {
            name: round(statistics.median(t) / base, 2) for name, t in times.items() if name != "baseline"
        },
        "target": "--version <= 3x baseline",
        "heavy_imports": {name: heavy_imports(extra) for name, extra in COMMANDS.items()},
    }
    out["target_met"] = out["ratio_to_baseline"]["--version"] <= 3.0
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
