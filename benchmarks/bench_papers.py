"""Deals per second for dealing alone, dealing + NT call (levels 1–3), dealing + capture, against the paper's pandas procedure and endplay."""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from collections.abc import Callable

import numpy as np

SUITS = ["Clubs", "Diamonds", "Hearts", "Spades"]
RANKS = ["Ace", "King", "Queen", "Jack", "10", "9", "8", "7", "6", "5", "4", "3", "2"]


# ----------------------------------------------------------------- the paper's procedure (baseline)
# Written from Algorithm 1's text of the NT call paper: a deck of (suit, rank) pairs, random.sample of 13
# cards, a 4 x 13 pandas DataFrame of zeros set to 1 per card, per-row analysis stored in the frame, then the
# conditions and the count of ones.


def paper_deal_frame():
    """One hand as the paper builds it: random.sample from the deck into a DataFrame."""
    import pandas as pd

    deck = [(suit, rank) for suit in SUITS for rank in RANKS]
    hand = random.sample(deck, 13)
    df = pd.DataFrame(0, index=SUITS, columns=RANKS)
    for suit, rank in hand:
        df.loc[suit, rank] = 1
    return df


def paper_nt_call(df, call_count: int) -> str:
    """Algorithm 1 on the DataFrame: returns Yes / No / B failed / A failed."""
    k = 13 - call_count
    zeros_before, counts = [], []
    for suit in SUITS:
        row = df.loc[suit, RANKS]
        count_ones = int((row == 1).sum())
        zeros_before.append(13 if count_ones == 0 else int(list(row).index(1)))
        counts.append(count_ones)
    df["zeros_before_first_one"] = zeros_before
    df["count_ones"] = counts
    total = int(df["zeros_before_first_one"].sum())
    if total > k:
        return "A failed"
    if not all(df["count_ones"] > df["zeros_before_first_one"]):
        return "B failed"
    count_of_one, remaining = 4, k - total
    for suit in SUITS:
        row = list(df.loc[suit, RANKS])
        ones = [i for i, v in enumerate(row) if v == 1]
        for i in range(len(ones) - 1):
            between = ones[i + 1] - ones[i] - 1
            if between <= remaining:
                count_of_one += 1
                remaining -= between
    return "Yes" if count_of_one >= call_count else "No"


def paper_two_hand_frame():
    """Two hands (declarer 1, partner 2) in one DataFrame, in the same style, for the capture baseline."""
    import pandas as pd

    deck = [(suit, rank) for suit in SUITS for rank in RANKS]
    cards = random.sample(deck, 26)
    df = pd.DataFrame(0, index=SUITS, columns=RANKS)
    for i, (suit, rank) in enumerate(cards):
        df.loc[suit, rank] = 1 if i < 13 else 2
    return df


# ----------------------------------------------------------------- measurement


def _rate(fn: Callable[[], int], repeats: int) -> dict:
    rates = []
    for _ in range(repeats):
        t = time.perf_counter()
        n = fn()
        rates.append(n / (time.perf_counter() - t))
    return {"median_per_s": statistics.median(rates), "repeats": [round(r, 1) for r in rates]}


def bench(kind: str, n: int, baseline_n: int, repeats: int) -> dict:
    """One benchmark: ours on all cores and on one core, the pandas procedure and endplay, with ratios."""
    import numba

    from tribridge.dealing.random import deal_batch, deal_hand_masks
    from tribridge.estimators.capture import capture, capture_masks_batch
    from tribridge.estimators.nt_call import nt_call, nt_call_batch

    def ours() -> int:
        if kind == "dealing":
            deal_batch(n, 1)
        elif kind == "nt":
            masks = deal_hand_masks(n, 1, 1)[:, 0]
            for level in (1, 2, 3):
                nt_call_batch(masks, level)
        else:
            masks = deal_hand_masks(n, 1, 2)
            capture_masks_batch(masks[:, 0], masks[:, 1])
        return n

    def pandas_baseline() -> int:
        for _ in range(baseline_n):
            if kind == "dealing":
                paper_deal_frame()
            elif kind == "nt":
                df = paper_deal_frame()
                for call_count in (7, 8, 9):
                    paper_nt_call(
                        df.drop(columns=["zeros_before_first_one", "count_ones"], errors="ignore"), call_count
                    )
            else:
                df = paper_two_hand_frame()
                capture(df.to_numpy())
        return baseline_n

    def endplay_baseline() -> int:
        from endplay.dealer import generate_deals

        from tribridge.cards import Hand

        count = 0
        for deal in generate_deals(produce=baseline_n * 10):
            if kind != "dealing":
                north = Hand.from_pbn(deal.north.to_pbn())
                south = Hand.from_pbn(deal.south.to_pbn())
                if kind == "nt":
                    for level in (1, 2, 3):
                        nt_call(north.masks(), level)
                else:
                    state = np.zeros((4, 13), dtype=int)
                    for c in north.cards:
                        state[c // 13, c % 13] = 1
                    for c in south.cards:
                        state[c // 13, c % 13] = 2
                    capture(state)
            count += 1
        return count

    ours()  # load the compiled kernels
    threads = numba.config.NUMBA_NUM_THREADS
    all_cores = _rate(ours, repeats)
    numba.set_num_threads(1)
    one_core = _rate(ours, repeats)
    numba.set_num_threads(threads)
    pandas = _rate(pandas_baseline, repeats)
    endplay = _rate(endplay_baseline, repeats)
    return {
        "benchmark": kind,
        "deals": n,
        "threads": threads,
        "cpu_count": os.cpu_count(),
        "ours_all_cores": all_cores,
        "ours_one_core": one_core,
        "pandas_paper_procedure": pandas,
        "endplay_generate_deals": endplay,
        "ratio_one_core_vs_pandas": round(one_core["median_per_s"] / pandas["median_per_s"], 1),
        "ratio_all_cores_vs_endplay": round(all_cores["median_per_s"] / endplay["median_per_s"], 1),
        "load_average": os.getloadavg()[0],
    }


def main(argv: list[str] | None = None) -> int:
    """CLI: ``python -m benchmarks {dealing,nt,capture,all} [--deals N] [--json FILE]``."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks papers", description=__doc__)
    parser.add_argument("which", choices=["dealing", "nt", "capture", "all"], nargs="?", default="all")
    parser.add_argument("--deals", type=int, default=2_000_000, help="deals per repeat for our kernels")
    parser.add_argument("--baseline-deals", type=int, default=200, help="deals per repeat for the pandas baseline")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", default=None, help="also write the results to this JSON file")
    args = parser.parse_args(argv)
    kinds = ["dealing", "nt", "capture"] if args.which == "all" else [args.which]
    results = []
    for kind in kinds:
        r = bench(kind, args.deals, args.baseline_deals, args.repeats)
        results.append(r)
        print(
            f"{kind:8s} ours {r['ours_all_cores']['median_per_s']:>13,.0f}/s all cores ({r['threads']} threads), "
            f"{r['ours_one_core']['median_per_s']:>13,.0f}/s one core | pandas (paper) "
            f"{r['pandas_paper_procedure']['median_per_s']:>9,.0f}/s | endplay {r['endplay_generate_deals']['median_per_s']:>9,.0f}/s "
            f"| one core / pandas {r['ratio_one_core_vs_pandas']:,.0f}x | all cores / endplay {r['ratio_all_cores_vs_endplay']:,.0f}x "
            f"(load {r['load_average']:.1f})"
        )
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
