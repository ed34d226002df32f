"""Benchmark: the learned belief model, held out, and PIMC with it in defence and as declarer.

    .venv/bin/python -m benchmarks belief eval --games held_out.jsonl      # or --deals 300 --seed 21
    .venv/bin/python -m benchmarks belief defence --deals 100 --workers 2   # DD declarer, PIMC defenders
    .venv/bin/python -m benchmarks belief declarer --deals 100 --workers 2 --auction none  # 3NT by N

``eval``: log-likelihood per uncertain card (cards more than one hidden hand may hold) of the
model's probabilities and of the uniform consistent sampler's (the baseline), per trick number,
and calibration (predicted against observed frequency in bins) for both, on positions from games
not used in training (a different seed). The sampler's probabilities are exact when every
uncertain card may lie in the same hands (then they are in proportion to the cards each hand
holds); otherwise they are estimated from ``--sampler-draws`` layouts of the sampler.

``defence`` and ``declarer``: the same deals played twice, by today's PIMC (``--old pimc``) and by
PIMC with the model (``--new pimc-model``), paired. A player is a registry name with options,
``name[,key=value...]``, a value being a number, ``none`` or ints joined by ``-``
(``pimc-model,early_layouts=12,time_budget=none``). Deals are bid by SimulationBidder in all
three chairs (``--auction simulation``, passed-out deals skipped) or are 3NT by North with no
bidding of their own (``--auction none``: the deal starts from the contract, whose auction is North's
3NT and two passes, and PIMC reads those passes; the same deals as ``bench_bots declarer`` for equal
seeds). Defence:
declarer (and dummy) double dummy, both defenders PIMC; the defenders' tricks given away are the
declarer's tricks minus its double-dummy tricks at the start. Declarer: PIMC declarer against
double-dummy defenders; the declarer's tricks minus double dummy. Reported: means with 95 %
intervals for each player, the paired difference, and seconds per deal.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np


def _ci(values: list[float]) -> float:
    return 1.96 * statistics.stdev(values) / len(values) ** 0.5 if len(values) > 1 else float("nan")


# --------------------------------------------------------------------------------------------
# Held-out evaluation
# --------------------------------------------------------------------------------------------


def sampler_probabilities(features, rng: np.random.Generator, draws: int) -> tuple[np.ndarray, bool]:
    """The uniform consistent sampler's P(card in seat), float[52, 4]; and whether it is exact."""
    from tribridge.bots.belief import sample_layouts

    allowed = features.allowed
    rows = allowed.any(axis=1)
    share = np.where(allowed, features.needs[None, :].astype(float), 0.0)
    total = share.sum(axis=1, keepdims=True)
    proportional = np.divide(share, total, out=np.zeros_like(share), where=total > 0)
    if len({tuple(r) for r in allowed[rows]}) <= 1:
        return proportional, True
    layouts = sample_layouts(features.position.knowledge(), draws, rng).layouts
    counts = np.stack([(layouts == s).sum(axis=0) for s in range(4)], axis=1).astype(float)
    return np.where(allowed, (counts + proportional) / (len(layouts) + 1.0), 0.0), False


