"""The game study judged by double dummy: the paper's protocol scored by the cards played out, with 95 % intervals.

The same deals are scored twice: with the declarer's double-dummy NT tricks (the widow's hand reseated
opposite the declarer, the declarer's left-hand opponent leading) and with the capture estimator, the
paper's own outcome. The auction does not depend on the outcome, so both columns judge the same contracts.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from tribridge.errors import InvalidInput
from tribridge.sim.game_study import MAX_LEVEL, SCHEMES_DEFAULT, GameParams, GameRun, run_game, score_table
from tribridge.sim.published import PUBLISHED_TABLE_IV

__all__ = [
    "DD_SCHEMES",
    "DdComparison",
    "LevelFigures",
    "NetFigures",
    "OutcomeFigures",
    "Z95",
    "dd_comparison",
    "dd_figure",
    "dd_summary_markdown",
    "dd_table_markdown",
    "net_points_interval",
    "outcome_figures",
    "wilson_interval",
]

Z95 = 1.959963984540054  # two-sided 95 % quantile of the normal law
DD_SCHEMES = SCHEMES_DEFAULT
PER_DEALS = 1000  # net points are shown per 1,000 deals, so samples of any size compare with Table IV


def wilson_interval(successes: int, trials: int) -> tuple[float, float] | None:
    """95 % Wilson score interval of a proportion, in percent; ``None`` when there are no trials."""
    if trials <= 0:
        return None
    p = successes / trials
    denom = 1 + Z95**2 / trials
    centre = (p + Z95**2 / (2 * trials)) / denom
    half = Z95 * math.sqrt(p * (1 - p) / trials + Z95**2 / (4 * trials**2)) / denom
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return 100 * low, 100 * high


def net_points_interval(tricks_by_level: np.ndarray, deals: int, scores: np.ndarray) -> dict[str, float]:
    """Mean net points per deal and its 95 % normal interval, from the ``[level, tricks]`` counts of opened contracts.

    ``scores`` is one scheme's ``[level, tricks]`` net-point table; thrown-in deals score 0.
    """
    counts = np.asarray(tricks_by_level, dtype=np.int64)
    if deals <= 1:
        raise InvalidInput("deals", f"need at least 2 deals for an interval, got {deals}")
    values = scores[: counts.shape[0], : counts.shape[1]].astype(np.float64)
    total = float((counts * values).sum())
    mean = total / deals
    second = float((counts * values**2).sum()) / deals
    variance = max(0.0, second - mean**2) * deals / (deals - 1)
    half = Z95 * math.sqrt(variance / deals)
    return {"total": total, "mean": mean, "low": mean - half, "high": mean + half}


def _tricks_matrix(summary: GameRun) -> np.ndarray:
    """``int64[8, 14]`` opened contracts by level and tricks (row 0 unused), checked against the summary."""
    matrix = np.zeros((MAX_LEVEL + 1, 14), dtype=np.int64)
    for lv in range(1, MAX_LEVEL + 1):
        matrix[lv] = summary.tricks_by_level[f"{lv}NT"]
    if int(matrix.sum()) != summary.opened:
        raise InvalidInput(
            "tricks_by_level", f"{int(matrix.sum())} contracts by level and tricks, but {summary.opened} opened"
        )
    return matrix


Interval = tuple[float, float]


@dataclass(frozen=True)
class LevelFigures:
    """Contracts opened and made at one level, the made share and its 95 % Wilson interval."""

    opened: int
    made: int
    pct: float
    ci: Interval | None


@dataclass(frozen=True)
class NetFigures:
    """One scheme's net points: the tallied total and the mean per 1,000 deals with its 95 % interval."""

    total: int
    per_1000: float
    ci_per_1000: Interval


