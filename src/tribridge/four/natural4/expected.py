"""Expected scores of the contracts a partnership could play, from one hand's view: partner hands drawn within
what partner showed, each pair's tricks estimated by the fast trick estimator, and the double-dummy tricks
spread around each estimate (the opponents' cards are unknown). Used by placement to choose the level and
strain that score best on average.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tribridge.rules.duplicate import score_table

__all__ = ["CENTRE_SPREAD", "ContractValues", "trick_distribution"]

# The spread (standard deviation, in tricks) of the double-dummy tricks around the estimator's expectation
# for known 26 cards, at 6.5 expected tricks: the estimator's whole-trick mean absolute error is about 0.8,
# i.e. a spread near 1. Towards 0 or 13 tricks the spread narrows as a binomial law's does (at 12 expected
# tricks it is about half), so that an expectation of 13 tricks means 13 for sure. (The learned bidder's
# training scores 3PAB contracts with another law, selfplay.contracts.TRICK_SPREAD: the same deviation at
# every expectation, fitted to double dummy with the widow as dummy.)
CENTRE_SPREAD = 1.0
MIN_SPREAD = 0.05
TRICKS = np.arange(14)


def trick_distribution(expected: np.ndarray, spread: float | None = None) -> np.ndarray:
    """``float[..., 14]``: the probability of each trick count 0-13 around each expected count (a discretised
    normal law whose spread is ``spread`` (default ``CENTRE_SPREAD``) at 6.5 tricks, narrowing towards 0 and 13)."""
    centre = np.clip(np.asarray(expected, dtype=np.float64), 0.0, 13.0)[..., None]
    width = (CENTRE_SPREAD if spread is None else spread) * np.sqrt(centre * (13.0 - centre)) / 6.5
    z = (TRICKS - centre) / np.maximum(width, MIN_SPREAD)
    weights = np.exp(-0.5 * z * z)
    return weights / weights.sum(axis=-1, keepdims=True)


@dataclass(frozen=True)
class ContractValues:
    """Average trick-count probabilities ``float[5, 14]`` of one partnership (over the partner hands drawn) and
    its vulnerability and the opponents'; values are the partnership's expected scores."""

    probabilities: np.ndarray
    vulnerable: bool
    they_vulnerable: bool
    doubled_from: int = 99  # a contract this many or more down is taken as doubled (the opponents' penalty)

    @classmethod
    def of(cls, tricks: np.ndarray, vulnerable: bool, they_vulnerable: bool, doubled_from: int = 99) -> ContractValues:
        """From estimated tricks ``float[k, 5]`` of the partnership with each of ``k`` partner hands."""
        return cls(trick_distribution(tricks).mean(axis=0), vulnerable, they_vulnerable, doubled_from)

    def declare(self, level: int, strain: int, doubling: int = 0) -> float:
        """Our expected score declaring ``level``/``strain``; ``doubled_from`` or more down it is taken as doubled."""
        table = score_table(self.vulnerable)
        scores = table[level, strain, doubling].astype(np.float64)
        if doubling == 0:
            doubled = table[level, strain, 1]
            scores = np.where(TRICKS <= level + 6 - self.doubled_from, doubled, scores)
        return float(self.probabilities[strain] @ scores)

    def defend(self, level: int, strain: int, doubling: int = 0) -> float:
        """Our expected score defending their ``level``/``strain``: they take the tricks we would not (our tricks
        as declarer in their strain stand in for our tricks in defence)."""
        scores = score_table(self.they_vulnerable)[level, strain, doubling][::-1]  # index: our tricks
        return -float(self.probabilities[strain] @ scores)
