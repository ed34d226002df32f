"""Entry point of the ``tribridge`` command: builds the argument parser from the command modules.

Start-up time matters (``tribridge --version`` should feel instant), so the command modules import
only ``argparse`` and ``tribridge.cli.common`` at the top; each imports its machinery (numpy, the
compiled kernels, the solver, the server) inside its ``run`` function.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable, Sequence

from tribridge import __version__
from tribridge.cli.common import (
    add_quiet_flag,
    extra_of_module,
    missing_extra_message,
    quiet_progress,
    require_extra,
)
from tribridge.errors import InvalidInput

# Command name -> the module whose ``register(subparsers)`` adds it; add new commands here (one line each).
COMMANDS: dict[str, str] = {
    "study": "tribridge.cli.study",
    "reproduce": "tribridge.cli.reproduce",
    "deal": "tribridge.cli.deal",
    "score": "tribridge.cli.score",
    "play-random": "tribridge.cli.play_random",
    "serve": "tribridge.cli.serve",
    "store": "tribridge.cli.store",
    "analyze": "tribridge.cli.analyze",
    "train-estimator": "tribridge.cli.train",
    "train-belief": "tribridge.cli.train_belief",
    "train-bidder": "tribridge.cli.train_bidder",
    "calibrate": "tribridge.cli.calibrate",
    "match": "tribridge.cli.match",
    "shuffle": "tribridge.cli.shuffle",
    "nt-call": "tribridge.cli.nt_call",
    "capture": "tribridge.cli.capture",
    "event": "tribridge.cli.event",
    "accounts": "tribridge.cli.accounts",
    "ratings": "tribridge.cli.ratings",
    "bid4": "tribridge.cli.bid4",
}
COMMAND_MODULES: list[str] = list(dict.fromkeys(COMMANDS.values()))

# Commands (and command groups) that can run long enough to show progress: each gets ``--quiet``.
PROGRESS_COMMANDS = frozenset(
    {
        "study",
        "reproduce",
        "deal",
        "analyze",
        "train-estimator",
        "train-belief",
        "train-bidder",
        "calibrate",
        "match",
        "shuffle",
        "event",
    }
)


def _plot_modules(args: argparse.Namespace) -> list[str]:
    return ["matplotlib"] if getattr(args, "plot", None) else []


def _game_study_modules(args: argparse.Namespace) -> list[str]:
    dask = ["dask", "distributed"] if args.backend == "dask" or args.scheduler else []
    return dask + (["pyarrow"] if args.out else [])


# (command, sub-command) -> the optional modules a command line needs, checked before any work starts.
EXTRA_NEEDS: dict[tuple[str, str | None], Callable[[argparse.Namespace], list[str]]] = {
    ("reproduce", None): lambda args: ["matplotlib"],
    ("study", "game"): _game_study_modules,
    ("study", "capture"): _plot_modules,
    ("study", "accuracy"): _plot_modules,
    ("shuffle", "deal"): _plot_modules,
    ("shuffle", "report"): _plot_modules,
}


def check_extras(args: argparse.Namespace) -> None:
    """Raise ``MissingExtra`` (one line, exit 2) before a command starts if it needs an extra that is missing."""
    sub = getattr(args, "study", None) or getattr(args, "shuffle_command", None)
    modules = EXTRA_NEEDS.get((args.command, sub), lambda _args: [])(args)
    for module in modules:
        extra = extra_of_module(module)
        if extra is not None:
            require_extra(extra, module)


def _leaf_parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """``parser`` itself, or the leaf parsers of its sub-commands."""
    groups = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]  # noqa: SLF001
    if not groups:
        return [parser]
    return [leaf for group in groups for child in group.choices.values() for leaf in _leaf_parsers(child)]


def build_parser(commands: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The argument parser with every registered command (or only the named ``commands``)."""
    parser = argparse.ArgumentParser(
        prog="tribridge",
        description="Three-player auction bridge: rules, the papers' algorithms, studies, bots and a server.",
    )
    parser.add_argument("--version", action="version", version=f"tribridge {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = COMMAND_MODULES if commands is None else list(dict.fromkeys(COMMANDS[c] for c in commands))
    for module in modules:
        importlib.import_module(module).register(sub)
    for name, command in sub.choices.items():
        if name in PROGRESS_COMMANDS:
            for leaf in _leaf_parsers(command):
                add_quiet_flag(leaf)
    return parser


def _commands_needed(argv: Sequence[str]) -> list[str] | None:
    """The commands whose parsers ``argv`` needs: its command, none for a bare ``--version``, else all (None)."""
    first = next((i for i, a in enumerate(argv) if not a.startswith("-")), len(argv))
    if {"-h", "--help"} & set(argv[:first]):
        return None  # the top-level help lists every command
    if first < len(argv):
        return [argv[first]] if argv[first] in COMMANDS else None
    return [] if "--version" in argv else None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; bad input or a missing extra prints one line and exits with status 2."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_commands_needed(argv))  # only what this command line needs: start-up time
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        check_extras(args)
        with quiet_progress(getattr(args, "quiet", False)):
            return int(args.func(args) or 0)
    except InvalidInput as exc:
        print(f"tribridge {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader of stdout went away (e.g. `| head`): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # a path given on the command line cannot be read or written
        where = f": {exc.filename}" if exc.filename else ""
        print(f"tribridge {args.command}: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2
    except Exception as exc:  # an optional extra that is not installed: one line; anything else propagates
        message = missing_extra_message(exc)
        if message is None:
            raise
        print(f"tribridge {args.command}: {message}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
