"""Benchmark: the bots. PIMC time per card and per deal; PIMC declarer play against double dummy; bidders.

    .venv/bin/python -m benchmarks bots speed --deals 3     # or: python -m benchmarks pimc --deals 3
    .venv/bin/python benchmarks/bench_bots.py declarer --deals 500      # 3NT: PIMC and random declarer vs DD
    .venv/bin/python -m benchmarks declarer --deals 500 --workers 2 --no-random --check-plays 2  # with play checks (--oversample 3)
    .venv/bin/python benchmarks/bench_bots.py bidding --deals 2000      # simulation+dd vs paper+dd, 6 seatings

PIMC is told no auction (``use_auction=False``): a deal here starts from its contract, whose auction
"North 3NT, pass, pass" is the benchmark's, not bid by the players; ``--auction-facts`` makes PIMC read
those passes as facts (which draws other layouts: other tricks on some deals, and slower cards).

Targets (issue 6): PIMC ≤ 0.2 s per card with 32 layouts; PIMC declarer tricks − DD tricks at the
start of play ≥ −0.3 on average over 500 deals in 3NT; SimulationBidder beats PaperBidder with
the same play, 95 % interval excluding zero. Baselines run in the same process: the speed
benchmark reports the per-card time of one double-dummy solve of the real deal (what a
DoubleDummyPlayer pays); the declarer benchmark reports random declarer play on the same deals.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np


def _deal_3nt(seed: int, index: int):
    from tribridge.cards import random_deal
    from tribridge.rules.auction import Contract, Denom
    from tribridge.rules.play import PlayState

    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(index + 1)[index])
    deal = random_deal(rng)
    return PlayState.start(deal, Contract(3, Denom.NT, 0, 0))


def _play_out(state, declarer_player, defender_player, stats=None):
    """Play to the end: declarer (and dummy) by ``declarer_player``, defenders by ``defender_player``."""
    from tribridge.rules.deal import DealState

    game = DealState.from_play(state)
    while not game.is_terminal():
        assert game.turn is not None and game.contract is not None
        player = declarer_player if game.turn == game.contract.declarer else defender_player
        view = game.view(game.turn, reveal_all=bool(getattr(player, "sees_all", False)))
        t0 = time.perf_counter()
        card = player.play(view)
        if stats is not None and player is declarer_player:
            stats.append(time.perf_counter() - t0)
        game = game.apply(card)
    return game.declarer_tricks


def benchmark_pimc(layouts: int, first_trick_layouts: int, check_plays: int, oversample: int, auction_facts: bool):
    """The PIMC player of these benchmarks; ``auction_facts``: read the contract's two passes as facts."""
    from tribridge.bots.play import PimcPlayer

    return PimcPlayer(
        layouts=layouts,
        early_layouts=(first_trick_layouts,),
        check_plays=check_plays,
        oversample=oversample,
        use_auction=auction_facts,
    )


def bench_speed(args: argparse.Namespace) -> dict:
    """Time per card and per deal of PIMC (all four seats PIMC) against one DD solve per card."""
    from tribridge.bots.play import DoubleDummyPlayer
    from tribridge.rules.deal import DealState

    pimc = benchmark_pimc(args.layouts, args.first_trick_layouts, args.check_plays, args.oversample, args.auction_facts)
    dd = DoubleDummyPlayer()
    per_card: list[float] = []
    per_deal: list[float] = []
    dd_card: list[float] = []
    for i in range(args.deals):
        game = DealState.from_play(_deal_3nt(args.seed, i))
        t_deal = time.perf_counter()
        while not game.is_terminal():
            assert game.turn is not None
            view = game.view(game.turn)
            t0 = time.perf_counter()
            card = pimc.play(view)
            per_card.append(time.perf_counter() - t0)
            t1 = time.perf_counter()
            dd.candidates(game.view(game.turn, reveal_all=True))
            dd_card.append(time.perf_counter() - t1)
            game = game.apply(card)
        per_deal.append(time.perf_counter() - t_deal - sum(dd_card[-52:]))
    return {
        "layouts": args.layouts,
        "deals": args.deals,
        "check_plays": args.check_plays,
        "auction_facts": args.auction_facts,
        "pimc_s_per_card_median": statistics.median(per_card),
        "pimc_s_per_card_mean": statistics.fmean(per_card),
        "pimc_s_per_card_max": max(per_card),
        "pimc_s_per_deal_median": statistics.median(per_deal),
        "dd_solve_s_per_card_mean": statistics.fmean(dd_card),
        "ratio_pimc_to_one_dd_solve": statistics.fmean(per_card) / statistics.fmean(dd_card),
    }


