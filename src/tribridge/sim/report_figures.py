"""Figures of the reproduction report in the papers' style: NT call yes counts, pre-qualification, game runs."""

from __future__ import annotations

import numpy as np

from tribridge.sim import published as P
from tribridge.sim.game_study import GameStudyResult
from tribridge.sim.paper_results import CaptureStudy, NtStudy

__all__ = ["game_figure", "nt_figure", "prequalification_figure"]


def game_figure(result: GameStudyResult, path: str) -> str:
    """Figure 6 style: win rates (overall vs both eligible), net points per scheme, both-eligible deals and losses, per run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = result.results
    labels = [f"Run {i + 1}" for i in range(len(runs))]
    x = np.arange(len(runs))
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    ax = axes[0]
    overall = [r.made_pct or 0.0 for r in runs]
    both = [r.both_eligible_made_pct or 0.0 for r in runs]
    ax.bar(x - 0.2, overall, 0.4, label="all opened contracts", color="#4C72B0")
    ax.bar(x + 0.2, both, 0.4, label="both eligible", color="#55A868")
    for xi, v in zip(x, overall):
        ax.text(xi - 0.2, v + 1, f"{v:.2f}%", ha="center", fontsize=8)
    for xi, v in zip(x, both):
        ax.text(xi + 0.2, v + 1, f"{v:.2f}%", ha="center", fontsize=8)
    ax.set_xticks(x, labels)
    ax.set_ylim(0, 110)
    ax.set_ylabel("contracts made (%)")
    ax.set_title("Win rate per run")
    ax.legend(fontsize=8, loc="lower right")
    ax = axes[1]
    schemes = result.schemes
    width = 0.8 / max(1, len(schemes))
    for k, scheme in enumerate(schemes):
        values = [r.net_points[scheme] / 1000 for r in runs]
        ax.bar(x - 0.4 + width * (k + 0.5), values, width, label=f"scheme {scheme}")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(x, labels)
    ax.set_ylabel("net points (thousands)")
    ax.set_title("Net points per run")
    ax.legend(fontsize=8)
    ax = axes[2]
    counts = [r.both_eligible for r in runs]
    lost = [r.both_eligible - r.both_eligible_made for r in runs]
    ax.bar(x - 0.2, counts, 0.4, label="both-eligible deals", color="#8172B2")
    ax.bar(x + 0.2, lost, 0.4, label="of which lost", color="#C44E52")
    ax.set_xticks(x, labels)
    ax.set_title("Both-eligible deals and losses")
    ax.legend(fontsize=8)
    fig.suptitle(f"Three-player game study, {runs[0].deals:,} deals per run (outcome: {result.outcome})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def nt_figure(result: NtStudy, path: str) -> str:
    """NT paper Figure 1 style: yes counts per 100,000 hands for 1–3NT, ours per run beside the published runs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = list(result.table3)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    x = np.arange(len(rows))
    runs = result.runs
    width = 0.8 / (runs + 3)
    scale = 100_000 / result.hands
    for i in range(runs):
        ax.bar(
            x - 0.4 + width * (i + 0.5),
            [r.ours[i] * scale for r in rows],
            width,
            color="#4C72B0",
            alpha=0.5 + 0.5 * i / max(1, runs - 1),
            label=f"ours, run {i + 1}",
        )
    for j in range(3):
        ax.bar(
            x - 0.4 + width * (runs + j + 0.5),
            [P.NT_TABLE3_YES[r.level][j] for r in rows],
            width,
            color="#DD8452",
            alpha=0.5 + 0.25 * j,
            label=f"paper, sim {j + 1}",
        )
    ax.set_xticks(x, [f"{r.level}NT" for r in rows])
    ax.set_ylabel("'Yes' per 100,000 hands")
    ax.set_title("NT call algorithm: hands that may call, single hand (Table 3)")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def prequalification_figure(result: CaptureStudy, path: str) -> str:
    """Capture paper Figure 1 style: grouped bars of deals per pre-qualification outcome and run, mean % line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    first = next(iter(result.readings.values())).results
    outcomes = [("qualified", "both conditions pass"), ("fail_b", "A passes, B fails"), ("fail_a", "A fails")]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    x = np.arange(len(outcomes))
    width = 0.8 / len(first)
    for i, run in enumerate(first):
        ax.bar(x - 0.4 + width * (i + 0.5), [run.status[key] for key, _ in outcomes], width, label=f"run {i + 1}")
    ax.set_xticks(x, [label for _, label in outcomes])
    ax.set_ylabel("deals")
    twin = ax.twinx()
    mean_pct = [100 * sum(r.status[key] for r in first) / sum(r.deals for r in first) for key, _ in outcomes]
    twin.plot(x, mean_pct, "k-o", label="ours, mean %")
    twin.plot(x, [P.CAPTURE_TABLE2_PCT[key] for key, _ in outcomes], "r--s", label="paper %")
    for xi, v in zip(x, mean_pct):
        twin.annotate(f"{v:.2f}%", (xi, v), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8)
    twin.set_ylabel("% of deals")
    twin.set_ylim(0, 100)
    ax.set_title(f"Pre-qualification of declarer + partner, {result.runs} × {result.deals:,} deals (Table II)")
    handles = ax.get_legend_handles_labels()
    more = twin.get_legend_handles_labels()
    ax.legend(handles[0] + more[0], handles[1] + more[1], fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
