"""Calibration: every capture-estimator reading against the published Tables I, II and IV, ranked."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tribridge.estimators.capture import ALL_READINGS
from tribridge.sim import published as P
from tribridge.sim.game_study import GameParams, run_game
from tribridge.sim.papers import capture_study

TABLE_IV_MADE = 65.96  # mean of the published 65.86 / 66.00 / 66.03 %
TABLE_IV_BOTH_MADE = 93.56  # mean of 93.42 / 93.50 / 93.75 %


def run_calibration(
    deals: int,
    seed: int,
    game_deals: int | None = None,
    workers: int | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Tables I–II (``deals`` two-hand deals) and Table IV (``game_deals`` three-player deals) for each reading.

    Distance of a reading = the Table I distance (points short of the published shares) plus
    |made % − 65.96| plus |both-eligible made % − 93.56| from the game study with ``--outcome estimator``.
    """
    game_deals = deals if game_deals is None else game_deals
    cap = capture_study(deals, 1, seed, "all", progress=on_progress)
    table2 = next(iter(cap["readings"].values()))["comparison"]["table2"]
    rows: list[dict[str, Any]] = []
    game_note = None
    for reading in ALL_READINGS:
        comp = cap["readings"][reading.label]["comparison"]
        t1 = comp["table1"]
        row: dict[str, Any] = {
            "reading": reading.label,
            "t_8_11_pct": t1[0]["ours"],
            "t_9_10_pct": t1[1]["ours"],
            "t_le_6_pct": t1[3]["ours"],
            "table1_distance": comp["distance"],
        }
        if game_deals > 0:
            try:
                params = GameParams(
                    outcome="estimator", limit=reading.limit, gap=reading.gap, replacements=reading.replacements
                )
                game = run_game(game_deals, 1, seed, params, workers=workers, progress=on_progress)["results"][0]
                row.update(
                    {
                        "made_pct": game["made_pct"],
                        "both_eligible_made_pct": game["both_eligible_made_pct"],
                        "losses_widow_not_qualified_pct": game["losses_widow_not_qualified_pct"],
                    }
                )
                made_gap = abs((game["made_pct"] or 0.0) - TABLE_IV_MADE)
                both_gap = abs((game["both_eligible_made_pct"] or 0.0) - TABLE_IV_BOTH_MADE)
                row["table4_distance"] = round(made_gap + both_gap, 2)
            except ImportError as exc:
                game_note = f"game study unavailable ({exc}); Table IV left out"
        row["distance"] = round(row["table1_distance"] + row.get("table4_distance", 0.0), 2)
        rows.append(row)
    rows.sort(key=lambda r: r["distance"])
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    return {
        "deals": deals,
        "game_deals": game_deals,
        "seed": seed,
        "table2": table2,
        "rows": rows,
        "published": {
            "table1": P.CAPTURE_TABLE1,
            "table2": P.CAPTURE_TABLE2_PCT,
            "table4_made_pct": TABLE_IV_MADE,
            "table4_both_eligible_made_pct": TABLE_IV_BOTH_MADE,
        },
        "notes": [game_note] if game_note else [],
    }


def calibration_markdown(result: dict[str, Any]) -> str:
    """One ranked table: each reading's figures beside the published ones."""

    def f(x: Any, nd: int = 2) -> str:
        return "—" if x is None else f"{x:.{nd}f}"

    lines = [
        f"Table II (reading-independent), {result['deals']:,} deals: "
        + "; ".join(f"{r['figure']} ours {r['ours']:.2f} vs published {r['published']:.2f}" for r in result["table2"]),
        "",
        "| rank | reading | T 8..11 % (pub > 93) | T 9..10 % (pub 65.6) | T ≤ 6 % (pub < 0.19) | "
        "made % (pub 65.96) | both-eligible made % (pub 93.56) | losses, widow not qualified % (pub ≥ 99.8) | distance |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["rows"]:
        lines.append(
            f"| {r['rank']} | {r['reading']} | {f(r['t_8_11_pct'])} | {f(r['t_9_10_pct'])} | {f(r['t_le_6_pct'], 3)} | "
            f"{f(r.get('made_pct'))} | {f(r.get('both_eligible_made_pct'))} | "
            f"{f(r.get('losses_widow_not_qualified_pct'))} | {f(r['distance'])} |"
        )
    return "\n".join(lines)
