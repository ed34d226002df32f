"""Speed and quality benchmarks, each with its baseline measured in the same run: ``python -m benchmarks NAME``."""

from __future__ import annotations

import json


def print_json(out: dict, path: str | None = None) -> None:
    """Print a benchmark's results as indented JSON and, given ``path``, write them there too."""
    text = json.dumps(out, indent=2)
    print(text)
    if path:
        with open(path, "w") as fh:
            fh.write(text + "\n")
