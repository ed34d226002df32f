"""The daily series: the week's and the month's standings over the house's daily events, account by account.

A period is an ISO week (Monday to Sunday) or a calendar month, named by any date in it; its days are the daily
events ``daily-YYYYMMDD`` opened on those days (``daily``). An account's line counts the days it entered and
the final percentages of those whose event has closed (kept when the event settles: ``settle``); its series
score is the sum of its best ``BEST[period]`` percentages divided by that number, so a day not played counts 0
and a better day replaces a worse one (5 of a week, 15 of a month). Guests are not in the series. Lines are
ranked by score, then by the days entered; equal lines share a rank (``3=``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TypedDict

from tribridge.errors import InvalidInput
from tribridge.events.scoring import rank_labels
from tribridge.server.events.documents import EventDocument

__all__ = ["BEST", "SeriesLine", "SeriesLineJson", "RecentEventJson", "period_days", "recent_entries", "series_lines"]

BEST = {"week": 5, "month": 15}
"""How many of an account's best days its series score counts, by period."""


class SeriesLineJson(TypedDict):
    """A series line as the series endpoint answers it (``counted``: how many percentages count)."""

    rank: str
    name: str
    days: int
    counted: int
    percents: list[float]
    score: float


@dataclass(frozen=True)
class SeriesLine:
    """One account in a period's series: its rank, name, days entered, final percentages (best first), score."""

    rank: str
    name: str
    days: int
    percents: tuple[float, ...]
    score: float

    def to_json(self) -> SeriesLineJson:
        """The line as the series endpoint answers it."""
        return {
            "rank": self.rank,
            "name": self.name,
            "days": self.days,
            "counted": len(self.percents),
            "percents": [round(p, 2) for p in self.percents],
            "score": round(self.score, 2),
        }


def period_days(period: object, date_text: object, today: dt.date) -> list[dt.date]:
    """The days of the ``week`` or ``month`` holding ``date_text`` (``YYYY-MM-DD``; ``today`` when absent)."""
    if period not in BEST:
        raise InvalidInput("period", f"expected one of {', '.join(BEST)}, got {str(period)[:20]!r}")
    day = today
    if date_text is not None:
        try:
            day = dt.date.fromisoformat(str(date_text)[:10])
        except ValueError:
            raise InvalidInput("date", f"expected a date YYYY-MM-DD, got {str(date_text)[:20]!r}") from None
    if period == "week":
        monday = day - dt.timedelta(days=day.weekday())
        return [monday + dt.timedelta(days=n) for n in range(7)]
    first = day.replace(day=1)
    after = (first + dt.timedelta(days=32)).replace(day=1)
    return [first + dt.timedelta(days=n) for n in range((after - first).days)]


def series_lines(documents: list[EventDocument], best: int) -> list[SeriesLine]:
    """The series of the days' daily events: every account that entered one, ranked."""
    days: dict[str, int] = {}
    percents: dict[str, list[float]] = {}
    names: dict[str, str] = {}
    for document in documents:
        for entry in document["entries"]:
            account_id = entry.get("account_id")
            if account_id is None:
                continue
            names[account_id] = entry["name"]
            days[account_id] = days.get(account_id, 0) + 1
            if "final_percent" in entry:
                percents.setdefault(account_id, []).append(entry["final_percent"])
    lines = []
    for account_id, name in names.items():
        kept = tuple(sorted(percents.get(account_id, []), reverse=True))
        lines.append(SeriesLine("", name, days[account_id], kept, sum(kept[:best]) / best))
    lines.sort(key=lambda line: (-line.score, -line.days, line.name.casefold()))
    labels = rank_labels([(line.score, line.days) for line in lines])
    return [SeriesLine(label, ln.name, ln.days, ln.percents, ln.score) for label, ln in zip(labels, lines)]


class RecentEventJson(TypedDict):
    """One event of a player's profile: which, when it entered, whether it has closed, its final percentage."""

    event_id: str
    name: str
    form: str
    entered: float
    closed: bool
    percent: float | None


def recent_entries(documents: list[EventDocument], account_id: str, most: int, now: float) -> list[RecentEventJson]:
    """The newest ``most`` events the account entered (newest first): id, name, form, when it entered, whether the
    event has closed, and its final percentage once the event settled (a player's profile)."""
    entered = []
    for document in documents:
        for entry in document["entries"]:
            if entry.get("account_id") == account_id:
                entered.append((entry["joined"], document, entry))
    entered.sort(key=lambda found: -found[0])
    return [
        {
            "event_id": document["event_id"],
            "name": document["name"],
            "form": document["form"],
            "entered": joined,
            "closed": now >= document["closes_at"],
            "percent": None if "final_percent" not in entry else round(entry["final_percent"], 2),
        }
        for joined, document, entry in entered[:most]
    ]
