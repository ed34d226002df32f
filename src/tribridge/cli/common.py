"""Helpers shared by the command modules: JSON output, progress bars, argument parsing."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn


def print_json(data: Any) -> None:
    """Print ``data`` as indented JSON on stdout."""
    json.dump(data, sys.stdout, indent=2, sort_keys=False, default=_json_default)
    sys.stdout.write("\n")


def _json_default(obj: Any) -> Any:
    try:
        import numpy as np

        if isinstance(obj, np.integer):
            return int(obj)
        if isinstance(obj, np.floating):
            return float(obj)
        if isinstance(obj, np.ndarray):
            return obj.tolist()
    except ImportError:  # pragma: no cover
        pass
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


@contextmanager
def progress_bar(description: str, total: float | None, enabled: bool = True) -> Iterator[Any]:
    """A rich progress bar on stderr (shown after a second, hidden when ``enabled`` is false)."""
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        transient=True,
        disable=not enabled or not sys.stderr.isatty(),
    )
    with progress:
        task = progress.add_task(description, total=total)

        class _Handle:
            def advance(self, amount: float = 1) -> None:
                progress.advance(task, amount)

        yield _Handle()


def run_json_lines(path: str, evaluate: "Callable[[str], dict[str, Any]]") -> int:
    """Evaluate each non-blank, non-comment line of ``path`` (``-`` = stdin); write one JSON object per line.

    A line that fails with ``InvalidInput`` gives ``{"line": N, "error": "..."}`` and the run goes on.
    """
    from tribridge.errors import InvalidInput

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
