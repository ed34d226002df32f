"""Post-deal analysis for the web table: double-dummy table, capture estimates, NT-call verdicts, best contract.

Computed once a deal is done (all four hands are public then). Any part whose module is missing
or fails is ``None`` with a note, never a guess.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tribridge.cards import SEAT_CHARS, Card, Deal, Seat
from tribridge.rules.auction import Contract, Denom, bidders_for, play_deal

STRAIN_KEYS = ("C", "D", "H", "S", "N")


def _cards(cards: Any) -> list[str]:
    return [str(Card(c)) for c in sorted(cards, key=lambda c: (-(c // 13), c % 13))]


def _dd_rows(deals: list[Deal]) -> list[np.ndarray]:
    """Double-dummy tables ``uint8[4, 5]`` [declarer seat, strain C D H S NT], solved in this process."""
    from tribridge.dd import dd_tables_array

    return list(dd_tables_array(deals, nt_only=False, cache=False, workers=1))


def analyse(ds: Any, scheme_name: str) -> dict[str, Any]:
    """The ``analysis`` object of a finished deal (see docs/dev/interfaces.md)."""
    notes: list[str] = []
    dealer = Seat(ds.dealer)
    bidders = bidders_for(dealer)
    deal_now: Deal = ds.play.deal if ds.play is not None else ds.deal
    out: dict[str, Any] = {
        "hands": {s.letter: _cards(deal_now[s].cards) for s in Seat},
        "dd": None, "capture": None, "nt_calls": None, "best_contract": None, "notes": notes,
    }
    # the deal as it would be played with each bidder declaring (the widow opposite)
    as_declarer = {b: play_deal(ds.deal, dealer, b) for b in bidders}
    try:
        rows = _dd_rows([deal_now] + [as_declarer[b] for b in bidders])
        out["dd"] = {SEAT_CHARS[s]: {STRAIN_KEYS[k]: int(rows[0][s, k]) for k in range(5)} for s in range(4)}
        best = _best_contract(ds, bidders, rows[1:], scheme_name)
        out["best_contract"] = best
        if best is not None:
            notes.append("best contract: the highest-scoring makeable contract for any bidder, double dummy, "
                         "with the widow as that bidder's dummy (undoubled; not a full par search)")
    except Exception as exc:  # noqa: BLE001
        notes.append(f"double-dummy analysis unavailable: {exc}")
    try:
        from tribridge.estimators.nt_call import nt_call

        calls = {}
        for b in bidders:
            masks = deal_now[b].masks() if ds.play is None else ds.deal[b].masks()
            highest = 0
            for level in range(1, 8):
                if nt_call(masks, level).verdict == "yes":
                    highest = level
            verdict = "yes" if highest else nt_call(masks, 1).verdict
            seat_now = ds.seat_map[b] if ds.seat_map is not None else b
            calls[seat_now.letter] = {"level": highest, "verdict": verdict}
        out["nt_calls"] = calls
    except Exception as exc:  # noqa: BLE001
        notes.append(f"NT call verdicts unavailable: {exc}")
    try:
        out["capture"] = _capture(ds, bidders, as_declarer)
    except Exception as exc:  # noqa: BLE001
        notes.append(f"capture estimate unavailable: {exc}")
    return out


def _capture(ds: Any, bidders: tuple[Seat, ...], as_declarer: dict[Seat, Deal]) -> dict[str, Any]:
    """Capture estimator's NT tricks for each bidder with the widow as dummy (default options)."""
    from tribridge.estimators.capture import capture

    out: dict[str, Any] = {}
    for b in bidders:
        deal = as_declarer[b]
        state = np.zeros((4, 13), dtype=np.int8)
        for c in deal[b].cards:
            state[c // 13, c % 13] = 1
        for c in deal[b.partner].cards:
            state[c // 13, c % 13] = 2
        result = capture(state)
        seat_now = ds.seat_map[b] if ds.seat_map is not None else b
        out[seat_now.letter] = int(getattr(result, "captures", result))
    return out


def _best_contract(ds: Any, bidders: tuple[Seat, ...], rows: list[np.ndarray], scheme_name: str) -> dict[str, Any] | None:
    from tribridge.rules.scoring import get_scheme, score_deal

    scheme = get_scheme(scheme_name)
    best: tuple[int, int, int, Seat, int] | None = None  # (net, level, strain, declarer, tricks)
    for b, table in zip(bidders, rows):
        for strain in range(5):
            tricks = int(table[int(b), strain])
            for level in range(1, 8):
                if tricks < level + 6:
                    break
                score = score_deal(Contract(level, Denom(strain), 0, b), tricks, scheme)
                net = int(getattr(score, "net", score.declarer))
                key = (net, level, strain)
                if best is None or key > best[:3]:
                    best = (net, level, strain, b, tricks)
    if best is None:
        return None
    net, level, strain, b, tricks = best
    chair = ds.chair_seat.index(b)
    return {"contract": str(Contract(level, Denom(strain), 0, b)), "declarer": b.letter, "declarer_chair": chair,
            "score": net, "tricks": tricks}
