"""``tribridge analyze DEAL`` or ``--file FILE`` (PBN or LIN): double-dummy table, NT-call verdicts, capture and trick estimates."""

from __future__ import annotations

import argparse

from tribridge.errors import InvalidInput


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``analyze`` command."""
    p = sub.add_parser(
        "analyze",
        help="double-dummy table and estimates of one deal, or of every board of a PBN or LIN file",
        description="Analyse one deal: the double-dummy table (tricks for each declarer N E S W in C D H S NT), "
        "the NT-call verdicts of each hand, the capture estimate of each partnership and the fast "
        "trick estimator's prediction. DEAL is PBN, e.g. 'N:AKQ2.J54.T98.762 ...'. With --file, "
        "analyse every board of a PBN or LIN file (tournament files, BBO's LIN files or tribridge's "
        "3PAB records; each board's hands as dealt).",
    )
    p.add_argument("deal", metavar="DEAL", nargs="?", help="the deal in PBN: 'N:<hand> <hand> <hand> <hand>'")
    p.add_argument(
        "--file",
        default=None,
        metavar="FILE",
        help="analyse every board of this PBN or LIN file ('-' for stdin; LIN by a .lin name or its "
        "content); with --json one JSON object "
        "per line and board, with the board number",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--no-cache", action="store_true", help="do not read or write the double-dummy cache")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Analyse the deal (or the file's boards) and print the report."""
    if (args.deal is None) == (args.file is None):
        raise InvalidInput("deal", "give either a PBN deal or --file FILE (PBN or LIN)")
    from tribridge.cli import analyze_run  # imported here: start-up time (numpy, the solver, the kernels)

    return analyze_run.run_file(args) if args.file else analyze_run.run(args)
