"""Chunked, deterministic study engine: cut deals into chunks, run them locally or on Dask, merge.

A *study* is a pure, picklable top-level function ``run_chunk(chunk, params) -> ChunkOutput``.
It receives a :class:`ChunkSpec` (run number, deal range, seed) and returns integer partial
results (counts, histograms, integer sums) that merge by addition, plus optional per-deal columns.

Determinism: deals are drawn in fixed *blocks* of ``BLOCK_SIZE`` deals; block ``b`` of run ``r``
draws from ``SeedSequence(seed, spawn_key=(r, b))`` (the same stream as
``SeedSequence(seed).spawn(R)[r].spawn(B)[b]``); a chunk that starts or ends inside a block draws the
block's stream and keeps its own slice. (The game study deals through ``dealing.random``, where
deal ``j`` of run ``r`` depends only on ``(SeedSequence(seed, spawn_key=(r,)), j)``.) So the deals,
and therefore the merged integer results, do not depend on chunk size, backend or worker count.
Partial results must be integers (floats would make the merged sum depend on grouping).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from tribridge.dealing.streams import seed_stream
from tribridge.errors import InvalidInput

BLOCK_SIZE = 1 << 16
"""Deals per seeding block. Part of the definition of a study's results: never change it."""

MANIFEST_NAME = "manifest.json"
MANIFEST_VERSION = 1

Partial = dict[str, Any]
"""A partial result: name -> Python int or integer numpy array (merged by addition)."""

ProgressCallback = Callable[[int], None]
"""Called with the number of deals just finished (the CLI advances its bar by it)."""


@dataclass(frozen=True)
class ChunkSpec:
    """One unit of work: deals ``start <= i < stop`` of run ``run`` for study seed ``seed``."""

    run: int
    index: int
    start: int
    stop: int
    seed: int
    block_size: int = BLOCK_SIZE

    @property
    def size(self) -> int:
        """Number of deals in the chunk."""
        return self.stop - self.start

    def blocks(self) -> Iterator[tuple[int, int, int, np.random.SeedSequence]]:
        """The seeding blocks this chunk covers: ``(block, first_deal, stop_deal, seed_sequence)``."""
        first_block = self.start // self.block_size
        last_block = (self.stop - 1) // self.block_size
        for block in range(first_block, last_block + 1):
            lo = max(self.start, block * self.block_size)
            hi = min(self.stop, (block + 1) * self.block_size)
            yield block, lo, hi, seed_stream(self.seed, self.run, block)


@dataclass
class ChunkOutput:
    """What a study returns for a chunk: integer partial results and optional per-deal columns."""

    partial: Partial
    rows: dict[str, np.ndarray] | None = None


@dataclass
class EngineResult:
    """Merged results of a study: one merged partial per run, plus bookkeeping."""

    runs: list[Partial]
    chunks_total: int
    chunks_run: int
    chunks_skipped: int
    out_dir: str | None = None


# ---------------------------------------------------------------------------------------------
# Merging


def _check_value(name: str, value: Any) -> Any:
    if isinstance(value, (bool, np.bool_)):
        raise InvalidInput(f"partial.{name}", "booleans are not summable counts")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, np.ndarray):
        if not np.issubdtype(value.dtype, np.integer):
            raise InvalidInput(f"partial.{name}", f"arrays must be integer, got {value.dtype}")
        return value.astype(np.int64, copy=False)
    raise InvalidInput(f"partial.{name}", f"expected an int or integer array, got {type(value).__name__}")


def merge_partials(a: Mapping[str, Any], b: Mapping[str, Any]) -> Partial:
    """Sum two partial results key by key (missing keys count as zero); associative and commutative."""
    merged: Partial = {}
    for name in sorted(set(a) | set(b)):
        if name not in a:
            merged[name] = _copy(_check_value(name, b[name]))
        elif name not in b:
            merged[name] = _copy(_check_value(name, a[name]))
        else:
            left, right = _check_value(name, a[name]), _check_value(name, b[name])
            if isinstance(left, np.ndarray) or isinstance(right, np.ndarray):
                left_arr, right_arr = np.asarray(left, dtype=np.int64), np.asarray(right, dtype=np.int64)
                if left_arr.shape != right_arr.shape:
                    raise InvalidInput(f"partial.{name}", f"shapes differ: {left_arr.shape} vs {right_arr.shape}")
                merged[name] = left_arr + right_arr
            else:
                merged[name] = left + right
    return merged


def merge_all(partials: Iterable[Mapping[str, Any]]) -> Partial:
    """Merge any number of partial results (the empty merge is ``{}``)."""
    total: Partial = {}
    for part in partials:
        total = merge_partials(total, part)
    return total


def _copy(value: Any) -> Any:
    return value.copy() if isinstance(value, np.ndarray) else value


def partial_to_json(partial: Mapping[str, Any]) -> dict[str, Any]:
    """A JSON-safe form of a partial result (arrays become ``{"shape", "data"}``)."""
    out: dict[str, Any] = {}
    for name in sorted(partial):
        value = _check_value(name, partial[name])
        if isinstance(value, np.ndarray):
            out[name] = {"shape": list(value.shape), "data": value.ravel().tolist()}
        else:
            out[name] = value
    return out


