"""``tribridge train-belief``: play games with a mix of our bots, cut positions from them, fit the belief model."""

from __future__ import annotations

import argparse

from tribridge.cli.common import add_model_output, print_report, progress_bar
from tribridge.errors import InvalidInput


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``train-belief`` command."""
    p = sub.add_parser(
        "train-belief",
        help="fit the belief model of the hidden hands on games of our bots",
        description="Deal DEALS deals from SEED, bid them with a mix of bidders (simulation, paper, estimate, "
        "random) and play them with cheap card players (double dummy, PIMC with 4 layouts), take every "
        "player's view at the auction's end and at points in the play, and fit the belief model "
        "(multinomial logistic regression, Newton's method). The same arguments give the same file.",
    )
    p.add_argument("--deals", type=int, default=1000, help="deals to bid and play (default 1000)")
    p.add_argument("--seed", type=int, default=20, help="random seed (default 20)")
    p.add_argument("--workers", type=int, default=1, help="processes playing the games (default 1)")
    p.add_argument("--games", default=None, help="read the games from this JSON-lines file instead of playing them")
    p.add_argument("--games-out", default=None, help="also write the games played to this JSON-lines file")
    p.add_argument("--l2", type=float, default=1e-4, help="L2 penalty on the weights (default 1e-4)")
    p.add_argument("--iterations", type=int, default=12, help="most Newton steps (default 12)")
    add_model_output(p, "belief_model.npz")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Play (or read) the games, fit and save."""
    # imported here: start-up time
    import time
    from pathlib import Path

    from tribridge.bots.belief_games import generate_games, load_games, save_games
    from tribridge.bots.belief_model import BeliefModel
    from tribridge.bots.belief_train import build_data, fit_belief, log_likelihoods

    if args.deals < 1:
        raise InvalidInput("deals", f"expected at least one deal, got {args.deals}")
    if args.workers < 1:
        raise InvalidInput("workers", f"expected at least one worker, got {args.workers}")
    t0 = time.perf_counter()
    if args.games:
        records = load_games(args.games)[: args.deals]
    else:
        with progress_bar("games", args.deals) as bar:
            records = generate_games(args.deals, args.seed, workers=args.workers, on_progress=bar.advance)
        if args.games_out:
            save_games(records, args.games_out)
    t_games = time.perf_counter() - t0
    with progress_bar("positions", len(records)) as bar:
        data = build_data(records, on_progress=bar.advance)
    model, history = fit_belief(data, l2=args.l2, iterations=args.iterations)
    uniform = float(log_likelihoods(data, BeliefModel.uniform()).mean())
    fitted = float(log_likelihoods(data, model).mean())
    report = {
        "deals": len(records),
        "played": sum(not r.passed_out for r in records),
        "seed": args.seed,
        "positions": int(data.position.max()) + 1 if len(data) else 0,
        "rows": len(data),
        "weights": model.n_params,
        "train_loglik_per_card_uniform": uniform,
        "train_loglik_per_card_model": fitted,
        "newton_losses": history,
        "seconds_games": round(t_games, 1),
        "seconds_total": round(time.perf_counter() - t0, 1),
    }
    model.info = {k: report[k] for k in ("deals", "seed", "rows", "train_loglik_per_card_model")}
    out = Path(args.out)
    model.save(out)
    report["out"] = str(out)
    print_report(report, args.json)
    return 0
