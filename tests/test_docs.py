"""The documentation stands on its own: it names no file the repository lacks, its links resolve,
and the rules and worked examples it states agree with the code."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tribridge.cards import Seat
from tribridge.cli.main import main
from tribridge.rules.auction import Contract, bidders_for, opening_leader, reseat
from tribridge.rules.scoring import HonoursHeld, scheme_from_dict, score_deal
from tribridge.server.app import create_app

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
CHECKED_DIRS = ("README.md", "docs", "src", "tests", "benchmarks", "scripts", ".ci")
# Design documents that a reader of the repository does not have, unless they are added to it.
OUTSIDE_DOCUMENTS = ("RULES", "ALGORITHMS", "DESIGN", "REFERENCE", "ROBOT_API")
TEXT_SUFFIXES = {".md", ".py", ".toml", ".js", ".html", ".css", ".sh", ".txt", ""}


def tracked_text_files() -> list[Path]:
    """Tracked text files under the checked folders (git's view of the repository)."""
    out = subprocess.run(
        ["git", "ls-files", "--", *CHECKED_DIRS], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [ROOT / name for name in out if Path(name).suffix in TEXT_SUFFIXES and (ROOT / name).is_file()]


def repository_file_names() -> set[str]:
    """Base names of every tracked file."""
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return {Path(name).name for name in out}


def doc_text(name: str) -> str:
    """The text of ``docs/<name>``."""
    return (DOCS / name).read_text(encoding="utf-8")


def test_no_file_names_a_document_the_repository_lacks():
    pattern = re.compile(r"\b(" + "|".join(OUTSIDE_DOCUMENTS) + r")\.md\b")
    present = repository_file_names()
    hits = []
    for path in tracked_text_files():
        if path == Path(__file__).resolve():  # this file spells the names out
            continue
        for lineno, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            for match in pattern.finditer(line):
                if match.group(0) not in present:
                    hits.append(f"{path.relative_to(ROOT)}:{lineno}: {match.group(0)}")
            if "shared folder" in line or "/work/" in line:
                hits.append(f"{path.relative_to(ROOT)}:{lineno}: {line.strip()[:80]}")
    assert hits == []


def test_markdown_links_resolve():
    link = re.compile(r"\]\(([^)\s]+)\)")
    broken = []
    for path in [ROOT / "README.md", *sorted(DOCS.rglob("*.md"))]:
        for target in link.findall(path.read_text(encoding="utf-8")):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            if not (path.parent / target.split("#")[0]).exists():
                broken.append(f"{path.relative_to(ROOT)} -> {target}")
    assert broken == []


def test_docs_paths_named_anywhere_exist():
    named = re.compile(r"(?<![\w/.])(docs/[\w./-]+\.(?:md|png))")
    missing = []
    for path in tracked_text_files():
        for target in named.findall(path.read_text(encoding="utf-8", errors="replace")):
            if not (ROOT / target).exists():
                missing.append(f"{path.relative_to(ROOT)} -> {target}")
    assert missing == []


def table_rows(text: str, header_start: str) -> list[list[str]]:
    """The body rows of the markdown table whose header line starts with ``header_start``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip().strip("|").split("|")])
    return rows


def test_rules_classic_examples_score_as_stated():
    rows = table_rows(doc_text("rules.md"), "| contract | tricks | declarer | each defender | how |")
    assert len(rows) == 9
    for contract_text, tricks, declarer, each, _how in rows:
        if "honours" in contract_text:  # "4S, honours 4 / 1 / 0": declarer (with dummy), LHO, RHO
            contract_text, held = contract_text.split(", honours ")
            ours, lho, rho = (int(x) for x in held.split(" / "))
            with_honours = scheme_from_dict({"honours": {"enabled": True}})
            score = score_deal(Contract.parse(contract_text), int(tricks), with_honours, HonoursHeld(ours, (lho, rho)))
            assert score.declarer == int(declarer)
            assert each == f"LHO {score.defenders[0]}, RHO {score.defenders[1]}"
            continue
        score = score_deal(Contract.parse(contract_text), int(tricks), "classic")
        assert (score.declarer, score.each_defender) == (int(declarer), int(each)), contract_text


def test_rules_tribridge_examples_score_as_stated():
    rows = table_rows(doc_text("rules.md"), "| contract | tricks | classic | tribridge | how (tribridge) |")
    assert len(rows) == 4
    for contract_text, tricks, classic, tribridge, _how in rows:
        for scheme, stated in (("classic", classic), ("tribridge", tribridge)):
            score = score_deal(Contract.parse(contract_text), int(tricks), scheme)
            if stated.startswith("each defender"):
                assert (score.declarer, score.each_defender) == (0, int(stated.split()[-1]))
            else:
                assert score.declarer == int(stated)


def test_rules_reseating_table_matches_the_engine():
    rows = table_rows(doc_text("rules.md"), "| dealer (widow) | declarer | moves | opening leader (sits at) |")
    assert len(rows) == 12
    seen = set()
    for dealer_text, declarer_text, moves_text, leader_text in rows:
        dealer, declarer = Seat.parse(dealer_text[0]), Seat.parse(declarer_text)
        assert dealer_text == f"{dealer.letter} ({dealer.partner.letter})"
        assert declarer in bidders_for(dealer)
        seen.add((dealer, declarer))
        mapping = reseat(dealer, declarer)
        moved = {a.letter: b.letter for a, b in mapping.items() if a != b}
        stated = dict(re.findall(r"(\w)→(\w)", moves_text))
        assert moved == stated
        leader_seat = opening_leader(declarer)
        leader_player = next(p for p, s in mapping.items() if s == leader_seat)
        if leader_player == dealer:
            assert leader_text == f"the dealer, at {leader_seat.letter}"
        elif leader_player == leader_seat:
            assert leader_text == f"the player at {leader_seat.letter}"
        else:
            assert leader_text == f"the player dealt at {leader_player.letter}, now at {leader_seat.letter}"
    assert len(seen) == 12


def console_examples(text: str) -> list[tuple[str, str]]:
    """(command, expected output) of each ```` ``` ```` block that holds exactly one ``$ tribridge`` line."""
    out = []
    for block in re.findall(r"```\n(.*?)```", text, flags=re.S):
        lines = block.splitlines()
        commands = [line for line in lines if line.startswith("$ ")]
        if len(commands) == 1 and lines[0].startswith("$ tribridge "):
            out.append((lines[0][2:], "\n".join(lines[1:])))
    return out


@pytest.mark.parametrize("command,expected", console_examples(doc_text("algorithms.md")))
def test_algorithms_worked_examples_print_as_shown(capsys, command, expected):
    assert main(shlex.split(command)[1:]) == 0
    assert capsys.readouterr().out.rstrip("\n") == expected.rstrip("\n")


def curl_examples(text: str) -> list[tuple[str, dict]]:
    """(path, answer shown) of each ``$ curl -s URL`` line of ``text`` followed by its JSON answer."""
    out = []
    lines = text.splitlines()
    for line, answer in zip(lines, lines[1:]):
        match = re.fullmatch(r"\$ curl -s '?localhost:\d+(/[^' ]*)'?", line.strip())
        if match and answer.startswith("{"):
            out.append((match[1], json.loads(answer)))
    return out


def test_readme_curl_examples_answer_as_shown(tmp_path):
    """README's robot-API and ``/healthz`` examples are what the server answers (the Brill bot's explanation
    included); only whether the solver processes have started yet may differ."""
    examples = curl_examples((ROOT / "README.md").read_text(encoding="utf-8"))
    assert {path.split("?")[0] for path, _ in examples} >= {"/healthz", "/apis/brill/bid"}
    with TestClient(
        create_app(db_path=tmp_path / "tour.sqlite", bot_delay=0, log_requests=False, robot_deadline=120)
    ) as client:
        for path, shown in examples:
            answer = client.get(path).json()
            if path == "/healthz":
                assert isinstance(answer.pop("solvers_ready"), bool) and isinstance(shown.pop("solvers_ready"), bool)
            assert answer == shown, path
