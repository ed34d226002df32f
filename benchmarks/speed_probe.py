"""How fast the machine runs the interpreter during a measurement: a fixed piece of work timed on a thread.

A benchmark's CPU per operation moves with the machine as well as with the code: on a shared virtual machine the
same single-process run of ``server_scale`` has cost 1.1 ms of CPU an action in one spell and 2.0 ms in another,
and the load generator's CPU per action moved with it. ``SpeedProbe`` runs :func:`probe_work` (dictionary and
JSON work, like a server's) every ``every`` seconds on a thread of the benchmark's own process while a run lasts,
and reports the median CPU time one piece took (``median_ms``): dividing a run's CPU per action by it compares
runs made in different spells of the machine.
"""

from __future__ import annotations

import json
import statistics
import threading
import time
from types import TracebackType

__all__ = ["PROBE_EVERY", "SpeedProbe", "probe_work"]

PROBE_EVERY = 0.25  # seconds between two pieces of work (a piece takes about 5 ms: 2 % of one CPU)
PIECE = 3000  # JSON encodings in one piece of work


def probe_work(size: int = PIECE) -> int:
    """A fixed piece of interpreter work (dictionary updates and JSON encodings); returns a checksum."""
    seen: dict[int, str] = {}
    for i in range(size):
        seen[i % 97] = json.dumps({"seq": i, "card": "SA", "chairs": [i, i + 1, i + 2]})
    return sum(len(text) for text in seen.values())


class SpeedProbe:
    """Times :func:`probe_work` on a thread while the ``with`` block runs (``median_ms`` afterwards)."""

    def __init__(self, every: float = PROBE_EVERY) -> None:
        if every <= 0:
            raise ValueError(f"every must be > 0 seconds, got {every}")
        self.every = every
        self.samples_ms: list[float] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="speed-probe", daemon=True)

    def __enter__(self) -> SpeedProbe:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            start = time.thread_time()
            probe_work()
            self.samples_ms.append(1000 * (time.thread_time() - start))

    @property
    def median_ms(self) -> float | None:
        """The median CPU milliseconds of one piece of work, None before any piece was timed."""
        return round(statistics.median(self.samples_ms), 3) if self.samples_ms else None
