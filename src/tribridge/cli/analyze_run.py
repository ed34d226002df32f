"""The work behind ``tribridge analyze`` (the parser is in ``cli/analyze.py``): one deal, or every board of a PBN file."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from tribridge.analysis import DealAnalysis, analyze_deal
from tribridge.cards import SUIT_SYMBOLS, Deal
from tribridge.cli.common import json_ready, print_json, progress_bar
from tribridge.dd import STRAIN_NAMES, dd_tables_array
from tribridge.errors import InvalidInput
from tribridge.rules.records import read_hand_records

__all__ = ["diagram", "format_text", "run", "run_file"]

BATCH = 20  # deals per double-dummy call when analysing a file


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


def format_text(deal: Deal, result: DealAnalysis) -> str:
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
    out.append("Capture estimate (declarer + partner, default reading)")
    for pair, cap in result["capture"].items():
        out.append(f"  {pair}  T = {cap['captures']:>2}  {cap['status']}")
    est = result["estimate"]
    out.append("")
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
                    _print_unreadable(number, board.line, str(deal), args.json)
                else:
                    _print_board(number, analyze_deal(deal, table=next(tables)), deal, args.json)
                bar.advance()
    return 0


def _print_board(number: str, analysis: DealAnalysis, deal: Deal, as_json: bool) -> None:
    """One board's result: a JSON line (the board's number first), or a headed text report."""
    if as_json:
        sys.stdout.write(json.dumps(json_ready({"board": number, **analysis})) + "\n")
    else:
        print(f"Board {number}\n{format_text(deal, analysis)}\n")
    sys.stdout.flush()


def _print_unreadable(number: str, line: Any, error: str, as_json: bool) -> None:
    """A board that cannot be read: its number, line and the error, as a JSON line or a text line."""
    if as_json:
        sys.stdout.write(json.dumps({"board": number, "line": line, "error": error}) + "\n")
    else:
        print(f"Board {number}: {error}\n")
    sys.stdout.flush()
