"""``tribridge calibrate``: every capture-estimator reading against the published Tables I, II and IV, ranked."""

from __future__ import annotations

import argparse

from tribridge.cli.common import print_json, progress_bar
from tribridge.errors import InvalidInput


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``calibrate`` command."""
    p = sub.add_parser(
        "calibrate",
        help="rank the capture-estimator readings against the published tables",
        description="Run the capture study (Tables I and II) and the game study with --outcome estimator "
        "(Table IV) for each of the 12 readings (limit × gap × replacements) and rank the readings "
        "by their distance from the published figures.",
    )
    p.add_argument("--deals", type=int, default=200_000, help="two-hand deals for Tables I-II (default 200,000)")
    p.add_argument(
        "--game-deals",
        type=int,
        default=None,
        help="three-player deals per reading for Table IV (default: --deals; 0 skips Table IV)",
    )
    p.add_argument("--seed", type=int, default=1, help="seed (default 1)")
    p.add_argument("--workers", type=int, default=None, help="worker processes for the game study")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run and print the ranked table."""
    from tribridge.sim.calibrate import calibration_markdown, run_calibration

    if args.deals < 1:
        raise InvalidInput("deals", f"expected a positive number, got {args.deals}")
    game_deals = args.deals if args.game_deals is None else args.game_deals
    if game_deals < 0:
        raise InvalidInput("game-deals", f"expected >= 0, got {game_deals}")
    total = args.deals + 12 * game_deals
    with progress_bar("calibration", total, enabled=not args.json) as bar:
        result = run_calibration(args.deals, args.seed, game_deals, args.workers, on_progress=bar.advance)
    if args.json:
        print_json(result.to_json())
        return 0
    print(calibration_markdown(result))
    for note in result.notes:
        print(f"note: {note}")
    return 0
