"""Benchmark: the game study (Table IV protocol) at the paper's size against the readable per-deal reference.

    .venv/bin/python benchmarks/bench_game_study.py                 # 3 runs × 10,000,000 deals, median of 3
    .venv/bin/python benchmarks/bench_game_study.py --deals 1000000 --repeats 3

Target (issue 4): 10,000,000 deals × 3 runs in under 60 s of wall time on 2 cores.
Baseline: ``game_deal_reference`` (rules engine + scalar NT call + scalar capture estimator + score_deal,
one deal at a time) on a subset of the same deals; the ratio compares per-deal times.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time


def main() -> None:
    """Time the engine (local backend) and the reference; print medians and the speed ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=10_000_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--reference-deals", type=int, default=3000)
    args = parser.parse_args()

    from tribridge.dealing.random import deal_batch
    from tribridge.sim.game_reference import game_deal_reference
    from tribridge.sim.game_study import GameParams, run_game

    params = GameParams(schemes=("classic", "tribridge"))
    run_game(65_536, 1, 0, params, workers=args.workers)  # warm the numba cache and the pool imports
    times = []
    result = None
    for _ in range(args.repeats):
        started = time.perf_counter()
        result = run_game(args.deals, args.runs, 1, params, workers=args.workers)
        times.append(time.perf_counter() - started)
    engine_median = statistics.median(times)
    engine_per_deal = engine_median / (args.deals * args.runs)

    owners = deal_batch(args.reference_deals, 1, 0)
    game_deal_reference(owners[0], 0, params)  # imports and compilation outside the timing
    ref_times = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        for i in range(args.reference_deals):
            game_deal_reference(owners[i], i, params)
        ref_times.append(time.perf_counter() - started)
    ref_per_deal = statistics.median(ref_times) / args.reference_deals

    print(f"cores: {os.cpu_count()}, workers: {args.workers}, load average at end: {os.getloadavg()}")
    print(
        f"engine: {args.runs} runs × {args.deals:,} deals: median {engine_median:.1f} s "
        f"(all: {', '.join(f'{t:.1f}' for t in times)}) -> {engine_per_deal * 1e6:.2f} µs/deal wall"
    )
    print(
        f"reference (one process, {args.reference_deals:,} deals): median {ref_per_deal * 1e6:.1f} µs/deal "
        f"-> {ref_per_deal * args.deals * args.runs / 3600:.1f} h for the same study"
    )
    print(f"speed-up engine vs reference: {ref_per_deal / engine_per_deal:,.0f}×")
    print(f"target < 60 s: {'met' if engine_median < 60 else 'NOT met'}")
    if result is not None:
        r = result["results"][0]
        print(
            f"run 1: opened {r['opened']:,}, made {r['made_pct']} %, both eligible {r['both_eligible']:,} "
            f"({r['both_eligible_made_pct']} % made)"
        )


if __name__ == "__main__":
    main()
