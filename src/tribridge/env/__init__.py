"""tribridge as a research platform: a PettingZoo environment of one 3PAB deal and a batched bidding-only form."""

from tribridge.env.batch import BiddingBatch

__all__ = ["BiddingBatch"]
