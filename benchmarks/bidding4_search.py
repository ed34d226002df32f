"""The searching bidder in ``python -m benchmarks bidding4 --search``: its policy (timed per call), the
duplicate match against natural4 on the same deals, and the biggest swings.

Match: in room 1 natural4-search bids North-South and natural4 East-West, in room 2 the reverse; both
contracts are scored with the deal's double-dummy tricks, and the search's IMPs on a board are
``imps(room 1 NS score - room 2 NS score)``. The mean comes with a 95 % normal interval.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from tribridge.rules.imps import imps

SWINGS = 5


@dataclass
class SearchPolicy:
    """natural4-search as a benchmark policy; notes each call's seconds and what the search did."""

    layouts: int
    margin: float
    dominance: float
    budget: float  # the search's time budget a call (seconds)
    plausible_only: bool = False
    competitive_only: bool = False  # a stored config without these two keys is the search of every position
    min_imps: float = 0.0
    double_when_down: int = 0
    double_ours_only: bool = False
    replay: int = 1
    seconds: list[float] = field(default_factory=list)
    searched: int = 0
    changed: int = 0
    layouts_used: int = 0
    relaxed: int = 0
    unreplayed: int = 0

    def search_config(self):
        """The search's own settings for these."""
        from tribridge.four import search

        return search.SearchConfig(
            self.layouts,
            self.budget,
            self.dominance,
            self.margin,
            plausible_only=self.plausible_only,
            competitive_only=self.competitive_only,
            min_imps=self.min_imps,
            double_when_down=self.double_when_down,
            double_ours_only=self.double_ours_only,
            replay=self.replay,
        )

    def __call__(self, seat, auction, hand, vul):
        from tribridge.four import natural4, search

        t0 = time.perf_counter()
        d = search.decide_call(natural4.Bid4View(seat, auction.dealer, vul, hand, auction), self.search_config())
        self.seconds.append(time.perf_counter() - t0)
        self.searched += d.searched
        self.changed += d.call != d.natural
        self.layouts_used += d.layouts
        self.relaxed += d.relaxed
        self.unreplayed += d.unreplayed
        return d.call

    def config(self) -> dict[str, float | bool]:
        """The settings, as the results store them (``SearchPolicy(**config)`` makes the same policy)."""
        out: dict[str, float | bool] = {
            "layouts": self.layouts,
            "margin": self.margin,
            "dominance": self.dominance,
            "budget": self.budget,
        }
        if self.plausible_only:
            out["plausible_only"] = True
        if self.competitive_only:
            out["competitive_only"] = True
        if self.min_imps:
            out["min_imps"] = self.min_imps
        if self.double_when_down:
            out["double_when_down"] = self.double_when_down
        if self.double_ours_only:
            out["double_ours_only"] = True
        if self.replay > 1:
            out["replay"] = self.replay
        return out

    def summary(self) -> dict[str, object]:
        """Time per call (median, p99, max; all calls and searched ones) and the search's counts."""
        t = np.array(self.seconds)
        return {
            "config": self.config(),
            "calls": len(t),
            "searched_calls": self.searched,
            "changed_calls": self.changed,
            "layouts_rolled_out": self.layouts_used,
            "relaxed_layouts": self.relaxed,
            **({"unreplayed_layouts": self.unreplayed} if self.replay > 1 else {}),
            "seconds_per_call": {
                "median": round(float(np.median(t)), 4),
                "p99": round(float(np.percentile(t, 99)), 4),
                "max": round(float(t.max()), 4),
            },
        }


def seat_split(ns: Callable, ew: Callable) -> Callable:
    """A policy that asks ``ns`` for North and South and ``ew`` for East and West."""

    def policy(seat, auction, hand, vul):
        return (ns if seat % 2 == 0 else ew)(seat, auction, hand, vul)

    return policy


@dataclass
class MatchResult:
    """The duplicate match: the search's IMPs per board and both rooms' auctions."""

    imps: np.ndarray
    rooms: list[tuple[str, str]]


