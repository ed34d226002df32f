"""Benchmark: what a call shows (``bots.call_meaning``) costs against the bidder's own call, per bidder.

    .venv/bin/python -m benchmarks call_meaning                          # every bidder, 3 positions
    .venv/bin/python -m benchmarks call_meaning --bidders paper learned --positions 5 --json

For each bidder and each of ``--positions`` public positions (auctions of 0 to 4 calls, passes and bids of the
two cheapest levels, from ``--seed``), the baseline is one call of the bidder on a random hand at that position (the bot's own turn);
the measured cost is the meaning of that position with the bidder's default sample budget, the cache emptied
first. Reported per bidder: the median of each over the positions, their ratio, and the mean number of hands
kept (the seat's earlier calls reject some).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from tribridge.bots import BIDDER_NAMES, call_meaning, get_bidder
from tribridge.cards import Hand, Seat
from tribridge.dealing.streams import random_stream
from tribridge.rules.auction import PASS, AuctionState
from tribridge.rules.view import bidding_view


def positions(count: int, seed: int) -> list[AuctionState]:
    """``count`` auctions of 0 to 4 calls that are not over: a pass 60 % of the time, else a bid of one of the two
    cheapest levels open (an auction as bots bid it, not a random jump to the seven level)."""
    out = []
    for i in range(count):
        rng = random_stream(seed, i)
        state = AuctionState.start(Seat(int(rng.integers(4))))
        for _ in range(int(rng.integers(5))):
            legal = state.legal_calls()
            low = [c for c in legal if c.is_bid and c.level <= min(b.level for b in legal if b.is_bid) + 1]
            call = PASS if PASS in legal and (rng.random() < 0.6 or not low) else low[int(rng.integers(len(low)))]
            if state.apply(call).is_over:
                break
            state = state.apply(call)
        out.append(state)
    return out


def measure(name: str, auctions: list[AuctionState], seed: int) -> dict[str, float]:
    """Median seconds of one call and of one position's meaning for the bidder ``name``."""
    bidder = get_bidder(name)
    hand = Hand.from_cards(int(c) for c in random_stream(seed).permutation(52)[:13])
    bidder.bid(
        bidding_view(call_meaning.calling_seat(auctions[0]), hand, auctions[0])
    )  # load models and kernels outside the timing
    calls, meanings, kept = [], [], []
    for auction in auctions:
        start = time.perf_counter()
        bidder.bid(bidding_view(call_meaning.calling_seat(auction), hand, auction))
        calls.append(time.perf_counter() - start)
        call_meaning.cache_clear()
        start = time.perf_counter()
        found = call_meaning.position_meanings(name, auction, seed=seed)
        meanings.append(time.perf_counter() - start)
        kept.append(len(found.hands))
    call_s, meaning_s = statistics.median(calls), statistics.median(meanings)
    return {
        "call_s": round(call_s, 4),
        "meaning_s": round(meaning_s, 3),
        "ratio": round(meaning_s / call_s, 1),
        "runs": call_meaning.runs_for(name),
        "hands_kept": float(np.mean(kept)),
    }


def main(argv: list[str]) -> int:
    """Run the benchmark and print a table (or JSON)."""
    parser = argparse.ArgumentParser(prog="benchmarks call_meaning")
    parser.add_argument("--bidders", nargs="+", default=list(BIDDER_NAMES), choices=BIDDER_NAMES)
    parser.add_argument("--positions", type=int, default=3)
    parser.add_argument("--seed", type=int, default=53)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    auctions = positions(args.positions, args.seed)
    results = {name: measure(name, auctions, args.seed) for name in args.bidders}
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{'bidder':12} {'call s':>8} {'meaning s':>10} {'ratio':>7} {'runs':>5} {'hands kept':>10}")
    for name, r in results.items():
        print(
            f"{name:12} {r['call_s']:8.4f} {r['meaning_s']:10.3f} {r['ratio']:7.1f} {r['runs']:5d} {r['hands_kept']:10.1f}"
        )
    return 0
