"""``tribridge match``: a bot match, every deal played with all six assignments of the bots to the chairs."""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tribridge.cli.common import json_ready, print_json, progress_bar
from tribridge.errors import InvalidInput


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``match`` command."""
    p = sub.add_parser(
        "match",
        help="play a bot match (each deal with all 6 seatings)",
        description="Play N deals between three bots, each deal with all six assignments of the bots to the three "
        "bidding chairs; report each bot's mean score per deal (95% CI), contracts, made % and the "
        "tricks its declarer play lost against double dummy. Bots: random, paper, estimate, simulation, "
        "pimc, pimc-model, dd, BIDDER+PLAYER (see docs/bots.md), or a plug-in pkg.module:factory or "
        "file.py:factory (see docs/research.md). Two bots of the same name are told apart by "
        "their place in --bots: A, B, C. --deals-file plays the boards of a PBN or LIN file (as dealt).",
    )
    p.add_argument("--bots", required=True, help="three bot names separated by commas, e.g. pimc,paper,random")
    p.add_argument(
        "--deals",
        type=int,
        default=None,
        help="number of deals (default 10, or every board of --deals-file; each is played 6 times)",
    )
    p.add_argument(
        "--deals-file",
        default=None,
        metavar="FILE",
        help="play the boards of this PBN or LIN file (hands and dealer as dealt) instead of seeded deals",
    )
    p.add_argument("--seed", type=int, default=1, help="match seed (default 1)")
    p.add_argument("--scheme", default="classic", help="scoring scheme: classic, tribridge or a TOML file")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    p.add_argument("--pimc-layouts", type=int, default=None, help="layouts per PIMC card (default 32)")
    p.add_argument(
        "--pimc-check-plays",
        type=int,
        default=None,
        help="PIMC keeps the layouts in which the opponents' last N cards were double-dummy best "
        "(default 0: off; slower, stronger against strong defence; see docs/bots.md)",
    )
    p.add_argument(
        "--pimc-oversample",
        type=int,
        default=None,
        help="with --pimc-check-plays: layouts PIMC draws per layout it keeps (default 3)",
    )
    p.add_argument(
        "--bid-layouts",
        type=int,
        default=None,
        help="layouts per simulation/estimate bid (default 64/32 with the fast estimator, 8 with dd)",
    )
    p.add_argument(
        "--log",
        default=None,
        metavar="FILE.jsonl",
        help="append each finished deal to FILE; run again with the same FILE (and the same match) to play "
        "only the deals it lacks, e.g. after stopping a long match; --deals K with K deals in FILE only reports",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the match and print its table."""
    # imported here: start-up time
    from tribridge.bots import bot_parts, plugins
    from tribridge.sim.match import run_match
    from tribridge.sim.match_log import append_deal, match_header, open_log, read_log

    names = [n for n in (x.strip() for x in args.bots.split(",")) if n]
    if len(names) != 3:
        raise InvalidInput("bots", f"expected three bots separated by commas, got {args.bots!r}")
    plugins.enable_named(names)  # a plug-in the user names on the command line is enabled

    options: dict[str, dict] = {}
    pimc_options = {
        key: value
        for key, value in (
            ("layouts", args.pimc_layouts),
            ("check_plays", args.pimc_check_plays),
            ("oversample", args.pimc_oversample),
        )
        if value is not None
    }
    for name in names:
        bidder, player = bot_parts(name)
        entry: dict[str, dict] = {}
        if player in ("pimc", "pimc-model") and pimc_options:
            entry["player"] = dict(pimc_options)
        if bidder in ("simulation", "estimate") and args.bid_layouts is not None:
            entry["bidder"] = {"layouts": args.bid_layouts}
        if entry:
            options[name.strip().lower()] = entry
    given = read_deals_file(args.deals_file) if args.deals_file else None
    deals = args.deals if args.deals is not None else (len(given) if given else 10)
    log_path = Path(args.log) if args.log else None
    header = match_header(tuple(n.lower() for n in names), args.seed, args.scheme, options, args.deals_file)
    done = read_log(log_path, header) if log_path else {}
    log = open_log(log_path, header) if log_path and len([i for i in done if i < deals]) < deals else None
    try:
        with progress_bar("deals", deals) as bar:
            result = run_match(
                names,
                deals,
                args.seed,
                args.scheme,
                args.workers,
                on_progress=bar.advance,
                options=options or None,
                given_deals=given,
                done=done,
                on_deal=(lambda index, games: append_deal(log, index, games)) if log else None,
            )
    finally:
        if log:
            log.close()
    labels = bot_labels(result.bots)
    if args.json:
        data = json_ready(result.to_json(labels))
        if args.deals_file:
            data["deals_file"] = args.deals_file
        print_json(data)
        return 0
    # imported here: start-up time
    from rich.console import Console
    from rich.table import Table

    source = f"--deals-file {args.deals_file}" if args.deals_file else f"--seed {args.seed}"
    table = Table(title=f"tribridge match --bots {args.bots} --deals {deals} {source} --scheme {args.scheme}")
    columns = ("bot", "mean score/deal", "95% CI ±", "margin vs others (paired)", "declared", "made %")
    for col in (*columns, "tricks lost vs DD", "top contracts"):
        table.add_column(col)
    for s, label, (margin, margin_ci) in zip(result.summaries, labels, result.margins()):
        made = "-" if s.made_pct is None else f"{s.made_pct:.1f}"
        ci = f"{s.ci95:.1f}" if math.isfinite(s.ci95) else "- (1 deal)"
        loss = "-" if s.tricks_lost_vs_dd is None else f"{s.tricks_lost_vs_dd:+.2f}"
        top = ", ".join(f"{c}×{k}" for c, k in s.contracts.most_common(3))
        paired = f"{margin:+.1f} ± {margin_ci:.1f}" if math.isfinite(margin_ci) else f"{margin:+.1f}"
        table.add_row(label, f"{s.mean_score:.1f}", ci, paired, str(s.declared), made, loss, top)
    console = Console()
    console.print(table)
    console.print(f"{result.deals} deals × 6 seatings = {result.games} games; passed out {result.passed_out}")
    return 0


def bot_labels(names: Sequence[str]) -> list[str]:
    """Row labels: a bot's name, with its place in ``--bots`` (A, B, C) when two bots share the name."""
    return [f"{name} ({'ABC'[i]})" if names.count(name) > 1 else name for i, name in enumerate(names)]


def read_deals_file(path: str) -> list[tuple[Any, Any]]:
    """The (deal as dealt, dealer) of every board of a PBN or LIN file."""
    # imported here: start-up time
    from tribridge.rules.records import read_hand_records

    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InvalidInput("--deals-file", f"cannot read {path!r}: {exc.strerror}") from None
    boards = read_hand_records(text, Path(path).name)
    if not boards:
        raise InvalidInput("--deals-file", f"no boards in {path!r}")
    return [board.dealt() for board in boards]
