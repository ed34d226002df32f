"""Reproduction report: our tables beside the published ones, and figures in the papers' style."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tribridge import __version__
from tribridge.errors import InvalidInput
from tribridge.sim import published as P
from tribridge.sim.game_dd_report import dd_comparison, dd_figure, dd_summary_markdown, dd_table_markdown
from tribridge.sim.game_study import SCHEMES_DEFAULT, GameParams, run_game
from tribridge.sim.papers import capture_figure, capture_study, capture_tables_markdown, nt_study, nt_tables_markdown
from tribridge.sim.report_state import check_state, load_section, save_section
from tribridge.sim.shuffling_report import draw_shuffling_figure, format_shuffling_report, shuffling_report


def _fmt_pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f} %"


def game_table_markdown(result: Mapping[str, Any]) -> str:
    """Markdown table: our game-study figures per run beside the paper's Table IV."""
    runs = result["results"]
    pub = P.PUBLISHED_TABLE_IV
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
    row(
        "made % (opened contracts)",
        [_fmt_pct(r["made_pct"]) for r in runs],
        " / ".join(f"{v:.2f} %" for v in pub["made_pct"]),
    )
    row(
        "both eligible (widow qualifies at the contract level)",
        [f"{r['both_eligible']:,}" for r in runs],
        f"> {pub['both_eligible_min_count']:,}",
    )
    row(
        "made % when both eligible",
        [_fmt_pct(r["both_eligible_made_pct"]) for r in runs],
        " / ".join(f"{v:.2f} %" for v in pub["both_eligible_made_pct"]),
    )
    row(
        "losses with a widow that does not qualify",
        [_fmt_pct(r["losses_widow_not_qualified_pct"]) for r in runs],
        f"≥ {pub['losses_widow_not_qualified_min_pct']} %",
    )
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


# ---------------------------------------------------------------------------------------------
# The reproduction report

SCALES: dict[str, dict[str, int]] = {
    # quick: a few minutes on a 2-core laptop; paper: the papers' sizes (dd_deals: the double-dummy sample).
    "quick": {"nt_hands": 100_000, "capture_deals": 200_000, "game_deals": 1_000_000, "runs": 3, "dd_deals": 6_000},
    "paper": {
        "nt_hands": 100_000,
        "capture_deals": 1_000_000,
        "game_deals": 10_000_000,
        "runs": 3,
        "dd_deals": 100_000,
    },
}


@dataclass
class Section:
    """One part of the report: a title, markdown text, the figure files it made, and facts later sections use."""

    title: str
    markdown: str
    figures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    shares: dict[str, Any] = field(default_factory=dict)
    note: str = ""


@dataclass
class ReportContext:
    """What every section builder gets: sizes, output folder, seed, workers and the resumable state folder."""

    sizes: dict[str, Any]
    out_dir: Path
    seed: int
    workers: int | None
    state_dir: Path | None = None
    resume: bool = False
    resumed_parts: list[str] = field(default_factory=list)

    def engine_options(self, part: str) -> dict[str, Any]:
        """Engine keyword arguments for one engine run, checkpointed under ``state_dir/part`` when there is a state."""
        options: dict[str, Any] = {"workers": self.workers}
        if self.state_dir is not None:
            folder = self.state_dir / part
            if (folder / "manifest.json").exists():
                self.resumed_parts.append(part)
            options.update(out_dir=str(folder), resume=self.resume)
        return options


