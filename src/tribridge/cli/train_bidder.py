"""``tribridge train-bidder``: train the learned bidder's policy network by self-play (``bots.learned_train``)."""

from __future__ import annotations

import argparse

from tribridge.cli.common import print_json, progress_bar


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``train-bidder`` command."""
    p = sub.add_parser(
        "train-bidder",
        help="train the learned bidder by self-play in the batched bidding environment",
        description="Deal BATCH fresh auctions per iteration from SEED, bid them with the network being trained "
        "(and, in a share of the seats, the reference bidder), score each contract from its tricks (the trick "
        "estimator, or double dummy: slow), and update the network (each call's value learned from rollouts that try every "
        "call of a decision, in numpy). Writes the weights to OUT and the curves (mean reward against the reference "
        "bidder on fixed deals, entropy, losses per iteration) to OUT with the suffix .json. The same "
        "arguments give the same files.",
    )
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--iterations", type=int, default=100, help="training iterations (default 100)")
    p.add_argument("--batch", type=int, default=1024, help="auctions per iteration (default 1024)")
    p.add_argument(
        "--tricks",
        choices=["estimate", "dd"],
        default="estimate",
        help="where a contract's tricks come from: the trick estimator (default) or double dummy (slow)",
    )
    p.add_argument("--hidden", type=int, default=128, help="units per hidden layer (default 128)")
    p.add_argument("--learning-rate", type=float, default=5e-4, help="Adam's step size (default 0.0005)")
    p.add_argument(
        "--temperature",
        type=float,
        default=0.1,
        help="the policy's softmax temperature in hundreds of points (default 0.1; exploration in training)",
    )
    p.add_argument(
        "--reference", choices=["paper", "random"], default="paper", help="the fixed reference bidder (default paper)"
    )
    p.add_argument(
        "--reference-share",
        type=float,
        default=0.5,
        help="share of the seats (but one per auction) the reference bidder plays in training (default 0.5)",
    )
    p.add_argument("--eval-deals", type=int, default=1000, help="fixed deals of the reference curve (default 1000)")
    p.add_argument("--eval-every", type=int, default=1, help="measure the curve every N iterations (default 1)")
    p.add_argument("--init", default=None, help="go on training these weights (an .npz of this command)")
    p.add_argument(
        "--out",
        default="learned_bidder.npz",
        help="weights file (default ./learned_bidder.npz; the shipped one is src/tribridge/data/)",
    )
    p.add_argument("--json", action="store_true", help="print the training report as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Train, then write the weights and the curves."""
    # imported here: start-up time
    import json
    from pathlib import Path

    from tribridge.bots.learned import PolicyNetwork
    from tribridge.bots.learned_train import TrainConfig, train_bidder

    config = TrainConfig(
        seed=args.seed,
        iterations=args.iterations,
        batch=args.batch,
        tricks=args.tricks,
        hidden=args.hidden,
        learning_rate=args.learning_rate,
        temperature=args.temperature,
        reference=args.reference,
        reference_share=args.reference_share,
        eval_deals=args.eval_deals,
        eval_every=args.eval_every,
    ).check()
    start = PolicyNetwork.load(args.init) if args.init else None
    with progress_bar("iterations", config.iterations) as bar:
        result = train_bidder(config, policy=start, on_iteration=lambda _stats: bar.advance())
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
    if args.json:
        print_json(summary)
    else:
        for key, value in summary.items():
            print(f"{key}: {value}")
    return 0
