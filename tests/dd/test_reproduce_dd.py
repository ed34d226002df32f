"""The report's double-dummy section, checked against the protocol recomputed independently on a few deals."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from tribridge.cards import Seat
from tribridge.dd import dd_tables_array
from tribridge.dealing.random import deal_batch
from tribridge.errors import InvalidInput
from tribridge.estimators.nt_call import nt_call
from tribridge.rules.auction import Contract, Denom
from tribridge.rules.scoring import get_scheme, score_deal
from tribridge.sim import report
from tribridge.sim.game_dd_report import dd_comparison, net_points_interval, wilson_interval

DEALS = 240
SEED = 11
NT = 4  # strain index of No-Trump in a double-dummy table


def _passes_at(owners: np.ndarray, seat: int, level: int) -> bool:
    """Whether the seat's 13 cards pass the scalar NT call test at ``level``."""
    masks = [sum(1 << rank for rank in range(13) if owners[suit * 13 + rank] == seat) for suit in range(4)]
    verdict = nt_call(masks, level).verdict
    return str(getattr(verdict, "name", verdict)).lower() == "yes"


def _protocol(owners: np.ndarray, deal_index: int) -> dict | None:
    """The paper's protocol written out again: auction, reseat, double-dummy NT table, score. None when thrown in."""
    dealer = deal_index % 3
    widow = (dealer + 2) % 4
    order = [dealer, (dealer + 1) % 4, (dealer + 3) % 4]
    highest = {seat: max([lv for lv in range(1, 8) if _passes_at(owners, seat, lv)], default=0) for seat in range(4)}
    level, declarer, passes, turn = 0, None, 0, 0
    while not ((declarer is None and passes == 3) or (declarer is not None and passes == 2)):
        seat = order[turn % 3]
        if level + 1 <= highest[seat]:
            level, declarer, passes = level + 1, seat, 0
        else:
            passes += 1
        turn += 1
    if declarer is None:
        return None
    partner = (declarer + 2) % 4
    play = owners.copy()  # the widow's hand goes opposite the declarer, that player to the widow's seat
    play[owners == widow], play[owners == partner] = partner, widow
    tricks = int(dd_tables_array(play[None, :], nt_only=True, cache=False, workers=1)[0, declarer, NT])
    contract = Contract(level, Denom.NT, 0, Seat(declarer))
    net = {name: int(score_deal(contract, tricks, get_scheme(name)).net) for name in ("classic", "tribridge")}
    return {
        "level": level,
        "tricks": tricks,
        "made": tricks >= level + 6,
        "widow_ok": _passes_at(owners, widow, level),
        "net": net,
    }


def _wilson_by_bisection(successes: int, trials: int) -> tuple[float, float]:
    """The p0 where |p̂ − p0| = 1.96 sqrt(p0 (1 − p0) / n), found numerically (percent)."""
    z = 1.959963984540054
    p_hat = successes / trials

    def outside(p0: float) -> float:
        return abs(p_hat - p0) - z * math.sqrt(p0 * (1 - p0) / trials)

    def root(lo: float, hi: float) -> float:
        for _ in range(200):
            mid = (lo + hi) / 2
            if (outside(lo) > 0) == (outside(mid) > 0):
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    low = 0.0 if successes == 0 else root(0.0, p_hat)
    high = 1.0 if successes == trials else root(p_hat, 1.0)
    return 100 * low, 100 * high


@pytest.fixture(scope="module")
def independent():
    """The protocol on the section's deals (run 1 of SEED), recomputed deal by deal."""
    owners = deal_batch(DEALS, np.random.SeedSequence(SEED, spawn_key=(0,)))
    return [_protocol(owners[i], i) for i in range(DEALS)]


@pytest.fixture(scope="module")
def comparison():
    return dd_comparison(DEALS, SEED, lambda _part: {"workers": 1})


def test_dd_figures_match_an_independent_computation(comparison, independent):
    opened = [d for d in independent if d is not None]
    assert len(opened) >= 20  # enough contracts for the check to mean something
    dd = comparison.dd
    made = sum(d["made"] for d in opened)
    assert dd.opened == len(opened) and dd.made == made
    assert dd.made_ci == pytest.approx(_wilson_by_bisection(made, len(opened)), abs=1e-6)
    for level in sorted({d["level"] for d in opened}):
        at = [d for d in opened if d["level"] == level]
        assert dd.by_level[f"{level}NT"].opened == len(at)
        assert dd.by_level[f"{level}NT"].made == sum(d["made"] for d in at)
    both = [d for d in opened if d["widow_ok"]]
    assert dd.both_eligible == len(both) and dd.both_eligible_made == sum(d["made"] for d in both)
    losses = [d for d in opened if not d["made"]]
    assert dd.losses == len(losses)
    assert dd.losses_widow_not_qualified == sum(not d["widow_ok"] for d in losses)
    assert list(dd.tricks_histogram) == np.bincount([d["tricks"] for d in opened], minlength=14).tolist()
    for scheme in ("classic", "tribridge"):
        per_deal = np.array([0 if d is None else d["net"][scheme] for d in independent], dtype=np.float64)
        assert dd.net[scheme].total == int(per_deal.sum())
        half = 1.959963984540054 * per_deal.std(ddof=1) / math.sqrt(DEALS)
        assert dd.net[scheme].per_1000 == pytest.approx(1000 * per_deal.mean())
        assert dd.net[scheme].ci_per_1000 == pytest.approx(
            (1000 * (per_deal.mean() - half), 1000 * (per_deal.mean() + half))
        )


