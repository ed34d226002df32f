"""A match's deals on disk, one JSON line each, so a long match can stop and go on later.

The first line describes the match (bots, seed, scheme, bot options, deals file); every further line
is one finished deal: its index and its six games. A deal is a function of the match's description
and its index, so a later run with the same description plays only the deals the log lacks and
reports on all of them. A last line cut short (the run was killed while writing it) is ignored.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TextIO

from tribridge.errors import InvalidInput
from tribridge.sim.match import GameResult

LOG_FORMAT = 1


def game_to_json(game: GameResult) -> dict[str, Any]:
    """One game as a JSON-ready dict."""
    return {
        "assignment": list(game.assignment),
        "contract": game.contract,
        "declarer_bot": game.declarer_bot,
        "declarer_tricks": game.declarer_tricks,
        "dd_tricks": game.dd_tricks,
        "made": game.made,
        "bot_scores": list(game.bot_scores),
        "calls": list(game.calls),
    }


def game_from_json(data: dict[str, Any]) -> GameResult:
    """The game that :func:`game_to_json` wrote."""
    a0, a1, a2 = (int(x) for x in data["assignment"])
    s0, s1, s2 = (int(x) for x in data["bot_scores"])
    return GameResult(
        assignment=(a0, a1, a2),
        contract=data["contract"],
        declarer_bot=data["declarer_bot"],
        declarer_tricks=data["declarer_tricks"],
        dd_tricks=data["dd_tricks"],
        made=data["made"],
        bot_scores=(s0, s1, s2),
        calls=tuple(str(c) for c in data["calls"]),
    )


def match_header(
    bots: tuple[str, ...], seed: int, scheme: str, options: dict | None, deals_file: str | None
) -> dict[str, Any]:
    """The first line of a match log: what makes two runs the same match."""
    return {
        "tribridge_match_log": LOG_FORMAT,
        "bots": list(bots),
        "seed": int(seed),
        "scheme": scheme,
        "options": json.loads(json.dumps(options or {}, sort_keys=True)),
        "deals_file": deals_file,
    }


def read_log(path: Path, header: dict[str, Any]) -> dict[int, list[GameResult]]:
    """The deals already in the log at ``path`` (none if it does not exist); its match must be ``header``'s."""
    if not path.exists():
        return {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise InvalidInput("--log", f"cannot read {str(path)!r}: {exc.strerror}") from None
    if not lines:
        return {}
    try:
        first = json.loads(lines[0])
    except json.JSONDecodeError:
        raise InvalidInput("--log", f"{str(path)!r} is not a match log (its first line is not JSON)") from None
    if not isinstance(first, dict) or first.get("tribridge_match_log") != LOG_FORMAT:
        raise InvalidInput("--log", f"{str(path)!r} is not a match log")
    differing = [key for key in header if first.get(key) != header[key]]
    if differing:
        raise InvalidInput(
            "--log",
            f"{str(path)!r} holds another match (its {', '.join(differing)} differ); give a new file",
        )
    done: dict[int, list[GameResult]] = {}
    for number, line in enumerate(lines[1:], start=2):
        try:
            row = json.loads(line)
            done[int(row["deal"])] = [game_from_json(g) for g in row["games"]]
        except (json.JSONDecodeError, KeyError, TypeError, ValueError):
            if number == len(lines):
                break  # a last line cut short by a killed run: that deal is played again
            raise InvalidInput("--log", f"{str(path)!r} line {number} is not a deal of a match log") from None
    return done


def open_log(path: Path, header: dict[str, Any]) -> TextIO:
    """The log opened for appending deals; a new (or empty) file gets the header line first."""
    try:
        fresh = not path.exists() or path.stat().st_size == 0
        if not fresh:
            _drop_cut_line(path)
        handle = path.open("a", encoding="utf-8")
    except OSError as exc:
        raise InvalidInput("--log", f"cannot write {str(path)!r}: {exc.strerror}") from None
    if fresh:
        handle.write(json.dumps(header) + "\n")
        handle.flush()
    return handle


def append_deal(handle: TextIO, index: int, games: list[GameResult]) -> None:
    """Write one finished deal and flush it to disk."""
    handle.write(json.dumps({"deal": int(index), "games": [game_to_json(g) for g in games]}) + "\n")
    handle.flush()


def _drop_cut_line(path: Path) -> None:
    """Remove a last line that was cut short, so appended deals start on a line of their own."""
    data = path.read_bytes()
    if data.endswith(b"\n"):
        return
    path.write_bytes(data[: data.rfind(b"\n") + 1])
