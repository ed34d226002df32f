"""Shuffling tables for the reproduction report: ours beside the published figures, as data, plus the figure."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from tribridge.dealing import randomness as R
from tribridge.dealing.shuffles import dealing_pattern, deck_values, pattern_to_word
from tribridge.errors import InvalidInput
from tribridge.sim.shuffling_results import (
    BayerDiaconisRow,
    ExactCurve,
    ExactSmall,
    FirstOrderRow,
    MonteCarlo,
    MonteCarloPoint,
    RatioRow,
    RepeatedValuesRow,
    ShufflingReport,
    TournamentRow,
    TwoTypesRow,
)

__all__ = ["CLASSIC", "SHUFFLING_SCALES", "draw_shuffling_figure", "format_shuffling_report", "shuffling_report"]

CLASSIC = ("ordered", "cyclic", "back-and-forth")

# Sizes per scale: Monte Carlo deals per point, local-search sample and sweeps, extras.
SHUFFLING_SCALES: dict[str, dict[str, Any]] = {
    "quick": {
        "mc_samples": 3_000,
        "mc_shuffles": list(range(1, 11)),
        "search_samples": 4_000,
        "sweeps": 1,
        "restarts": 0,
        "tournaments": False,
        "exact_small": (3, 3),
    },
    "paper": {
        "mc_samples": 100_000,
        "mc_shuffles": list(range(1, 11)),
        "search_samples": 20_000,
        "sweeps": 3,
        "restarts": 2,
        "tournaments": True,
        "exact_small": (3, 3),
    },
}
SHUFFLING_SCALES["full"] = SHUFFLING_SCALES["paper"]

PUBLISHED = {
    "bayer_diaconis_52": R.PUBLISHED_BAYER_DIACONIS_52,
    "conger_howald_factor": 13,
    "conger_howald_extra_riffles": 3.7,
}


def _exact(value: Fraction | None) -> Fraction:
    """An exact constant that the method used must have produced."""
    if value is None:
        raise ValueError("expected an exact first-order constant")
    return value


def _frac(value: Fraction | None) -> str | None:
    if value is None:
        return None
    text = f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)
    return text if len(text) <= 80 else None


def _ratio(a: Fraction | float, b: Fraction | float) -> float | None:
    return None if not b else float(Fraction(a) / Fraction(b))


def _bayer_diaconis() -> tuple[BayerDiaconisRow, ...]:
    """1. Bayer–Diaconis, 52 cards."""
    table = R.bayer_diaconis_table(52, range(1, 11))
    return tuple(
        BayerDiaconisRow(
            shuffles=k,
            ours=float(v),
            ours_3dp=f"{float(v):.3f}",
            published=R.PUBLISHED_BAYER_DIACONIS_52[k],
            match=round(float(v), 3) == R.PUBLISHED_BAYER_DIACONIS_52[k],
        )
        for k, v in table.items()
    )


def _bridge() -> tuple[tuple[FirstOrderRow, ...], tuple[RatioRow, ...]]:
    """2. Bridge (4 hands of 13, distinct cards): exact first-order constants and their ratios."""
    distinct = deck_values("distinct", 52)
    consts = {name: R.first_order_constant(distinct, w, 13) for name, w in R.classic_patterns(4, 13).items()}
    rows = tuple(
        FirstOrderRow(
            pattern=name,
            word=pattern_to_word(dealing_pattern(name, 4, 13)),
            constant=c.value,
            exact=_frac(c.exact),
            method=c.method,
            riffles_for_tv_01=R.shuffles_for_tv(c.value, 0.1),
        )
        for name, c in consts.items()
    )
    oc = _exact(consts["ordered"].exact) / _exact(consts["cyclic"].exact)
    cb = _exact(consts["cyclic"].exact) / _exact(consts["back-and-forth"].exact)
    ratios = (
        RatioRow("ordered / cyclic", float(oc), 13),
        RatioRow("cyclic / back-and-forth", float(cb), 13),
        RatioRow("extra riffles worth one factor", math.log2(float(cb)), 3.7),
    )
    return rows, ratios


def _repeated_values() -> tuple[RepeatedValuesRow, ...]:
    """3. Repeated values (Balázs–Szabó): colours, 4 players, s cards each."""
    rows = []
    for s in (2, 3, 4, 5, 13):
        values = deck_values("colors", 4 * s)
        c = {name: _exact(R.first_order_constant(values, w, s).exact) for name, w in R.classic_patterns(4, s).items()}
        rows.append(
            RepeatedValuesRow(
                deck="colors",
                players=4,
                hand_size=s,
                constants={name: float(v) for name, v in c.items()},
                ordered_over_cyclic=_ratio(c["ordered"], c["cyclic"]),
                cyclic_over_back_and_forth=_ratio(c["cyclic"], c["back-and-forth"]),
                published="back-and-forth = 0" if s % 2 == 0 else f"ratios {s} and {s}",
            )
        )
    return tuple(rows)


def _two_types(sizes: Mapping[str, Any], rng: np.random.Generator) -> tuple[TwoTypesRow, ...]:
    """4. Two card types, odd s: does something beat back-and-forth?"""
    values = deck_values("colors", 12)
    best = R.exhaustive_best_patterns(values, 4, 3, top=1)[0]
    bf = _exact(R.first_order_constant(values, dealing_pattern("back-and-forth", 4, 3), 3).exact)
    small = TwoTypesRow(
        players=4,
        hand_size=3,
        search="exhaustive",
        best_word=pattern_to_word(best.pattern),
        best=float(_exact(best.exact)),
        best_exact=_frac(best.exact),
        back_and_forth=float(bf),
        beats_back_and_forth=_exact(best.exact) < bf,
    )
    values = deck_values("colors", 52)
    found = R.local_search_pattern(
        values, 4, 13, rng, samples=sizes["search_samples"], sweeps=sizes["sweeps"], restarts=sizes["restarts"]
    )
    exact_found = R.first_order_constant(values, found.pattern, 13)
    bf52 = R.first_order_constant(values, dealing_pattern("back-and-forth", 4, 13), 13)
    full = TwoTypesRow(
        players=4,
        hand_size=13,
        search="local",
        best_word=pattern_to_word(found.pattern),
        best=exact_found.value,
        best_exact=_frac(exact_found.exact),
        back_and_forth=bf52.value,
        beats_back_and_forth=exact_found.value < bf52.value,
    )
    return small, full


def _tournaments() -> tuple[TournamentRow, ...]:
    """5. Distinct 52 cards: orientations of M_L with |entries| = 1 (the minimum for odd s)."""
    return tuple(
        TournamentRow(
            scores=tuple(sorted(int(v) for v in m.sum(axis=1))),
            transitive=sorted(int(v) for v in m.sum(axis=1)) == [-3, -1, 1, 3],
            constant=float(c),
        )
        for m, c in R.tournament_constants(13, 4)
    )


def _exact_small(k_players: int, s_small: int) -> ExactSmall:
    """6. Exact TV of the hands for a small deck (all permutations)."""
    small = deck_values("distinct", k_players * s_small)
    curves = {}
    for name, w in R.classic_patterns(k_players, s_small).items():
        law = R.exact_deal_law(small, w)
        curves[name] = ExactCurve(
            tv={str(k): float(law.tv(2**k)) for k in range(0, 11)}, constant=float(law.first_order_constant())
        )
    return ExactSmall(k_players, s_small, curves)


def _monte_carlo(sizes: Mapping[str, Any], rng: np.random.Generator) -> MonteCarlo:
    """7. Monte Carlo TV of features of 52-card deals."""
    features: dict[str, dict[str, tuple[MonteCarloPoint, ...]]] = {}
    for feature in R.FEATURES:
        features[feature] = {}
        for name in CLASSIC:
            res = R.monte_carlo_feature_tv(feature, name, sizes["mc_shuffles"], sizes["mc_samples"], rng, replicates=10)
            features[feature][name] = tuple(MonteCarloPoint(r.shuffles, r.tv, r.stderr, r.floor) for r in res)
    return MonteCarlo(sizes["mc_samples"], features)


def shuffling_report(scale: str = "quick", seed: int = 1) -> ShufflingReport:
    """All shuffling tables: Bayer–Diaconis, first-order constants, patterns, Monte Carlo TV."""
    if scale not in SHUFFLING_SCALES:
        raise InvalidInput("scale", f"expected one of {', '.join(SHUFFLING_SCALES)}, got {scale!r}")
    sizes = SHUFFLING_SCALES[scale]
    rng = np.random.default_rng(seed)
    started = time.perf_counter()
    bayer_diaconis = _bayer_diaconis()
    first_order, ratios = _bridge()
    repeated = _repeated_values()
    two_types = _two_types(sizes, rng)
    tournaments = _tournaments() if sizes["tournaments"] else None
    exact_small = _exact_small(*sizes["exact_small"])
    monte_carlo = _monte_carlo(sizes, rng)
    return ShufflingReport(
        scale=scale,
        seed=seed,
        bayer_diaconis=bayer_diaconis,
        bridge_first_order=first_order,
        bridge_ratios=ratios,
        repeated_values=repeated,
        two_types=two_types,
        tournaments=tournaments,
        exact_small=exact_small,
        monte_carlo=monte_carlo,
        seconds=round(time.perf_counter() - started, 2),
    )


def format_shuffling_report(report: ShufflingReport) -> str:
    """Markdown tables of a ``shuffling_report`` (ours beside the published figures)."""
    lines = [
        "Bayer–Diaconis: total variation of the order of 52 cards after k riffles (exact).",
        "",
        "| k | ours | ours (3 digits) | published | match |",
        "|---|---|---|---|---|",
    ]
    for r in report.bayer_diaconis:
        lines.append(
            f"| {r.shuffles} | {r.ours:.6f} | {r.ours_3dp} | {r.published:.3f} | {'yes' if r.match else 'NO'} |"
        )
    lines += [
        "",
        "Bridge, 4 hands of 13 distinct cards: first-order constant C = lim a·TV (exact; TV ≈ C/2^k).",
        "",
        "| dealing | C | riffles for first-order TV 0.1 |",
        "|---|---|---|",
    ]
    for f in report.bridge_first_order:
        lines.append(f"| {f.pattern} | {f.constant:.6f} | {f.riffles_for_tv_01:.2f} |")
    lines += ["", "| figure | ours | published (Conger–Howald) |", "|---|---|---|"]
    for ratio in report.bridge_ratios:
        lines.append(f"| {ratio.figure} | {ratio.ours:.4f} | {ratio.published} |")
    lines += [
        "",
        "Repeated values (two colours, 4 players, s cards each; Balázs–Szabó): first-order constants.",
        "",
        "| s | ordered | cyclic | back-and-forth | ordered/cyclic | cyclic/b&f | published |",
        "|---|---|---|---|---|---|---|",
    ]
    for rv in report.repeated_values:
        oc = "—" if rv.ordered_over_cyclic is None else f"{rv.ordered_over_cyclic:.4f}"
        cb = "—" if rv.cyclic_over_back_and_forth is None else f"{rv.cyclic_over_back_and_forth:.4f}"
        c = rv.constants
        lines.append(
            f"| {rv.hand_size} | {c['ordered']:.6f} | {c['cyclic']:.6f} | {c['back-and-forth']:.6f} | "
            f"{oc} | {cb} | {rv.published} |"
        )
    lines += [
        "",
        "Two card types, odd s: best pattern found vs back-and-forth (paper: something better exists).",
        "",
        "| hands | search | best pattern | its C | back-and-forth C | better |",
        "|---|---|---|---|---|---|",
    ]
    for t in report.two_types:
        lines.append(
            f"| 4×{t.hand_size} | {t.search} | `{t.best_word}` | {t.best:.6f} | "
            f"{t.back_and_forth:.6f} | {'yes' if t.beats_back_and_forth else 'no'} |"
        )
    if report.tournaments is not None:
        lines += [
            "",
            "Distinct 52 cards: every orientation of M_L with entries ±1 (row sums), exact C.",
            "",
            "| row sums | transitive (back-and-forth type) | C |",
            "|---|---|---|",
        ]
        for tr in report.tournaments:
            lines.append(f"| {list(tr.scores)} | {'yes' if tr.transitive else 'no'} | {tr.constant:.6f} |")
    ex = report.exact_small
    ks = list(next(iter(ex.curves.values())).tv)
    lines += [
        "",
        f"Exact TV of the hands, {ex.players} hands of {ex.hand_size} distinct cards (all permutations enumerated).",
        "",
        "| dealing | " + " | ".join(f"k={k}" for k in ks) + " | C |",
        "|---|" + "---|" * (len(ks) + 1),
    ]
    for name, cur in ex.curves.items():
        lines.append(f"| {name} | " + " | ".join(f"{cur.tv[k]:.4f}" for k in ks) + f" | {cur.constant:.4f} |")
    mc = report.monte_carlo
    for feature, per in mc.features.items():
        first = next(iter(per.values()))
        ks = [str(p.shuffles) for p in first]
        lines += [
            "",
            f"Monte Carlo TV of feature `{feature}` of 52-card deals ({mc.samples:,} deals per point; "
            f"noise floor ≈ {first[0].floor:.4f}: values near it only bound the TV from above "
            "by about the floor).",
            "",
            "| dealing | " + " | ".join(f"k={k}" for k in ks) + " |",
            "|---|" + "---|" * len(ks),
        ]
        for name, points in per.items():
            lines.append(f"| {name} | " + " | ".join(f"{p.tv:.3f}±{p.stderr:.3f}" for p in points) + " |")
    return "\n".join(lines)


def draw_shuffling_figure(report: ShufflingReport, path: str | Path) -> str:
    """Figure: TV against riffles for each dealing method (exact small deck; 52-card features) with first order."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 6.2))
    ax = axes[0]
    bd = report.bayer_diaconis
    ax.plot([r.shuffles for r in bd], [r.ours for r in bd], "k-", lw=2, label="whole order of 52 cards (BD)")
    ax.plot([r.shuffles for r in bd], [r.published for r in bd], "kx", label="published (BD 1992)")
    consts = {f.pattern: f.constant for f in report.bridge_first_order}
    grid = np.linspace(1, 10, 200)
    for i, name in enumerate(CLASSIC):
        ax.plot(
            grid,
            np.minimum(1.0, consts[name] / 2**grid),
            "--",
            color=f"C{i}",
            label=f"bridge hands, {name}: first order C/2^k, C={consts[name]:.3g}",
        )
    ad = report.monte_carlo.features["ascent-descent"]
    for i, name in enumerate(CLASSIC):
        points = ad[name]
        ax.errorbar(
            [p.shuffles for p in points],
            [max(p.tv, 1e-4) for p in points],
            yerr=[2 * p.stderr for p in points],
            fmt="o",
            color=f"C{i}",
            ms=4,
            label=f"{name}: MC TV of asc−des feature (lower bound)",
        )
    ax.axhline(ad[CLASSIC[0]][0].floor, color="grey", ls=":", lw=1, label="MC noise floor")
    ax.set_yscale("log")
    ax.set_ylim(1e-3, 1.5)
    ax.set_xlabel("riffle shuffles k")
    ax.set_ylabel("total variation")
    ax.set_title("52 cards, 4 hands of 13")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2)

    ax = axes[1]
    ex = report.exact_small
    for i, (name, cur) in enumerate(ex.curves.items()):
        ks = [int(k) for k in cur.tv]
        ax.plot(ks, [max(cur.tv[str(k)], 1e-6) for k in ks], "o-", color=f"C{i}", label=f"{name} (exact)")
        if cur.constant > 0:
            g = np.linspace(0, max(ks), 200)
            ax.plot(g, np.minimum(1.0, cur.constant / 2**g), "--", color=f"C{i}", alpha=0.6)
    ax.set_yscale("log")
    ax.set_xlabel("riffle shuffles k")
    ax.set_ylabel("total variation of the hands")
    ax.set_title(f"{ex.players} hands of {ex.hand_size} distinct cards: exact (dashed: C/2^k)")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return str(path)
