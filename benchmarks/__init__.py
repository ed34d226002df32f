"""Speed and quality benchmarks, each with its baseline measured in the same run: ``python -m benchmarks NAME``."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence


def mean_ci95(values: Sequence[float]) -> tuple[float, float]:
    """(mean, 95 % half-width of the mean) of paired or per-deal values; the half-width is nan for one value."""
    n = len(values)
    mean = math.fsum(values) / n
    if n < 2:
        return mean, float("nan")
    variance = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, 1.96 * math.sqrt(variance / n)


def print_json(out: dict, path: str | None = None) -> None:
    """Print a benchmark's results as indented JSON and, given ``path``, write them there too."""
    text = json.dumps(out, indent=2)
    print(text)
    if path:
        with open(path, "w") as fh:
            fh.write(text + "\n")
