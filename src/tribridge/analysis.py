"""Post-deal analysis for the web table, three-handed: each player as declarer with the widow as dummy.

In three-player auction bridge a bidder's only possible partner is the widow, moved opposite the
declarer (``rules.auction.play_deal``). So for each of the three players this computes:

* ``declarer_tricks``: the double-dummy tricks in each strain with the widow as dummy;
* ``best_contract``: the highest-scoring makeable undoubled contract read from that table;
* ``capture``: the seed paper's capture estimator on the player's hand plus the widow's;
* ``nt_calls``: the seed paper's No-Trump call algorithm on the player's own hand, in words.

Any part that fails is ``None`` with a note, never a guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tribridge.cards import Card, Deal, Seat
from tribridge.dd import dd_tables_array
from tribridge.estimators.capture import capture
from tribridge.estimators.nt_call import nt_call
from tribridge.rules.auction import Contract, Denom, play_deal
from tribridge.rules.deal import DealState
from tribridge.rules.scoring import get_scheme, score_deal

__all__ = ["CAPTURE_LABEL", "analyse", "capture_words", "nt_verdict_words"]

STRAIN_KEYS = ("C", "D", "H", "S", "NT")
CAPTURE_LABEL = (
    "Capture count (the seed paper's estimator): how many cards the player and the widow "
    "capture in no-trumps by its counting rule. A count, not double-dummy tricks; "
    "0 when condition A or B fails."
)
CONDITION_WORDS = {
    "fail_a": "too few top cards (condition A)",
    "fail_b": "a suit too short for the top cards it misses (condition B)",
}


def nt_verdict_words(highest_level: int, first_verdict: str) -> str:
    """The NT call algorithm's verdict in words: the highest level it allows, or why it allows none."""
    if highest_level:
        return f"qualifies up to {highest_level}NT"
    if first_verdict in CONDITION_WORDS:
        return CONDITION_WORDS[first_verdict]
    return "does not qualify for 1NT (too few tricks counted)"


def capture_words(count: int, status: str) -> str:
    """The capture estimator's result in words."""
    if status in CONDITION_WORDS:
        return CONDITION_WORDS[status]
    return f"counts {count} of 13"