def partial_from_json(data: Mapping[str, Any]) -> Partial:
    """Inverse of :func:`partial_to_json`."""
    out: Partial = {}
    for name, value in data.items():
        if isinstance(value, dict):
            out[name] = np.asarray(value["data"], dtype=np.int64).reshape(value["shape"])
        else:
            out[name] = int(value)
    return out


# ---------------------------------------------------------------------------------------------
# Chunking


def plan_chunks(deals: int, runs: int, seed: int, chunk_size: int, block_size: int = BLOCK_SIZE) -> list[ChunkSpec]:
    """Cut ``runs`` runs of ``deals`` deals into consecutive chunks of ``chunk_size`` deals (the last may be short)."""
    if deals < 1:
        raise InvalidInput("deals", f"expected a positive number of deals, got {deals}")
    if runs < 1:
        raise InvalidInput("runs", f"expected a positive number of runs, got {runs}")
    if chunk_size < 1:
        raise InvalidInput("chunk_size", f"expected a positive chunk size, got {chunk_size}")
    if not 0 <= seed < 2**63:
        raise InvalidInput("seed", f"expected a seed 0 .. 2**63-1, got {seed}")
    step = int(chunk_size)
    chunks = []
    for run in range(runs):
        for index, start in enumerate(range(0, deals, step)):
            chunks.append(ChunkSpec(run, index, start, min(deals, start + step), seed, block_size))
    return chunks


def default_chunk_size(deals: int, runs: int, workers: int) -> int:
    """A chunk size that gives each worker several chunks (for balance and a live progress bar)."""
    total = deals * runs
    target = total // max(1, workers * 8)
    return int(min(1 << 20, max(min(BLOCK_SIZE, deals), target, 1)))


# ---------------------------------------------------------------------------------------------
# Output directory: per-chunk Parquet files and a manifest of finished chunks


def _config_key(
    study: str, deals: int, runs: int, seed: int, chunk_size: int, params: Mapping[str, Any]
) -> dict[str, Any]:
    return {
        "study": study,
        "deals": deals,
        "runs": runs,
        "seed": seed,
        "chunk_step": chunk_size,
        "block_size": BLOCK_SIZE,
        "params": json.loads(json.dumps(dict(params), sort_keys=True, default=str)),
    }


def _write_json_atomic(path: Path, data: Any) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def chunk_file(out_dir: Path, chunk: ChunkSpec) -> Path:
    """Where the per-deal rows of ``chunk`` go."""
    return out_dir / f"run{chunk.run:02d}" / f"chunk{chunk.index:06d}.parquet"


def _write_rows(out_dir: Path, chunk: ChunkSpec, rows: Mapping[str, np.ndarray]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns = {
        "run": np.full(chunk.size, chunk.run, dtype=np.int16),
        "deal": np.arange(chunk.start, chunk.stop, dtype=np.int64),
    }
    for name, column in rows.items():
        column = np.asarray(column)
        if len(column) != chunk.size:
            raise InvalidInput(f"rows.{name}", f"expected {chunk.size} values, got {len(column)}")
        columns[name] = column if column.ndim == 1 else list(column)
    path = chunk_file(out_dir, chunk)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".parquet.tmp")
    pq.write_table(pa.table(columns), tmp)
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------------------
# Backends


def _single_threaded_chunk(
    run_chunk: Callable[[ChunkSpec, Any], ChunkOutput], chunk: ChunkSpec, params: Any
) -> ChunkOutput:
    """Run one chunk in a worker process with numba's thread pool at one thread (processes give the parallelism)."""
    try:
        import numba

        if numba.get_num_threads() != 1:
            numba.set_num_threads(1)
    except ImportError:  # pragma: no cover - numba is a core dependency
        pass
    return run_chunk(chunk, params)


def _local_executor(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, mp_context=get_context("spawn"))


def _iter_local(
    run_chunk: Callable, chunks: list[ChunkSpec], params: Any, workers: int
) -> Iterator[tuple[ChunkSpec, ChunkOutput]]:
    if workers == 1:
        for chunk in chunks:
            yield chunk, run_chunk(chunk, params)
        return
    with _local_executor(workers) as pool:
        pending: dict[Future, ChunkSpec] = {}
        queue = list(chunks)
        limit = 2 * workers  # bounded in-flight work keeps memory flat for huge studies
        while queue or pending:
            while queue and len(pending) < limit:
                chunk = queue.pop(0)
                pending[pool.submit(_single_threaded_chunk, run_chunk, chunk, params)] = chunk
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in sorted(done, key=lambda f: (pending[f].run, pending[f].index)):
                chunk = pending.pop(fut)
                yield chunk, fut.result()


