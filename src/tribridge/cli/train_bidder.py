"""``tribridge train-bidder``: train the learned bidder's policy network by self-play (``bots.learned_train``)."""

from __future__ import annotations

import argparse

from tribridge.cli.common import add_model_output, print_report, progress_bar

# The training settings (``bots.learned_train.TrainConfig`` fields) the command takes: name, type, default, help.
SETTINGS: tuple[tuple[str, type, object, str], ...] = (
    ("seed", int, 1, "random seed"),
    ("iterations", int, 100, "training iterations"),
    ("batch", int, 1024, "auctions per iteration"),
    (
        "tricks",
        str,
        "estimate",
        "where a contract's tricks come from: the trick estimator, double dummy (slow), or spread: the expected "
        "score over a normal of deviation SPREAD around the estimator's tricks",
    ),
    ("spread", float, 0.9, "the deviation in tricks of the spread source (0.9: fitted to double dummy)"),
    ("hidden", int, 128, "units per hidden layer"),
    ("learning_rate", float, 5e-4, "Adam's step size"),
    ("temperature", float, 0.1, "the policy's softmax temperature in hundreds of points (exploration in training)"),
    ("reference", str, "paper", "the fixed reference bidder"),
    ("reference_share", float, 0.5, "share of the seats (but one per auction) the reference bidder plays in training"),
    (
        "reference_mix",
        str,
        "seat",
        "draw the reference's seats for each seat on its own, or for each auction (both other seats the reference, "
        "or all three the network)",
    ),
    ("eval_deals", int, 1000, "fixed deals of the reference curve"),
    ("eval_every", int, 1, "measure the curve every N iterations"),
    (
        "average",
        float,
        0.0,
        "keep a moving average of the weights, each iteration's weights with 1 - AVERAGE (0: off); the curve "
        "measures it and it is what is written",
    ),
    ("replay", int, 1, "learn each iteration from the decisions of the last N iterations (1: its own only)"),
    (
        "widow_samples",
        int,
        0,
        "give the network the trick estimator's tricks of its hand with N fixed draws of the widow (0: not)",
    ),
    (
        "pool",
        int,
        0,
        "with --tricks dd: draw the deals from a fixed pool of N deals whose double-dummy tables are solved first "
        "(cached; each drawn deal's suits renamed at random), and score the curve by double dummy (0: fresh deals, "
        "each contract solved as it ends)",
    ),
    (
        "rollouts",
        str,
        "sample",
        "how the network bids after a tried call in the rollouts: sampling its policy as in the training auctions, "
        "or greedy: its most valuable call, as it plays",
    ),
)
CHOICES: dict[str, list[str]] = {
    "tricks": ["estimate", "dd", "spread"],
    "reference": ["paper", "random"],
    "reference_mix": ["seat", "auction"],
    "rollouts": ["sample", "greedy"],
}


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``train-bidder`` command."""
    p = sub.add_parser(
        "train-bidder",
        help="train the learned bidder by self-play in the batched bidding environment",
        description="Deal BATCH fresh auctions per iteration from SEED, bid them with the network being trained "
        "(and, in a share of the seats, the reference bidder), score each contract from its tricks (the trick "
        "estimator, or double dummy: slow, unless from the tables of a fixed pool of deals solved first), and "
        "update the network (each call's value learned from rollouts that try every call of a decision, in "
        "numpy). Writes the weights to OUT and the curves (mean reward against the "
        "reference bidder on fixed deals, entropy, loss per iteration) to OUT with the suffix .json. The same "
        "arguments give the same files.",
    )
    for name, kind, default, text in SETTINGS:
        flag = "--" + name.replace("_", "-")
        choices = CHOICES.get(name)
        p.add_argument(flag, type=kind, default=default, choices=choices, help=f"{text} (default {default})")
    p.add_argument("--init", default=None, help="go on training these weights (an .npz of this command)")
    add_model_output(p, "learned_bidder.npz")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Train, then write the weights and the curves."""
    # imported here: start-up time
    import json
    from pathlib import Path

    from tribridge.bots.learned import PolicyNetwork
    from tribridge.bots.learned_train import TrainConfig, solve_tables, train_bidder

    config = TrainConfig(**{name: getattr(args, name) for name, *_ in SETTINGS}).check()
    start = PolicyNetwork.load(args.init) if args.init else None
    solved = None
    if config.pool:
        with progress_bar("double-dummy cells", 15 * (config.pool + config.eval_deals)) as bar:
            solved = solve_tables(config, on_progress=bar.advance)
    with progress_bar("iterations", config.iterations) as bar:
        result = train_bidder(config, policy=start, on_iteration=lambda _stats: bar.advance(), solved=solved)
    out = Path(args.out)
    curves_path = out.with_suffix(".json")
    result.policy.save(out)
    report = result.to_json()
    report["init"] = args.init
    curves_path.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    last = result.curves[-1]
    summary = {
        "iterations": config.iterations,
        "batch": config.batch,
        "seed": config.seed,
        "tricks": config.tricks,
        "reference": config.reference,
        "reward_vs_reference_start": round(result.start_reward_vs_reference, 2),
        "reward_vs_reference_end": None if last.reward_vs_reference is None else round(last.reward_vs_reference, 2),
        "reward_vs_reference_ci95": None
        if last.reward_vs_reference_ci95 is None
        else round(last.reward_vs_reference_ci95, 2),
        "entropy_end": round(last.entropy, 3),
        "seconds": round(result.seconds, 1),
        "out": str(out),
        "curves": str(curves_path),
    }
    print_report(summary, args.json)
    return 0