def duplicate_match(
    search: Callable,
    natural: Callable,
    deals,
    tables,
    boards,
    bid_auction,
    ns_score,
    shown,
    progress: Callable[[int], None] | None = None,
):
    """Each deal bid in both rooms (search North-South in room 1, East-West in room 2); the search's IMPs
    (``progress(deals done)`` after each deal, if given)."""
    got, rooms = [], []
    for j, deal in enumerate(deals):
        dealer, vul = boards[j]
        room1 = bid_auction(seat_split(search, natural), deal, dealer, vul)
        room2 = bid_auction(seat_split(natural, search), deal, dealer, vul)
        got.append(imps(ns_score(room1, tables[j], vul) - ns_score(room2, tables[j], vul)))
        rooms.append((f"{shown(room1)}: {' '.join(room1.calls)}", f"{shown(room2)}: {' '.join(room2.calls)}"))
        if progress is not None:
            progress(j + 1)
    return MatchResult(np.array(got, dtype=np.float64), rooms)


def swings(match: MatchResult, skip: int, deals) -> dict[str, list[dict[str, object]]]:
    """The :data:`SWINGS` biggest boards for and against the search (from ``skip`` on), with both rooms."""
    order = sorted(range(skip, len(match.imps)), key=lambda j: (-match.imps[j], j))

    def row(j: int) -> dict[str, object]:
        hands = " ".join(f"{'NESW'[s]}:{deals[j][s].to_pbn()}" for s in range(4))
        return {
            "deal": j,
            "imps": int(match.imps[j]),
            "room1": match.rooms[j][0],
            "room2": match.rooms[j][1],
            "hands": hands,
        }

    best = [row(j) for j in order[:SWINGS] if match.imps[j] > 0]
    worst = [row(j) for j in order[::-1][:SWINGS] if match.imps[j] < 0]
    return {"for_search": best, "against_search": worst}


def call_kind(call: str) -> str:
    """``pass``, ``double``, ``redouble`` or ``bid``: how the deviation split names a call."""
    return {"P": "pass", "X": "double", "XX": "redouble"}.get(call, "bid")


def deviation_split(natural_calls, search_calls, dealers, natural_ns, search_ns, skip: int) -> dict[str, object]:
    """Where the search's extra loss to par comes from, bidding all four seats: each deal whose auction differs
    from natural4's is put by whether the side whose call first differs scored more or less there (IMPs
    against par, from its own point of view), and by that call and natural4's (``double for pass``); per
    group, the deals, that side's IMPs a deal and the par loss added a deal (both per scored deal, so a
    split's groups add up to the whole change)."""
    outcome: dict[str, list[tuple[float, float]]] = {"deviator gained": [], "deviator lost": [], "same score": []}
    calls: dict[str, list[tuple[float, float]]] = {}
    for j in range(skip, len(natural_calls)):
        ours, theirs = search_calls[j], natural_calls[j]
        if ours == theirs:
            continue
        first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
        sign = 1.0 if (dealers[j] + first) % 2 == 0 else -1.0  # North-South deviated: their IMPs are NS's
        row = (sign * float(search_ns[j] - natural_ns[j]), abs(float(search_ns[j])) - abs(float(natural_ns[j])))
        outcome["deviator gained" if row[0] > 0 else "deviator lost" if row[0] < 0 else "same score"].append(row)
        if first < min(len(ours), len(theirs)):
            calls.setdefault(f"{call_kind(ours[first])} for {call_kind(theirs[first])}", []).append(row)
    scored = max(1, len(natural_calls) - skip)

    def summed(groups: dict[str, list[tuple[float, float]]]) -> dict[str, dict[str, float]]:
        return {
            name: {
                "deals": len(rows),
                "deviator_imps_per_deal": round(sum(g for g, _ in rows) / scored, 3),
                "par_loss_added_per_deal": round(sum(a for _, a in rows) / scored, 3),
            }
            for name, rows in sorted(groups.items(), key=lambda kv: -len(kv[1]))
        }

    return {"by_outcome": summed(outcome), "by_call": summed(calls)}
