"""Benchmark: the fast trick estimator's throughput against the HCP fit and the capture kernel.

    .venv/bin/python -m benchmarks estimator --n 1000000 --repeats 5

Random partnerships (declarer + partner suit masks). Timed: ``estimate_nt_tricks`` (NT only),
``estimate_tricks`` (all five strains), and as baselines in the same run a vectorised HCP linear
fit and ``capture_masks_batch`` (default reading). Estimates/s are medians of repeats
(rows per second; the five-strain call gives five estimates a row, reported as rows/s).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np


def random_partnerships(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Declarer and partner suit masks of ``n`` random deals."""
    rng = np.random.default_rng(seed)
    keys = rng.random((n, 52))
    order = np.argsort(keys, axis=1)
    seat = np.empty((n, 52), dtype=np.int64)
    np.put_along_axis(seat, order, np.repeat(np.arange(4), 13)[None, :].repeat(n, 0), axis=1)
    bits = (np.int64(1) << (np.arange(52) % 13)).astype(np.int64)
    suit = np.arange(52) // 13
    decl = np.zeros((n, 4), np.int64)
    part = np.zeros((n, 4), np.int64)
    for s in range(4):
        cols = suit == s
        decl[:, s] = ((seat[:, cols] == 0) * bits[cols]).sum(1)
        part[:, s] = ((seat[:, cols] == 2) * bits[cols]).sum(1)
    return decl, part


def hcp_fit(decl: np.ndarray, part: np.ndarray) -> np.ndarray:
    """Baseline: 0.3 + 0.25 * combined HCP (vectorised bit counting)."""
    both = decl | part
    hcp = np.zeros(len(both), np.int64)
    for r, pts in enumerate((4, 3, 2, 1)):
        hcp += ((both >> r) & 1).sum(axis=1) * pts
    return 0.3 + 0.25 * hcp


def main() -> None:
    """Run the benchmark and print JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()

    from tribridge.estimators.capture import capture_masks_batch
    from tribridge.estimators.tricks import estimate_nt_tricks, estimate_tricks

    decl, part = random_partnerships(args.n, 1)
    fns = {
        "trick_estimator_nt": lambda: estimate_nt_tricks(decl, part),
        "trick_estimator_all_strains_rows": lambda: estimate_tricks(decl, part),
        "hcp_fit_baseline": lambda: hcp_fit(decl, part),
        "capture_kernel_baseline": lambda: capture_masks_batch(decl, part),
    }
    for fn in fns.values():  # compile / warm up
        fn()
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(args.repeats):
        for name, fn in fns.items():
            t = time.perf_counter()
            fn()
            times[name].append(args.n / (time.perf_counter() - t))
    med = {k: statistics.median(v) for k, v in times.items()}
    print(
        json.dumps(
            {
                "n": args.n,
                "repeats": args.repeats,
                "per_s_median": {k: round(v) for k, v in med.items()},
                "ratio_nt_vs_hcp_fit": round(med["trick_estimator_nt"] / med["hcp_fit_baseline"], 3),
                "ratio_nt_vs_capture_kernel": round(med["trick_estimator_nt"] / med["capture_kernel_baseline"], 3),
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
