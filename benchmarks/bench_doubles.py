"""Benchmark: SimulationBidder pricing a doubled escape as doubled, against itself without it.

    nice -n 10 .venv/bin/python -m benchmarks doubles --deals 300 --seed 2026 --workers 2

One SimulationBidder at its defaults (``doubled_from=2``: once another bidder has doubled, a contract it
would declare is scored as doubled where it fails by two tricks or more) against two with
``doubled_from=99`` (the bidder before the change, which scored every escape from a double as undoubled).
Every deal of the match stream is bid in all six seatings; every seat plays double dummy, so only the bidding
differs. Margin = the new bidder's score minus the mean of the other two, a mean per deal over the six
seatings, with a 95 % interval over the deals. Also counted: games ending in a seven-level contract doubled.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp

import numpy as np


def _deals(task: tuple[int, int, int, int]) -> list[tuple[int, float, int]]:
    """(deal, margin over the six seatings, seven-level doubled games) for deals lo..hi-1."""
    from tribridge.bots import get_bot
    from tribridge.sim.match import assignments, deal_for, play_game

    seed, n, lo, hi = task
    bots = [get_bot("simulation+dd")] + [
        get_bot("simulation+dd", bidder_options={"doubled_from": 99}) for _ in range(2)
    ]
    out = []
    for i in range(lo, hi):
        deal, dealer = deal_for(seed, i, n)
        cache: dict = {}
        margins, seven_doubled = [], 0
        for seating in assignments():
            game = play_game(deal, dealer, bots, seating, "classic", cache)
            margins.append(game.bot_scores[0] - (game.bot_scores[1] + game.bot_scores[2]) / 2)
            seven_doubled += bool(game.contract and game.contract.startswith("7") and "X" in game.contract)
        out.append((i, float(np.mean(margins)), seven_doubled))
    return out


def main(argv: list[str] | None = None) -> None:
    """Run the paired comparison and print it as JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    if args.deals < 2 or args.workers < 1:
        ap.error("--deals must be at least 2 and --workers at least 1")
    parts = 4 * args.workers
    tasks = [(args.seed, args.deals, k * args.deals // parts, (k + 1) * args.deals // parts) for k in range(parts)]
    with mp.get_context("spawn").Pool(args.workers) as pool:
        rows = sorted(r for part in pool.map(_deals, tasks) for r in part)
    margins = np.array([r[1] for r in rows])
    half = 1.96 * margins.std(ddof=1) / np.sqrt(len(margins))
    print(
        json.dumps(
            {
                "deals": len(rows),
                "seed": args.seed,
                "margin_per_deal": round(float(margins.mean()), 2),
                "ci95": round(float(half), 2),
                "seven_level_doubled_games": sum(r[2] for r in rows),
                "games": 6 * len(rows),
            }
        )
    )


if __name__ == "__main__":
    main()