def game_section(ctx: ReportContext) -> Section:
    """Table IV: the three-player game study, with the Figure 6 style figure."""
    scale, seed = ctx.sizes, ctx.seed
    result = run_game(
        scale["game_deals"], scale["runs"], seed, GameParams(schemes=SCHEMES_DEFAULT), **ctx.engine_options("game")
    )
    figure = game_figure(result, str(ctx.out_dir / "game_runs.png"))
    text = "\n".join(
        [
            f"Protocol of the capture paper §VIII: {scale['runs']} runs × {scale['game_deals']:,} deals, the capture "
            "estimator (reading max/static/1) on declarer + widow as the outcome "
            "(`tribridge study game`; see docs/simulation.md).",
            "",
            game_table_markdown(result),
            "",
            "Our `tribridge` scheme is our own (docs/rules.md), not the paper's unpublished new scheme "
            f"(which the paper reports at {P.PUBLISHED_TABLE_IV['net_points_new_scheme_range'][0]:,}–"
            f"{P.PUBLISHED_TABLE_IV['net_points_new_scheme_range'][1]:,} net points per 10M deals). "
            "Net points are negative here because the estimator's total T stands for the declarer's tricks, and a "
            "partnership that fails Condition A or B has T = 0, i.e. goes down level + 6 tricks; the paper does not "
            "say how it turned an estimate into a score. The next section plays the cards out instead.",
            "",
            f"![game study per run]({Path(figure).name})",
        ]
    )
    closest = str(scale.get("closest_reading") or "")
    if closest and closest != "max/static/1":
        limit, gap, replacements = closest.split("/")
        other = run_game(
            scale["game_deals"],
            1,
            seed,
            GameParams(schemes=SCHEMES_DEFAULT, limit=limit, gap=gap, replacements=int(replacements)),
            **ctx.engine_options("game_closest"),
        )
        text += "\n\n" + "\n".join(
            [
                f"The same protocol with the capture reading closest to Table I above (`{closest}`), run 1 only:",
                "",
                game_table_markdown(other),
            ]
        )
    return Section("Three-player game study (capture paper, Table IV and Figure 6)", text, [figure])


def dd_section(ctx: ReportContext) -> Section:
    """The game study judged by double dummy, beside the estimator on the same deals and Table IV."""

    deals = int(ctx.sizes["dd_deals"])
    result = dd_comparison(deals, ctx.seed, ctx.engine_options)
    figure = dd_figure(result, str(ctx.out_dir / "game_dd.png"))
    text = "\n".join(
        [
            dd_summary_markdown(
                result, f"tribridge study game --outcome dd --runs 1 --deals {deals} --seed {ctx.seed}"
            ),
            "",
            dd_table_markdown(result),
            "",
            f"![the game study judged by double dummy]({Path(figure).name})",
        ]
    )
    return Section("The game study judged by double dummy", text, [figure])