@dataclass(frozen=True)
class OutcomeFigures:
    """One outcome model's figures on a run, with 95 % intervals (percentages in percent)."""

    deals: int
    opened: int
    made: int
    made_pct: float | None
    made_ci: Interval | None
    by_level: dict[str, LevelFigures]  # only the levels at which contracts were opened
    both_eligible: int
    both_eligible_made: int
    both_eligible_made_pct: float | None
    both_eligible_made_ci: Interval | None
    losses: int
    losses_widow_not_qualified: int
    losses_widow_not_qualified_pct: float | None
    losses_widow_not_qualified_ci: Interval | None
    mean_tricks: float
    tricks_histogram: tuple[int, ...]
    net: dict[str, NetFigures]  # by scheme name

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict (keys in field order)."""
        return asdict(self)


def outcome_figures(summary: GameRun, schemes: Sequence[str]) -> OutcomeFigures:
    """Made shares with Wilson intervals and net points per 1,000 deals with normal intervals, for one outcome."""
    matrix = _tricks_matrix(summary)
    table = score_table(tuple(schemes))
    by_level = {}
    for lv in range(1, MAX_LEVEL + 1):
        opened = int(matrix[lv].sum())
        if opened:
            made = int(matrix[lv, lv + 6 :].sum())
            by_level[f"{lv}NT"] = LevelFigures(opened, made, 100 * made / opened, wilson_interval(made, opened))
    net = {}
    for k, name in enumerate(schemes):
        interval = net_points_interval(matrix, summary.deals, table[k])
        if round(interval["total"]) != summary.net_points[name]:
            raise InvalidInput(
                "net_points", f"{name}: {interval['total']} from the counts, {summary.net_points[name]} tallied"
            )
        net[name] = NetFigures(
            total=summary.net_points[name],
            per_1000=interval["mean"] * PER_DEALS,
            ci_per_1000=(interval["low"] * PER_DEALS, interval["high"] * PER_DEALS),
        )
    losses = summary.losses
    return OutcomeFigures(
        deals=summary.deals,
        opened=summary.opened,
        made=summary.made,
        made_pct=summary.made_pct,
        made_ci=wilson_interval(summary.made, summary.opened),
        by_level=by_level,
        both_eligible=summary.both_eligible,
        both_eligible_made=summary.both_eligible_made,
        both_eligible_made_pct=summary.both_eligible_made_pct,
        both_eligible_made_ci=wilson_interval(summary.both_eligible_made, summary.both_eligible),
        losses=losses,
        losses_widow_not_qualified=summary.losses_widow_not_qualified,
        losses_widow_not_qualified_pct=summary.losses_widow_not_qualified_pct,
        losses_widow_not_qualified_ci=wilson_interval(summary.losses_widow_not_qualified, losses),
        mean_tricks=float((matrix.sum(axis=0) * np.arange(14)).sum() / max(1, summary.opened)),
        tricks_histogram=tuple(int(x) for x in matrix.sum(axis=0)),
        net=net,
    )


@dataclass(frozen=True)
class DdComparison:
    """The protocol on the same deals judged by double dummy and by the capture estimator."""

    deals: int
    seed: int
    schemes: tuple[str, ...]
    dd: OutcomeFigures
    estimator: OutcomeFigures

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict (keys in field order)."""
        return {
            "deals": self.deals,
            "seed": self.seed,
            "schemes": list(self.schemes),
            "dd": self.dd.to_json(),
            "estimator": self.estimator.to_json(),
        }


def dd_comparison(deals: int, seed: int, engine_options: Callable[[str], dict[str, Any]] | None = None) -> DdComparison:
    """Run the protocol on ``deals`` deals (run 1 of ``seed``) with both outcomes; figures with 95 % intervals.

    ``engine_options(part)`` gives each engine run's keyword arguments (workers, a checkpoint folder with
    ``resume``, progress); the parts are ``game_dd`` (double dummy) and ``game_dd_estimator``.
    """
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 2:
        raise InvalidInput("dd_deals", f"expected at least 2 deals, got {deals!r}")
    options = engine_options or (lambda _part: {})
    dd = run_game(deals, 1, seed, GameParams(outcome="dd", schemes=DD_SCHEMES), **options("game_dd"))
    estimator = run_game(
        deals, 1, seed, GameParams(outcome="estimator", schemes=DD_SCHEMES), **options("game_dd_estimator")
    )
    dd_run, est_run = dd.results[0], estimator.results[0]
    if dd_run.opened_by_level != est_run.opened_by_level or dd_run.both_eligible != est_run.both_eligible:
        raise InvalidInput("outcome", "the two outcomes saw different auctions on the same deals")
    return DdComparison(
        deals, seed, tuple(DD_SCHEMES), outcome_figures(dd_run, DD_SCHEMES), outcome_figures(est_run, DD_SCHEMES)
    )


def _pct_ci(value: float | None, ci: tuple[float, float] | None) -> str:
    if value is None or ci is None:
        return "—"
    return f"{value:.1f} % [{ci[0]:.1f}, {ci[1]:.1f}]"


