"""A ``bidding4`` run's bookkeeping: a progress line while the deals are bid, and each bidder's per-deal loss
to par kept (``--per-deal``) so that a later run on the same deals is paired with it (``--pair-with``).

    .venv/bin/python -m benchmarks bidding4 --deals 2000 --seed 59 --per-deal before.json   # at one commit
    .venv/bin/python -m benchmarks bidding4 --deals 2000 --seed 59 --pair-with before.json  # at the next
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks import mean_ci95

__all__ = ["PROGRESS_SECONDS", "DealProgress", "paired_with", "save_per_deal"]

PROGRESS_SECONDS = 60.0  # a line on stderr at most this often while a bidder bids the deals


class DealProgress:
    """``progress(done)`` after each deal: a line on stderr (what, deals done, minutes) once a minute, so an
    hour's run of the search says how far it is; a bidder done within the minute says nothing."""

    def __init__(self, what: str, total: int) -> None:
        self.what, self.total = what, total
        self.started = self.shown = time.perf_counter()

    def __call__(self, done: int) -> None:
        now = time.perf_counter()
        if now - self.shown >= PROGRESS_SECONDS or (done == self.total and self.shown > self.started):
            self.shown = now
            minutes = (now - self.started) / 60
            print(f"bidding4: {self.what}, {done}/{self.total} deals, {minutes:.1f} min", file=sys.stderr, flush=True)


def _run_key(seed: int, deals: int, skip: int) -> dict[str, int]:
    return {"seed": seed, "deals": deals, "scored_from": skip}


def save_per_deal(path: Path, seed: int, deals: int, skip: int, lost: dict[str, np.ndarray]) -> None:
    """Write each bidder's IMPs lost to par on each scored deal (``lost``, positive) to ``path`` as JSON."""
    body = {**_run_key(seed, deals, skip), "imps_lost": {name: [float(x) for x in v] for name, v in lost.items()}}
    path.write_text(json.dumps(body) + "\n", encoding="utf-8")


def paired_with(path: Path, seed: int, deals: int, skip: int, lost: dict[str, np.ndarray]) -> dict[str, object]:
    """Each bidder of this run and the earlier one at ``path`` (``save_per_deal``'s file of the same deals): the
    earlier run's loss minus this one's a deal (positive: this run loses less) with a 95 % interval, and the
    deals whose loss changed. ``SystemExit`` naming the field when the file is of other deals."""
    try:
        earlier = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise SystemExit(f"--pair-with: cannot read {path}: {exc}") from None
    for field, value in _run_key(seed, deals, skip).items():
        if earlier.get(field) != value:
            raise SystemExit(f"--pair-with: {path} has {field} {earlier.get(field)!r}, this run {value!r}")
    out: dict[str, object] = {}
    for name in [n for n in lost if n in earlier.get("imps_lost", {})]:
        diff = np.asarray(earlier["imps_lost"][name], dtype=np.float64) - lost[name]
        mean, half = mean_ci95(diff.tolist())
        changed = int((diff != 0).sum())
        out[name] = {
            "mean": round(mean, 3),
            "ci95": [round(mean - half, 3), round(mean + half, 3)],
            "deals_changed": changed,
        }
        print(
            f"{name}: earlier run minus this one, IMPs lost a deal {mean:+.3f} [{mean - half:+.3f}, {mean + half:+.3f}],"
            f" {changed} deals changed",
            file=sys.stderr,
        )
    return out
