"""The numpy core of 3PAB self-play: action numbers, the observation encoding, contracts scored without
the play, and ``BiddingBatch`` (many bidding-only auctions stepped at once).

It sits below the bots, so a bot trained on it (``bots.learned``) can read its observations; the
PettingZoo environment and the OpenSpiel game (``tribridge.env``), which seat bots as opponents, are
built over it above the bots.
"""

from tribridge.selfplay.batch import BiddingBatch
from tribridge.selfplay.contracts import contract_tricks, settle

__all__ = ["BiddingBatch", "contract_tricks", "settle"]
