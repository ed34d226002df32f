"""``tribridge reproduce``: run every paper study and write a report with our tables beside the published ones."""

from __future__ import annotations

import argparse
import time

from tribridge.cli.common import print_json, progress_bar


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``reproduce`` command."""
    p = sub.add_parser(
        "reproduce",
        help="reproduce the papers' tables and figures into a report",
        description="Run the NT call, capture estimator, three-player game (with the estimator and with double dummy) "
        "and shuffling studies, and write DIR/report.md with each table beside the published one, plus "
        "PNG figures. With --state, a killed run continues where it stopped (--resume).",
    )
    p.add_argument(
        "--scale",
        choices=["quick", "paper"],
        default="quick",
        help="quick: a few minutes on a laptop (default); paper: the papers' sizes (hours on 2 cores)",
    )
    p.add_argument("--out", required=True, help="output directory for report.md and the figures")
    p.add_argument("--seed", type=int, default=1, help="seed of every study (default 1)")
    p.add_argument(
        "--workers",
        type=int,
        default=None,
        help="worker processes for the game studies (default: all cores; 1 runs in this process)",
    )
    p.add_argument("--only", default=None, help="comma-separated sections: nt,capture,game,dd,shuffling (default all)")
    p.add_argument(
        "--state",
        default=None,
        help="directory for the run's progress (finished sections and chunks), so it can be resumed",
    )
    p.add_argument("--resume", action="store_true", help="continue the run recorded in --state where it stopped")
    p.add_argument("--json", action="store_true", help="print the summary (report path, figures, timings) as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Write the report and say where it is."""
    from tribridge.sim.report import SECTION_NAMES, reproduce

    only = [s.strip() for s in args.only.split(",") if s.strip()] if args.only else None
    started = time.perf_counter()
    with progress_bar("reproduce", total=len(only or SECTION_NAMES), enabled=not args.json) as bar:
        summary = reproduce(
            args.scale,
            args.out,
            seed=args.seed,
            workers=args.workers,
            only=only,
            on_section=lambda _name: bar.advance(1),
            state_dir=args.state,
            resume=args.resume,
        )
    if args.json:
        print_json(summary.to_json())
        return 0
    print(f"report: {summary.report} ({len(summary.figures)} figures) in {time.perf_counter() - started:.1f} s")
    for title, seconds in summary.seconds.items():
        note = summary.notes.get(title)
        print(f"  {title}: {seconds} s" + (f" ({note})" if note else ""))
    return 0
