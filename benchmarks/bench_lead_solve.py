"""Benchmark: how long one double-dummy solve of an opening lead takes (the dearest call PIMC makes).

    nice -n 19 .venv/bin/python -m benchmarks lead_solve --deals 40 --seed 5

Each random deal is solved at trick one (all 52 cards, West to lead) in no-trump and with spades trumps,
one position per DDS call, twice: every lead scored (DDS ``solutions=3``, what PIMC's opening lead asks
for) and the best leads only (``solutions=2``, the baseline of the same run). DDS keeps what it learnt
about a deal between calls, so its memory is freed before every timed solve, and one untimed solve first
takes DDS's start-up cost out of the figures. Reports the median, 90th
percentile and largest time a solve for each, and the median of the per-position ratios. The machine
is shared: figures taken while others run are noisy.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time

from tribridge.cards import Deal
from tribridge.dd.dds import require_dds
from tribridge.dd.position import Position, position_after
from tribridge.dd.solve import solve_positions
from tribridge.dealing.random import deal_batch

WEST, SPADES = 3, 3


def _timed_solve(position: Position, best_only: bool) -> float:
    """Seconds for one cold solve of ``position``."""
    dds = require_dds()
    dds.FreeMemory()
    dds.SetMaxThreads(0)  # FreeMemory leaves DDS needing its threads set up again
    start = time.perf_counter()
    solve_positions([position], best_only=best_only)
    return time.perf_counter() - start


def _summary(times: list[float]) -> dict[str, float]:
    """Median, 90th percentile (nearest rank) and largest of ``times``."""
    ordered = sorted(times)
    return {
        "median_s": round(statistics.median(ordered), 4),
        "p90_s": round(ordered[math.ceil(0.9 * len(ordered)) - 1], 4),
        "max_s": round(ordered[-1], 4),
    }


def main() -> None:
    """Run the benchmark and print JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args()
    if args.deals < 1:
        ap.error("--deals must be at least 1")
    deals = [Deal.from_owners(row) for row in deal_batch(args.deals, args.seed)]
    out: dict[str, object] = {"deals": args.deals, "seed": args.seed}
    warm_up = Deal.from_owners(deal_batch(1, args.seed + 1)[0])
    _timed_solve(position_after(warm_up, None, WEST, ()), best_only=False)
    for name, trump in (("notrump", None), ("spades", SPADES)):
        every, best = [], []
        for deal in deals:
            position = position_after(deal, trump, WEST, ())
            every.append(_timed_solve(position, best_only=False))
            best.append(_timed_solve(position, best_only=True))
        ratios = [e / b for e, b in zip(every, best) if b > 0]
        out[name] = {
            "every_lead": _summary(every),
            "best_leads_only": _summary(best),
            "every_over_best_median": round(statistics.median(ratios), 2),
            "solves_over_1s": sum(t > 1.0 for t in every),
        }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
