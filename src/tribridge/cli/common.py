"""Helpers shared by the command modules: JSON output, progress bars, argument parsing."""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from typing import Any, Iterator

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
