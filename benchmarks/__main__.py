"""Dispatch ``python -m benchmarks NAME [ARGS]`` to ``benchmarks/bench_NAME.py`` (or an alias) and its ``main``."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import sys
from pathlib import Path

# name -> (module, first argument passed on); add aliases here, one line each
ALIASES: dict[str, tuple[str, list[str]]] = {
    "dealing": ("bench_papers", ["dealing"]),
    "nt": ("bench_papers", ["nt"]),
    "capture": ("bench_papers", ["capture"]),
    "papers": ("bench_papers", ["all"]),
    "pimc": ("bench_bots", ["speed"]),
    "declarer": ("bench_bots", ["declarer"]),
    "bidding": ("bench_bots", ["bidding"]),
    "defence": ("bench_belief", ["defence"]),
}


def _names() -> list[str]:
    here = Path(__file__).parent
    found = [m.name[len("bench_") :] for m in pkgutil.iter_modules([str(here)]) if m.name.startswith("bench_")]
    return sorted(set(found) | set(ALIASES))


def main(argv: list[str]) -> int:
    """Run the named benchmark."""
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python -m benchmarks NAME [ARGS]\navailable: " + ", ".join(_names()))
        return 0
    name, rest = argv[0], argv[1:]
    module_name, prefix = ALIASES.get(name, (f"bench_{name}", []))
    try:
        module = importlib.import_module(f"benchmarks.{module_name}")
    except ModuleNotFoundError:
        print(f"unknown benchmark {name!r}; available: {', '.join(_names())}", file=sys.stderr)
        return 2
    entry = module.main
    if inspect.signature(entry).parameters:
        return int(entry(prefix + rest) or 0)
    sys.argv = [f"benchmarks {name}", *rest]
    return int(entry() or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
