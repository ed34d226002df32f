"""The server answers a fixed script of requests byte for byte as recorded (``scripts/record_requests.py``).

The recorded file is ``recorded_requests.json``; after a change that is meant to alter an answer, record it
again with ``scripts/record_requests.py --write`` and read the difference in the diff."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "record_requests.py"


def recorder() -> ModuleType:
    """The recorder script as a module."""
    spec = importlib.util.spec_from_file_location("record_requests", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_recorded_requests_answer_byte_identically():
    rec = recorder()
    recorded = json.loads(rec.RECORDED.read_text(encoding="utf-8"))
    entries = rec.record()
    assert rec.first_difference(entries, recorded) is None
    assert rec.recorded_text(entries) == rec.RECORDED.read_text(encoding="utf-8")


def test_a_changed_byte_is_a_difference():
    rec = recorder()
    recorded = json.loads(rec.RECORDED.read_text(encoding="utf-8"))
    changed = [dict(e) for e in recorded]
    changed[3]["answer"] = changed[3]["answer"].replace(",", ", ", 1)
    assert rec.first_difference(changed, recorded).startswith("step 4 ")
    assert rec.first_difference(recorded[:-1], recorded) is not None


def test_only_the_drawn_values_and_times_are_normalised():
    rec = recorder()
    drawn = {"Ab3_x9": "<table-1>", "tok-Q": "<token-1>"}
    text = '{"table_id":"Ab3_x9","token": "tok-Q","closes_at":1765051200.25,"starts_at": 17,"version":1765051200}'
    assert rec.normalise(text, drawn) == (
        '{"table_id":"<table-1>","token": "<token-1>","closes_at":"<time>","starts_at": "<time>","version":1765051200}'
    )