def _net_ci(net: NetFigures) -> str:
    low, high = net.ci_per_1000
    return f"{net.per_1000:+,.0f} [{low:+,.0f}, {high:+,.0f}]"


def _range(values: Sequence[float]) -> str:
    return f"{min(values):.2f}–{max(values):.2f} %"


def dd_summary_markdown(result: DdComparison, command: str) -> str:
    """The protocol in words and the headline figures with their 95 % intervals (the table follows)."""
    dd, est, pub = result.dd, result.estimator, PUBLISHED_TABLE_IV
    return "\n".join(
        [
            f"The paper's protocol on {result.deals:,} deals (run 1 of seed {result.seed}), with the declarer's "
            "double-dummy No-Trump tricks as the outcome: the widow's hand is reseated opposite the declarer, the "
            "declarer's left-hand opponent leads, and both sides play perfectly with all cards seen (endplay/DDS; "
            f"`{command}`). The same deals, hence the same auctions and contracts, are also judged by the capture "
            "estimator on declarer + widow (reading max/static/1), the outcome the paper used for Table IV.",
            "",
            f"- Played out, the paper's bidding strategy makes **{_pct_ci(dd.made_pct, dd.made_ci)}** of the "
            f"{dd.opened:,} contracts it opens; the estimator says {_pct_ci(est.made_pct, est.made_ci)} on the "
            f"same contracts, and the paper's Table IV {_range(pub['made_pct'])}.",
            f"- When the widow also qualifies at the contract level ({dd.both_eligible:,} contracts), double dummy "
            f"makes {_pct_ci(dd.both_eligible_made_pct, dd.both_eligible_made_ci)} (estimator "
            f"{_pct_ci(est.both_eligible_made_pct, est.both_eligible_made_ci)}, paper "
            f"{_range(pub['both_eligible_made_pct'])}).",
            f"- Of the {dd.losses:,} contracts that fail double dummy, "
            f"{_pct_ci(dd.losses_widow_not_qualified_pct, dd.losses_widow_not_qualified_ci)} have a widow that "
            f"does not qualify (paper, estimator outcome: at least {pub['losses_widow_not_qualified_min_pct']} %).",
            "",
            "Intervals are 95 %: Wilson score intervals for percentages, normal intervals for the mean net points per "
            "deal (thrown-in deals count as 0). The paper gives no intervals; its three runs are shown as published. "
            "Net points are per 1,000 deals so that samples of any size compare with the paper's totals per "
            "10,000,000 deals.",
        ]
    )


def dd_table_markdown(result: DdComparison) -> str:
    """Markdown table: double dummy beside the estimator (same deals) and Table IV, with 95 % intervals."""
    dd, est, pub = result.dd, result.estimator, PUBLISHED_TABLE_IV
    lines = [
        "| figure | double dummy | capture estimator, same deals | paper (Table IV, 3 × 10M, estimator) |",
        "|---|---:|---:|---|",
    ]

    def row(name: str, ours_dd: str, ours_est: str, paper: str) -> None:
        lines.append(f"| {name} | {ours_dd} | {ours_est} | {paper} |")

    row("deals", f"{dd.deals:,}", f"{est.deals:,}", f"{pub['deals_per_run']:,} per run")
    row("opened contracts", f"{dd.opened:,}", f"{est.opened:,}", "not published")
    row(
        "made % of opened contracts",
        _pct_ci(dd.made_pct, dd.made_ci),
        _pct_ci(est.made_pct, est.made_ci),
        " / ".join(f"{v:.2f} %" for v in pub["made_pct"]),
    )
    for level, figures in dd.by_level.items():
        other = est.by_level[level]
        count = f"{figures.opened:,} contract" + ("s" if figures.opened != 1 else "")
        row(
            f"  made % at {level} ({count})",
            _pct_ci(figures.pct, figures.ci),
            _pct_ci(other.pct, other.ci),
            "not published",
        )
    row(
        "both eligible (widow qualifies at the contract level)",
        f"{dd.both_eligible:,}",
        f"{est.both_eligible:,}",
        f"> {pub['both_eligible_min_count']:,} per run",
    )
    row(
        "made % when both eligible",
        _pct_ci(dd.both_eligible_made_pct, dd.both_eligible_made_ci),
        _pct_ci(est.both_eligible_made_pct, est.both_eligible_made_ci),
        " / ".join(f"{v:.2f} %" for v in pub["both_eligible_made_pct"]),
    )
    row(
        "losses with a widow that does not qualify",
        _pct_ci(dd.losses_widow_not_qualified_pct, dd.losses_widow_not_qualified_ci),
        _pct_ci(est.losses_widow_not_qualified_pct, est.losses_widow_not_qualified_ci),
        f"≥ {pub['losses_widow_not_qualified_min_pct']} %",
    )
    row(
        "mean declarer tricks (opened contracts)",
        f"{dd.mean_tricks:.2f}",
        f"{est.mean_tricks:.2f}",
        "not published",
    )
    for scheme in result.schemes:
        if scheme == "classic":
            low, high = (v * PER_DEALS / pub["deals_per_run"] for v in pub["net_points_old_scheme_range"])
            paper = f"{low:+.1f} to {high:+.1f} (paper's old scheme)"
        else:
            paper = "no published counterpart"
        row(
            f"net points per 1,000 deals, scheme `{scheme}`",
            _net_ci(dd.net[scheme]),
            _net_ci(est.net[scheme]),
            paper,
        )
    return "\n".join(lines)


