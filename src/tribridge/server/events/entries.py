"""Who may enter an event, under which name: the checks of an entry before it is written.

A logged-in person enters as its account, under its username; a guest under the name it gives. Names of the
bots (``filler ...``, ``... bot 2``) are refused; a name too like another entrant's (``identity.name_skeleton``)
and a second entry of one person (``identity.entrant_identity``: one an account, one a guest address) are 409s;
so is an entry once the event has closed, has started (individual and teams) or is full. A private event wants
its invitation (403). An individual event's entrant may withdraw until the start (``withdraw``); a deleted
account's entries stay under a neutral name (``forget_account``).
"""

from __future__ import annotations

import re
import secrets

from tribridge.errors import InvalidInput
from tribridge.server.errors import Conflict, Forbidden
from tribridge.server.events.documents import EventDocument, EventLimits
from tribridge.server.events.identity import EntrantIdentity, name_skeleton
from tribridge.server.events.teams import BOTS_TEAM
from tribridge.server.store import token_hash
from tribridge.server.store.accounts import Account
from tribridge.server.tables.limits import check_name

__all__ = [
    "BOT_LABEL",
    "FORMER",
    "check_entry",
    "check_invite",
    "entrant_name",
    "forget_account",
    "has_started",
    "team_of",
    "withdraw",
]

FORMER = "former player"  # a deleted account's name in the events it entered (with a suffix: names are unique)
BOT_LABEL = re.compile(r"\bbot(\s*\d+)?\s*$", re.IGNORECASE)  # how the table names a bot ("random bot 2")


def entrant_name(body: dict[str, object], account: Account | None) -> str:
    """The name an entry goes under: the account's username when logged in, else the ``name`` given (checked)."""
    name = account.username if account is not None else check_name(body.get("name"), "name")
    if name.lower().startswith("filler") or BOT_LABEL.search(name):
        raise InvalidInput("name", "names starting with 'filler' or ending in 'bot' (and a number) belong to the bots")
    return name


def team_of(body: dict[str, object]) -> str:
    """The team an entrant of the teams form names (it creates the team if new)."""
    team = check_name(body.get("team"), "team")
    if team.lower().startswith("filler") or team.lower() == BOTS_TEAM.lower():
        raise InvalidInput("team", f"names starting with 'filler', and {BOTS_TEAM!r}, belong to the bots")
    return team


def check_invite(document: EventDocument, invite: object) -> None:
    """Refuse (403) an entry to a private event without its invitation."""
    expected = document.get("invite_hash")
    if expected is None:
        return
    if not isinstance(invite, str) or not secrets.compare_digest(token_hash(invite[:64]), expected):
        raise Forbidden("a private event (its boards came from its creator's file): enter with its invitation")


def has_started(document: EventDocument, now: float) -> bool:
    """Whether an individual or teams event has started (its first round or stage, or its start time passed)."""
    return bool(document["round_tables"] or document["stages"]) or now >= document["starts_at"]


def check_entry(document: EventDocument, name: str, identity: EntrantIdentity, now: float, limits: EventLimits) -> None:
    """Raise unless ``name`` may enter now: the event open (and not started, individual and teams), the name free
    (no look-alike), and no entry yet of the same person (the same account, or a guest from the same address)."""
    if now >= document["closes_at"]:
        raise Conflict("the event has closed")
    if document["form"] != "daily" and has_started(document, now):
        raise Conflict("the event has started: entries are closed")
    skeleton = name_skeleton(name)
    for entry in document["entries"]:
        if entry.get("identity") == identity.key:
            who = "this client address" if identity.guest else "this account"
            raise Conflict(f"one entry per person: {who} has entered this event already")
        if name_skeleton(entry["name"]) == skeleton:
            raise Conflict(f"an entrant called {entry['name']!r} is already in this event (too like {name!r})")
    most = {
        "daily": limits.max_entries,
        "individual": document["players"],
        "teams": 3 * document["max_teams"],
    }[document["form"]]
    if len(document["entries"]) >= most:
        raise Conflict(f"the event is full ({most} entries)")


def withdraw(document: EventDocument, person: int, now: float) -> None:
    """Take entry ``person`` out of an individual event before its start (409 once it has started, or another
    form: a daily entry has its table, a team its members)."""
    if document["form"] != "individual":
        raise Conflict("only an individual event's entrants may withdraw (before its start)")
    if has_started(document, now) or now >= document["closes_at"]:
        raise Conflict("the event has started: its entrants are final")
    del document["entries"][person]


def forget_account(document: EventDocument, account_id: str) -> None:
    """A deleted account's entries keep their results under a neutral name, with nothing of the account left."""
    for entry in document["entries"]:
        if entry.get("account_id") == account_id:
            entry["name"] = f"{FORMER} {secrets.token_hex(3)}"
            entry["identity"] = f"former:{secrets.token_hex(6)}"
            del entry["account_id"]
