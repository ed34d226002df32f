"""The ``server_scale`` benchmark's figures across repeats: each set-up's median run, and the ratios against one
process (each repeat's set-up against the one process of the same repeat, the median over the repeats)."""

from __future__ import annotations

import math
import statistics
from typing import Any

__all__ = ["RUN_FIGURES", "beside_ratios", "in_probes", "median_run", "ratios", "setup_name"]

RUN_FIGURES = (
    "actions_per_s",
    "ack_p99_ms",
    "server_cpu_ms_per_action",
    "probe_ms",
    "quota_used_per_process",
    "quota_used_by_solver_children_per_process",
    "counts",
    "beside",
)
PAIRED_FIGURES = (("actions_per_s", "actions_per_s"), ("server_cpu_ms_per_action", "cpu_per_action"))
"""The figures each set-up's runs are paired on: (a run's key, the ratio's name)."""


def median_run(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Of a set-up's repeated runs, the one of median actions a second (the lower of the middle two), with each run's
    main figures beside it (``runs``)."""
    ordered = sorted(runs, key=lambda run: run["actions_per_s"])
    chosen = dict(ordered[(len(ordered) - 1) // 2])
    chosen["runs"] = [{key: run.get(key) for key in RUN_FIGURES} for run in runs]
    return chosen


def setup_name(processes: int, affinity: bool) -> str:
    """The result's key of a PostgreSQL set-up."""
    plural = "es" if processes > 1 else ""
    return f"postgres_{processes}_process{plural}" + ("_affinity" if affinity and processes > 1 else "")


def ratios(results: dict[str, Any], counts: list[int]) -> dict[str, Any]:
    """Actions per second of each PostgreSQL set-up against one process, and CPU per action against one process's:
    the median over the repeats of each repeat's ratio (a set-up against one process in the same repeat)."""
    one = results.get(setup_name(1, False))
    out: dict[str, Any] = {}
    sqlite = results["sqlite_1_process"]["actions_per_s"] if "sqlite_1_process" in results else None
    if one is not None and sqlite:
        out["postgres_1_vs_sqlite"] = round(one["actions_per_s"] / sqlite, 3)
    for processes in counts:
        for affinity in (False, True):
            found = results.get(setup_name(processes, affinity))
            if found is None or processes == 1:
                continue
            key = f"{processes}_vs_1" + ("_affinity" if affinity else "_spread")
            out.update(beside_ratios(found["runs"], key))  # (they need no one-process set-up of its own)
            if one is None:
                continue
            for figure, name in PAIRED_FIGURES:
                pairs = zip(found["runs"], one["runs"])  # the same repeat: the same spell of the machine
                out[f"{name}_{key}"] = round(statistics.median(run[figure] / base[figure] for run, base in pairs), 3)
            at_speed = [in_probes(run) / in_probes(base) for run, base in zip(found["runs"], one["runs"])]
            if all(math.isfinite(r) for r in at_speed):  # CPU per action, each run's measured in its probe pieces
                out[f"cpu_per_action_at_probe_speed_{key}"] = round(statistics.median(at_speed), 3)
    return out


def beside_ratios(runs: list[dict[str, Any]], key: str) -> dict[str, float]:
    """Where every run of a set-up had one process driven beside it at the same time (``--baseline-beside``): the
    median over the runs of each run's actions per second and CPU per action against that process's."""
    if not runs or any(run.get("beside") is None for run in runs):
        return {}
    out = {}
    for figure, name in PAIRED_FIGURES:
        paired = [run[figure] / run["beside"][figure] for run in runs]
        out[f"{name}_{key}_beside"] = round(statistics.median(paired), 3)
    return out


def in_probes(run: dict[str, Any]) -> float:
    """A run's server CPU per action in pieces of the speed probe's work (``nan`` when it has no probe)."""
    probe = run.get("probe_ms")
    return run["server_cpu_ms_per_action"] / probe if probe else math.nan
