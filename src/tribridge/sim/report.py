"""Reproduction report: our tables beside the published ones, and figures in the papers' style."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

# Table IV of the capture-estimator paper (REFERENCE.md): three runs of 10,000,000 deals.
PUBLISHED_TABLE_IV: dict[str, Any] = {
    "deals_per_run": 10_000_000,
    "made_pct": [65.86, 66.00, 66.03],
    "both_eligible_made_pct": [93.42, 93.50, 93.75],
    "both_eligible_min_count": 10_000,
    "losses_widow_not_qualified_min_pct": 99.8,
    "net_points_new_scheme_range": [819_000, 833_000],
    "net_points_old_scheme_range": [152_000, 155_000],
}


def _fmt_pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f} %"


def game_table_markdown(result: Mapping[str, Any]) -> str:
    """Markdown table: our game-study figures per run beside the paper's Table IV."""
    runs = result["results"]
    pub = PUBLISHED_TABLE_IV
    header = ["figure"] + [f"run {i + 1}" for i in range(len(runs))] + ["paper (Table IV, 3 × 10M)"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]

    def row(name: str, values: Sequence[str], paper: str) -> None:
        lines.append("| " + " | ".join([name, *values, paper]) + " |")

    row("deals", [f"{r['deals']:,}" for r in runs], f"{pub['deals_per_run']:,}")
    row("opened contracts", [f"{r['opened']:,}" for r in runs], "not published")
    for lv in range(1, 8):
        key = f"{lv}NT"
        if any(r["opened_by_level"][key] for r in runs):
            row(f"  of which {key}", [f"{r['opened_by_level'][key]:,}" for r in runs], "not published")
    row("made % (opened contracts)", [_fmt_pct(r["made_pct"]) for r in runs],
        " / ".join(f"{v:.2f} %" for v in pub["made_pct"]))
    row("both eligible (widow qualifies at the contract level)", [f"{r['both_eligible']:,}" for r in runs],
        f"> {pub['both_eligible_min_count']:,}")
    row("made % when both eligible", [_fmt_pct(r["both_eligible_made_pct"]) for r in runs],
        " / ".join(f"{v:.2f} %" for v in pub["both_eligible_made_pct"]))
    row("losses with a widow that does not qualify", [_fmt_pct(r["losses_widow_not_qualified_pct"]) for r in runs],
        f"≥ {pub['losses_widow_not_qualified_min_pct']} %")
    for scheme in result["schemes"]:
        if scheme == "classic":
            paper = f"{pub['net_points_old_scheme_range'][0]:,}–{pub['net_points_old_scheme_range'][1]:,} (paper's old scheme)"
        else:
            paper = "no published counterpart (the paper's new scheme is unpublished)"
        row(f"net points, scheme `{scheme}`", [f"{r['net_points'][scheme]:,}" for r in runs], paper)
    return "\n".join(lines)


def game_figure(result: Mapping[str, Any], path: str) -> str:
    """Figure 6 style: win rates (overall vs both eligible), net points per scheme, both-eligible deals and losses, per run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    runs = result["results"]
    labels = [f"Run {i + 1}" for i in range(len(runs))]
    x = np.arange(len(runs))
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    ax = axes[0]
    overall = [r["made_pct"] or 0.0 for r in runs]
    both = [r["both_eligible_made_pct"] or 0.0 for r in runs]
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
    schemes = result["schemes"]
    width = 0.8 / max(1, len(schemes))
    for k, scheme in enumerate(schemes):
        values = [r["net_points"][scheme] / 1000 for r in runs]
        ax.bar(x - 0.4 + width * (k + 0.5), values, width, label=f"scheme {scheme}")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(x, labels)
    ax.set_ylabel("net points (thousands)")
    ax.set_title("Net points per run")
    ax.legend(fontsize=8)
    ax = axes[2]
    counts = [r["both_eligible"] for r in runs]
    lost = [r["both_eligible"] - r["both_eligible_made"] for r in runs]
    ax.bar(x - 0.2, counts, 0.4, label="both-eligible deals", color="#8172B2")
    ax.bar(x + 0.2, lost, 0.4, label="of which lost", color="#C44E52")
    ax.set_xticks(x, labels)
    ax.set_title("Both-eligible deals and losses")
    ax.legend(fontsize=8)
    fig.suptitle(f"Three-player game study, {runs[0]['deals']:,} deals per run (outcome: {result['outcome']})")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