def bench_eval(args: argparse.Namespace) -> dict:
    """Held-out log-likelihood and calibration of the model against the uniform consistent sampler."""
    from tribridge.bots.belief_features import view_features
    from tribridge.bots.belief_games import game_views, generate_games, load_games
    from tribridge.bots.belief_model import BeliefModel, default_belief_model
    from tribridge.bots.belief_train import calibration_table
    from tribridge.dealing.streams import random_stream

    model = BeliefModel.load(args.model) if args.model else default_belief_model()
    if args.games:
        records = load_games(args.games)[: args.deals]
    else:
        records = generate_games(args.deals, args.seed, workers=args.workers)
    rng = random_stream(args.seed, 1)
    per_trick: dict[int, dict[str, list[float]]] = {}
    model_pairs: list[np.ndarray] = []
    sampler_pairs: list[np.ndarray] = []
    outcomes: list[np.ndarray] = []
    positions = exact = 0
    game_gains: list[float] = []
    for record in records:
        gains: list[float] = []
        for view, owners in game_views(record):
            features = view_features(view)
            cards = np.flatnonzero(features.allowed.sum(axis=1) >= 2)
            if not len(cards):
                continue
            positions += 1
            p_model = model.probabilities(features)[cards]
            p_sampler, is_exact = sampler_probabilities(features, rng, args.sampler_draws)
            p_sampler = p_sampler[cards]
            exact += int(is_exact)
            truth = owners[cards].astype(np.int64)
            hit = np.zeros_like(p_model)
            hit[np.arange(len(cards)), truth] = 1.0
            mask = features.allowed[cards]
            model_pairs.append(p_model[mask])
            sampler_pairs.append(p_sampler[mask])
            outcomes.append(hit[mask])
            row = per_trick.setdefault(len(view.played) // 4, {"model": [], "sampler": []})
            ll_model = np.log(p_model[np.arange(len(cards)), truth])
            ll_sampler = np.log(p_sampler[np.arange(len(cards)), truth])
            row["model"].extend(ll_model.tolist())
            row["sampler"].extend(ll_sampler.tolist())
            gains.extend((ll_model - ll_sampler).tolist())
        if gains:
            game_gains.append(statistics.fmean(gains))
    all_model = [v for r in per_trick.values() for v in r["model"]]
    all_sampler = [v for r in per_trick.values() for v in r["sampler"]]
    diffs = [m - s for r in per_trick.values() for m, s in zip(r["model"], r["sampler"])]
    return {
        "games": len(records),
        "played": sum(not r.passed_out for r in records),
        "seed": args.seed,
        "model": args.model or "shipped",
        "positions": positions,
        "positions_sampler_exact": exact,
        "cards": len(all_model),
        "loglik_per_card_model": statistics.fmean(all_model),
        "loglik_per_card_sampler": statistics.fmean(all_sampler),
        "loglik_gain": statistics.fmean(diffs),
        "loglik_gain_ci95_by_game": _ci(game_gains),
        "loglik_gain_games_better": sum(g > 0 for g in game_gains),
        "per_trick": {
            str(t): {
                "cards": len(r["model"]),
                "model": statistics.fmean(r["model"]),
                "sampler": statistics.fmean(r["sampler"]),
            }
            for t, r in sorted(per_trick.items())
        },
        "calibration_model": calibration_table(np.concatenate(model_pairs), np.concatenate(outcomes)),
        "calibration_sampler": calibration_table(np.concatenate(sampler_pairs), np.concatenate(outcomes)),
    }


# --------------------------------------------------------------------------------------------
# Defence and declarer play, old against new, paired
# --------------------------------------------------------------------------------------------


def _bid_deal(seed: int, index: int, auction: str):
    """The DealState at the start of play of deal ``index``, or None if it was passed out."""
    from tribridge.bots import get_bidder
    from tribridge.cards import random_deal
    from tribridge.dealing.streams import random_stream
    from tribridge.rules.auction import Contract, Denom
    from tribridge.rules.deal import DealState
    from tribridge.rules.game import checked_call
    from tribridge.rules.play import PlayState

    deal = random_deal(random_stream(seed, index))
    if auction == "none":
        return DealState.from_play(PlayState.start(deal, Contract(3, Denom.NT, 0, 0)))
    bidder = get_bidder(auction)
    state = DealState.start(deal, index % 4)
    while state.phase == "auction":
        player = state.turn
        assert player is not None
        state = state.apply(checked_call(bidder.bid, state, player))
    return state if state.play is not None else None


def _play(state, declarer_player, defender_player) -> tuple[int, list[float], list[int]]:
    """Play to the end; the declarer's tricks, the seconds per PIMC card and the distinct layouts solved."""
    from tribridge.rules.game import checked_card

    times: list[float] = []
    distinct: list[int] = []
    while not state.is_terminal():
        player = state.turn
        assert player is not None and state.contract is not None
        bot = declarer_player if player == state.contract.declarer else defender_player
        t0 = time.perf_counter()
        card = checked_card(bot, state, player)
        if not getattr(bot, "sees_all", False):
            times.append(time.perf_counter() - t0)
            last = getattr(bot, "last", None)
            if last is not None and last.sample is not None:
                distinct.append(len(last.sample.layouts))
        state = state.apply(card)
    return int(state.declarer_tricks), times, distinct


def _number(text: str) -> int | float | None:
    """An int, a float, or None for ``none``."""
    if text.strip().lower() == "none":
        return None
    try:
        return int(text)
    except ValueError:
        return float(text)


def player_spec(text: str) -> tuple[str, dict]:
    """``name[,key=value...]`` as (name, options); a value is a number, ``none``, or ints joined by ``-``."""
    name, *pairs = [part.strip() for part in text.split(",")]
    options: dict = {}
    for pair in pairs:
        key, sep, value = (part.strip() for part in pair.partition("="))
        try:
            if not sep:
                raise ValueError(pair)
            numbers = tuple(_number(v) for v in value.split("-"))
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected key=number (or ints a-b-c), got {pair!r}") from None
        options[key] = numbers if len(numbers) > 1 or key == "early_layouts" else numbers[0]
    return name, options


def paired_deal(seed: int, index: int, mode: str, auction: str, options: dict, specs: dict) -> dict | None:
    """One deal played by the old and the new PIMC (as defenders or as declarer) against double dummy."""
    from tribridge.bots import get_player
    from tribridge.bots.play import DoubleDummyPlayer
    from tribridge.dd import dd_declarer_tricks

    state = _bid_deal(seed, index, auction)
    if state is None:
        return None
    contract = state.contract
    assert contract is not None and state.play is not None
    dd = int(
        dd_declarer_tricks(
            state.play.deal.to_owners()[None, :], int(contract.declarer), int(contract.denom), cache=False, workers=1
        )[0]
    )
    out: dict = {"deal": index, "contract": str(contract), "dd": dd}
    for name in ("old", "new") if specs["old"] is not None else ("new",):
        pimc = get_player(specs[name][0], **{**options, **specs[name][1]})
        if mode == "defence":
            tricks, times, distinct = _play(state, DoubleDummyPlayer(), pimc)
        else:
            tricks, times, distinct = _play(state, pimc, DoubleDummyPlayer())
        out[name] = tricks
        out[f"{name}_card_s"] = times
        out[f"{name}_layouts"] = distinct
    return out


def _baseline_rows(spec: str) -> dict[int, dict]:
    """``FILE:COLUMN`` of an earlier run's ``--out`` rows as the old player's results, by deal."""
    path, _, column = spec.rpartition(":")
    if not path:
        raise SystemExit(f"--baseline: expected FILE:COLUMN (e.g. rows.json:new), got {spec!r}")
    with open(path) as fh:
        rows = json.load(fh)
    if rows and column not in rows[0]:
        raise SystemExit(f"--baseline: {path} has no column {column!r} (it has {', '.join(rows[0])})")
    return {
        r["deal"]: {"dd": r["dd"], "old": r[column], "old_card_s": r.get(f"{column}_card_s", []), "old_layouts": []}
        for r in rows
    }


def _baseline_for(baseline: dict[int, dict], row: dict) -> dict:
    """The baseline's row for ``row``'s deal; exits if the deal is missing or its double-dummy tricks differ."""
    stored = baseline.get(row["deal"])
    if stored is None or stored["dd"] != row["dd"]:
        raise SystemExit(f"--baseline: deal {row['deal']} is missing or was another deal (double dummy differs)")
    return stored


def bench_paired(args: argparse.Namespace) -> dict:
    """The old player against the new (``--old``, ``--new``, or ``--baseline`` rows) on the same deals, as defenders or declarer."""
    options = {"layouts": args.layouts}
    if args.first_trick_layouts is not None:
        options["early_layouts"] = (args.first_trick_layouts,)
    baseline = _baseline_rows(args.baseline) if args.baseline else None
    specs = {"old": None if baseline else args.old, "new": args.new}
    jobs = [
        (args.seed, i, args.name, args.auction, options, specs)
        for i in range(args.first_deal, args.first_deal + args.deals)
    ]
    rows: list[dict] = []
    skipped = 0
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.workers, mp_context=get_context("spawn")) as pool:
        for row in pool.map(paired_deal, *zip(*jobs)):
            if row is None:
                skipped += 1
            else:
                if baseline is not None:
                    row.update(_baseline_for(baseline, row))
                rows.append(row)
            print(
                f"\r{args.name} benchmark: {len(rows) + skipped}/{len(jobs)} deals", end="", file=sys.stderr, flush=True
            )
    print(file=sys.stderr)
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(rows, fh)
    # declarer: its tricks minus double dummy (<= 0 against DD defence); defence: the same number, now
    # the tricks the defenders gave away (>= 0 against a DD declarer)
    old = [r["old"] - r["dd"] for r in rows]
    new = [r["new"] - r["dd"] for r in rows]
    label = "declarer_tricks_minus_dd" if args.name == "declarer" else "tricks_given_away"
    times_old = [t for r in rows for t in r["old_card_s"]]
    times_new = [t for r in rows for t in r["new_card_s"]]
    diff = [n - o for n, o in zip(new, old)]
    old_layouts = [n for r in rows for n in r["old_layouts"]]
    return {
        "benchmark": args.name,
        "auction": args.auction,
        "deals": len(rows),
        "passed_out_skipped": skipped,
        "seed": args.seed,
        "first_deal": args.first_deal,
        "options": options,
        "old_player": args.baseline or args.old,
        "new_player": args.new,
        f"old_{label}_mean": statistics.fmean(old),
        "old_ci95": _ci(old),
        f"new_{label}_mean": statistics.fmean(new),
        "new_ci95": _ci(new),
        "new_minus_old_mean": statistics.fmean(diff),
        "new_minus_old_ci95": _ci(diff),
        "deals_differing": sum(d != 0 for d in diff),
        "old_s_per_card_mean": statistics.fmean(times_old) if times_old else None,
        "old_s_per_card_max": max(times_old, default=None),
        "new_s_per_card_mean": statistics.fmean(times_new),
        "new_s_per_card_max": max(times_new),
        "new_to_old_time_ratio": statistics.fmean(times_new) / statistics.fmean(times_old) if times_old else None,
        "old_distinct_layouts_mean": statistics.fmean(old_layouts) if old_layouts else None,
        "new_distinct_layouts_mean": statistics.fmean(n for r in rows for n in r["new_layouts"]),
        "seconds": time.perf_counter() - t0,
    }


