"""The live individual form: people take the movement's places as they enter; round by round each table of the
movement (``events.movement.individual_movement``) becomes a table of the server playing that round's run of
boards, the event's bots in the places of fillers and of people who had not entered by the start (each bot named
as its table names it: ``travellers.people_of``).

Round 1 starts once every place is taken or at ``starts_at``; each later round once every table of the round
before has finished its boards. A table whose three places are all bots is not played. At a round's table the
movement's chairs are the table's chairs (the dealer in chair 0 on every board). Each person's chair is taken
when the table is created, with a token derived from the event's secret and the hash of the person's own
token (an HMAC of the table and chair): nobody else can take it, only hashes are stored, and the person
receives its token when it opens the event.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence

from tribridge.events.boards import Board
from tribridge.events.movement import IndividualMovement, individual_movement, round_boards
from tribridge.server.events.documents import EventDocument
from tribridge.server.events.travellers import PlayedTable, people_of
from tribridge.server.tables.config import event_table_config
from tribridge.server.tables.manager import TableManager
from tribridge.server.tables.table import Table
from tribridge.server.tables.wire import ChairConfig, TableConfig

__all__ = [
    "chair_secret",
    "entrant_seats",
    "movement_of",
    "person_table",
    "round_due",
    "start_round",
    "table_token",
    "tables_of",
]


def movement_of(document: EventDocument) -> IndividualMovement:
    """The event's movement (deterministic in the number of places and rounds)."""
    return individual_movement(document["players"], document["rounds"])


def _chairs(document: EventDocument, movement: IndividualMovement, table: Sequence[int]) -> list[ChairConfig]:
    """The chairs of a movement table: the entrant's (a person), or the event's bot in a filler's place or one
    nobody took."""
    return [
        {"kind": "human", "name": document["entries"][person]["name"]}
        if person < len(document["entries"]) and not movement.is_filler(person)
        else {"kind": "bot", "bot": document["filler"]}
        for person in table
    ]


async def round_due(document: EventDocument, manager: TableManager, now: float) -> bool:
    """Whether the next round should start now (never after the last round or once the results froze)."""
    started = len(document["round_tables"])
    if (
        document["form"] != "individual"
        or started >= document["rounds"]
        or document["frozen"] is not None
        or not document["entries"]
    ):
        return False
    if started == 0:
        return len(document["entries"]) >= document["players"] or now >= document["starts_at"]
    return all(table.boards_over for table in [await manager.get(t) for t in document["round_tables"][-1] if t])


async def start_round(document: EventDocument, manager: TableManager) -> None:
    """Create the tables of the next round (``round_tables`` grows by one); a table of bots only is skipped."""
    movement = movement_of(document)
    index = len(document["round_tables"])
    run = round_boards(len(document["boards"]), document["rounds"])[index]
    boards = [Board.from_json(document["boards"][i]) for i in run]
    ids = []
    for table in movement.rounds[index]:
        chairs = _chairs(document, movement, table)
        if all(c["kind"] == "bot" for c in chairs):
            ids.append("")
            continue
        config = event_table_config(document["event_id"], boards, [0] * len(boards), chairs, document["scheme"])
        people = {c: p for c, p in enumerate(table) if chairs[c]["kind"] == "human"}
        created = await entrant_seats(document, manager, config, people)
        ids.append(created.table_id)
    document["round_tables"].append(ids)


async def entrant_seats(
    document: EventDocument, manager: TableManager, config: TableConfig, people: Mapping[int, int]
) -> Table:
    """A new table of the event whose chairs ``people`` (chair -> entry) are taken for those entrants at once."""
    secret = chair_secret(document)

    def seats(table_id: str) -> dict[int, tuple[str, str]]:
        out = {}
        for chair, person in people.items():
            entry = document["entries"][person]
            assert entry["token_hash"] is not None
            out[chair] = (entry["name"], table_token(secret, entry["token_hash"], table_id, chair))
        return out

    created, _token = await manager.create_configured(config, None, f"event:{document['event_id']}", seats=seats)
    return created


def chair_secret(document: EventDocument) -> str:
    """The event's secret of its entrants' chair tokens (drawn at its first table; kept in the document only)."""
    if not document.get("chair_secret"):
        document["chair_secret"] = secrets.token_hex(32)
    return document["chair_secret"]


async def tables_of(document: EventDocument, manager: TableManager) -> list[PlayedTable]:
    """Every started table of the event with its people and boards, counting what the freeze allows."""
    movement = movement_of(document)
    runs = round_boards(len(document["boards"]), document["rounds"])
    frozen = document["frozen"]
    out = []
    for r, ids in enumerate(document["round_tables"]):
        for t, table_id in enumerate(ids):
            if not table_id:
                continue
            table = await manager.get(table_id)
            done = len(table.history) if frozen is None else min(len(table.history), frozen.get(table_id, 0))
            people = people_of(_chairs(document, movement, movement.rounds[r][t]))
            out.append(PlayedTable(r + 1, t + 1, people, tuple(runs[r]), table, done))
    return out


def person_table(document: EventDocument, person: int) -> tuple[str, int] | None:
    """(table id, chair) of ``person`` in the latest started round, or None before round 1."""
    if not document["round_tables"]:
        return None
    movement = movement_of(document)
    index = len(document["round_tables"]) - 1
    for t, table in enumerate(movement.rounds[index]):
        if person in table:
            return document["round_tables"][index][t], table.index(person)
    return None


def table_token(secret: str, person_hash: str, table_id: str, chair: int) -> str:
    """A person's token for its chair at an event's table, from the event's secret and its own token's hash."""
    return hmac.new(secret.encode(), f"{person_hash}:{table_id}:{chair}".encode(), hashlib.sha256).hexdigest()
