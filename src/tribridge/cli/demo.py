"""``tribridge demo``: deal one hand and show it (placeholder main job until the server lands)."""

from __future__ import annotations

import argparse

import numpy as np

from tribridge.cards import SEAT_CHARS, random_deal


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``demo`` command."""
    p = sub.add_parser("demo", help="deal one random deal and print it", description="Deal one random deal and print it in PBN.")
    p.add_argument("--seed", type=int, default=None, help="random seed (default: fresh entropy)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print one random deal."""
    deal = random_deal(np.random.default_rng(args.seed))
    for seat in range(4):
        print(f"{SEAT_CHARS[seat]}: {deal[seat].to_pbn()}")
    print(deal.to_pbn())
    return 0
