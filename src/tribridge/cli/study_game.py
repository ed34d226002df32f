"""``tribridge study game``: the three-player protocol of the capture paper (Table IV), locally or on Dask."""

from __future__ import annotations

import argparse
import time

from tribridge.cli.common import print_json, progress_bar
from tribridge.errors import InvalidInput


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``game`` study."""
    p = sub.add_parser(
        "game",
        help="the paper's three-player protocol over many deals (Table IV)",
        description="Deal three-player deals, bid No-Trump with the NT call algorithm, score the contract with the "
        "capture estimator (or double dummy), and print the figures per run beside the paper's Table IV.",
    )
    p.add_argument(
        "--deals", type=int, default=1_000_000, help="deals per run (default 1,000,000; the paper: 10,000,000)"
    )
    p.add_argument("--runs", type=int, default=3, help="independent runs (default 3)")
    p.add_argument("--seed", type=int, default=1, help="study seed (default 1); same seed, same numbers")
    p.add_argument(
        "--outcome",
        choices=["estimator", "dd"],
        default="estimator",
        help="estimator: capture estimator on declarer + widow; dd: double-dummy NT tricks (slow)",
    )
    p.add_argument(
        "--scheme",
        default="classic,tribridge",
        help="comma-separated scoring schemes (presets or TOML files), default classic,tribridge",
    )
    p.add_argument("--limit", choices=["max", "min", "none"], default="max", help="capture limit reading (default max)")
    p.add_argument("--gap", choices=["static", "live"], default="static", help="capture gap reading (default static)")
    p.add_argument("--replacements", type=int, choices=[1, 2], default=1, help="opponent cards removed per capture")
    p.add_argument("--backend", choices=["local", "dask"], default="local", help="local process pool or Dask")
    p.add_argument("--workers", type=int, default=None, help="worker processes (default: all cores)")
    p.add_argument("--scheduler", default=None, help="address of an existing Dask scheduler, e.g. tcp://host:8786")
    p.add_argument("--chunk-size", type=int, default=None, help="deals per chunk (results do not depend on it)")
    p.add_argument("--out", default=None, help="directory for per-deal Parquet files and the run manifest")
    p.add_argument("--resume", action="store_true", help="continue the run recorded in --out, skipping finished chunks")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the game study and print the per-run table (or JSON)."""
    from tribridge.sim.game_study import GameParams, check_schemes, run_game
    from tribridge.sim.report import game_table_markdown

    if args.scheduler and args.backend != "dask":
        args.backend = "dask"
    schemes = check_schemes(args.scheme.split(","))
    params = GameParams(
        outcome=args.outcome,
        schemes=schemes,
        limit=args.limit,
        gap=args.gap,
        replacements=args.replacements,
        rows=args.out is not None,
    )
    if args.deals < 1:
        raise InvalidInput("deals", f"expected a positive number, got {args.deals}")
    started = time.perf_counter()
    with progress_bar("game study", total=args.deals * args.runs, enabled=not args.json) as bar:
        result = run_game(
            args.deals,
            args.runs,
            args.seed,
            params,
            backend=args.backend,
            workers=args.workers,
            scheduler=args.scheduler,
            chunk_size=args.chunk_size,
            out_dir=args.out,
            resume=args.resume,
            progress=bar.advance,
        )
    elapsed = time.perf_counter() - started
    if args.json:
        print_json(result.to_json())
        return 0
    reading = result.capture_reading
    model = (
        f"capture estimator (limit={reading.limit}, gap={reading.gap}, replacements={reading.replacements})"
        if reading is not None
        else "double dummy, declarer's LHO leads"
    )
    print(f"game study: {args.runs} run(s) × {args.deals:,} deals, seed {args.seed}, outcome: {model}")
    print()
    print(game_table_markdown(result))
    print()
    print(
        f"{args.runs * args.deals:,} deals in {elapsed:.1f} s on backend {args.backend}"
        + (f"; per-deal Parquet in {args.out}" if args.out else "")
    )
    return 0
