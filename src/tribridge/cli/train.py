"""``tribridge train-estimator``: label seeded deals double-dummy and fit the fast trick estimator."""

from __future__ import annotations

import argparse

from tribridge.cli.common import add_model_output, print_report, progress_bar
from tribridge.errors import InvalidInput


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``train-estimator`` command."""
    p = sub.add_parser(
        "train-estimator",
        help="fit the fast trick estimator on double-dummy labels",
        description="Deal DEALS random deals from SEED, label them with double-dummy tables through the cached "
        "facade (NT for all; all five strains for the first FULL_DEALS), fit the trick estimator "
        "and write its parameters. The same arguments give the same file.",
    )
    p.add_argument("--deals", type=int, default=8000, help="deals labelled with NT tables (default 8000)")
    p.add_argument(
        "--full-deals", type=int, default=1000, help="of those, deals labelled in all five strains (default 1000)"
    )
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument("--hidden", default="32", help="hidden layer sizes, comma separated; '' for linear (default 32)")
    p.add_argument("--epochs", type=int, default=30, help="training epochs (default 30)")
    p.add_argument("--weight-decay", type=float, default=1e-3, help="L2 weight decay (default 1e-3)")
    add_model_output(p, "trick_estimator.npz")
    p.add_argument("--workers", type=int, default=None, help="double-dummy worker processes (default: CPUs)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Train and save."""
    # imported here: start-up time
    from pathlib import Path

    from tribridge.sim.train_tricks import train_estimator

    if args.deals < 10:
        raise InvalidInput("deals", f"expected at least 10 deals, got {args.deals}")
    if args.full_deals < 0:
        raise InvalidInput("full-deals", f"expected >= 0, got {args.full_deals}")
    try:
        hidden = tuple(int(h) for h in args.hidden.split(",") if h.strip())
    except ValueError as exc:
        raise InvalidInput("hidden", f"expected comma-separated integers, got {args.hidden!r}") from exc
    total = args.deals + min(args.full_deals, args.deals)
    with progress_bar("double-dummy labels", total) as bar:
        model, report = train_estimator(
            args.deals,
            args.seed,
            args.full_deals,
            hidden,
            args.epochs,
            args.weight_decay,
            workers=args.workers,
            on_progress=bar.advance,
        )
    out = Path(args.out)
    model.save(out)
    report["out"] = str(out)
    print_report(report, args.json)
    return 0
