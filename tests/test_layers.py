"""The layer rule: a module of tribridge imports only from its own package or from a lower floor.

Every import counts, at module level or inside a function. ``docs/dev/architecture.md`` holds the
floor table generated from ``FLOORS`` and the real imports; this test fails when the two differ
(``python tests/test_layers.py --write`` rewrites it).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "tribridge"
DOC = ROOT / "docs" / "dev" / "architecture.md"
BEGIN, END = "<!-- layers:begin -->", "<!-- layers:end -->"

# Floors, bottom first; a unit is a subpackage or a top-level module of tribridge.
FLOORS: list[tuple[str, ...]] = [
    ("errors", "__init__"),
    ("cards", "dealing", "estimators"),
    ("rules",),
    ("dd",),
    ("selfplay",),
    ("bots",),
    ("four",),
    ("analysis", "sim", "env"),
    ("events",),
    ("server",),
    ("cli",),
    ("testing",),
]
PURPOSE = {
    "errors": "InvalidInput(field, message), IllegalAction",
    "__init__": "the version",
    "cards": "Card, Hand, Deal, Seat; PBN text; owner arrays and suit masks",
    "dealing": "random streams from seeds, random deals, the shuffling mathematics",
    "estimators": "compiled kernels: trick estimator, NT-call rule, capture count",
    "rules": "the 3PAB game model (DealState, SeatView), auction, play, scoring, PBN and LIN records",
    "dd": "double dummy over endplay/DDS: solves, tables, the priority pool of solver processes, cache",
    "selfplay": "the numpy core of self-play: action numbers, the observation encoding, BiddingBatch",
    "bots": "the Bidder and CardPlayer protocols; belief sampling, PIMC, bidders, the registry, plug-ins",
    "four": "the four-handed game: its rules, the natural bidder and its card play",
    "analysis": "one deal's post-deal analysis (CLI and server)",
    "sim": "studies at scale: engine, papers' studies, matches, reports",
    "env": "3PAB as a PettingZoo environment and an OpenSpiel game (over selfplay)",
    "events": "duplicate events: boards, movements, scoring by comparison, travellers",
    "server": "HTTP: robot API (server/robot), tables (server/tables), the edge, the web page",
    "cli": "tribridge ...: argument parsing and printing",
    "testing": "helpers for driving a real server from tests and benchmarks",
}


def floor_of(unit: str) -> int:
    """The floor number of a unit (a KeyError names a unit missing from ``FLOORS``)."""
    for number, units in enumerate(FLOORS):
        if unit in units:
            return number
    raise KeyError(f"tribridge.{unit} has no floor in tests/test_layers.py FLOORS")


def unit_of(module: str) -> str:
    """``tribridge.rules.deal`` -> ``rules``; ``tribridge`` -> ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] != "__version__" else "__init__"


def module_name(path: Path, src: Path) -> str:
    """The dotted module name of a source file under ``src`` (the tribridge package folder)."""
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(["tribridge", *parts])


def imports_of(path: Path, module: str) -> Iterator[str]:
    """Every tribridge module that ``path`` imports (absolute or relative, anywhere in the file)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.split(".")[0] == "tribridge")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            if base.split(".")[0] != "tribridge":
                continue
            if base == "tribridge":
                yield from (f"tribridge.{a.name}" for a in node.names)
            else:
                yield base


def upward_imports(src: Path) -> list[str]:
    """Each import that points to a higher floor or sideways to another unit of the same floor."""
    problems = []
    for path in sorted(src.rglob("*.py")):
        module = module_name(path, src)
        here = unit_of(module)
        for target in imports_of(path, module):
            there = unit_of(target)
            if there == here:
                continue
            if floor_of(there) >= floor_of(here):
                problems.append(f"{module} imports {target}: {there} is not below {here}")
    return problems


def unit_edges(src: Path) -> dict[str, set[str]]:
    """unit -> the other units it imports."""
    edges: dict[str, set[str]] = {}
    for path in sorted(src.rglob("*.py")):
        module = module_name(path, src)
        here = unit_of(module)
        targets = {unit_of(t) for t in imports_of(path, module)} - {here}
        edges.setdefault(here, set()).update(targets)
    return edges


def present_units(src: Path) -> set[str]:
    """The units that exist in the source tree."""
    return {unit_of(module_name(p, src)) for p in src.rglob("*.py")}


def render_table(src: Path) -> str:
    """The floor table of the architecture page: floor, unit, what it is, what it imports (from the code)."""
    edges = unit_edges(src)
    present = present_units(src)
    rows = ["| floor | unit | what it holds | imports (measured) |", "| ---: | --- | --- | --- |"]
    for number in range(len(FLOORS) - 1, -1, -1):
        for unit in FLOORS[number]:
            if unit not in present:
                continue
            name = "tribridge/__init__.py" if unit == "__init__" else unit
            used = ", ".join(sorted(u for u in edges.get(unit, set()) if u != "__init__")) or "—"
            rows.append(f"| {number} | `{name}` | {PURPOSE[unit]} | {used} |")
    return "\n".join(rows)


def documented_table() -> str:
    """The table between the markers in docs/dev/architecture.md."""
    text = DOC.read_text(encoding="utf-8")
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip()


def test_no_module_imports_upward() -> None:
    """The rule itself, over every import in src/tribridge."""
    assert upward_imports(SRC) == []


def test_every_unit_has_a_floor() -> None:
    """A new package must be placed on a floor (and described) before it can land."""
    for unit in present_units(SRC):
        floor_of(unit)
        assert unit in PURPOSE


def test_checker_catches_a_wrong_import(tmp_path: Path) -> None:
    """A rules module importing the server, or dd importing bots, is reported."""
    pkg = tmp_path / "tribridge"
    for folder in ("rules", "dd", "server"):
        (pkg / folder).mkdir(parents=True)
        (pkg / folder / "__init__.py").write_text("")
    (pkg / "rules" / "bad.py").write_text("def f():\n    from tribridge.server import app\n")
    (pkg / "dd" / "worse.py").write_text("from ..bots import get_bot\n")
    (pkg / "server" / "fine.py").write_text("from tribridge.rules import deal\n")
    problems = upward_imports(pkg)
    assert len(problems) == 2
    assert any("tribridge.rules.bad imports tribridge.server" in p for p in problems)
    assert any("tribridge.dd.worse imports tribridge.bots" in p for p in problems)


def test_architecture_page_shows_the_real_imports() -> None:
    """docs/dev/architecture.md's floor table is the one generated from the code."""
    assert documented_table() == render_table(SRC), "run: python tests/test_layers.py --write"


def write_table() -> None:
    """Rewrite the generated table in docs/dev/architecture.md."""
    text = DOC.read_text(encoding="utf-8")
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    DOC.write_text(f"{head}{BEGIN}\n{render_table(SRC)}\n{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write_table()
    else:
        print(render_table(SRC))
