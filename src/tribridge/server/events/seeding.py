"""A knockout's seeds from its players' ratings: the better a team's members are rated, the better its seed.

A team's seed value is the mean of its members' conservative ratings (``mu - 3 sigma``, the leaderboard's
order): an account's own rating, and for a guest (or an account not rated yet) a new account's starting
rating. Members who never entered (played by the event's bot) do not count. Equal values keep the order in
which the teams were created. ``teams.seed_teams`` numbers the teams by these values when the knockout starts.
"""

from __future__ import annotations

from statistics import fmean

from tribridge.server.accounts.rating_service import account_entity
from tribridge.server.accounts.ratings import Rating
from tribridge.server.events.documents import EventDocument

__all__ = ["team_seed_values"]


def team_seed_values(document: EventDocument, ratings: dict[str, Rating]) -> list[float]:
    """Each team's seed value (in the order of ``document["teams"]``) given every entity's rating."""
    default = Rating().conservative
    entries = document["entries"]

    def member_value(person: int) -> float:
        account_id = entries[person].get("account_id")
        if account_id is None:
            return default
        return ratings.get(account_entity(account_id), Rating()).conservative

    return [fmean(member_value(p) for p in team["members"]) for team in document["teams"]]
