"""Helpers shared by the command modules: JSON output, progress on stderr, the optional extras, JSON lines.

This module is imported by every command at start-up, so it imports only the standard library at the
top; rich, numpy and the command's own machinery are imported where they are used.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from tribridge.errors import InvalidInput

__all__ = [
    "EXTRA_MODULES",
    "MissingExtra",
    "Progress",
    "add_model_output",
    "add_quiet_flag",
    "extra_of_module",
    "json_ready",
    "missing_extra_message",
    "print_json",
    "print_report",
    "progress_bar",
    "progress_shown",
    "quiet_progress",
    "require_extra",
    "run_json_lines",
]

EXTRA_MODULES: dict[str, tuple[str, ...]] = {
    "sim": ("dask", "distributed", "pyarrow", "matplotlib", "pandas"),
}
"""The top-level modules each optional extra installs (everything else is a core dependency)."""


class MissingExtra(Exception):
    """A command needs an optional extra that is not installed."""

    def __init__(self, extra: str, module: str) -> None:
        super().__init__(f"needs the {extra!r} extra: pip install 'tribridge[{extra}]' ({module} is missing)")
        self.extra = extra
        self.module = module


def extra_of_module(module: str | None) -> str | None:
    """The extra that provides top-level ``module`` (``matplotlib.pyplot`` counts as ``matplotlib``), or None."""
    root = (module or "").split(".")[0]
    for extra, modules in EXTRA_MODULES.items():
        if root in modules:
            return extra
    return None


def require_extra(extra: str, *modules: str) -> None:
    """Raise ``MissingExtra`` unless every module of ``extra`` (or just ``modules``) can be imported."""
    import importlib.util  # imported here: start-up time

    for module in modules or EXTRA_MODULES[extra]:
        if importlib.util.find_spec(module) is None:
            raise MissingExtra(extra, module)


def missing_extra_message(exc: BaseException) -> str | None:
    """The one-line message for an import error caused by a missing extra (None for any other error)."""
    if isinstance(exc, MissingExtra):
        return str(exc)
    if isinstance(exc, ModuleNotFoundError):
        extra = extra_of_module(exc.name)
        if extra is not None:
            return str(MissingExtra(extra, str(exc.name).split(".")[0]))
    return None


def json_ready(obj: Any) -> Any:
    """``obj`` with NaN and infinite floats replaced by None (JSON has no NaN), recursively."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {key: json_ready(value) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_ready(value) for value in obj]
    return obj


def print_json(data: Any) -> None:
    """Print ``data`` as indented JSON on stdout."""
    json.dump(data, sys.stdout, indent=2, sort_keys=False, default=_json_default)
    sys.stdout.write("\n")


def add_model_output(parser: argparse.ArgumentParser, filename: str) -> None:
    """A training command's ``--out`` (default ``./filename``; the shipped file is in ``src/tribridge/data/``) and ``--json``."""
    parser.add_argument(
        "--out",
        default=filename,
        help=f"output file (default ./{filename}; the shipped one is src/tribridge/data/)",
    )
    parser.add_argument("--json", action="store_true", help="print the training report as JSON")


def print_report(report: dict[str, Any], as_json: bool) -> None:
    """Print a flat report (a training command's) as JSON with ``as_json``, else as ``key: value`` lines."""
    if as_json:
        print_json(report)
        return
    for key, value in report.items():
        print(f"{key}: {value}")


def _json_default(obj: Any) -> Any:
    # numpy scalars and arrays; numpy is imported only by the commands that produce them
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        if isinstance(obj, numpy.integer):
            return int(obj)
        if isinstance(obj, numpy.floating):
            return float(obj)
        if isinstance(obj, numpy.ndarray):
            return obj.tolist()
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def add_quiet_flag(parser: argparse.ArgumentParser) -> None:
    """Add ``--quiet`` (no progress on stderr) to a command that reports progress."""
    parser.add_argument("--quiet", action="store_true", help="no progress display on stderr")


class Progress:
    """The handle a running command advances; ``advance`` is a no-op when nothing is shown."""

    def __init__(self, advance: Callable[[float], None] | None = None) -> None:
        self._advance = advance

    def advance(self, amount: float = 1) -> None:
        """Count ``amount`` more units of work done."""
        if self._advance is not None:
            self._advance(amount)


_quiet = [False]  # set by ``quiet_progress`` for the running command


@contextmanager
def quiet_progress(quiet: bool) -> Iterator[None]:
    """While the block runs, ``quiet`` true turns every progress bar off (the command's ``--quiet``)."""
    saved, _quiet[0] = _quiet[0], bool(quiet)
    try:
        yield
    finally:
        _quiet[0] = saved


def progress_shown(enabled: bool = True) -> bool:
    """True when progress should be drawn: enabled, not ``--quiet``, and stderr is a terminal."""
    return enabled and not _quiet[0] and sys.stderr.isatty()


@contextmanager
def progress_bar(description: str, total: float | None, enabled: bool = True) -> Iterator[Progress]:
    """A progress bar on stderr while the block runs: only when stderr is a terminal and not ``--quiet``.

    Stdout is untouched, so pipes and ``--json`` output stay clean. ``total`` None: no known end.
    """
    if not progress_shown(enabled):
        yield Progress()
        return
    # imported here: start-up time (rich is only needed when a bar is drawn)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
    from rich.progress import Progress as RichProgress

    bar = RichProgress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    with bar:
        task = bar.add_task(description, total=total)
        yield Progress(lambda amount: bar.advance(task, amount))


def run_json_lines(path: str, evaluate: Callable[[str], dict[str, Any]]) -> int:
    """Evaluate each non-blank, non-comment line of ``path`` (``-`` = stdin); write one JSON object per line.

    A line that fails with ``InvalidInput`` gives ``{"line": N, "error": "..."}`` and the run goes on.
    """
    try:
        stream = sys.stdin if path == "-" else open(path, encoding="utf-8")
    except OSError as exc:
        raise InvalidInput("--file", f"cannot read {path!r}: {exc.strerror}") from None
    with stream:
        for number, line in enumerate(stream, 1):
            text = line.strip()
            if not text or text.startswith("#"):
                continue
            try:
                out = evaluate(text)
            except InvalidInput as exc:
                out = {"line": number, "error": str(exc)}
            sys.stdout.write(json.dumps(out, default=_json_default) + "\n")
    return 0
