"""Benchmark: bidders' margins against PaperBidder scored from double-dummy tables, paired by deal and seat.

    .venv/bin/python -m benchmarks learned_tables --deals 8000 --bidders simulation,learned,learned:FILE.npz

Each bidder named is seated in each calling position of every deal in turn, two PaperBidders in
the other two; the auction is bid through ``DealState`` and the contract scored from the deal's
double-dummy tables (``selfplay.contracts.dd_trick_tables``: the declarer's hand and the widow
against the defenders, as every seat playing double dummy would make it), each player's score
minus the mean of the other two, averaged over the three positions. This is the quantity of
``python -m benchmarks learned --against paper`` (a match where every seat plays double dummy: the
six seatings are the three positions, each twice) with the play replaced by the tables, so one
table serves every bidder: SimulationBidder's margin is measured on the same deals and the target,
the learned bidder's margin minus SimulationBidder's, comes paired with its interval. The deals are
the first ``--deals`` of ``--seed``'s stream, by default the pool of ``train-bidder --pool``, whose
tables are then in the double-dummy cache already (solving 15 cells a deal otherwise, about 0.15 s a
deal on two cores); a network trained on that pool must be measured on another seed.
``learned:FILE`` is the learned bidder with the weights in FILE.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from benchmarks import mean_ci95, print_json
from tribridge.bots import get_bidder
from tribridge.cards import Deal, Seat
from tribridge.dealing.random import deal_batch
from tribridge.errors import InvalidInput
from tribridge.rules.deal import DealState
from tribridge.rules.game import bid_to_end
from tribridge.selfplay import BiddingBatch
from tribridge.selfplay.actions import action_of
from tribridge.selfplay.contracts import dd_trick_tables
from tribridge.selfplay.pool import POOL_SEED


def bidder_of(spec: str):
    """A bidder from ``name`` or ``learned:FILE`` (the learned bidder with those weights)."""
    name, _, weights = spec.partition(":")
    return get_bidder(name, weights=weights) if weights else get_bidder(name)


def auction_calls(bidder, owners: np.ndarray, dealers: np.ndarray, position: int) -> list[list[int]]:
    """Each deal's calls (call numbers) with ``bidder`` in calling ``position`` and PaperBidders elsewhere."""
    paper = get_bidder("paper")
    out = []
    for deal_owners, dealer in zip(owners, dealers):
        state = DealState.start(Deal.from_owners(deal_owners), Seat(int(dealer)))
        policies = {seat: (bidder.bid if k == position else paper.bid) for k, seat in enumerate(state.players)}
        out.append([action_of(call) for call in bid_to_end(state, policies).auction.calls])
    return out


def rewards(
    calls: list[list[int]], owners: np.ndarray, dealers: np.ndarray, tables: np.ndarray, position: int
) -> np.ndarray:
    """``float64[n]``: the relative reward of calling ``position`` when each auction ends as ``calls`` says."""
    n = len(owners)
    batch = BiddingBatch(n, tricks="dd", relative=True)
    batch.reset(owners=owners, dealers=dealers, dd_tables=tables)
    turn = 0
    while not batch.done.all():
        batch.step(np.array([c[turn] if turn < len(c) else 0 for c in calls]))
        turn += 1
    return batch.rewards[:, position].copy()


def per_deal(bidder, owners: np.ndarray, dealers: np.ndarray, tables: np.ndarray, label: str = "") -> np.ndarray:
    """``float64[n]``: the bidder's reward a deal, the mean over the three calling positions."""
    parts = []
    for position in range(3):
        calls = auction_calls(bidder, owners, dealers, position)
        parts.append(rewards(calls, owners, dealers, tables, position))
        print(f"\r{label or bidder.name}: position {position + 1}/3", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return np.mean(parts, axis=0)


def main(argv: list[str] | None = None) -> None:
    """Parse the arguments, solve (or read) the tables, bid every deal with every bidder; print (and write) JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=POOL_SEED, help="the deals' stream (default: train-bidder's pool)")
    parser.add_argument(
        "--bidders", default="simulation,learned", help="comma-separated; the first is the one the others pair with"
    )
    parser.add_argument("--out", default=None, help="also write the JSON here")
    args = parser.parse_args(argv)
    specs = [s.strip() for s in args.bidders.split(",") if s.strip()]
    if args.deals < 2 or not specs:
        parser.error("--deals needs at least 2 deals (for an interval) and --bidders at least one bidder")
    try:
        bidders = {spec: bidder_of(spec) for spec in specs}
    except (InvalidInput, OSError) as exc:
        parser.error(f"--bidders: {exc}")
    t0 = time.perf_counter()
    owners, dealers = deal_batch(args.deals, args.seed), np.arange(args.deals, dtype=np.int64) % 4
    tables = dd_trick_tables(owners, dealers)
    out: dict = {"deals": args.deals, "seed": args.seed, "seconds_tables": round(time.perf_counter() - t0, 1)}
    rows: dict[str, np.ndarray] = {}
    for spec in specs:
        t0 = time.perf_counter()
        rows[spec] = per_deal(bidders[spec], owners, dealers, tables, spec)
        mean, half = mean_ci95(rows[spec].tolist())
        paired, paired_half = mean_ci95((rows[spec] - rows[specs[0]]).tolist())
        out[spec] = {
            "margin_vs_paper": mean,
            "ci95": half,
            f"minus_{specs[0]}": paired,
            f"minus_{specs[0]}_ci95": paired_half,
            "seconds": round(time.perf_counter() - t0, 1),
        }
    print_json(out, args.out)


if __name__ == "__main__":
    main()