def nt_figure(result: Mapping[str, Any], path: str) -> str:
    """NT paper Figure 1 style: yes counts per 100,000 hands for 1–3NT, ours per run beside the published runs."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in result["table3"]]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    x = np.arange(len(rows))
    runs = result["runs"]
    width = 0.8 / (runs + 3)
    scale = 100_000 / result["hands"]
    for i in range(runs):
        ax.bar(
            x - 0.4 + width * (i + 0.5),
            [r["ours"][i] * scale for r in rows],
            width,
            color="#4C72B0",
            alpha=0.5 + 0.5 * i / max(1, runs - 1),
            label=f"ours, run {i + 1}",
        )
    for j in range(3):
        ax.bar(
            x - 0.4 + width * (runs + j + 0.5),
            [P.NT_TABLE3_YES[r["level"]][j] for r in rows],
            width,
            color="#DD8452",
            alpha=0.5 + 0.25 * j,
            label=f"paper, sim {j + 1}",
        )
    ax.set_xticks(x, [f"{r['level']}NT" for r in rows])
    ax.set_ylabel("'Yes' per 100,000 hands")
    ax.set_title("NT call algorithm: hands that may call, single hand (Table 3)")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def prequalification_figure(result: Mapping[str, Any], path: str) -> str:
    """Capture paper Figure 1 style: grouped bars of deals per pre-qualification outcome and run, mean % line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    first = next(iter(result["readings"].values()))["results"]
    outcomes = [("qualified", "both conditions pass"), ("fail_b", "A passes, B fails"), ("fail_a", "A fails")]
    fig, ax = plt.subplots(figsize=(9, 4.5))
    x = np.arange(len(outcomes))
    width = 0.8 / len(first)
    for i, run in enumerate(first):
        ax.bar(x - 0.4 + width * (i + 0.5), [run["status"][key] for key, _ in outcomes], width, label=f"run {i + 1}")
    ax.set_xticks(x, [label for _, label in outcomes])
    ax.set_ylabel("deals")
    twin = ax.twinx()
    mean_pct = [100 * sum(r["status"][key] for r in first) / sum(r["deals"] for r in first) for key, _ in outcomes]
    twin.plot(x, mean_pct, "k-o", label="ours, mean %")
    twin.plot(x, [P.CAPTURE_TABLE2_PCT[key] for key, _ in outcomes], "r--s", label="paper %")
    for xi, v in zip(x, mean_pct):
        twin.annotate(f"{v:.2f}%", (xi, v), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8)
    twin.set_ylabel("% of deals")
    twin.set_ylim(0, 100)
    ax.set_title(f"Pre-qualification of declarer + partner, {result['runs']} × {result['deals']:,} deals (Table II)")
    handles = ax.get_legend_handles_labels()
    more = twin.get_legend_handles_labels()
    ax.legend(handles[0] + more[0], handles[1] + more[1], fontsize=7, loc="upper right")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def nt_section(ctx: ReportContext) -> Section:
    """NT call paper Tables 3 and 4 (``sim.papers.nt_study``) with a Figure 1 style plot."""
    result = nt_study(int(ctx.sizes["nt_hands"]), int(ctx.sizes["runs"]), ctx.seed, levels=(1, 2, 3))
    figure = nt_figure(result, str(ctx.out_dir / "nt_call.png"))
    text = nt_tables_markdown(result) + f"\n\n![NT call yes counts]({Path(figure).name})"
    return Section("No-Trump call algorithm (NT paper, Tables 3 and 4)", text, [figure])


def capture_section(ctx: ReportContext) -> Section:
    """Capture paper Tables I and II for every reading (``sim.papers.capture_study``), with Figures 1 and 2."""
    result = capture_study(int(ctx.sizes["capture_deals"]), int(ctx.sizes["runs"]), ctx.seed, reading="all")
    bars = prequalification_figure(result, str(ctx.out_dir / "capture_prequalification.png"))
    hist = capture_figure(result, str(ctx.out_dir / "capture_histogram.png"))
    text = "\n".join(
        [
            capture_tables_markdown(result),
            "",
            f"Closest reading to Table I: `{result['closest_reading']}`.",
            "",
            f"![pre-qualification]({Path(bars).name})",
            "",
            f"![capture histogram]({Path(hist).name})",
        ]
    )
    # The game section also runs the closest reading.
    return Section(
        "Capture estimator (capture paper, Tables I and II, Figures 1 and 2)",
        text,
        [bars, hist],
        shares={"closest_reading": result["closest_reading"]},
    )


def shuffling_section(ctx: ReportContext) -> Section:
    """The shuffling and dealing tables (Bayer–Diaconis, Conger–Howald, Balázs–Szabó) from ``sim.shuffling_report``."""
    report = shuffling_report(str(ctx.sizes.get("scale", "quick")), ctx.seed)
    figure = draw_shuffling_figure(report, ctx.out_dir / "shuffling_tv.png")
    text = format_shuffling_report(report) + f"\n\n![total variation against riffles]({Path(figure).name})"
    return Section("Shuffling and dealing (dealing-methods paper and its references)", text, [str(figure)])


SectionBuilder = Callable[[ReportContext], Section]
SECTIONS: tuple[tuple[str, SectionBuilder], ...] = (
    ("nt", nt_section),
    ("capture", capture_section),
    ("game", game_section),
    ("dd", dd_section),
    ("shuffling", shuffling_section),
)
SECTION_NAMES = tuple(name for name, _ in SECTIONS)
SECTION_INPUTS: dict[str, tuple[str, ...]] = {"game": ("closest_reading",)}
"""Facts a section takes from earlier sections (a finished section is reused only if they are unchanged)."""


