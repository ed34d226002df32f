"""The international match point (IMP) scale: a difference of points turned into IMPs.

The WBF scale: a difference under 20 points is 0 IMPs, 20-49 is 1, 50-89 is 2, ... 4000 or more is 24.
``IMP_STEPS[k]`` is the smallest difference worth ``k + 1`` IMPs. A difference between two steps (3PAB scores
need not be multiples of ten, and a Butler datum can be a fraction) is worth the IMPs of the step
below it; the sign follows the difference.
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["IMP_STEPS", "imps"]

IMP_STEPS: tuple[int, ...] = (
    20,
    50,
    90,
    130,
    170,
    220,
    270,
    320,
    370,
    430,
    500,
    600,
    750,
    900,
    1100,
    1300,
    1500,
    1750,
    2000,
    2250,
    2500,
    3000,
    3500,
    4000,
)
"""The lower bound of each IMP: a difference of at least ``IMP_STEPS[k]`` points is worth ``k + 1`` IMPs."""


def imps(diff: int | Fraction) -> int:
    """IMPs for a point difference (signed; a fraction counts as the step below it)."""
    size = Fraction(diff) if diff >= 0 else -Fraction(diff)
    n = sum(1 for step in IMP_STEPS if size >= step)
    return n if diff >= 0 else -n
