"""The on-disk SQLite cache of double-dummy tables, keyed by the deal (20 bytes a deal; 255 = not computed).

The cache only stores and returns tables; it never solves, and the solving entry points check the
solver is installed before they read it (see :func:`tribridge.dd.dds.require_dds`).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

import numpy as np

from tribridge.dd.dds import UNKNOWN

__all__ = ["DDCache", "deal_keys", "default_cache_path", "resolve_cache"]


def default_cache_path() -> Path:
    """``$TRIBRIDGE_DD_CACHE`` or ``<user cache dir>/tribridge/dd.sqlite``."""
    env = os.environ.get("TRIBRIDGE_DD_CACHE")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tribridge" / "dd.sqlite"


def deal_keys(owners: np.ndarray) -> list[bytes]:
    """13-byte cache keys: the owner seats packed four cards to a byte."""
    o = np.asarray(owners, dtype=np.uint8).reshape(-1, 13, 4)
    packed = (o[..., 0] | (o[..., 1] << 2) | (o[..., 2] << 4) | (o[..., 3] << 6)).astype(np.uint8)
    return [row.tobytes() for row in packed]


class DDCache:
    """SQLite store of double-dummy tables keyed by the deal (20 bytes a deal; 255 = not computed)."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(str(self.path), timeout=60, check_same_thread=False)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute("CREATE TABLE IF NOT EXISTS dd (deal BLOB PRIMARY KEY, tricks BLOB NOT NULL)")
        self._conn.commit()
        self._lock = threading.Lock()

    def get(self, owners: np.ndarray) -> np.ndarray:
        """Stored tables ``uint8[n, 4, 5]`` (255 where nothing is stored)."""
        keys = deal_keys(owners)
        out = np.full((len(keys), 4, 5), UNKNOWN, dtype=np.uint8)
        if not keys:
            return out
        index: dict[bytes, list[int]] = {}
        for i, k in enumerate(keys):
            index.setdefault(k, []).append(i)
        unique = list(index)
        with self._lock:
            for start in range(0, len(unique), 500):
                part = unique[start : start + 500]
                rows = self._conn.execute(
                    f"SELECT deal, tricks FROM dd WHERE deal IN ({','.join('?' * len(part))})", part
                ).fetchall()
                for key, tricks in rows:
                    table = np.frombuffer(tricks, dtype=np.uint8).reshape(4, 5)
                    for i in index[key]:
                        out[i] = table
        return out

    def put(self, owners: np.ndarray, tables: np.ndarray) -> None:
        """Store tables, merging with what is stored and with each other (known entries win over 255).

        A deal may come several times, each time with other cells known; all of them are kept.
        """
        if len(owners) == 0:
            return
        stored = self.get(owners)
        merged: dict[bytes, np.ndarray] = {}
        for i, key in enumerate(deal_keys(owners)):
            known = merged.get(key, stored[i])
            merged[key] = np.where(tables[i] == UNKNOWN, known, tables[i]).astype(np.uint8)
        with self._lock:
            self._conn.executemany(
                "INSERT OR REPLACE INTO dd (deal, tricks) VALUES (?, ?)",
                [(key, table.tobytes()) for key, table in merged.items()],
            )
            self._conn.commit()

    def __len__(self) -> int:
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM dd").fetchone()[0])

    def close(self) -> None:
        """Close the database connection."""
        with self._lock:
            self._conn.close()


_CACHES: dict[Path, DDCache] = {}
_CACHES_LOCK = threading.Lock()


def resolve_cache(cache: Any) -> DDCache | None:
    """``True``/None: the default cache; ``False``: none; a path or a DDCache: that one (one per file)."""
    if cache is False:
        return None
    if isinstance(cache, DDCache):
        return cache
    path = default_cache_path() if cache is None or cache is True else Path(cache)
    path = path.expanduser().resolve()
    with _CACHES_LOCK:
        if path not in _CACHES:
            _CACHES[path] = DDCache(path)
        return _CACHES[path]
