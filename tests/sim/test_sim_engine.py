"""Tests of the study engine: chunking, seeding, merging, backends, Parquet output and resume."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.errors import InvalidInput
from tribridge.sim.engine import (
    BLOCK_SIZE,
    ChunkSpec,
    merge_all,
    merge_partials,
    partial_from_json,
    partial_to_json,
    plan_chunks,
    run_study,
)
from tribridge.sim.engine_check import engine_check_chunk

PY = sys.executable


def _check(result):
    return [partial_to_json(run) for run in result.runs]


def _direct_rolls(seed: int, run: int, deals: int, sides: int = 6) -> np.ndarray:
    """The die rolls of the check study computed without the engine: whole blocks, concatenated."""
    values = []
    for block in range(0, (deals + BLOCK_SIZE - 1) // BLOCK_SIZE):
        seq = np.random.SeedSequence(seed, spawn_key=(run, block))
        values.append(np.random.default_rng(seq).integers(0, sides, size=BLOCK_SIZE))
    return np.concatenate(values)[:deals]


# --- chunk planning ---------------------------------------------------------------------------


def test_plan_chunks_covers_every_deal_once():
    chunks = plan_chunks(deals=300_001, runs=2, seed=3, chunk_size=100_000)
    for run in range(2):
        mine = [c for c in chunks if c.run == run]
        assert mine[0].start == 0 and mine[-1].stop == 300_001
        for a, b in zip(mine, mine[1:]):
            assert a.stop == b.start
            assert a.size == 100_000
        assert [c.index for c in mine] == list(range(len(mine)))


def test_chunk_blocks_split_at_block_boundaries():
    chunk = ChunkSpec(run=1, index=0, start=BLOCK_SIZE - 5, stop=2 * BLOCK_SIZE + 3, seed=9)
    blocks = list(chunk.blocks())
    assert [(b, lo, hi) for b, lo, hi, _ in blocks] == [
        (0, BLOCK_SIZE - 5, BLOCK_SIZE),
        (1, BLOCK_SIZE, 2 * BLOCK_SIZE),
        (2, 2 * BLOCK_SIZE, 2 * BLOCK_SIZE + 3),
    ]
    assert blocks[1][3].spawn_key == (1, 1)


@pytest.mark.parametrize(
    "field,kwargs",
    [("deals", {"deals": 0}), ("runs", {"runs": 0}), ("chunk_size", {"chunk_size": 0}), ("seed", {"seed": -1})],
)
def test_plan_chunks_rejects_bad_input(field, kwargs):
    args = {"deals": 10, "runs": 1, "seed": 0, "chunk_size": 5} | kwargs
    with pytest.raises(InvalidInput) as exc:
        plan_chunks(**args)
    assert exc.value.field == field


# --- merging -----------------------------------------------------------------------------------

partials = st.dictionaries(
    st.sampled_from(["a", "b", "c"]),
    st.one_of(
        st.integers(-(10**12), 10**12),
        st.lists(st.integers(-(10**9), 10**9), min_size=3, max_size=3).map(lambda v: np.array(v, dtype=np.int64)),
    ),
)


def _same_kinds(*parts):
    kinds = {}
    for p in parts:
        for k, v in p.items():
            kinds.setdefault(k, set()).add(isinstance(v, np.ndarray))
    return all(len(v) == 1 for v in kinds.values())


@given(partials, partials, partials)
@settings(max_examples=200)
def test_merge_is_associative_and_commutative(a, b, c):
    if not _same_kinds(a, b, c):
        return
    left = partial_to_json(merge_partials(merge_partials(a, b), c))
    right = partial_to_json(merge_partials(a, merge_partials(b, c)))
    assert left == right
    assert partial_to_json(merge_partials(a, b)) == partial_to_json(merge_partials(b, a))
    assert partial_to_json(merge_all([a, b, c])) == left


def test_merge_adds_key_by_key():
    merged = merge_partials({"n": 2, "h": np.array([1, 2])}, {"n": 5, "h": np.array([10, 20]), "m": 1})
    assert merged["n"] == 7 and merged["m"] == 1 and merged["h"].tolist() == [11, 22]


def test_merge_refuses_floats_and_shape_mismatch():
    with pytest.raises(InvalidInput):
        merge_partials({"x": 0.5}, {})
    with pytest.raises(InvalidInput):
        merge_partials({"h": np.array([1, 2])}, {"h": np.array([1, 2, 3])})


def test_partial_json_round_trip():
    part = {"n": 3, "h": np.arange(6, dtype=np.int64).reshape(2, 3)}
    back = partial_from_json(json.loads(json.dumps(partial_to_json(part))))
    assert back["n"] == 3 and back["h"].tolist() == part["h"].tolist()


# --- determinism -------------------------------------------------------------------------------


def test_results_equal_direct_computation_and_do_not_depend_on_chunking():
    deals = 2 * BLOCK_SIZE + 1000
    expected = []
    for run in range(2):
        rolls = _direct_rolls(11, run, deals)
        expected.append(
            {"deals": deals, "histogram": np.bincount(rolls, minlength=6).tolist(), "total": int(rolls.sum())}
        )
    for chunk_size in (20_000, 50_001, BLOCK_SIZE, 2 * BLOCK_SIZE, 10**7):
        got = _check(
            run_study(
                "check",
                engine_check_chunk,
                {"sides": 6},
                deals=deals,
                runs=2,
                seed=11,
                chunk_size=chunk_size,
                workers=1,
            )
        )
        assert [
            {"deals": g["deals"], "histogram": g["histogram"]["data"], "total": g["total"]} for g in got
        ] == expected


def test_runs_are_independent_streams():
    got = _check(run_study("check", engine_check_chunk, {"sides": 1000}, deals=5000, runs=2, seed=1, workers=1))
    assert got[0]["histogram"] != got[1]["histogram"]


def test_local_pool_and_dask_local_cluster_agree_with_serial():
    kwargs = dict(deals=3 * BLOCK_SIZE + 17, runs=2, seed=5)
    serial = _check(run_study("check", engine_check_chunk, {"sides": 6}, chunk_size=10**7, workers=1, **kwargs))
    pool = _check(run_study("check", engine_check_chunk, {"sides": 6}, chunk_size=BLOCK_SIZE, workers=2, **kwargs))
    dask = _check(
        run_study(
            "check", engine_check_chunk, {"sides": 6}, chunk_size=2 * BLOCK_SIZE, backend="dask", workers=2, **kwargs
        )
    )
    assert serial == pool == dask


def test_progress_callback_counts_every_deal():
    seen = []
    run_study(
        "check",
        engine_check_chunk,
        {},
        deals=BLOCK_SIZE + 5,
        runs=3,
        seed=0,
        chunk_size=10_000,
        workers=1,
        progress=seen.append,
    )
    assert sum(seen) == 3 * (BLOCK_SIZE + 5)


def test_bad_engine_options_raise_invalid_input(tmp_path):
    with pytest.raises(InvalidInput) as exc:
        run_study("check", engine_check_chunk, {}, deals=10, backend="spark")
    assert exc.value.field == "backend"
    with pytest.raises(InvalidInput) as exc:
        run_study("check", engine_check_chunk, {}, deals=10, resume=True)
    assert exc.value.field == "resume"
    with pytest.raises(InvalidInput) as exc:
        run_study("check", engine_check_chunk, {}, deals=10, scheduler="tcp://127.0.0.1:1")
    assert exc.value.field == "scheduler"


# --- output directory and resume ------------------------------------------------------------


def test_parquet_rows_and_manifest(tmp_path):
    import pyarrow.parquet as pq

    deals = BLOCK_SIZE + 10
    result = run_study(
        "check",
        engine_check_chunk,
        {"sides": 6, "rows": True},
        deals=deals,
        runs=1,
        seed=4,
        chunk_size=BLOCK_SIZE,
        workers=1,
        out_dir=tmp_path,
    )
    files = sorted((tmp_path / "run00").glob("*.parquet"))
    assert len(files) == 2
    table = pq.read_table(files)
    assert table.num_rows == deals
    assert table.column("deal").to_pylist() == list(range(deals))
    assert table.column("roll").to_numpy().tolist() == _direct_rolls(4, 0, deals).tolist()
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["complete"] and len(manifest["chunks"]) == 2
    assert result.runs[0]["total"] == int(_direct_rolls(4, 0, deals).sum())
    # an existing run is not overwritten without --resume
    with pytest.raises(InvalidInput) as exc:
        run_study(
            "check",
            engine_check_chunk,
            {"sides": 6, "rows": True},
            deals=deals,
            seed=4,
            chunk_size=BLOCK_SIZE,
            workers=1,
            out_dir=tmp_path,
        )
    assert exc.value.field == "out"
    # resuming with other arguments is refused
    with pytest.raises(InvalidInput) as exc:
        run_study(
            "check",
            engine_check_chunk,
            {"sides": 6, "rows": True},
            deals=deals,
            seed=5,
            chunk_size=BLOCK_SIZE,
            workers=1,
            out_dir=tmp_path,
            resume=True,
        )
    assert exc.value.field == "resume"


RESUME_SCRIPT = textwrap.dedent("""
    import json, sys
    from tribridge.sim.engine import run_study, partial_to_json
    from tribridge.sim.engine_check import engine_check_chunk
    if __name__ == "__main__":
        out, resume, sleep = sys.argv[1], sys.argv[2] == "1", float(sys.argv[3])
        r = run_study("check", engine_check_chunk, {"sides": 6, "rows": True, "sleep": sleep},
                      deals=6 * 65536, runs=2, seed=21, chunk_size=65536, workers=1, out_dir=out, resume=resume)
        print(json.dumps([partial_to_json(x) for x in r.runs]))
        print(r.chunks_skipped, file=sys.stderr)
