"""Benchmark: the learned bidder against PaperBidder and SimulationBidder, every seat playing double dummy.

    .venv/bin/python -m benchmarks learned --deals 2000 --against paper --out benchmarks/results/learned_paper.json
    .venv/bin/python -m benchmarks learned --deals 500 --against simulation --workers 2
    .venv/bin/python -m benchmarks learned --bidder learned-sim --deals 2000 --against paper

Each match is ``learned+dd`` (or ``--bidder learned-sim``: the network averaged with
SimulationBidder where it is unsure) against two copies of the other bidder (``paper+dd`` or
``simulation+dd``), every deal bid under all six seatings (``sim.match.run_match``); since every seat
plays double dummy, only the bidding differs. The margin is, per deal, the learned bidder's mean
score minus the other bidder's, averaged over the deals with a 95 % interval. Target: against
``paper`` the margin exceeds SimulationBidder's against PaperBidder under the same play (+6.4 ± 1.6
points a deal on 500 deals with the estimator's earlier parameters, +7.61 ± 0.90 on the same 2,000
deals as this benchmark's when the learned bidder was added; ``python -m benchmarks bidding``
measures it; ``--paired`` plays it here too, on the same deals, and pairs the two margins deal by
deal). The time per call of the learned bidder (and of ``--bidder``'s) and of SimulationBidder is
measured on the same views, the calls of the first match deals, in order, by fresh bidders: the
learned bidder computes a hand's widow inputs at its first call with the hand and remembers them
for its later calls, as at a table.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Any

import numpy as np

from benchmarks import mean_ci95, print_json

SIMULATION_VS_PAPER = (7.61, 0.90, 2000)
"""SimulationBidder's margin against PaperBidder, double-dummy play (points a deal, 95 % ±, deals)."""


BIDDERS = ("learned", "learned-sim")
"""The bidders this benchmark measures (``--bidder``)."""


def time_per_call(deals: int, seed: int, weights: str | None = None, bidder: str = "learned") -> dict[str, float]:
    """Median and mean seconds per call of the learned bidder, ``bidder`` and SimulationBidder on the views of ``deals`` deals."""
    from tribridge.bots import get_bidder
    from tribridge.rules.deal import DealState
    from tribridge.sim.match import deal_for

    simulation = get_bidder("simulation")
    timed = {name: get_bidder(name, weights=weights) for name in dict.fromkeys(("learned", bidder))}
    views = []
    for i in range(deals):
        deal, dealer = deal_for(seed, i, deals)
        state = DealState.start(deal, dealer)
        while state.phase == "auction":
            assert state.turn is not None
            view = state.view(state.turn)
            views.append(view)
            state = state.apply(simulation.bid(view))  # the auctions SimulationBidder bids: realistic views
    out: dict[str, float] = {"views": float(len(views))}
    for name, timed_bidder in [*timed.items(), ("simulation", simulation)]:
        seconds = []
        for view in views:
            t0 = time.perf_counter()
            timed_bidder.bid(view)
            seconds.append(time.perf_counter() - t0)
        out[f"{name}_s_per_call_median"] = statistics.median(seconds)
        out[f"{name}_s_per_call_mean"] = statistics.fmean(seconds)
    return out


def play(names: list[str], deals: int, seed: int, workers: int, options: dict | None = None) -> tuple[Any, np.ndarray]:
    """(the match's result, ``float64[deals]``: the first bot's score minus the mean of the other two, by deal)."""
    from tribridge.sim.match import run_match

    done = [0]

    def progress(k: int) -> None:
        done[0] += k
        print(f"\r{names[0]} against {names[1]}: {done[0]}/{deals} deals", end="", file=sys.stderr, flush=True)

    result = run_match(names, deals, seed, workers=workers, on_progress=progress, options=options)
    print(file=sys.stderr)
    return result, result.per_deal[:, 0] - 0.5 * (result.per_deal[:, 1] + result.per_deal[:, 2])


def run(
    against: str, deals: int, seed: int, workers: int, weights: str | None = None, bidder: str = "learned"
) -> tuple[dict, np.ndarray]:
    """One match: ``bidder``+dd against two copies of ``against``+dd; (its summary, the margins by deal).

    ``weights``: the network's ``.npz`` (default: the shipped weights).
    """
    names = [f"{bidder}+dd", f"{against}+dd", f"{against}+dd"]
    t0 = time.perf_counter()
    options = {names[0]: {"bidder": {"weights": weights}}} if weights else None
    result, margin = play(names, deals, seed, workers, options)
    summary = {
        "bots": names,
        "deals": deals,
        "games": result.games,
        "seed": seed,
        "weights": weights or "shipped",
        "seconds": round(time.perf_counter() - t0, 1),
        "margin_learned_minus_other": float(margin.mean()),
        "ci95": mean_ci95(margin.tolist())[1],
        "passed_out": result.passed_out,
        "summary": [s.to_json() for s in result.summaries],
    }
    return summary, margin


def simulation_pairing(margin: np.ndarray, deals: int, seed: int, workers: int) -> dict:
    """SimulationBidder's margin against PaperBidder on the same deals, and ``margin`` minus it, paired by deal."""
    t0 = time.perf_counter()
    _, simulation = play(["simulation+dd", "paper+dd", "paper+dd"], deals, seed, workers)
    simulation_margin, simulation_half = mean_ci95(simulation.tolist())
    difference, difference_half = mean_ci95((margin - simulation).tolist())
    return {
        "simulation_margin": simulation_margin,
        "simulation_ci95": simulation_half,
        "minus_simulation": difference,
        "minus_simulation_ci95": difference_half,
        "seconds": round(time.perf_counter() - t0, 1),
    }


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, run the matches and the timing; print (and write) JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument(
        "--against", default="paper,simulation", help="comma-separated bidders to play against (default both)"
    )
    parser.add_argument("--timing-deals", type=int, default=20, help="deals whose views time the bidders (0: skip)")
    parser.add_argument("--bidder", default="learned", choices=BIDDERS, help="the bidder measured (default learned)")
    parser.add_argument("--weights", default=None, help="the network's weights (.npz; default the shipped ones)")
    parser.add_argument(
        "--paired",
        action="store_true",
        help="against paper, also play SimulationBidder against PaperBidder on the same deals and pair the margins",
    )
    parser.add_argument("--out", default=None, help="also write the JSON here")
    args = parser.parse_args(argv)
    opponents = [a.strip() for a in args.against.split(",") if a.strip()]
    if args.paired and "paper" not in opponents:
        parser.error("--paired pairs the margin against paper with SimulationBidder's: --against must name paper")
    out: dict = {"simulation_vs_paper_reference": dict(zip(("margin", "ci95", "deals"), SIMULATION_VS_PAPER))}
    for against in opponents:
        out[f"vs_{against}"], margin = run(against, args.deals, args.seed, args.workers, args.weights, args.bidder)
        if args.paired and against == "paper":
            out["vs_paper"]["paired_with_simulation"] = simulation_pairing(margin, args.deals, args.seed, args.workers)
    if args.timing_deals:
        out["time_per_call"] = time_per_call(args.timing_deals, args.seed, args.weights, args.bidder)
    print_json(out, args.out)


if __name__ == "__main__":
    main()
