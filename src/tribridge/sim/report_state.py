"""The reproduction report's resumable state: finished sections (text, figures, timing) kept in a folder.

The engine runs of a section keep their own finished chunks in sub-folders of the same folder; this
module keeps whole sections, so a resumed report skips what an earlier session finished.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypedDict

from tribridge.errors import InvalidInput

__all__ = ["SECTIONS_FOLDER", "SectionRecord", "check_state", "load_section", "save_section"]

SECTIONS_FOLDER = "sections"


class SectionRecord(TypedDict):
    """A finished section as the state folder keeps it (JSON): text, figure files, timing, shared facts, note."""

    title: str
    markdown: str
    figures: list[str]
    seconds: float
    shares: dict[str, str]
    note: str


def check_state(state_dir: str | os.PathLike | None, resume: bool) -> Path | None:
    """The state folder to use; refuses ``resume`` without one and an earlier run's folder without ``resume``."""
    if state_dir is None:
        if resume:
            raise InvalidInput("resume", "--resume needs --state DIR (where the earlier run kept its progress)")
        return None
    path = Path(state_dir)
    if path.exists() and not path.is_dir():
        raise InvalidInput("state", f"{path} is not a directory")
    if path.exists() and any(path.iterdir()) and not resume:
        raise InvalidInput(
            "state", f"{path} holds an earlier run; pass --resume to continue it or choose an empty directory"
        )
    path.mkdir(parents=True, exist_ok=True)
    return path


def _section_paths(state_dir: Path, name: str) -> tuple[Path, Path]:
    folder = state_dir / SECTIONS_FOLDER
    return folder / f"{name}.json", folder / name


def _plain(data: Mapping[str, Any]) -> Any:
    return json.loads(json.dumps(dict(data), sort_keys=True))


def load_section(
    state_dir: Path, name: str, key: Mapping[str, Any], out_dir: Path, inputs: Mapping[str, Any] | None = None
) -> SectionRecord | None:
    """A section saved by :func:`save_section`, its figures copied into ``out_dir``; None when there is none.

    A different ``key`` (scale, seed, version) is refused; different ``inputs`` (facts taken from other
    sections, e.g. the closest capture reading) mean the section must be built again, so None.
    """
    record_path, figures_dir = _section_paths(state_dir, name)
    if not record_path.exists():
        return None
    try:
        record = json.loads(record_path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidInput("state", f"cannot read {record_path}: {exc}") from exc
    if record.get("key") != _plain(key):
        raise InvalidInput(
            "state",
            f"{record_path} was written by a run with other arguments or another version; use a new state directory",
        )
    if record.get("inputs", {}) != _plain(inputs or {}):
        return None
    figures = []
    for file_name in record["figures"]:
        source = figures_dir / file_name
        if not source.exists():
            return None
        target = out_dir / file_name
        if source.resolve() != target.resolve():
            shutil.copyfile(source, target)
        figures.append(str(target))
    saved = record["section"]
    return SectionRecord(
        title=saved["title"],
        markdown=saved["markdown"],
        figures=figures,
        seconds=saved["seconds"],
        shares=saved["shares"],
        note=saved.get("note", ""),
    )


def save_section(
    state_dir: Path,
    name: str,
    key: Mapping[str, Any],
    section: SectionRecord,
    inputs: Mapping[str, Any] | None = None,
) -> None:
    """Keep a finished section (``figures`` as file paths) and copies of its figures."""
    record_path, figures_dir = _section_paths(state_dir, name)
    figures_dir.mkdir(parents=True, exist_ok=True)
    names = []
    for figure in section["figures"]:
        shutil.copyfile(figure, figures_dir / Path(figure).name)
        names.append(Path(figure).name)
    record = {
        "key": _plain(key),
        "inputs": _plain(inputs or {}),
        "figures": names,
        "section": {k: v for k, v in section.items() if k != "figures"},
    }
    fd, tmp = tempfile.mkstemp(dir=record_path.parent, prefix=record_path.name, suffix=".tmp")
    with os.fdopen(fd, "w") as fh:
        json.dump(record, fh, indent=1)
    os.replace(tmp, record_path)
