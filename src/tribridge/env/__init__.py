"""tribridge as a research platform: a PettingZoo environment of one 3PAB deal and a batched bidding-only form.

``from tribridge.env import env; e = env(mode="full")`` (PettingZoo's module convention for classic
games: ``env`` wrapped, ``raw_env`` the class; needs the ``research`` extra, imported on first use);
``BiddingBatch`` steps many bidding-only auctions in numpy (no extra needed). The action numbers are
in ``selfplay.actions``, the observation vector in ``selfplay.encoding`` (the environment's numpy core, below
the bots, so a learned bot reads the same observations), the OpenSpiel game in
``env.openspiel_game``.
"""

from typing import Any

from tribridge.selfplay.batch import BiddingBatch
from tribridge.selfplay.contracts import contract_tricks, settle

__all__ = ["AGENTS", "MODES", "BiddingBatch", "contract_tricks", "env", "raw_env", "settle"]

_FROM_AEC = ("AGENTS", "MODES", "env", "raw_env")


def __getattr__(name: str) -> Any:
    """The PettingZoo names, imported when first asked for (PettingZoo is an extra)."""
    if name not in _FROM_AEC:
        raise AttributeError(f"module 'tribridge.env' has no attribute {name!r}")
    try:
        from tribridge.env import aec
    except ModuleNotFoundError as exc:
        raise ModuleNotFoundError(
            f"tribridge.env.{name} needs PettingZoo: pip install 'tribridge[research]' ({exc})"
        ) from None
    return getattr(aec, name)
