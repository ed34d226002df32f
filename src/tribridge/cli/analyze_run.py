"""The work behind ``tribridge analyze`` (the parser is in ``cli/analyze.py``): one deal, or every board of a PBN file."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from tribridge.cards import SEAT_CHARS, SUIT_SYMBOLS, Deal
from tribridge.cli.common import json_ready, print_json, progress_bar
from tribridge.dd import STRAIN_NAMES, dd_tables_array, table_to_dict
from tribridge.errors import InvalidInput
from tribridge.rules.records import read_hand_records

PARTNERSHIPS = ((0, 2), (2, 0), (1, 3), (3, 1))  # (declarer, partner)


__all__ = ["analyze_deal", "diagram", "format_text", "run", "run_file"]

BATCH = 20  # deals per double-dummy call when analysing a file


def analyze_deal(deal: Deal, cache: Any = True, table: np.ndarray | None = None) -> dict[str, Any]:
    """Everything the command reports, as a JSON-ready dict (``table``: the deal's DD table if already known)."""
    if table is None:
        table = dd_tables_array([deal], cache=cache, workers=1)[0]
    masks = deal.masks()
    out: dict[str, Any] = {"deal": deal.to_pbn(), "dd": table_to_dict(table)}
    out["nt_call"] = _nt_verdicts(masks)
    out["capture"] = _captures(deal)
    out["estimate"] = _estimates(masks)
    return out


def _nt_verdicts(masks: np.ndarray) -> dict[str, Any]:
    """Per hand: the verdict of the NT-call algorithm at each level 1..7, and the highest level said yes."""
    from tribridge.estimators.nt_call import highest_nt_level_batch, nt_call

    result: dict[str, Any] = {}
    for seat in range(4):
        hand = [int(m) for m in masks[seat]]
        result[SEAT_CHARS[seat]] = {
            "verdicts": {str(level): nt_call(hand, level).verdict for level in range(1, 8)},
            "highest_level": int(highest_nt_level_batch(np.array([hand], dtype=np.int64))[0]),
        }
    return result


def _captures(deal: Deal) -> dict[str, Any]:
    """Capture estimate (default reading) for each partnership, declarer first; absent if the module is missing."""
    try:
        from tribridge.estimators.capture import capture
    except ImportError:
        return {"error": "capture estimator (tribridge.estimators.capture) not available"}
    owners = deal.to_owners()
    result: dict[str, Any] = {}
    for declarer, partner in PARTNERSHIPS:
        state = np.zeros((4, 13), dtype=np.int8)
        state.reshape(-1)[owners == declarer] = 1
        state.reshape(-1)[owners == partner] = 2
        res = capture(state)
        result[SEAT_CHARS[declarer] + SEAT_CHARS[partner]] = {
            "captures": int(res.captures),
            "status": str(getattr(res, "status", "")),
        }
    return result


def _estimates(masks: np.ndarray) -> dict[str, Any]:
    """The fast trick estimator's prediction for each declarer (absent if not available)."""
    try:
        from tribridge.estimators.tricks import estimate_tricks
    except ImportError:
        return {"error": "trick estimator not available"}
    decl = np.array([masks[d] for d, _ in PARTNERSHIPS], dtype=np.int64)
    part = np.array([masks[p] for _, p in PARTNERSHIPS], dtype=np.int64)
    est = estimate_tricks(decl, part)
    return {
        SEAT_CHARS[d]: {STRAIN_NAMES[s]: round(float(est[i, s]), 2) for s in range(5)}
        for i, (d, _) in enumerate(PARTNERSHIPS)
    }


def _holding(hand: Any, suit: int) -> str:
    ranks = "".join(c.rank.letter for c in hand.sorted_cards() if c.suit == suit)
    return ranks or "-"


def diagram(deal: Deal) -> list[str]:
    """A compact text diagram: North on top, West and East beside, South below."""

    def lines(seat: int) -> list[str]:
        return [f"{SUIT_SYMBOLS[s]} {_holding(deal[seat], s)}" for s in (3, 2, 1, 0)]

    north, east, south, west = (lines(s) for s in range(4))
    width = max(len(x) for x in west) + 2
    pad = " " * width
    out = [pad + "N"] + [pad + x for x in north]
    out.append("W" + " " * (width - 1) + " " * 12 + "E")
    for w, e in zip(west, east):
        out.append(w.ljust(width) + " " * 12 + e)
    out += [pad + "S"] + [pad + x for x in south]
    return out


def format_text(deal: Deal, result: dict[str, Any]) -> str:
    """The text report: diagram, DD table, verdicts, estimates."""
    out = diagram(deal)
    out.append("")
    out.append("Double dummy (tricks for declarer)")
    out.append("      " + " ".join(f"{s:>3}" for s in STRAIN_NAMES))
    for seat in "NSEW":
        row = result["dd"][seat]
        out.append(f"  {seat}   " + " ".join(f"{row.get(s, '?'):>3}" for s in STRAIN_NAMES))
    out.append("")
    out.append("NT call (levels 1..7: y yes, n no, A fails condition A, B fails condition B)")
    letters = {"yes": "y", "no": "n", "fail_a": "A", "fail_b": "B"}
    for seat in "NESW":
        v = result["nt_call"][seat]
        marks = "".join(letters.get(x, "?") for x in v["verdicts"].values())
        out.append(f"  {seat}  {marks}   highest yes: {v['highest_level'] or '-'}")
    out.append("")
    cap = result["capture"]
    if "error" in cap:
        out.append(f"Capture estimate: {cap['error']}")
    else:
        out.append("Capture estimate (declarer + partner, default reading)")
        for pair, v in cap.items():
            out.append(f"  {pair}  T = {v['captures']:>2}  {v['status']}")
    est = result["estimate"]
    out.append("")
    if "error" in est:
        out.append(f"Trick estimator: {est['error']}")
    else:
        out.append("Trick estimator (26 cards of the partnership; expected DD tricks)")
        out.append("      " + " ".join(f"{s:>5}" for s in STRAIN_NAMES))
        for seat in "NSEW":
            out.append(f"  {seat}   " + " ".join(f"{est[seat][s]:>5.1f}" for s in STRAIN_NAMES))
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    """Analyse the deal and print the report."""
    deal = Deal.from_pbn(args.deal, "deal")
    result = analyze_deal(deal, cache=not args.no_cache)
    if args.json:
        print_json(result)
    else:
        print(format_text(deal, result))
    return 0


def run_file(args: argparse.Namespace) -> int:
    """Analyse every board of a PBN file: one JSON line per board (``--json``) or one text report per board."""
    path = Path(args.file)
    try:
        text = sys.stdin.read() if args.file == "-" else path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InvalidInput("--file", f"cannot read {args.file!r}: {exc.strerror}") from None
    boards = read_hand_records(text, "<stdin>" if args.file == "-" else path.name)
    if not boards:
        raise InvalidInput("--file", f"no boards in {args.file!r}")
    with progress_bar("boards", len(boards)) as bar:
        for start in range(0, len(boards), BATCH):
            chunk = boards[start : start + BATCH]
            dealt: list[Any] = []
            for board in chunk:
                try:
                    dealt.append(board.dealt()[0])
                except InvalidInput as exc:
                    dealt.append(exc)
            deals = [d for d in dealt if isinstance(d, Deal)]
            tables = iter(dd_tables_array(deals, cache=not args.no_cache) if deals else [])
            for index, (board, deal) in enumerate(zip(chunk, dealt), start + 1):
                number = board.number or str(index)
                if isinstance(deal, InvalidInput):
                    out: dict[str, Any] = {"board": number, "line": board.line, "error": str(deal)}
                else:
                    out = {"board": number, **analyze_deal(deal, table=next(tables))}
                _print_board(out, deal, args.json)
                bar.advance()
    return 0


def _print_board(out: dict[str, Any], deal: Any, as_json: bool) -> None:
    """One board's result: a JSON line, or a headed text report."""
    if as_json:
        sys.stdout.write(json.dumps(json_ready(out)) + "\n")
    elif "error" in out:
        print(f"Board {out['board']}: {out['error']}\n")
    else:
        print(f"Board {out['board']}\n{format_text(deal, out)}\n")
    sys.stdout.flush()