def test_estimator_column_judges_the_same_contracts(comparison):
    dd, est = comparison.dd, comparison.estimator
    assert est.opened == dd.opened and est.both_eligible == dd.both_eligible
    assert {k: v.opened for k, v in est.by_level.items()} == {k: v.opened for k, v in dd.by_level.items()}


def test_small_scale_report_has_the_dd_section(tmp_path, monkeypatch, comparison):
    monkeypatch.setitem(report.SCALES, "quick", {**report.SCALES["quick"], "dd_deals": DEALS})
    report.reproduce("quick", tmp_path, seed=SEED, workers=1, only=["dd"])
    text = (tmp_path / "report.md").read_text()
    assert "## The game study judged by double dummy" in text
    dd = comparison.dd
    low, high = dd.made_ci
    assert f"| made % of opened contracts | {dd.made_pct:.1f} % [{low:.1f}, {high:.1f}] |" in text
    assert "65.86 % / 66.00 % / 66.03 %" in text and "93.42 % / 93.50 % / 93.75 %" in text  # Table IV beside
    assert f"--outcome dd --runs 1 --deals {DEALS} --seed {SEED}" in text
    figure = (tmp_path / "game_dd.png").read_bytes()
    assert figure[:8] == b"\x89PNG\r\n\x1a\n" and "](game_dd.png)" in text


def test_scales_size_the_dd_sample_as_the_issue_asks():
    assert report.SCALES["quick"]["dd_deals"] >= 5_000 and report.SCALES["paper"]["dd_deals"] >= 100_000
    assert "dd" in report.SECTION_NAMES


def test_a_killed_dd_run_resumes_to_the_same_figures(tmp_path, comparison):
    class Killed(Exception):
        pass

    def stop_after_first_chunk(_deals: int) -> None:
        raise Killed

    def options(part: str, progress=None, resume=False) -> dict:
        return {"workers": 1, "chunk_size": 60, "out_dir": str(tmp_path / part), "resume": resume, "progress": progress}

    with pytest.raises(Killed):
        dd_comparison(DEALS, SEED, lambda part: options(part, stop_after_first_chunk))
    assert len(json.loads((tmp_path / "game_dd" / "manifest.json").read_text())["chunks"]) == 1
    done = []
    resumed = dd_comparison(DEALS, SEED, lambda part: options(part, done.append, resume=True))
    assert resumed == comparison
    assert sum(done) == 2 * DEALS  # the skipped chunk is reported as done, then the rest run


def test_report_state_reuses_finished_sections_and_refuses_a_silent_restart(tmp_path, monkeypatch):
    monkeypatch.setitem(report.SCALES, "quick", {**report.SCALES["quick"], "dd_deals": 60})
    state, out = tmp_path / "state", tmp_path / "out"
    report.reproduce("quick", out, seed=SEED, workers=1, only=["dd"], state_dir=state)
    first = (out / "report.md").read_text()
    with pytest.raises(InvalidInput) as exc:
        report.reproduce("quick", out, seed=SEED, workers=1, only=["dd"], state_dir=state)
    assert exc.value.field == "state"
    with pytest.raises(InvalidInput) as exc:
        report.reproduce("quick", out, seed=SEED, workers=1, only=["dd"], resume=True)
    assert exc.value.field == "resume"
    again = tmp_path / "again"
    summary = report.reproduce("quick", again, seed=SEED, workers=1, only=["dd"], state_dir=state, resume=True)
    assert "earlier session" in summary.notes["The game study judged by double dummy"]
    strip = [line for line in first.splitlines() if not line.startswith("_(")]
    assert [line for line in (again / "report.md").read_text().splitlines() if not line.startswith("_(")] == strip
    assert (again / "game_dd.png").exists()


def test_intervals_are_sane_at_the_edges():
    assert wilson_interval(0, 0) is None
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and 0 < high < 40
    low, high = wilson_interval(10, 10)
    assert 60 < low < 100 and high == 100.0
    counts = np.zeros((8, 14), dtype=np.int64)
    scores = np.zeros((8, 14), dtype=np.int64)
    counts[1, 7], scores[1, 7] = 3, 90
    interval = net_points_interval(counts, 3, scores)  # every deal scores 90: no spread
    assert interval == {"total": 270.0, "mean": 90.0, "low": 90.0, "high": 90.0}
    with pytest.raises(InvalidInput):
        net_points_interval(counts, 1, scores)
