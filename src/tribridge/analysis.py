"""One deal's analysis, for the command line (``analyze_deal``) and the web table (``analyse``).

``analyze_deal`` reads a four-handed deal: its double-dummy table, the NT call's verdicts per hand,
the capture count and the trick estimator per partnership (``tribridge analyze``).

``analyse`` reads a finished 3PAB deal for the table, each player as declarer with the widow as dummy. In three-player auction bridge a bidder's only possible partner is the widow, moved opposite the
declarer (``rules.auction.play_deal``). So for each of the three players this computes:

* ``declarer_tricks``: the double-dummy tricks in each strain with the widow as dummy;
* ``best_contract``: the highest-scoring makeable undoubled contract read from that table;
* ``capture``: the seed paper's capture estimator on the player's hand plus the widow's;
* ``nt_calls``: the seed paper's No-Trump call algorithm on the player's own hand, in words.

Any part that fails is ``None`` with a note, never a guess.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypedDict

import numpy as np

from tribridge.cards import SEAT_CHARS, Card, Deal, Seat
from tribridge.dd import STRAIN_NAMES, dd_tables_array, table_to_dict
from tribridge.estimators.capture import capture, state_from_owners
from tribridge.estimators.nt_call import highest_nt_level_batch, nt_call
from tribridge.estimators.tricks import estimate_tricks
from tribridge.rules.auction import Contract, Denom, play_deal
from tribridge.rules.deal import DealState
from tribridge.rules.scoring import get_scheme, score_deal

__all__ = [
    "CAPTURE_LABEL",
    "BestContract",
    "CaptureReport",
    "DealAnalysis",
    "DeclarerTricks",
    "NtEntry",
    "TableAnalysis",
    "analyse",
    "analyze_deal",
    "capture_words",
    "nt_verdict_words",
]

PARTNERSHIPS = ((0, 2), (2, 0), (1, 3), (3, 1))  # (declarer, partner) of a four-handed deal


class ChairHand(TypedDict):
    """A chair of the table: its number, its player's name, the dealing seat and the hand dealt there."""

    chair: int
    name: str
    seat: str
    hand: str


class DeclarerTricks(ChairHand):
    """Double-dummy tricks of a chair as declarer with the widow as dummy, per strain (C D H S NT)."""

    tricks: dict[str, int]


class BestContract(TypedDict):
    """The highest-scoring makeable undoubled contract of the deal, and who declares it."""

    contract: str
    declarer: str
    declarer_chair: int
    name: str
    tricks: int
    score: int


class CaptureEntry(TypedDict):
    """The capture count of a chair's hand with the widow's, its status and the words for it."""

    chair: int
    name: str
    count: int
    status: str
    text: str


class CaptureReport(TypedDict):
    """The capture counts of the three chairs, with the label that says what the count is."""

    label: str
    per_chair: list[CaptureEntry]


class NtEntry(TypedDict):
    """The NT call algorithm on a chair's own hand: the highest level it allows, the 1NT verdict, in words."""

    chair: int
    name: str
    level: int
    verdict: str
    text: str


class WidowHand(TypedDict):
    """The widow's dealing seat and hand."""

    seat: str
    hand: str


class TableAnalysis(TypedDict):
    """The ``analysis`` of a finished 3PAB deal at a table (each part None, with a note, when it failed)."""

    hands: dict[str, list[str]]
    widow: WidowHand
    declarer_tricks: list[DeclarerTricks] | None
    best_contract: BestContract | None
    capture: CaptureReport | None
    nt_calls: list[NtEntry] | None
    notes: list[str]


class NtVerdicts(TypedDict):
    """The NT call's verdict at each level 1..7 on one hand, and the highest level it says yes to."""

    verdicts: dict[str, str]
    highest_level: int


class PairCapture(TypedDict):
    """The capture count of a partnership (declarer first) and its status."""

    captures: int
    status: str


