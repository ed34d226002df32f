"""Tests of ``tribridge shuffle ...`` and the reproduction's shuffling report."""

import json

import pytest

from tribridge.cli.main import main
from tribridge.sim.shuffling_report import draw_shuffling_figure, format_shuffling_report, shuffling_report


def run_json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_tv_json_matches_published(capsys):
    out = run_json(capsys, ["shuffle", "tv", "--cards", "52", "--shuffles", "1-10", "--json"])
    assert [round(out["tv"][str(k)], 3) for k in range(1, 11)] == [
        1.0,
        1.0,
        1.0,
        1.0,
        0.924,
        0.614,
        0.334,
        0.167,
        0.085,
        0.043,
    ]


def test_deal_exact_small_deck(capsys):
    out = run_json(
        capsys,
        [
            "shuffle",
            "deal",
            "--players",
            "3",
            "--hand-size",
            "2",
            "--pattern",
            "ordered",
            "--exact",
            "--shuffles",
            "0-12",
            "--json",
        ],
    )
    assert out["first_order_exact"] == "4/3"
    assert out["method"] == "exact"
    assert abs(out["tv"]["12"] * 2**12 - 4 / 3) < 0.01


def test_deal_monte_carlo_and_plot(capsys, tmp_path):
    png = tmp_path / "tv.png"
    out = run_json(
        capsys,
        [
            "shuffle",
            "deal",
            "--pattern",
            "back-and-forth",
            "--shuffles",
            "2-3",
            "--samples",
            "2000",
            "--plot",
            str(png),
            "--json",
        ],
    )
    assert out["first_order_method"] == "dp"
    assert out["method"] == "monte-carlo" and set(out["stderr"]) == {"2", "3"}
    assert png.stat().st_size > 10_000


def test_best_pattern_exhaustive(capsys):
    out = run_json(
        capsys, ["shuffle", "best-pattern", "--players", "4", "--hand-size", "3", "--deck", "colors", "--json"]
    )
    assert out["search"] == "exhaustive"
    assert out["best"][0]["first_order_constant"] < out["classic"]["back-and-forth"]["first_order_constant"]


@pytest.mark.parametrize(
    "argv",
    [
        ["shuffle", "tv", "--shuffles", "x"],
        ["shuffle", "deal", "--pattern", "NNNN"],
        ["shuffle", "deal", "--exact", "--shuffles", "1-2"],
        ["shuffle", "deal", "--deck", "ABC"],
    ],
)
def test_bad_input_exits_2(argv, capsys):
    assert main(argv) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_quick_report_and_figure(tmp_path):
    report = shuffling_report("quick", seed=3)
    assert all(r.match for r in report.bayer_diaconis)
    ratios = {r.figure: r.ours for r in report.bridge_ratios}
    assert ratios["ordered / cyclic"] == 13 and ratios["cyclic / back-and-forth"] == 13
    assert all(r.beats_back_and_forth for r in report.two_types)
    json.dumps(report.to_json())
    text = format_shuffling_report(report)
    assert "| 10 | 0.042946 | 0.043 | 0.043 | yes |" in text
    path = draw_shuffling_figure(report, tmp_path / "fig.png")
    assert (tmp_path / "fig.png").stat().st_size > 10_000 and path.endswith("fig.png")
