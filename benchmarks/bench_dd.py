"""Benchmark: double-dummy NT tables through the facade, cold and cached, against endplay called directly.

    .venv/bin/python -m benchmarks dd --deals 200 --repeats 3 --workers 2

Cold: a fresh cache file each repeat, NT-only tables (all four declarers) through ``dd.dd_tables_array``
and single-declarer NT tricks through ``dd.dd_nt_tricks``. Baseline (same run): endplay's
``calc_all_tables`` in this process (DDS's own threads), NT only, chunks of 200. Cached: the same
deals asked again from the cache. Reports deals/s (medians of repeats) and the ratios.
The machine is shared: figures taken while others run are noisy.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np


def main() -> None:
    """Run the benchmark and print JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()

    from endplay.dds import calc_all_tables
    from endplay.types import Deal as EpDeal
    from endplay.types import Denom

    from tribridge import dd
    from tribridge.cards import Deal

    rng = np.random.default_rng(args.seed)
    base = np.repeat(np.arange(4, dtype=np.uint8), 13)
    results: dict[str, list[float]] = {
        k: [] for k in ("endplay_nt_tables", "facade_nt_tables_cold", "facade_nt_tricks_cold", "facade_cached")
    }
    dd.dd_tables_array(
        np.stack([rng.permutation(base) for _ in range(4)]), nt_only=True, cache=False, workers=args.workers
    )  # start the worker pool outside the timings
    for _ in range(args.repeats):
        owners = np.stack([rng.permutation(base) for _ in range(args.deals)])
        ep_deals = [EpDeal(Deal.from_owners(o).to_pbn()) for o in owners]
        t = time.perf_counter()
        for i in range(0, len(ep_deals), 200):
            calc_all_tables(ep_deals[i : i + 200], exclude=list(Denom.suits()))
        results["endplay_nt_tables"].append(args.deals / (time.perf_counter() - t))
        with tempfile.TemporaryDirectory() as tmp:
            cache = dd.DDCache(Path(tmp) / "c.sqlite")
            t = time.perf_counter()
            tables = dd.dd_tables_array(owners, nt_only=True, cache=cache, workers=args.workers)
            results["facade_nt_tables_cold"].append(args.deals / (time.perf_counter() - t))
            t = time.perf_counter()
            again = dd.dd_tables_array(owners, nt_only=True, cache=cache, workers=args.workers)
            results["facade_cached"].append(args.deals / (time.perf_counter() - t))
            assert (again == tables).all()
            cache.close()
        with tempfile.TemporaryDirectory() as tmp:
            cache = dd.DDCache(Path(tmp) / "c.sqlite")
            t = time.perf_counter()
            tricks = dd.dd_nt_tricks(owners, 0, cache=cache, workers=args.workers)
            results["facade_nt_tricks_cold"].append(args.deals / (time.perf_counter() - t))
            assert (tricks == tables[:, 0, dd.NT]).all()
            cache.close()
    med = {k: statistics.median(v) for k, v in results.items()}
    print(
        json.dumps(
            {
                "deals": args.deals,
                "repeats": args.repeats,
                "workers": args.workers,
                "deals_per_s_median": {k: round(v, 1) for k, v in med.items()},
                "ratio_facade_tables_vs_endplay": round(med["facade_nt_tables_cold"] / med["endplay_nt_tables"], 2),
                "ratio_nt_tricks_vs_endplay_tables": round(med["facade_nt_tricks_cold"] / med["endplay_nt_tables"], 2),
                "ratio_cached_vs_cold_tables": round(med["facade_cached"] / med["facade_nt_tables_cold"], 1),
                "raw": {k: [round(x, 1) for x in v] for k, v in results.items()},
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