def dd_figure(result: DdComparison, path: str) -> str:
    """Made % (overall, by level, both eligible) and net points per 1,000 deals, both outcomes, 95 % error bars."""
    import matplotlib  # optional plotting dependency, loaded only when a figure is drawn

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    outcomes = ((result.dd, "double dummy", "#4C72B0", -0.2), (result.estimator, "capture estimator", "#DD8452", 0.2))
    levels = [lv for lv, row in result.dd.by_level.items() if row.opened >= 30]  # levels with a usable sample

    def made_bars(figures: OutcomeFigures) -> list[tuple[float, Interval]]:
        bars = [(figures.made_pct, figures.made_ci)]
        bars += [(figures.by_level[lv].pct, figures.by_level[lv].ci) for lv in levels]
        bars.append((figures.both_eligible_made_pct, figures.both_eligible_made_ci))
        return [(v or 0.0, ci or (v or 0.0, v or 0.0)) for v, ci in bars]

    labels = ["all", *levels, "both eligible"]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5), gridspec_kw={"width_ratios": [3, 2]})
    ax = axes[0]
    x = np.arange(len(labels))
    for figures, label, colour, offset in outcomes:
        bars = made_bars(figures)
        values = [v for v, _ in bars]
        errors = np.array([[v - ci[0] for v, ci in bars], [ci[1] - v for v, ci in bars]])
        ax.bar(x + offset, values, 0.4, yerr=errors, capsize=3, label=label, color=colour)
        for xi, v in zip(x, values):
            ax.text(xi + offset, 3, f"{v:.1f}", ha="center", fontsize=7, color="white")
    pub = PUBLISHED_TABLE_IV
    ax.axhline(
        float(np.mean(pub["made_pct"])),
        color="black",
        linestyle="--",
        linewidth=0.8,
        label="paper, all opened (Table IV)",
    )
    ax.axhline(
        float(np.mean(pub["both_eligible_made_pct"])),
        color="grey",
        linestyle=":",
        linewidth=0.8,
        label="paper, both eligible",
    )
    ax.set_xticks(x, labels)
    ax.set_ylim(0, 125)
    ax.set_ylabel("contracts made (%), 95 % intervals")
    ax.set_title("Made contracts")
    ax.legend(fontsize=7, loc="upper center", ncol=2)
    ax = axes[1]
    schemes = result.schemes
    x = np.arange(len(schemes))
    for figures, label, colour, offset in outcomes:
        nets = [figures.net[s] for s in schemes]
        values = [n.per_1000 for n in nets]
        errors = np.array([[v - n.ci_per_1000[0], n.ci_per_1000[1] - v] for v, n in zip(values, nets)]).T
        ax.bar(x + offset, values, 0.4, yerr=errors, capsize=3, label=label, color=colour)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xticks(x, [f"scheme {s}" for s in schemes])
    ax.set_ylabel("net points per 1,000 deals")
    ax.set_title("Net points")
    ax.legend(fontsize=7)
    fig.suptitle(f"The paper's strategy judged by double dummy, {result.deals:,} deals (seed {result.seed})")
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path
