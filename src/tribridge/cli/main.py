"""Entry point of the ``tribridge`` command: builds the argument parser from the command modules."""

from __future__ import annotations

import argparse
import importlib
import sys
from typing import Sequence

from tribridge import __version__
from tribridge.errors import InvalidInput

# Each module exposes ``register(subparsers)``; add new command groups here (one line each).
COMMAND_MODULES: list[str] = [
    "tribridge.cli.study",
    "tribridge.cli.reproduce",
    "tribridge.cli.deal",
    "tribridge.cli.score",
    "tribridge.cli.play_random",
    "tribridge.cli.serve",
    "tribridge.cli.analyze",
    "tribridge.cli.train",
    "tribridge.cli.calibrate",
    "tribridge.cli.match",
    "tribridge.cli.shuffle",
    "tribridge.cli.nt_call",
    "tribridge.cli.capture",
]


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every registered command."""
    parser = argparse.ArgumentParser(
        prog="tribridge",
        description="Three-player auction bridge: rules, the papers' algorithms, studies, bots and a server.",
    )
    parser.add_argument("--version", action="version", version=f"tribridge {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; bad input prints one line and exits with status 2."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return int(args.func(args) or 0)
    except InvalidInput as exc:
        print(f"tribridge {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a path given on the command line cannot be read or written
        where = f": {exc.filename}" if exc.filename else ""
        print(f"tribridge {args.command}: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