def _iter_dask(
    run_chunk: Callable, chunks: list[ChunkSpec], params: Any, workers: int | None, scheduler: str | None
) -> Iterator[tuple[ChunkSpec, ChunkOutput]]:
    try:
        from dask.distributed import Client, LocalCluster, as_completed
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise InvalidInput("backend", "the dask backend needs `pip install tribridge[sim]`") from exc
    cluster = None
    if scheduler:
        try:
            client = Client(scheduler, timeout="20s")
        except (OSError, TimeoutError) as exc:
            raise InvalidInput("scheduler", f"cannot reach the Dask scheduler at {scheduler}: {exc}") from exc
    else:
        cluster = LocalCluster(
            n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    try:
        futures = [client.submit(_single_threaded_chunk, run_chunk, chunk, params, pure=False) for chunk in chunks]
        by_key = {fut.key: chunk for fut, chunk in zip(futures, chunks)}
        for fut in as_completed(futures):
            output = fut.result()
            chunk = by_key[fut.key]
            fut.release()
            yield chunk, output
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


# ---------------------------------------------------------------------------------------------
# The engine


def run_study(
    name: str,
    run_chunk: Callable[[ChunkSpec, Any], ChunkOutput],
    params: Mapping[str, Any],
    *,
    deals: int,
    runs: int = 1,
    seed: int = 0,
    chunk_size: int | None = None,
    backend: str = "local",
    workers: int | None = None,
    scheduler: str | None = None,
    out_dir: str | os.PathLike | None = None,
    resume: bool = False,
    progress: ProgressCallback | None = None,
) -> EngineResult:
    """Run ``run_chunk`` over ``runs`` × ``deals`` deals; return one merged partial per run.

    ``run_chunk`` must be a top-level function (it is pickled to worker processes) and must not
    print. ``params`` must be picklable and JSON-describable (it is recorded in the manifest).
    """
    if backend not in ("local", "dask"):
        raise InvalidInput("backend", f"expected 'local' or 'dask', got {backend!r}")
    if workers is not None and workers < 1:
        raise InvalidInput("workers", f"expected at least 1 worker, got {workers}")
    if scheduler and backend != "dask":
        raise InvalidInput("scheduler", "--scheduler needs --backend dask")
    if resume and out_dir is None:
        raise InvalidInput("resume", "--resume needs --out DIR (the manifest of finished chunks lives there)")
    n_workers = workers or os.cpu_count() or 1
    chunk_step = chunk_size or default_chunk_size(deals, runs, n_workers)
    chunks = plan_chunks(deals, runs, seed, chunk_step)
    step = int(chunk_step)
    config = _config_key(name, deals, runs, seed, step, params)

    finished: dict[tuple[int, int], Partial] = {}
    manifest_path: Path | None = None
    manifest: dict[str, Any] = {}
    out_path: Path | None = None
    if out_dir is not None:
        out_path = Path(out_dir)
        out_path.mkdir(parents=True, exist_ok=True)
        manifest_path = out_path / MANIFEST_NAME
        if manifest_path.exists():
            if not resume:
                raise InvalidInput(
                    "out", f"{out_path} already holds a run; pass --resume to continue it or choose an empty directory"
                )
            try:
                manifest = json.loads(manifest_path.read_text())
            except (OSError, json.JSONDecodeError) as exc:
                raise InvalidInput("out", f"cannot read {manifest_path}: {exc}") from exc
            if manifest.get("config") != config:
                raise InvalidInput(
                    "resume", f"{manifest_path} was written by a run with other arguments; rerun with the same ones"
                )
            for key, part in manifest.get("chunks", {}).items():
                run_no, index = (int(x) for x in key.split(":"))
                finished[(run_no, index)] = partial_from_json(part)
        else:
            manifest = {"version": MANIFEST_VERSION, "config": config, "chunks": {}, "complete": False}
            _write_json_atomic(manifest_path, manifest)

    todo = [c for c in chunks if (c.run, c.index) not in finished]
    skipped = len(chunks) - len(todo)
    if progress is not None and skipped:
        progress(sum(c.size for c in chunks if (c.run, c.index) in finished))

    results = dict(finished)
    if backend == "local":
        stream = _iter_local(run_chunk, todo, params, max(1, min(n_workers, len(todo))))
    else:
        stream = _iter_dask(run_chunk, todo, params, workers, scheduler) if todo else iter(())
    for chunk, output in stream:
        partial = {k: _check_value(k, v) for k, v in output.partial.items()}
        results[(chunk.run, chunk.index)] = partial
        if out_path is not None and manifest_path is not None:
            if output.rows is not None:
                _write_rows(out_path, chunk, output.rows)
            manifest["chunks"][f"{chunk.run}:{chunk.index}"] = partial_to_json(partial)
            _write_json_atomic(manifest_path, manifest)
        if progress is not None:
            progress(chunk.size)

    merged_runs = []
    for run_no in range(runs):
        keys = sorted(k for k in results if k[0] == run_no)
        merged_runs.append(merge_all(results[k] for k in keys))
    if manifest_path is not None:
        manifest["complete"] = True
        _write_json_atomic(manifest_path, manifest)
    return EngineResult(merged_runs, len(chunks), len(todo), skipped, str(out_path) if out_path else None)


def chunk_spec_dict(chunk: ChunkSpec) -> dict[str, int]:
    """A plain-dict view of a chunk (for logs and tests)."""
    return asdict(chunk)