class DealAnalysis(TypedDict):
    """What ``tribridge analyze`` reports of a four-handed deal."""

    deal: str
    dd: dict[str, dict[str, int]]
    nt_call: dict[str, NtVerdicts]
    capture: dict[str, PairCapture]
    estimate: dict[str, dict[str, float]]


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
) -> TableAnalysis:
    """The ``analysis`` object of a finished deal (docs/web.md, "The analysis").

    ``chair_seats``: each chair's dealing seat (default: the calling order from the dealer);
    ``names``: each chair's name (default ``Chair 1..3``).
    """
    seats = _chairs(state, chair_seats)
    names = list(names) if names is not None else [f"Chair {i + 1}" for i in range(3)]
    deal_now: Deal = state.play.deal if state.play is not None else state.deal
    notes: list[str] = []
    out: TableAnalysis = {
        "hands": {s.letter: _card_list(deal_now[s].cards) for s in Seat},
        "widow": {"seat": state.widow.letter, "hand": state.deal[state.widow].to_pbn()},
        "declarer_tricks": None,
        "best_contract": None,
        "capture": None,
        "nt_calls": None,
        "notes": notes,
    }
    base: list[ChairHand] = [
        {"chair": i, "name": names[i], "seat": seat.letter, "hand": state.deal[seat].to_pbn()}
        for i, seat in enumerate(seats)
    ]
    try:
        tables = dd_tables_array(
            [play_deal(state.deal, state.dealer, seat) for seat in seats], nt_only=False, cache=False, workers=1
        )
        declarer_tricks: list[DeclarerTricks] = [
            {**entry, "tricks": {k: int(tables[i, int(seats[i]), j]) for j, k in enumerate(STRAIN_KEYS)}}
            for i, entry in enumerate(base)
        ]
        out["declarer_tricks"] = declarer_tricks
        out["best_contract"] = best_contract(declarer_tricks, scheme_name)
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


def _capture_entry(state: DealState, seat: Seat, entry: ChairHand) -> CaptureEntry:
    """The capture estimator on ``seat``'s hand (1) and the widow's (2)."""
    result = capture(state_from_owners(state.deal.to_owners(), int(seat), int(state.widow)))
    return {
        "chair": entry["chair"],
        "name": entry["name"],
        "count": int(result.captures),
        "status": result.status,
        "text": capture_words(int(result.captures), result.status),
    }


def _nt_entry(state: DealState, seat: Seat, entry: ChairHand) -> NtEntry:
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


def best_contract(declarer_tricks: Sequence[DeclarerTricks], scheme_name: str) -> BestContract | None:
    """The highest-scoring makeable undoubled contract for any chair, read from ``declarer_tricks``.

    At equal scores the higher level wins (the contract bid to its tricks), then the lower chair, then the
    lower strain. None when nobody can make 1 of anything.
    """
    scheme = get_scheme(scheme_name)
    best: tuple[int, int, int, int] | None = None  # (-score, -level, chair, strain) minimised
    found: BestContract | None = None
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


# --- a four-handed deal (tribridge analyze) ------------------------------------------------


def analyze_deal(deal: Deal, cache: Any = True, table: np.ndarray | None = None) -> DealAnalysis:
    """Everything the command reports, as a JSON-ready dict (``table``: the deal's DD table if already known)."""
    if table is None:
        table = dd_tables_array([deal], cache=cache, workers=1)[0]
    masks = deal.masks()
    return {
        "deal": deal.to_pbn(),
        "dd": table_to_dict(table),
        "nt_call": _nt_verdicts(masks),
        "capture": _captures(deal),
        "estimate": _estimates(masks),
    }


def _nt_verdicts(masks: np.ndarray) -> dict[str, NtVerdicts]:
    """Per hand: the verdict of the NT-call algorithm at each level 1..7, and the highest level said yes."""
    result: dict[str, NtVerdicts] = {}
    for seat in range(4):
        hand = [int(m) for m in masks[seat]]
        result[SEAT_CHARS[seat]] = {
            "verdicts": {str(level): nt_call(hand, level).verdict for level in range(1, 8)},
            "highest_level": int(highest_nt_level_batch(np.array([hand], dtype=np.int64))[0]),
        }
    return result


def _captures(deal: Deal) -> dict[str, PairCapture]:
    """Capture estimate (default reading) for each partnership, declarer first."""
    owners = deal.to_owners()
    result: dict[str, PairCapture] = {}
    for declarer, partner in PARTNERSHIPS:
        res = capture(state_from_owners(owners, declarer, partner))
        result[SEAT_CHARS[declarer] + SEAT_CHARS[partner]] = {"captures": int(res.captures), "status": str(res.status)}
    return result


def _estimates(masks: np.ndarray) -> dict[str, dict[str, float]]:
    """The fast trick estimator's prediction for each declarer."""
    decl = np.array([masks[d] for d, _ in PARTNERSHIPS], dtype=np.int64)
    part = np.array([masks[p] for _, p in PARTNERSHIPS], dtype=np.int64)
    est = estimate_tricks(decl, part)
    return {
        SEAT_CHARS[d]: {STRAIN_NAMES[s]: round(float(est[i, s]), 2) for s in range(5)}
        for i, (d, _) in enumerate(PARTNERSHIPS)
    }
