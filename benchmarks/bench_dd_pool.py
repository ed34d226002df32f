"""Benchmark: a waiting person's solve during a batch flood, priority classes against first come first served.

    .venv/bin/python -m benchmarks dd_pool --workers 2 --samples 12 --depth 4

One solver pool of ``--workers`` processes. The "interactive" job is one PIMC-sized decision: the
double-dummy scores of 32 layouts a few cards into the play (``dd.solve_positions``). The flood keeps
``--depth`` jobs waiting at all times, each a batch of full DD tables (``dd.dd_tables_array`` on
``--flood-deals`` deals, solved in the process), or with ``--flood-sleep S`` a sleep of S seconds
(no CPU: the scheduler alone, readable on a busy machine). Three modes in the same run, ``--samples``
interactive jobs each (submit to result, in seconds):

- ``idle``: no flood (the floor);
- ``priority``: the flood in class BATCH, the interactive job in class INTERACTIVE;
- ``fifo`` (baseline): the interactive job in class BATCH too, so it waits behind the flood as it
  would behind one shared lock.

Reports median and 95th percentile per mode and the ratios fifo/priority and priority/idle.
The machine is shared: figures taken while others run are noisy.
"""

from __future__ import annotations

import argparse
import json
import statistics
import threading
import time
from typing import Any

import numpy as np

from tribridge import dd
from tribridge.cards import random_deal
from tribridge.dd import Priority, SolverPool
from tribridge.rules.trick import legal_cards


def decision_positions(rng: np.random.Generator, layouts: int, cards_played: int) -> list[dd.Position]:
    """``layouts`` positions after ``cards_played`` random legal cards (one random deal per layout)."""
    out = []
    for _ in range(layouts):
        deal = random_deal(rng)
        played: list[int] = []
        pos = dd.position_after(deal, None, 1, played)
        for _ in range(cards_played):
            led = pos.trick[0] // 13 if pos.trick else None
            legal = legal_cards(pos.hands[pos.turn], led)
            played.append(legal[int(rng.integers(len(legal)))])
            pos = dd.position_after(deal, None, 1, played)
        out.append(pos)
    return out


class Flood:
    """Keeps ``depth`` BATCH jobs waiting on the pool until stopped: table batches, or sleeps of ``sleep`` s."""

    def __init__(self, pool: SolverPool, deals: np.ndarray, depth: int, sleep: float | None) -> None:
        self.pool, self.deals, self.sleep, self.stopped = pool, deals, sleep, threading.Event()
        for _ in range(depth):
            self._add()

    def _add(self) -> None:
        if self.stopped.is_set():
            return
        if self.sleep is not None:
            fut = self.pool.submit(time.sleep, self.sleep, priority=Priority.BATCH)
        else:
            fut = self.pool.submit(dd.dd_tables_array, self.deals, cache=False, workers=1, priority=Priority.BATCH)
        fut.add_done_callback(lambda _f: self._add())

    def stop(self) -> None:
        """Stop refilling and wait until the pool is idle."""
        self.stopped.set()
        while not self.pool.idle():
            time.sleep(0.05)


def measure(pool: SolverPool, decisions: list[list[dd.Position]], priority: Priority) -> list[float]:
    """Seconds from submit to result of each decision, one at a time."""
    out = []
    for positions in decisions:
        time.sleep(0.1)
        start = time.perf_counter()
        pool.call(dd.solve_positions, positions, priority=priority)
        out.append(time.perf_counter() - start)
    return out


def summary(values: list[float]) -> dict[str, float]:
    """Median and 95th percentile (nearest rank), in seconds."""
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(np.ceil(0.95 * len(ordered))) - 1)]
    return {"median_s": round(statistics.median(ordered), 4), "p95_s": round(p95, 4)}


def main() -> None:
    """Run the benchmark and print JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--samples", type=int, default=12)
    ap.add_argument("--depth", type=int, default=4, help="flood jobs kept waiting")
    ap.add_argument("--flood-deals", type=int, default=10, help="deals per flood job (full tables)")
    ap.add_argument(
        "--flood-sleep",
        type=float,
        default=None,
        help="flood jobs sleep this many seconds instead (the scheduler alone, whatever the CPU load)",
    )
    ap.add_argument("--layouts", type=int, default=32)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()

    rng = np.random.default_rng(args.seed)
    decisions = [decision_positions(rng, args.layouts, 5) for _ in range(args.samples)]
    flood_deals = np.stack([random_deal(rng).to_owners() for _ in range(args.flood_deals)])
    pool = SolverPool(workers=args.workers, queue_limits={Priority.BATCH: args.depth + args.samples + 1})
    results: dict[str, Any] = {}
    try:
        for _ in range(args.workers):  # start the processes outside the timings
            pool.call(dd.solve_positions, decisions[0][:1], priority=Priority.INTERACTIVE)
        results["idle"] = measure(pool, decisions, Priority.INTERACTIVE)
        for mode, priority in (("priority", Priority.INTERACTIVE), ("fifo", Priority.BATCH)):
            flood = Flood(pool, flood_deals, args.depth, args.flood_sleep)
            results[mode] = measure(pool, decisions, priority)
            flood.stop()
    finally:
        pool.shutdown()
    stats = {mode: summary(v) for mode, v in results.items()}
    print(
        json.dumps(
            {
                "workers": args.workers,
                "samples": args.samples,
                "depth": args.depth,
                "flood_deals": args.flood_deals,
                "flood_sleep": args.flood_sleep,
                "layouts": args.layouts,
                "seconds": stats,
                "ratio_fifo_vs_priority_median": round(stats["fifo"]["median_s"] / stats["priority"]["median_s"], 2),
                "ratio_priority_vs_idle_median": round(stats["priority"]["median_s"] / stats["idle"]["median_s"], 2),
                "raw": {mode: [round(x, 4) for x in v] for mode, v in results.items()},
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