def main(argv: list[str] | None = None) -> None:
    """Parse the benchmark name and run it; print JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("name", choices=["eval", "defence", "declarer"])
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--seed", type=int, default=21, help="held-out seed (training uses 20 by default)")
    parser.add_argument("--first-deal", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--games", default=None, help="eval: read held-out games from this JSON-lines file")
    parser.add_argument("--model", default=None, help="eval: a model file (default: the shipped one)")
    parser.add_argument("--sampler-draws", type=int, default=2000, help="eval: layouts for the sampler's estimate")
    parser.add_argument("--auction", default="simulation", choices=["simulation", "paper", "none"])
    parser.add_argument("--layouts", type=int, default=32, help="PIMC layouts (defence, declarer)")
    parser.add_argument("--first-trick-layouts", type=int, default=None, help="PIMC layouts in trick one (both)")
    parser.add_argument("--old", type=player_spec, default=("pimc", {}), help="the old player: name[,key=value...]")
    parser.add_argument(
        "--baseline", default=None, help="FILE:COLUMN: an earlier run's --out rows stand in for the old player"
    )
    parser.add_argument("--new", type=player_spec, default=("pimc-model", {}), help="the new player, the same way")
    parser.add_argument("--out", default=None, help="defence, declarer: write the per-deal rows here (JSON)")
    args = parser.parse_args(argv)
    out = bench_eval(args) if args.name == "eval" else bench_paired(args)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