def _card_list(cards: Any) -> list[str]:
    return [str(Card(c)) for c in sorted((int(c) for c in cards), key=lambda c: (-(c // 13), c % 13))]


def _chairs(state: DealState, chair_seats: Sequence[Seat] | None) -> list[Seat]:
    """The dealing seat of each chair (default: chair i is the i-th player to call)."""
    seats = [Seat(s) for s in (chair_seats if chair_seats is not None else state.players)]
    if sorted(seats) != sorted(state.players):
        raise ValueError(f"chair seats {[s.letter for s in seats]} are not the deal's players")
    return seats


def analyse(
    state: DealState, scheme_name: str, chair_seats: Sequence[Seat] | None = None, names: Sequence[str] | None = None
) -> dict[str, Any]:
    """The ``analysis`` object of a finished deal (docs/web.md, "The analysis").

    ``chair_seats``: each chair's dealing seat (default: the calling order from the dealer);
    ``names``: each chair's name (default ``Chair 1..3``).
    """
    seats = _chairs(state, chair_seats)
    names = list(names) if names is not None else [f"Chair {i + 1}" for i in range(3)]
    deal_now: Deal = state.play.deal if state.play is not None else state.deal
    notes: list[str] = []
    out: dict[str, Any] = {
        "hands": {s.letter: _card_list(deal_now[s].cards) for s in Seat},
        "widow": {"seat": state.widow.letter, "hand": state.deal[state.widow].to_pbn()},
        "declarer_tricks": None,
        "best_contract": None,
        "capture": None,
        "nt_calls": None,
        "notes": notes,
    }
    base = [
        {"chair": i, "name": names[i], "seat": seat.letter, "hand": state.deal[seat].to_pbn()}
        for i, seat in enumerate(seats)
    ]
    try:
        tables = dd_tables_array(
            [play_deal(state.deal, state.dealer, seat) for seat in seats], nt_only=False, cache=False, workers=1
        )
        out["declarer_tricks"] = [
            {**entry, "tricks": {k: int(tables[i, int(seats[i]), j]) for j, k in enumerate(STRAIN_KEYS)}}
            for i, entry in enumerate(base)
        ]
        out["best_contract"] = best_contract(out["declarer_tricks"], scheme_name)
        notes.append(
            "Double dummy, each player declaring with the widow as dummy (the widow's hand moved "
            "opposite, as the rules reseat it). Best contract: the highest-scoring makeable "
            "undoubled contract in that table."
        )
    except Exception as exc:  # noqa: BLE001 - the panel shows the reason instead of numbers
        notes.append(f"double-dummy analysis unavailable: {exc}")
    try:
        out["capture"] = {
            "label": CAPTURE_LABEL,
            "per_chair": [_capture_entry(state, seat, entry) for seat, entry in zip(seats, base)],
        }
    except Exception as exc:  # noqa: BLE001
        notes.append(f"capture count unavailable: {exc}")
    try:
        out["nt_calls"] = [_nt_entry(state, seat, entry) for seat, entry in zip(seats, base)]
    except Exception as exc:  # noqa: BLE001
        notes.append(f"NT call verdicts unavailable: {exc}")
    return out


def _capture_entry(state: DealState, seat: Seat, entry: dict[str, Any]) -> dict[str, Any]:
    """The capture estimator on ``seat``'s hand (1) and the widow's (2)."""
    grid = np.zeros((4, 13), dtype=np.int8)
    for c in state.deal[seat].cards:
        grid[c // 13, c % 13] = 1
    for c in state.deal[state.widow].cards:
        grid[c // 13, c % 13] = 2
    result = capture(grid)
    return {
        "chair": entry["chair"],
        "name": entry["name"],
        "count": int(result.captures),
        "status": result.status,
        "text": capture_words(int(result.captures), result.status),
    }


def _nt_entry(state: DealState, seat: Seat, entry: dict[str, Any]) -> dict[str, Any]:
    """The NT call algorithm on ``seat``'s own hand: the highest level it allows, in words."""
    masks = [int(m) for m in state.deal[seat].masks()]
    verdicts = [nt_call(masks, level).verdict for level in range(1, 8)]
    highest = max((level for level, v in zip(range(1, 8), verdicts) if v == "yes"), default=0)
    return {
        "chair": entry["chair"],
        "name": entry["name"],
        "level": highest,
        "verdict": verdicts[0],
        "text": nt_verdict_words(highest, verdicts[0]),
    }


def best_contract(declarer_tricks: list[dict[str, Any]], scheme_name: str) -> dict[str, Any] | None:
    """The highest-scoring makeable undoubled contract for any chair, read from ``declarer_tricks``.

    At equal scores the higher level wins (the contract bid to its tricks), then the lower chair, then the
    lower strain. None when nobody can make 1 of anything.
    """
    scheme = get_scheme(scheme_name)
    best: tuple[int, int, int, int] | None = None  # (-score, -level, chair, strain) minimised
    found: dict[str, Any] | None = None
    for entry in declarer_tricks:
        seat = Seat.parse(entry["seat"], "seat")
        for strain, key in enumerate(STRAIN_KEYS):
            tricks = int(entry["tricks"][key])
            for level in range(1, tricks - 5):
                contract = Contract(level, Denom(strain), 0, seat)
                score = int(score_deal(contract, tricks, scheme).declarer)
                rank = (-score, -level, int(entry["chair"]), strain)
                if best is None or rank < best:
                    best = rank
                    found = {
                        "contract": str(contract),
                        "declarer": seat.letter,
                        "declarer_chair": entry["chair"],
                        "name": entry["name"],
                        "tricks": tricks,
                        "score": score,
                    }
    return found