def declarer_deal(
    seed: int,
    index: int,
    layouts: int,
    first_trick_layouts: int,
    with_random: bool,
    check_plays: int = 0,
    oversample: int = 3,
    auction_facts: bool = False,
) -> dict:
    """One 3NT deal: DD tricks at the start, PIMC declarer's tricks (and random declarer's) against DD defence."""
    from tribridge.bots.play import DoubleDummyPlayer, RandomPlayer
    from tribridge.dd import dd_nt_tricks

    pimc = benchmark_pimc(layouts, first_trick_layouts, check_plays, oversample, auction_facts)
    dd = DoubleDummyPlayer()
    state = _deal_3nt(seed, index)
    start = int(dd_nt_tricks([state.deal], 0, cache=False, workers=1)[0])
    t0 = time.perf_counter()
    tricks = _play_out(state, pimc, dd)
    out = {"deal": index, "dd": start, "pimc": tricks, "seconds": time.perf_counter() - t0}
    if with_random:
        out["random"] = _play_out(state, RandomPlayer(), dd)
    return out


def bench_declarer(args: argparse.Namespace) -> dict:
    """3NT by N: PIMC declarer and random declarer against double-dummy defenders; minus DD at the start."""
    import sys
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    jobs = [
        (
            args.seed,
            i,
            args.layouts,
            args.first_trick_layouts,
            not args.no_random,
            args.check_plays,
            args.oversample,
            args.auction_facts,
        )
        for i in range(args.first_deal, args.first_deal + args.deals)
    ]
    rows: list[dict] = []
    if args.workers > 1:
        with ProcessPoolExecutor(args.workers, mp_context=get_context("spawn")) as pool:
            for row in pool.map(declarer_deal, *zip(*jobs)):
                rows.append(row)
                print(f"\rdeclarer benchmark: {len(rows)}/{len(jobs)} deals", end="", file=sys.stderr, flush=True)
    else:
        for job in jobs:
            rows.append(declarer_deal(*job))
            print(f"\rdeclarer benchmark: {len(rows)}/{len(jobs)} deals", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(rows, fh)

    def ci(x: list[int]) -> float:
        return 1.96 * statistics.stdev(x) / len(x) ** 0.5 if len(x) > 1 else float("nan")

    diffs_pimc = [r["pimc"] - r["dd"] for r in rows]
    out = {
        "deals": len(rows),
        "first_deal": args.first_deal,
        "layouts": args.layouts,
        "first_trick_layouts": args.first_trick_layouts,
        "check_plays": args.check_plays,
        "oversample": args.oversample,
        "auction_facts": args.auction_facts,
        "defenders": "double dummy",
        "pimc_minus_dd_mean": statistics.fmean(diffs_pimc),
        "pimc_ci95": ci(diffs_pimc),
        "pimc_s_per_deal_median": statistics.median(r["seconds"] for r in rows),
    }
    if not args.no_random:
        diffs_random = [r["random"] - r["dd"] for r in rows]
        out.update({"random_minus_dd_mean": statistics.fmean(diffs_random), "random_ci95": ci(diffs_random)})
    return out


def bench_bidding(args: argparse.Namespace) -> dict:
    """SimulationBidder vs PaperBidder with the same play (double dummy by default), 6 seatings per deal."""
    from tribridge.sim.match import run_match

    play = args.play
    names = [f"simulation+{play}", f"paper+{play}", f"paper+{play}"]
    options = {
        names[0]: {"bidder": {"evaluator": args.evaluator, "layouts": args.bid_layouts, "objective": args.objective}}
    }
    if play == "pimc":
        for n in set(names):
            options.setdefault(n, {})["player"] = {
                "layouts": args.layouts,
                "first_trick_layouts": args.first_trick_layouts,
            }
    import sys

    done = [0]

    def progress(k: int) -> None:
        done[0] += k
        print(f"\rbidding benchmark: {done[0]}/{args.deals} deals", end="", file=sys.stderr, flush=True)

    t0 = time.perf_counter()
    result = run_match(names, args.deals, args.seed, workers=args.workers, options=options, on_progress=progress)
    print(file=sys.stderr)
    if args.out:
        np.save(args.out, result.per_deal)
    margin = result.per_deal[:, 0] - 0.5 * (result.per_deal[:, 1] + result.per_deal[:, 2])
    half = 1.96 * margin.std(ddof=1) / len(margin) ** 0.5 if len(margin) > 1 else float("nan")
    return {
        "bots": names,
        "deals": args.deals,
        "games": result.games,
        "play": play,
        "evaluator": args.evaluator,
        "bid_layouts": args.bid_layouts,
        "objective": args.objective,
        "play_layouts": args.layouts if play == "pimc" else None,
        "play_first_trick_layouts": args.first_trick_layouts if play == "pimc" else None,
        "seconds": time.perf_counter() - t0,
        "margin_simulation_minus_paper": float(margin.mean()),
        "ci95": float(half),
        "summary": [s.to_json() for s in result.summaries],
    }


def main(argv: list[str] | None = None) -> None:
    """Parse the benchmark name and run it; print JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", choices=["speed", "declarer", "bidding"])
    parser.add_argument("--deals", type=int, default=3)
    parser.add_argument("--layouts", type=int, default=32)
    parser.add_argument("--seed", type=int, default=2024)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--play", default="dd", choices=["dd", "pimc", "random"])
    parser.add_argument(
        "--evaluator",
        default="auto",
        choices=["dd", "estimate", "auto"],
        help="SimulationBidder's trick evaluator (bidding benchmark)",
    )
    parser.add_argument(
        "--bid-layouts",
        type=int,
        default=None,
        help="SimulationBidder's layouts (bidding benchmark; default 64 with the estimator, 8 with dd)",
    )
    parser.add_argument(
        "--objective",
        default="relative",
        choices=["relative", "own"],
        help="SimulationBidder's objective (bidding benchmark)",
    )
    parser.add_argument(
        "--first-trick-layouts",
        type=int,
        default=None,
        help="PIMC's layouts while the first trick is in progress (default: the player's default)",
    )
    parser.add_argument(
        "--check-plays",
        type=int,
        default=0,
        help="PIMC keeps layouts where the opponents' last N cards were double-dummy best (speed, declarer)",
    )
    parser.add_argument(
        "--oversample",
        type=int,
        default=None,
        help="with --check-plays: layouts drawn per layout kept (default: the player's, 3; speed, declarer)",
    )
    parser.add_argument(
        "--auction-facts",
        action="store_true",
        help="PIMC reads the contract's auction (North 3NT, pass, pass) as facts (speed, declarer; default: no auction)",
    )
    parser.add_argument("--first-deal", type=int, default=0, help="index of the first deal (declarer benchmark)")
    parser.add_argument(
        "--no-random", action="store_true", help="skip the random-declarer baseline (declarer benchmark)"
    )
    parser.add_argument(
        "--out",
        default=None,
        help="write the per-deal results here (declarer: JSON rows; bidding: .npy of per-deal scores)",
    )
    args = parser.parse_args(argv)
    if args.first_trick_layouts is None:
        from tribridge.bots.play import FIRST_TRICK_LAYOUTS

        args.first_trick_layouts = FIRST_TRICK_LAYOUTS
    if args.oversample is None:
        from tribridge.bots.play import OVERSAMPLE

        args.oversample = OVERSAMPLE
    out = {"speed": bench_speed, "declarer": bench_declarer, "bidding": bench_bidding}[args.name](args)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
