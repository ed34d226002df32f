"""``tribridge shuffle ...``: how random are the hands after riffle shuffles, for each way of dealing."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``shuffle`` command group (tv, deal, best-pattern, report)."""
    p = sub.add_parser(
        "shuffle",
        help="riffle shuffles and dealing methods: how random are the hands",
        description="Total variation of the deck or of the dealt hands after riffle shuffles (docs/shuffling.md).",
    )
    cmds = p.add_subparsers(dest="shuffle_command", metavar="SUBCOMMAND")

    tv = cmds.add_parser(
        "tv",
        help="Bayer–Diaconis exact TV of the whole deck order",
        description="Exact total variation from uniform of the order of N distinct cards "
        "after k GSR riffle shuffles (Bayer–Diaconis formula, exact rationals).",
    )
    tv.add_argument("--cards", type=int, default=52, help="number of distinct cards (default 52)")
    tv.add_argument("--shuffles", default="1-10", help="riffles, e.g. 1-10 or 5,6,7 (default 1-10)")
    tv.add_argument("--json", action="store_true", help='print JSON {"tv": {"1": ..., ...}}')
    tv.set_defaults(func=run_tv)

    deal = cmds.add_parser(
        "deal",
        help="first-order constant and TV of the dealt hands",
        description="How random are the hands after riffles and a deal: the first-order "
        "constant lim a*TV (exact where possible) and, with --shuffles, the TV "
        "per number of riffles (exact for decks of at most 9 cards, otherwise "
        "Monte Carlo on a feature of the deal, with standard errors).",
    )
    _deal_arguments(deal)
    deal.add_argument(
        "--pattern",
        default="cyclic",
        help="ordered, cyclic, back-and-forth, or a word of NESW / digits 1..K (default cyclic)",
    )
    deal.add_argument("--exact", action="store_true", help="refuse Monte Carlo: fail unless the result is exact")
    deal.add_argument("--shuffles", default=None, help="also report TV after these riffles, e.g. 1-10")
    deal.add_argument(
        "--feature",
        default=None,
        help="Monte Carlo feature of the deal: ascent-descent, suits or colors "
        "(default: ascent-descent for distinct cards, else by deck)",
    )
    deal.add_argument("--samples", type=int, default=100_000, help="Monte Carlo deals per point (default 100000)")
    deal.add_argument(
        "--plot",
        default=None,
        metavar="FILE.png",
        help="plot TV against riffles for this pattern and the three classic ones",
    )
    deal.set_defaults(func=run_deal)

    best = cmds.add_parser(
        "best-pattern",
        help="search for the dealing pattern with the smallest first-order TV",
        description="Exhaustive search over all patterns for small decks (exact), "
        "swap-two-cards local search otherwise (Monte Carlo objective, winner "
        "re-evaluated exactly where possible).",
    )
    _deal_arguments(best)
    best.add_argument(
        "--method",
        choices=("auto", "exhaustive", "local"),
        default="auto",
        help="auto: exhaustive when there are at most 300000 patterns",
    )
    best.add_argument("--top", type=int, default=5, help="patterns to list (exhaustive search)")
    best.add_argument("--samples", type=int, default=20_000, help="common random deals for local search")
    best.add_argument("--sweeps", type=int, default=3, help="local search sweeps per start")
    best.add_argument("--restarts", type=int, default=2, help="extra random starts for local search")
    best.set_defaults(func=run_best)

    rep = cmds.add_parser(
        "report",
        help="the shuffling tables beside the published figures",
        description="All shuffling tables of the reproduction (ours beside the published figures).",
    )
    rep.add_argument(
        "--scale",
        choices=("quick", "paper", "full"),
        default="quick",
        help="quick (about 7 s of CPU) or paper (= full: 100,000 deals per Monte Carlo point)",
    )
    rep.add_argument("--seed", type=int, default=2024, help="random seed")
    rep.add_argument("--json", action="store_true", help="print the report as JSON")
    rep.add_argument("--plot", default=None, metavar="FILE.png", help="draw the figure to this file")
    rep.set_defaults(func=run_report)

    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])


def _deal_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--players", type=int, default=4, help="number of hands, widow included (default 4)")
    p.add_argument("--hand-size", type=int, default=13, help="cards per hand (default 13)")
    p.add_argument(
        "--deck",
        default="distinct",
        help="distinct, colors, suits, or a word of card values such as BBRRBR (default distinct)",
    )
    p.add_argument("--seed", type=int, default=2024, help="random seed for Monte Carlo")
    p.add_argument("--json", action="store_true", help="print JSON")


def run_tv(args: argparse.Namespace) -> int:
    """Print the Bayer–Diaconis table."""
    from tribridge.cli import shuffle_run  # imported here: start-up time

    return shuffle_run.run_tv(args)


def run_deal(args: argparse.Namespace) -> int:
    """First-order constant and TV per riffles for one dealing pattern."""
    from tribridge.cli import shuffle_run  # imported here: start-up time

    return shuffle_run.run_deal(args)


def run_best(args: argparse.Namespace) -> int:
    """Search for the best dealing pattern under the first-order criterion."""
    from tribridge.cli import shuffle_run  # imported here: start-up time

    return shuffle_run.run_best(args)


def run_report(args: argparse.Namespace) -> int:
    """Print the reproduction's shuffling tables (and draw the figure)."""
    from tribridge.cli import shuffle_run  # imported here: start-up time

    return shuffle_run.run_report(args)
