"""The training example of docs/research.md runs and reports before and after."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "train_bidder.py"


def test_training_example_runs(monkeypatch, capsys) -> None:
    """One small iteration of the documented loop prints its two lines."""
    monkeypatch.setattr(sys, "argv", [str(EXAMPLE), "--iterations", "1", "--batch", "64"])
    runpy.run_path(str(EXAMPLE), run_name="__main__")
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("before: ") and lines[1].startswith("after 1 iterations: ")
    assert all(line.endswith("points a deal against random bidders") for line in lines)


def test_research_doc_shows_the_example_strategy_as_it_is() -> None:
    """docs/research.md quotes docs/examples/greedy_bot.py verbatim."""
    doc = (EXAMPLE.parents[1] / "research.md").read_text()
    strategy = (EXAMPLE.parent / "greedy_bot.py").read_text().rstrip("\n")
    assert f"```python\n{strategy}\n```" in doc