def _command(scale: str, seed: int, wanted: Sequence[str]) -> str:
    only = "" if list(wanted) == list(SECTION_NAMES) else f" --only {','.join(wanted)}"
    return f"tribridge reproduce --scale {scale} --seed {seed}{only} --out DIR"


def _build_section(name: str, builder: SectionBuilder, ctx: ReportContext, key: Mapping[str, Any]) -> Section:
    """Build one section, or take it from the state folder when an earlier session finished it."""
    inputs = {fact: ctx.sizes.get(fact) for fact in SECTION_INPUTS.get(name, ())}
    if ctx.state_dir is not None:
        saved = load_section(ctx.state_dir, name, key, ctx.out_dir, inputs)
        if saved is not None:
            earlier = f"; {saved['note']}" if saved.get("note") else ""
            return Section(
                saved["title"],
                saved["markdown"],
                saved["figures"],
                saved["seconds"],
                saved["shares"],
                note=f"finished in an earlier session{earlier}",
            )
    ctx.resumed_parts.clear()
    started = time.perf_counter()
    section = builder(ctx)
    section.seconds = time.perf_counter() - started
    if ctx.resumed_parts:
        section.note = f"this session only; continued from checkpoints of {', '.join(ctx.resumed_parts)}"
    if ctx.state_dir is not None:
        save_section(
            ctx.state_dir,
            name,
            key,
            {
                "title": section.title,
                "markdown": section.markdown,
                "figures": section.figures,
                "seconds": section.seconds,
                "shares": section.shares,
                "note": section.note,
            },
            inputs,
        )
    return section


def reproduce(
    scale: str,
    out_dir: str | Path,
    seed: int = 1,
    workers: int | None = None,
    only: Sequence[str] | None = None,
    on_section: Callable[[str], None] | None = None,
    state_dir: str | Path | None = None,
    resume: bool = False,
) -> dict[str, Any]:
    """Run every paper study at ``scale`` and write ``out_dir/report.md`` and its figures; a summary dict.

    With ``state_dir``, finished sections and the engine runs' finished chunks are kept there, and
    ``resume=True`` continues a killed run where it stopped (same scale, seed and sections).
    """
    if scale not in SCALES:
        raise InvalidInput("scale", f"expected one of {', '.join(SCALES)}, got {scale!r}")
    wanted = list(only) if only else list(SECTION_NAMES)
    for name in wanted:
        if name not in SECTION_NAMES:
            raise InvalidInput("only", f"unknown section {name!r}; expected some of {', '.join(SECTION_NAMES)}")
    state = check_state(state_dir, resume)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    sizes: dict[str, Any] = {**SCALES[scale], "scale": scale}
    ctx = ReportContext(sizes, out, seed, workers, state, resume)
    sections: list[Section] = []
    for name, builder in SECTIONS:
        if name not in wanted:
            continue
        key = {"section": name, "scale": scale, "seed": seed, "version": __version__, "sizes": dict(SCALES[scale])}
        section = _build_section(name, builder, ctx, key)
        sizes.update(section.shares)
        sections.append(section)
        if on_section is not None:
            on_section(name)
    lines = [
        "# tribridge reproduction report",
        "",
        f"Scale `{scale}` (seed {seed}, tribridge {__version__}), made by `{_command(scale, seed, wanted)}`. "
        "Each table shows our figures beside the published ones (`tribridge.sim.published`); differences are "
        "reported as they are, never tuned away.",
        "",
    ]
    for section in sections:
        note = f"; {section.note}" if section.note else ""
        lines += [f"## {section.title}", "", section.markdown, "", f"_({section.seconds:.1f} s{note})_", ""]
    report = out / "report.md"
    report.write_text("\n".join(lines))
    return {
        "report": str(report),
        "figures": [f for s in sections for f in s.figures],
        "seconds": {s.title: round(s.seconds, 1) for s in sections},
        "notes": {s.title: s.note for s in sections if s.note},
    }