""")


def test_resume_after_killed_run_gives_the_same_result(tmp_path):
    script = tmp_path / "run_check.py"
    script.write_text(RESUME_SCRIPT)
    out = tmp_path / "out"
    proc = subprocess.Popen([PY, str(script), str(out), "0", "0.2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    manifest = out / "manifest.json"
    deadline = time.time() + 60
    done = 0
    while time.time() < deadline:
        if manifest.exists():
            try:
                done = len(json.loads(manifest.read_text())["chunks"])
            except (json.JSONDecodeError, KeyError):
                done = 0
            if done >= 3:
                break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    state = json.loads(manifest.read_text())
    assert 3 <= len(state["chunks"]) < 12 and not state["complete"], "the run was not interrupted part-way"
    resumed = subprocess.run([PY, str(script), str(out), "1", "0.2"], capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    skipped = int(resumed.stderr.strip().splitlines()[-1])
    assert skipped == len(state["chunks"])
    fresh = subprocess.run(
        [PY, str(script), str(tmp_path / "fresh"), "0", "0.2"], capture_output=True, text=True, timeout=120
    )
    assert fresh.returncode == 0, fresh.stderr
    assert resumed.stdout == fresh.stdout
    import pyarrow.parquet as pq

    rows = pq.read_table(sorted((out / "run01").glob("*.parquet")))
    assert rows.num_rows == 6 * 65536
