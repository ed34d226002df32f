"""The seed papers' own studies (NT call Tables 3–4, capture estimator Tables I–II): pure functions returning counts."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from tribridge.dealing.random import chunk_ranges, deal_hand_masks, seed_sequence
from tribridge.errors import InvalidInput
from tribridge.estimators.capture import ALL_READINGS, STATUSES, CaptureReading, capture_masks_batch
from tribridge.estimators.nt_call import VERDICTS, nt_call_batch
from tribridge.sim import published as P
from tribridge.sim.paper_results import (
    CaptureComparison,
    CaptureRun,
    CaptureStudy,
    NtRun,
    NtStudy,
    NtTable3Row,
    NtTable4Row,
    RankedReading,
    ReadingResult,
    Table1Row,
    Table2Row,
)

__all__ = [
    "capture_figure",
    "capture_study",
    "capture_tables_markdown",
    "nt_study",
    "nt_tables_markdown",
]

CHUNK = 1 << 20
Progress = Callable[[int], None]


def _check_sizes(n: int, runs: int, field: str) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidInput(field, f"expected a positive integer, got {n!r}")
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise InvalidInput("runs", f"expected a positive integer, got {runs!r}")


def _levels(levels: Iterable[int]) -> list[int]:
    out = sorted({int(lv) for lv in levels})
    if not out or out[0] < 1 or out[-1] > 7:
        raise InvalidInput("levels", f"expected levels 1..7, got {list(levels)!r}")
    return out


def _se_pct_diff(p: float, n_ours: int, n_published: int) -> float:
    """Standard error (in counts per 100,000) of the difference of two independent binomial proportions."""
    return 100_000 * math.sqrt(max(p * (1 - p), 0.0) * (1 / n_ours + 1 / n_published))


def nt_study(
    hands: int, runs: int, seed: int | None, levels: Sequence[int] = (1, 2, 3), progress: Progress | None = None
) -> NtStudy:
    """Tables 3–4: verdict counts per run and level for one hand and for the partnership's 26 cards.

    Run r uses deals ``r*hands .. (r+1)*hands-1`` of the seed's stream; hand 0 is the bidder, hand 1 the
    partner; every level is tested on the same hands.
    """
    _check_sizes(hands, runs, "hands")
    lvls = _levels(levels)
    root = seed_sequence(seed)
    per_run = []
    for run in range(runs):
        single = {lv: np.zeros(4, np.int64) for lv in lvls}
        both = {lv: np.zeros(4, np.int64) for lv in lvls}
        for start, count in chunk_ranges(hands, CHUNK):
            masks = deal_hand_masks(count, root, 2, run * hands + start)
            union = masks[:, 0] | masks[:, 1]
            for lv in lvls:
                single[lv] += np.bincount(nt_call_batch(masks[:, 0], lv), minlength=4)
                both[lv] += np.bincount(nt_call_batch(union, lv), minlength=4)
            if progress:
                progress(count)
        per_run.append(
            NtRun(
                run=run + 1,
                single={str(lv): {VERDICTS[c]: int(single[lv][c]) for c in range(4)} for lv in lvls},
                with_partner={str(lv): {VERDICTS[c]: int(both[lv][c]) for c in range(4)} for lv in lvls},
            )
        )
    return NtStudy(
        hands=hands,
        runs=runs,
        seed=seed,
        levels=tuple(lvls),
        results=tuple(per_run),
        table3=_nt_compare_table3(hands * runs, lvls, per_run),
        table4=_nt_compare_table4(hands * runs, lvls, per_run),
    )


def _nt_compare_table3(n_ours: int, levels: Sequence[int], per_run: Sequence[NtRun]) -> tuple[NtTable3Row, ...]:
    rows = []
    for lv in levels:
        if lv not in P.NT_TABLE3_YES:
            continue
        ours = [r.single[str(lv)]["yes"] for r in per_run]
        ours_per_100k = 100_000 * sum(ours) / n_ours
        pub = P.NT_TABLE3_YES[lv]
        pub_mean = sum(pub) / len(pub)
        p = (sum(ours) + sum(pub)) / (n_ours + P.NT_HANDS_PER_RUN * len(pub))
        se = _se_pct_diff(p, n_ours, P.NT_HANDS_PER_RUN * len(pub))
        rows.append(
            NtTable3Row(
                level=lv,
                ours=tuple(ours),
                ours_per_100k=round(ours_per_100k, 1),
                published=tuple(pub),
                published_mean=round(pub_mean, 1),
                difference=round(ours_per_100k - pub_mean, 1),
                standard_error=round(se, 1),
                z=round((ours_per_100k - pub_mean) / se, 2),
            )
        )
    return tuple(rows)


def _nt_compare_table4(n_ours: int, levels: Sequence[int], per_run: Sequence[NtRun]) -> tuple[NtTable4Row, ...]:
    rows = []
    for lv in levels:
        if lv not in P.NT_TABLE4_YES:
            continue
        for column, pub in (("single hand", P.NT_TABLE4_YES[lv][0]), ("with partner", P.NT_TABLE4_YES[lv][1])):
            counts = [r.single if column == "single hand" else r.with_partner for r in per_run]
            ours = sum(c[str(lv)]["yes"] for c in counts)
            ours_per_100k = 100_000 * ours / n_ours
            p = (ours + pub) / (n_ours + P.NT_HANDS_PER_RUN)
            se = _se_pct_diff(p, n_ours, P.NT_HANDS_PER_RUN)
            rows.append(
                NtTable4Row(
                    level=lv,
                    column=column,
                    ours_per_100k=round(ours_per_100k, 1),
                    published=pub,
                    difference=round(ours_per_100k - pub, 1),
                    standard_error=round(se, 1),
                    z=round((ours_per_100k - pub) / se, 2),
                )
            )
    return tuple(rows)


def nt_tables_markdown(result: NtStudy) -> str:
    """Markdown tables: our Table 3 and Table 4 beside the published ones."""
    runs = result.runs
    lines = [
        f"Table 3 — yes counts per {result.hands:,} hands, {runs} runs (published: 100,000 × 3)",
        "",
        "| level | "
        + " | ".join(f"ours run {i + 1}" for i in range(runs))
        + " | ours per 100k | published runs | published mean | difference | std. error | z |",
        "|" + "---|" * (runs + 7),
    ]
    for row in result.table3:
        lines.append(
            f"| {row.level}NT | "
            + " | ".join(f"{v:,}" for v in row.ours)
            + f" | {row.ours_per_100k:,.1f} | {' / '.join(map(str, row.published))} | "
            f"{row.published_mean:,.1f} | {row.difference:+.1f} | {row.standard_error:.1f} | "
            f"{row.z:+.2f} |"
        )
    lines += [
        "",
        "Table 4 — yes per 100,000: single hand and with partner (26 cards)",
        "",
        "| level | column | ours per 100k | published | difference | std. error | z |",
        "|---|---|---|---|---|---|---|",
    ]
    for row4 in result.table4:
        lines.append(
            f"| {row4.level}NT | {row4.column} | {row4.ours_per_100k:,.1f} | {row4.published:,} | "
            f"{row4.difference:+.1f} | {row4.standard_error:.1f} | {row4.z:+.2f} |"
        )
    return "\n".join(lines)


def _readings(reading: CaptureReading | str | Sequence[CaptureReading]) -> list[CaptureReading]:
    if reading == "all":
        return list(ALL_READINGS)
    if isinstance(reading, CaptureReading):
        return [reading]
    return list(reading)  # type: ignore[arg-type]


def capture_study(
    deals: int,
    runs: int,
    seed: int | None,
    reading: CaptureReading | str | Sequence[CaptureReading] = CaptureReading(),
    progress: Progress | None = None,
) -> CaptureStudy:
    """Tables I–II: status counts and the histogram of captures per run, for one reading or ``"all"``.

    Run r uses deals ``r*deals ..`` of the seed's stream; hand 0 is the declarer (the 1s), hand 1 the partner.
    """
    _check_sizes(deals, runs, "deals")
    readings = _readings(reading)
    root = seed_sequence(seed)
    per_reading: dict[str, list[CaptureRun]] = {rd.label: [] for rd in readings}
    for run in range(runs):
        status = {rd.label: np.zeros(3, np.int64) for rd in readings}
        hist = {rd.label: np.zeros(14, np.int64) for rd in readings}
        for start, count in chunk_ranges(deals, CHUNK):
            masks = deal_hand_masks(count, root, 2, run * deals + start)
            for rd in readings:
                out = capture_masks_batch(masks[:, 0], masks[:, 1], rd.limit, rd.gap, rd.replacements)
                status[rd.label] += np.bincount(out.status, minlength=3)
                hist[rd.label] += np.bincount(out.captures[out.status == 0], minlength=14)[:14]
            if progress:
                progress(count)
        for rd in readings:
            per_reading[rd.label].append(
                CaptureRun(
                    run=run + 1,
                    deals=deals,
                    status={STATUSES[c]: int(status[rd.label][c]) for c in range(3)},
                    captures_histogram=tuple(int(v) for v in hist[rd.label]),
                )
            )
    by_label = {label: ReadingResult(tuple(rs), _capture_compare(rs)) for label, rs in per_reading.items()}
    ranked = sorted(by_label, key=lambda k: by_label[k].comparison.distance)
    return CaptureStudy(
        deals=deals,
        runs=runs,
        seed=seed,
        readings=by_label,
        closest_reading=ranked[0],
        ranking=tuple(RankedReading(k, by_label[k].comparison.distance) for k in ranked),
    )


def _capture_compare(runs: Sequence[CaptureRun]) -> CaptureComparison:
    total = sum(r.deals for r in runs)
    status = {k: sum(r.status[k] for r in runs) for k in STATUSES}
    hist = np.sum([r.captures_histogram for r in runs], axis=0)
    qualified = max(int(hist.sum()), 1)
    pub_total = P.CAPTURE_DEALS_PER_RUN * P.CAPTURE_RUNS
    table2 = []
    for key in ("qualified", "fail_b", "fail_a"):
        ours = 100 * status[key] / total
        pub = P.CAPTURE_TABLE2_PCT[key]
        p = ours / 100
        se = 100 * math.sqrt(p * (1 - p) * (1 / total + 1 / pub_total))
        per_run = tuple(round(100 * r.status[key] / r.deals, 3) for r in runs)
        table2.append(
            Table2Row(
                figure=f"{key} %",
                ours_per_run=per_run,
                ours=round(ours, 3),
                published=pub,
                difference=round(ours - pub, 3),
                standard_error=round(se, 3),
            )
        )
    share = lambda ts: 100 * float(sum(hist[t] for t in ts)) / qualified  # noqa: E731
    t8_11, t9_10, t_le6 = share(range(8, 12)), share((9, 10)), share(range(0, 7))
    t9_10_all = 100 * float(hist[9] + hist[10]) / total
    pub1 = P.CAPTURE_TABLE1
    table1 = [
        Table1Row(
            figure="T in 8..11, % of qualifying",
            ours=round(t8_11, 2),
            published=f"> {pub1['t_8_to_11_pct_of_qualified_min']}",
            difference=round(min(0.0, t8_11 - pub1["t_8_to_11_pct_of_qualified_min"]), 2),
        ),
        Table1Row(
            figure="T in 9..10, % of qualifying",
            ours=round(t9_10, 2),
            published=pub1["t_9_or_10_pct_of_qualified"],
            difference=round(t9_10 - pub1["t_9_or_10_pct_of_qualified"], 2),
        ),
        Table1Row(
            figure="T in 9..10, % of all deals",
            ours=round(t9_10_all, 2),
            published=pub1["t_9_or_10_pct_of_all"],
            difference=round(t9_10_all - pub1["t_9_or_10_pct_of_all"], 2),
        ),
        Table1Row(
            figure="T <= 6, % of qualifying",
            ours=round(t_le6, 3),
            published=f"< {pub1['t_le_6_pct_of_qualified_max']}",
            difference=round(max(0.0, t_le6 - pub1["t_le_6_pct_of_qualified_max"]), 3),
        ),
        Table1Row("T > 13, count", 0, 0, 0),  # the stop count makes 13 the maximum
    ]
    # distance of a reading from Table I: |9..10 share − 65.6| + shortfall below 93 % in 8..11 + excess over 0.19 % at T ≤ 6
    distance = abs(table1[1].difference) + abs(table1[0].difference) + table1[3].difference
    return CaptureComparison(
        table2=tuple(table2),
        table1=tuple(table1),
        distance=round(distance, 2),
        histogram_pct_of_qualified=tuple(round(100 * float(v) / qualified, 3) for v in hist),
    )


def capture_tables_markdown(result: CaptureStudy) -> str:
    """Markdown: Table II (reading-independent) and Table I per reading, beside the published figures."""
    first = next(iter(result.readings.values()))
    lines = [
        f"Table II — {result.runs} runs × {result.deals:,} deals (published: 3 × 1,000,000)",
        "",
        "| figure | ours per run | ours | published | difference | std. error |",
        "|---|---|---|---|---|---|",
    ]
    for row in first.comparison.table2:
        lines.append(
            f"| {row.figure} | {' / '.join(f'{v:.2f}' for v in row.ours_per_run)} | {row.ours:.2f} | "
            f"{row.published:.2f} | {row.difference:+.2f} | {row.standard_error:.2f} |"
        )
    lines += [
        "",
        "Table I — qualifying deals, per reading (limit/gap/replacements); distance = sum of the "
        "shortfalls from the published figures in percentage points",
        "",
        "| reading | T 8..11 % (pub > 93) | T 9..10 % (pub 65.6) | T 9..10 % of all (pub 18.3) | "
        "T ≤ 6 % (pub < 0.19) | distance |",
        "|---|---|---|---|---|---|",
    ]
    for item in result.ranking:
        t1 = result.readings[item.reading].comparison.table1
        lines.append(
            f"| {item.reading} | {t1[0].ours:.2f} | {t1[1].ours:.2f} | {t1[2].ours:.2f} | "
            f"{t1[3].ours:.3f} | {item.distance:.2f} |"
        )
    return "\n".join(lines)


def capture_figure(result: CaptureStudy, path: str) -> str:
    """Histogram of captures (percent of qualifying deals) per reading, with the published shares overlaid."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 4.5))
    labels = list(result.readings)
    width = 0.8 / max(len(labels), 1)
    x = np.arange(14)
    for i, label in enumerate(labels):
        ax.bar(
            x + i * width - 0.4 + width / 2,
            result.readings[label].comparison.histogram_pct_of_qualified,
            width,
            label=label,
        )
    ax.hlines(
        P.CAPTURE_TABLE1["t_9_or_10_pct_of_qualified"] / 2,
        8.6,
        10.4,
        colors="k",
        linestyles="--",
        label="paper: T=9..10 together 65.6 % (shown as the mean per bar)",
    )
    ax.axvspan(7.5, 11.5, color="grey", alpha=0.12, label="paper: T=8..11 over 93 %")
    ax.set_xticks(x)
    ax.set_xlabel("total captures T")
    ax.set_ylabel("% of qualifying deals")
    ax.set_title(f"Capture estimator, {result.runs} × {result.deals:,} deals")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
