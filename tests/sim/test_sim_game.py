"""Tests of the game study: the protocol on hand-made deals, the batch kernels against the reference, the CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.cards import Deal, Seat
from tribridge.errors import InvalidInput
from tribridge.sim.game_reference import game_deal_reference
from tribridge.sim.game_study import GameParams, game_summary, play_game_batch, run_game

ESTIMATOR = GameParams(outcome="estimator", schemes=("classic",))

# Hands whose highest NT level follows from the algorithm by hand: when every suit is one unbroken
# run starting at rank ``lead(s)`` with more cards than ``lead(s)``, every gap between held cards is 0,
# so count_of_one = 13 and the verdict at level L is yes exactly when Δ = Σ lead(s) <= K = 7 - L.

# Deal 0 (dealer N, widow S, calling order N E W).
#   N: ♣KQ ♦KQ ♥KQ ♠Q-6 runs, Δ = 1+1+1+2 = 5      -> highest level 2
#   E: ♣J-7 ♦J-7 ♥A ♠AK runs, Δ = 3+3+0+0 = 6        -> highest level 1
#   W: no clubs, so Δ >= 13                          -> never qualifies
#   S (widow): no hearts -> fails condition A.
# N opens 1NT, E cannot go to 2NT, W passes: 1NT by N, E leads. Declarer + widow: hearts δ = 1 but the
# widow holds no heart, so condition B fails -> T = 0 tricks: down 7 (classic: each defender 50 × 7).
DEAL_ONE = "N:QJT9876.KQ.KQ.KQ AK.A.JT987.JT987 2..A65432.A65432 543.JT98765432.."

# Deal 1 (dealer E, widow W, calling order E S N).
#   N: ♣AKQ ♦AKQ ♥AKQ ♠AKQJ, Δ = 0 -> qualifies up to 7NT; E and S: no suit headed above the 9 -> never.
# E passes, S passes, N opens 1NT, E and S pass: 1NT by N, E leads. N + widow W (♣JT ♦JT ♥JT ♠T-4)
# own the top five or more cards of every suit with no gaps: one free capture per suit, then free
# captures up to max(c1, c2) per suit (3+3+3+4 = 13) -> T = 13: made with six overtricks
# (classic: 7 × 10 trick points + 100 for 13 tricks = 170).
DEAL_TWO = "N:AKQJ.AKQ.AKQ.AKQ 32.98765432.987. ..65432.98765432 T987654.JT.JT.JT"

# Deal 2 (dealer S, widow N, calling order S W E).
#   S: ♣KQJ ♦KQJ ♥KQJ ♠KQJT runs, Δ = 4 -> highest level 3.
#   W: ♣T-2 run (lead 4, 9 cards), ♦A T, ♥A, ♠A: Δ = 4; the eight 0-gaps in clubs are always taken, the
#      ♦A-T gap of 3 never (budget 3 - L < 3), so count_of_one = 12 >= L + 6 for L <= 3 -> highest 3.
#   E: no clubs -> never.  N (widow): no hearts.
# S 1NT, W 2NT, E pass, S 3NT, W cannot bid 4NT, E pass: 3NT by S, W leads. S + widow: hearts δ = 1,
# widow void -> condition B fails -> T = 0: down 9.
DEAL_THREE = "N:9876..98765432.A 5432.T98765432.. KQJT.KQJ.KQJ.KQJ A.A.AT.T98765432"


def _owners(pbn: str) -> np.ndarray:
    return Deal.from_pbn(pbn).to_owners()


def _batch_one(owners: np.ndarray, deal_index: int, game: GameParams = ESTIMATOR):
    masks = Deal.from_owners(owners).masks()[None, :, :]
    return play_game_batch(np.ascontiguousarray(masks, dtype=np.int64), deal_index, game)


@pytest.mark.parametrize(
    "pbn,index,dealer,calls,level,declarer,leader,tricks,made,net",
    [
        (DEAL_ONE, 0, Seat.N, ("1N", "P", "P"), 1, Seat.N, Seat.E, 0, False, -700),
        (DEAL_TWO, 1, Seat.E, ("P", "P", "1N", "P", "P"), 1, Seat.N, Seat.E, 13, True, 170),
        (DEAL_THREE, 2, Seat.S, ("1N", "2N", "P", "3N", "P", "P"), 3, Seat.S, Seat.W, 0, False, -900),
    ],
)
def test_protocol_on_hand_made_deals(pbn, index, dealer, calls, level, declarer, leader, tricks, made, net):
    owners = _owners(pbn)
    ref = game_deal_reference(owners, index, ESTIMATOR)
    assert ref.dealer == dealer
    assert ref.calls == calls
    assert (ref.level, ref.declarer, ref.leader) == (level, declarer, leader)
    assert (ref.tricks, ref.made) == (tricks, made)
    assert not ref.widow_qualifies
    assert ref.net == (net,)
    batch = _batch_one(owners, index)
    assert (int(batch.dealers[0]), int(batch.levels[0]), int(batch.declarers[0])) == (dealer, level, declarer)
    assert int(batch.tricks[0]) == tricks and int(batch.widow_ok[0]) == 0


def test_thrown_in_when_nobody_qualifies():
    # DEAL_TWO with dealer S (deal index 2): the only qualifying hand, N's, is the widow's.
    owners = _owners(DEAL_TWO)
    ref = game_deal_reference(owners, 2, ESTIMATOR)
    assert ref.dealer == Seat.S
    assert ref.calls == ("P", "P", "P") and ref.level == 0 and ref.declarer == -1 and ref.net == (0,)
    batch = _batch_one(owners, 2)
    assert int(batch.levels[0]) == 0 and int(batch.declarers[0]) == -1 and int(batch.tricks[0]) == 0


@given(st.integers(0, 2**32 - 1), st.integers(0, 10**6))
@settings(max_examples=150, deadline=None)
def test_batch_kernel_equals_reference_on_random_deals(seed, index):
    from tribridge.dealing.random import deal_batch

    owners = deal_batch(1, seed, 0)[0]
    params = GameParams(outcome="estimator", schemes=("classic", "tribridge"), limit="max", gap="static")
    ref = game_deal_reference(owners, index, params)
    batch = _batch_one(owners, index, params)
    assert int(batch.dealers[0]) == ref.dealer
    assert int(batch.levels[0]) == ref.level
    assert int(batch.declarers[0]) == ref.declarer
    assert int(batch.tricks[0]) == ref.tricks
    assert bool(batch.widow_ok[0]) == ref.widow_qualifies


def test_batch_equals_reference_on_many_opened_deals_all_readings():
    """A whole batch against the reference, on deals where someone opens (the interesting ones)."""
    from tribridge.cards import masks_to_cards
    from tribridge.dealing.random import deal_hand_masks

    masks = deal_hand_masks(4000, 77, 4, 0)
    for reading in [("max", "static", 1), ("min", "live", 1), ("none", "live", 2)]:
        params = GameParams(schemes=("classic",), limit=reading[0], gap=reading[1], replacements=reading[2])
        batch = play_game_batch(masks, 0, params)
        opened = np.flatnonzero(batch.levels > 0)
        assert len(opened) > 300
        for i in opened[:150]:
            owners = np.zeros(52, dtype=np.uint8)
            for seat in range(4):
                owners[masks_to_cards(masks[i, seat])] = seat
            ref = game_deal_reference(owners, int(i), params)
            assert (ref.level, ref.declarer, ref.tricks, ref.widow_qualifies) == (
                int(batch.levels[i]),
                int(batch.declarers[i]),
                int(batch.tricks[i]),
                bool(batch.widow_ok[i]),
            )


def test_tallies_add_up():
    result = run_game(70_000, 2, 3, GameParams(schemes=("classic", "tribridge")), workers=1)
    for run in result.results:
        assert run.deals == 70_000
        assert run.opened == sum(run.opened_by_level.values()) == sum(run.tricks_histogram)
        assert run.opened == sum(run.declarer_position.values())
        assert run.made == sum(run.made_by_level.values())
        assert 0 <= run.both_eligible_made <= run.both_eligible <= run.opened
        assert run.losses == run.opened - run.made
        assert 0 <= run.losses_widow_not_qualified <= run.losses
        by_level = run.tricks_by_level  # a separate tally: must agree with the level and trick counts
        assert [sum(by_level[lv]) for lv in by_level] == list(run.opened_by_level.values())
        assert [sum(row[int(lv[0]) + 6 :]) for lv, row in by_level.items()] == list(run.made_by_level.values())
        assert [sum(col) for col in zip(*by_level.values())] == list(run.tricks_histogram)
        assert sum(by_level["1NT"]) > 0
    assert result.results[0] != result.results[1]


def test_game_determinism_across_chunk_sizes_and_local_pool():
    params = GameParams(schemes=("classic",))
    a = run_game(140_000, 2, 9, params, workers=1, chunk_size=10**7)
    b = run_game(140_000, 2, 9, params, workers=2, chunk_size=30_001)
    assert a == b and json.dumps(a.to_json()) == json.dumps(b.to_json())


def test_bad_parameters():
    with pytest.raises(InvalidInput) as exc:
        GameParams(outcome="oracle")
    assert exc.value.field == "outcome"
    with pytest.raises(InvalidInput):
        run_game(10, 1, 0, GameParams(schemes=("no-such-scheme",)), workers=1)


def test_summary_of_empty_run_has_no_percentages():
    summary = game_summary({}, ("classic",))
    assert summary.made_pct is None and summary.opened == 0


def test_cli_json_local_equals_dask_local_cluster(tmp_path):
    base = [
        sys.executable,
        "-m",
        "tribridge.cli.main",
        "study",
        "game",
        "--deals",
        "70000",
        "--runs",
        "2",
        "--seed",
        "4",
        "--json",
        "--scheme",
        "classic,tribridge",
    ]
    local = subprocess.run(base + ["--workers", "2"], capture_output=True, text=True, timeout=300)
    assert local.returncode == 0, local.stderr
    dask = subprocess.run(
        base + ["--backend", "dask", "--workers", "2", "--chunk-size", "140000"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert dask.returncode == 0, dask.stderr
    assert local.stdout == dask.stdout
    data = json.loads(local.stdout)
    assert [r["deals"] for r in data["results"]] == [70000, 70000]


def test_cli_rejects_bad_input():
    proc = subprocess.run(
        [sys.executable, "-m", "tribridge.cli.main", "study", "game", "--deals", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2 and "deals" in proc.stderr


def test_cli_resume_after_kill_gives_the_same_json(tmp_path):
    import signal
    import time

    out = tmp_path / "out"
    base = [
        sys.executable,
        "-m",
        "tribridge.cli.main",
        "study",
        "game",
        "--deals",
        str(12 * 65536),
        "--runs",
        "1",
        "--seed",
        "6",
        "--json",
        "--workers",
        "1",
        "--chunk-size",
        "65536",
    ]
    proc = subprocess.Popen(base + ["--out", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    manifest = out / "manifest.json"
    deadline = time.time() + 240
    finished = 0
    while time.time() < deadline and proc.poll() is None:
        try:
            finished = len(json.loads(manifest.read_text())["chunks"])
        except (OSError, ValueError, KeyError):
            finished = 0
        if finished >= 2:
            break
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    state = json.loads(manifest.read_text())
    assert 2 <= len(state["chunks"]) < 12 and not state["complete"], "the run was not interrupted part-way"
    resumed = subprocess.run(base + ["--out", str(out), "--resume"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    fresh = subprocess.run(base, capture_output=True, text=True, timeout=300)
    assert fresh.returncode == 0, fresh.stderr
    assert resumed.stdout == fresh.stdout
    import pyarrow.parquet as pq

    rows = pq.read_table(out / "run00").to_pandas()
    assert len(rows) == 12 * 65536 and rows["deal"].is_unique
    summary = json.loads(fresh.stdout)["results"][0]
    assert int((rows["level"] > 0).sum()) == summary["opened"]
    assert int(rows["made"].sum()) == summary["made"]
    assert int(rows["net_classic"].sum()) == summary["net_points"]["classic"]


def test_dd_outcome_batch_equals_reference():
    """Double-dummy outcome: the batch path (owner relabelling) and the reference (play_deal on Deals) agree."""
    from tribridge.cards import masks_to_cards
    from tribridge.dealing.random import deal_hand_masks

    params = GameParams(outcome="dd", schemes=("classic",))
    masks = deal_hand_masks(60, 5, 4, 0)
    batch = play_game_batch(masks, 0, params)
    opened = np.flatnonzero(batch.levels > 0)
    assert len(opened) >= 4
    for i in opened[:8]:
        owners = np.zeros(52, dtype=np.uint8)
        for seat in range(4):
            owners[masks_to_cards(masks[i, seat])] = seat
        ref = game_deal_reference(owners, int(i), params)
        assert (ref.declarer, ref.tricks) == (int(batch.declarers[i]), int(batch.tricks[i]))
        assert 0 <= ref.tricks <= 13
