"""Benchmark: riffle-shuffle dealing throughput and the exact first-order DP.

    .venv/bin/python benchmarks/bench_shuffles.py --deals 100000 --repeats 5

Sampler: the vectorised forward 2^k-shuffle + deal (``deal_bridge``) against a plain
per-deal Python GSR riffle applied k times (the baseline, same run); reports deals/s of
both and the ratio (medians of repeats).  DP: time of the exact ascent-minus-descent law
for 4 hands of 13 (cold: cache cleared each repeat) against enumerating the words of a
small case by brute force is not comparable, so it is reported alone.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from tribridge.dealing import randomness as R
from tribridge.dealing.shuffles import deal_bridge, dealing_pattern


def python_gsr_deal(rng: np.random.Generator, shuffles: int, pattern: list[int]) -> list[int]:
    """Baseline: k GSR riffles of a list (binomial cut, drop proportional to packet sizes), then deal."""
    deck = list(range(52))
    for _ in range(shuffles):
        cut = int(rng.binomial(52, 0.5))
        left, right = deck[:cut], deck[cut:]
        out = []
        i = j = 0
        while i < len(left) or j < len(right):
            rest_l, rest_r = len(left) - i, len(right) - j
            if rng.random() * (rest_l + rest_r) < rest_l:
                out.append(left[i])
                i += 1
            else:
                out.append(right[j])
                j += 1
        deck = out
    owners = [0] * 52
    for pos, card in enumerate(deck):
        owners[card] = pattern[pos]
    return owners


def main() -> None:
    """Run the benchmark and print JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=100_000)
    ap.add_argument("--baseline-deals", type=int, default=5_000)
    ap.add_argument("--shuffles", type=int, default=7)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    pattern = dealing_pattern("cyclic", 4, 13)
    rng = np.random.default_rng(1)
    fast, slow, dp = [], [], []
    for _ in range(args.repeats):
        t = time.perf_counter()
        deal_bridge(rng, args.shuffles, pattern, size=args.deals)
        fast.append(args.deals / (time.perf_counter() - t))
        t = time.perf_counter()
        plist = pattern.tolist()
        for _ in range(args.baseline_deals):
            python_gsr_deal(rng, args.shuffles, plist)
        slow.append(args.baseline_deals / (time.perf_counter() - t))
        R.clear_pair_statistic_cache()
        t = time.perf_counter()
        R.ascent_descent_distribution([13] * 4)
        dp.append(time.perf_counter() - t)
    out = {
        "vectorised_deals_per_s": statistics.median(fast),
        "python_gsr_deals_per_s": statistics.median(slow),
        "ratio": statistics.median(fast) / statistics.median(slow),
        "exact_ascent_descent_dp_s": statistics.median(dp),
        "shuffles": args.shuffles,
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
