"""``tribridge study accuracy``: every trick estimator against double-dummy NT tricks, beside the floor."""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import TYPE_CHECKING

from tribridge.cli.common import print_json, progress_bar
from tribridge.errors import InvalidInput

if TYPE_CHECKING:  # the study's machinery is imported in ``run`` (start-up time)
    from tribridge.sim.accuracy import AccuracyStudy


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``accuracy`` study."""
    p = sub.add_parser(
        "accuracy",
        help="trick estimators against double-dummy NT tricks",
        description="On random deals, compare with double-dummy NT tricks (declarer N, partner S): every "
        "capture-estimator reading, a high-card-point linear fit, the fast trick estimator, and the "
        "floor (mean DD tricks over K random layouts of the opponents' cards). Prints MAE, bias "
        "and correlation, and writes a calibration plot.",
    )
    p.add_argument("--deals", type=int, default=200, help="random deals (default 200)")
    p.add_argument("--seed", type=int, default=1, help="study seed (default 1)")
    p.add_argument(
        "--layouts", type=int, default=24, help="opponent layouts per deal for the floor (default 24; 0 skips)"
    )
    p.add_argument("--plot", default="accuracy_calibration.png", help="calibration plot file ('' for none)")
    p.add_argument("--workers", type=int, default=None, help="double-dummy worker processes (default: CPUs)")
    p.add_argument("--json", action="store_true", help="print JSON (metrics and per-deal predictions)")
    p.set_defaults(func=run)


def format_table(result: AccuracyStudy) -> str:
    """Markdown table of the metrics, best MAE first."""
    rows = sorted(result.rows, key=lambda r: r.metrics.mae if r.metrics.mae is not None else 99)
    q = result.qualifying_deals
    head = "| estimator | MAE | bias | corr |" + (f" MAE (qualifying, n={q}) |" if q is not None else "")
    out = [head, "|---|---:|---:|---:|" + ("---:|" if q is not None else "")]

    def f(x: float | None) -> str:
        return "—" if x is None else f"{x:.3f}"

    for r in rows:
        m = r.metrics
        line = f"| {r.estimator} | {f(m.mae)} | {f(m.bias)} | {f(m.corr)} |"
        if q is not None:
            line += f" {f(r.qualifying.mae if r.qualifying is not None else None)} |"
        out.append(line)
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    """Run the study and print the table."""
    from tribridge.sim.accuracy import calibration_plot, run_accuracy

    if args.deals < 4:
        raise InvalidInput("deals", f"expected at least 4 deals, got {args.deals}")
    if args.layouts < 0:
        raise InvalidInput("layouts", f"expected >= 0, got {args.layouts}")
    with progress_bar("double dummy", args.deals * (1 + args.layouts), enabled=not args.json) as bar:
        result = run_accuracy(args.deals, args.seed, args.layouts, workers=args.workers, on_progress=bar.advance)
    if args.plot:
        calibration_plot(result, args.plot)
        result = replace(result, plot=args.plot)
    if args.json:
        print_json(result.to_json())
        return 0
    print(
        f"Accuracy against double-dummy NT tricks: {args.deals} deals, seed {args.seed}, declarer N + partner S"
        f" (mean DD {result.mean_dd_nt_tricks:.2f} tricks)"
    )
    print(format_table(result))
    for note in result.notes:
        print(f"note: {note}")
    if args.plot:
        print(f"calibration plot: {args.plot}")
    return 0
