"""tribridge as a research platform: a PettingZoo environment of one 3PAB deal and a batched bidding-only form.

``from tribridge.env import env; e = env(mode="full")`` (PettingZoo's module convention for classic
games: ``env`` wrapped, ``raw_env`` the class); ``BiddingBatch`` steps many bidding-only auctions in
numpy. The action numbers are in ``env.actions``, the observation vector in ``env.encoding``.
"""

from tribridge.env.aec import AGENTS, MODES, env, raw_env
from tribridge.env.batch import BiddingBatch
from tribridge.env.contracts import contract_tricks, settle

__all__ = ["AGENTS", "MODES", "BiddingBatch", "contract_tricks", "env", "raw_env", "settle"]
