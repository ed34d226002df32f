"""Calibration: every capture-estimator reading against the published Tables I, II and IV, ranked."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, replace

from tribridge.estimators.capture import ALL_READINGS, CaptureReading
from tribridge.sim import published as P
from tribridge.sim.game_study import GameParams, GameRun, run_game
from tribridge.sim.paper_results import ReadingResult, Table2Row
from tribridge.sim.papers import capture_study

__all__ = [
    "TABLE_IV_BOTH_MADE",
    "TABLE_IV_MADE",
    "Calibration",
    "CalibrationGame",
    "CalibrationRow",
    "calibration_markdown",
    "run_calibration",
]

TABLE_IV_MADE = 65.96  # mean of the published 65.86 / 66.00 / 66.03 %
TABLE_IV_BOTH_MADE = 93.56  # mean of 93.42 / 93.50 / 93.75 %


@dataclass(frozen=True)
class CalibrationGame:
    """A reading's game-study figures (Table IV) and their distance from the published means."""

    made_pct: float | None
    both_eligible_made_pct: float | None
    losses_widow_not_qualified_pct: float | None
    table4_distance: float


@dataclass(frozen=True)
class CalibrationRow:
    """One reading's line in the ranking: its Table I figures, its Table IV figures (if run), distance and rank."""

    reading: str
    t_8_11_pct: float
    t_9_10_pct: float
    t_le_6_pct: float
    table1_distance: float
    game: CalibrationGame | None
    distance: float
    rank: int = 0

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict; the Table IV figures only when the game study ran."""
        out: dict[str, object] = {
            "reading": self.reading,
            "t_8_11_pct": self.t_8_11_pct,
            "t_9_10_pct": self.t_9_10_pct,
            "t_le_6_pct": self.t_le_6_pct,
            "table1_distance": self.table1_distance,
        }
        if self.game is not None:
            out["made_pct"] = self.game.made_pct
            out["both_eligible_made_pct"] = self.game.both_eligible_made_pct
            out["losses_widow_not_qualified_pct"] = self.game.losses_widow_not_qualified_pct
            out["table4_distance"] = self.game.table4_distance
        out["distance"] = self.distance
        out["rank"] = self.rank
        return out


@dataclass(frozen=True)
class Calibration:
    """The readings ranked by their distance from the published tables, with Table II (reading-independent)."""

    deals: int
    game_deals: int
    seed: int
    table2: tuple[Table2Row, ...]
    rows: tuple[CalibrationRow, ...]  # best first
    notes: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        """The JSON of ``tribridge calibrate --json``."""
        return {
            "deals": self.deals,
            "game_deals": self.game_deals,
            "seed": self.seed,
            "table2": [asdict(row) for row in self.table2],
            "rows": [row.to_json() for row in self.rows],
            "published": {
                "table1": P.CAPTURE_TABLE1,
                "table2": P.CAPTURE_TABLE2_PCT,
                "table4_made_pct": TABLE_IV_MADE,
                "table4_both_eligible_made_pct": TABLE_IV_BOTH_MADE,
            },
            "notes": list(self.notes),
        }


def _game_figures(game: GameRun) -> CalibrationGame:
    made_gap = abs((game.made_pct or 0.0) - TABLE_IV_MADE)
    both_gap = abs((game.both_eligible_made_pct or 0.0) - TABLE_IV_BOTH_MADE)
    return CalibrationGame(
        game.made_pct, game.both_eligible_made_pct, game.losses_widow_not_qualified_pct, round(made_gap + both_gap, 2)
    )


def _row(reading: CaptureReading, capture: ReadingResult, game: CalibrationGame | None) -> CalibrationRow:
    comp = capture.comparison
    t1 = comp.table1
    distance = round(comp.distance + (game.table4_distance if game is not None else 0.0), 2)
    return CalibrationRow(reading.label, t1[0].ours, t1[1].ours, t1[3].ours, comp.distance, game, distance)


def run_calibration(
    deals: int,
    seed: int,
    game_deals: int | None = None,
    workers: int | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> Calibration:
    """Tables I–II (``deals`` two-hand deals) and Table IV (``game_deals`` three-player deals) for each reading.

    Distance of a reading = the Table I distance (points short of the published shares) plus
    |made % − 65.96| plus |both-eligible made % − 93.56| from the game study with ``--outcome estimator``.
    """
    game_deals = deals if game_deals is None else game_deals
    cap = capture_study(deals, 1, seed, "all", progress=on_progress)
    table2 = next(iter(cap.readings.values())).comparison.table2
    rows: list[CalibrationRow] = []
    game_note = None
    for reading in ALL_READINGS:
        game = None
        if game_deals > 0:
            try:
                params = GameParams(
                    outcome="estimator", limit=reading.limit, gap=reading.gap, replacements=reading.replacements
                )
                run = run_game(game_deals, 1, seed, params, workers=workers, progress=on_progress).results[0]
                game = _game_figures(run)
            except ImportError as exc:
                game_note = f"game study unavailable ({exc}); Table IV left out"
        rows.append(_row(reading, cap.readings[reading.label], game))
    rows.sort(key=lambda r: r.distance)
    ranked = tuple(replace(row, rank=rank) for rank, row in enumerate(rows, start=1))
    return Calibration(deals, game_deals, seed, table2, ranked, (game_note,) if game_note else ())


def calibration_markdown(result: Calibration) -> str:
    """One ranked table: each reading's figures beside the published ones."""

    def f(x: float | None, nd: int = 2) -> str:
        return "—" if x is None else f"{x:.{nd}f}"

    lines = [
        f"Table II (reading-independent), {result.deals:,} deals: "
        + "; ".join(f"{r.figure} ours {r.ours:.2f} vs published {r.published:.2f}" for r in result.table2),
        "",
        "| rank | reading | T 8..11 % (pub > 93) | T 9..10 % (pub 65.6) | T ≤ 6 % (pub < 0.19) | "
        "made % (pub 65.96) | both-eligible made % (pub 93.56) | losses, widow not qualified % (pub ≥ 99.8) | distance |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result.rows:
        g = r.game or CalibrationGame(None, None, None, 0.0)  # no game study: its figures print as —
        lines.append(
            f"| {r.rank} | {r.reading} | {f(r.t_8_11_pct)} | {f(r.t_9_10_pct)} | {f(r.t_le_6_pct, 3)} | "
            f"{f(g.made_pct)} | {f(g.both_eligible_made_pct)} | "
            f"{f(g.losses_widow_not_qualified_pct)} | {f(r.distance)} |"
        )
    return "\n".join(lines)
