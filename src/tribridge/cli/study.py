"""``tribridge study ...``: the command group of studies; each study registers from its own module."""

from __future__ import annotations

import argparse
import importlib

# Each module exposes ``register(study_subparsers)``; add one line per study module.
STUDY_MODULES: list[str] = [
    "tribridge.cli.study_game",
    "tribridge.cli.study_nt",
    "tribridge.cli.study_capture",
    "tribridge.cli.study_accuracy",
]


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``study`` group and every registered study."""
    p = sub.add_parser(
        "study",
        help="run a study (nt, capture, game, accuracy, ...)",
        description="Run one of the studies; each prints our figures beside the published ones.",
    )
    studies = p.add_subparsers(dest="study", metavar="STUDY")
    for name in STUDY_MODULES:
        importlib.import_module(name).register(studies)
    p.set_defaults(func=lambda args: (p.print_help(), 0)[1])
