"""Record the server's answers to a fixed script of requests, or check them against the recorded file.

The app runs in-process (FastAPI's ``TestClient``) on a fresh SQLite store, bots without delay. The script
(``play_script``) creates a table of one person and two fast bots on a chosen seed and plays a whole deal
through it (calls, cards, a hint, table talk, an undo, a claim, bad input), reads the view as the chair
and as a spectator, the deal's review, its PBN, LIN and JSON exports and the history; a table of three
people shows each chair's view, an undo by consent, a hint out of turn and a claim answered; an event
(its own PBN board) is entered and its board played, then its standings and travellers read; the robot
API (``/apis/brill``'s bid, lead and play, BEN's ``/bid``, the three-player API's bid) answers fixed
inputs.

Every answer is kept as (request, status, body text). Only the genuinely variable parts are replaced,
all in ``normalise``: the ids and tokens the server draws (``<table-1>``, ``<token-1>``, ...,
learnt from the answers that hand them out) and the wall-clock times of events (``<time>``). The deal
secret of a table with several people is drawn from ``secrets`` and fixed here (``fixed_deal_secrets``),
so its cards are the same on every run. Bots are deterministic for a position (their random streams are
seeded from what they see), so nothing else varies: waits for bots, for the words of their calls (worked out
after the call, ``explain_pending`` meanwhile) and for the post-deal analysis poll without recording, and the
recorded read comes once the table has settled.

    .venv/bin/python scripts/record_requests.py --write   # record into tests/typed/recorded_requests.json
    .venv/bin/python scripts/record_requests.py           # compare with it (exit 1 on a difference)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

from fastapi.testclient import TestClient

from tribridge.server.app import create_app
from tribridge.server.tables import config as table_config_module

RECORDED = Path(__file__).resolve().parents[1] / "tests" / "typed" / "recorded_requests.json"
SETTLE_SECONDS = 90.0
BOTS = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "paper+random"}]
PEOPLE = [{"kind": "human"}, {"kind": "human", "name": "Bea"}, {"kind": "human"}]
TABLE_SEED = 11
EVENT_PBN = """[Board "1"]
[Dealer "N"]
[Deal "N:AKQ2.KJ4.Q73.A95 J84.QT98.K52.J73 T976.753.AJ8.K62 53.A62.T964.QT84"]
"""
ROBOT_DEAL = {  # the hands of the robot API's requests (N E S W)
    "N": "AKQ2.KJ4.Q73.A95",
    "E": "J84.QT98.K52.J73",
    "S": "T976.753.AJ8.K62",
    "W": "53.A62.T964.QT84",
}
TIME_KEYS = ("closes_at", "starts_at")  # the wall-clock times the answers carry (an event's)
_TIME_FIELD = re.compile(r'"(' + "|".join(TIME_KEYS) + r')":( ?)-?[0-9][0-9.e+-]*')

Entry = dict[str, Any]


def normalise(text: str, drawn: dict[str, str]) -> str:
    """The answer ``text`` with its variable parts replaced: each drawn id or token by its placeholder
    (``drawn``: value -> placeholder), each wall-clock time of an event by ``"<time>"``."""
    for value in sorted(drawn, key=len, reverse=True):
        text = text.replace(value, drawn[value])
    return _TIME_FIELD.sub(lambda m: f'"{m.group(1)}":{m.group(2)}"<time>"', text)


@contextmanager
def fixed_deal_secrets() -> Iterator[None]:
    """Tables' deal secrets drawn from a fixed sequence (the first table's, the second's, ...), not from the OS."""
    drawn = iter(range(1, 10**6))

    class FixedSecrets:
        @staticmethod
        def token_hex(nbytes: int = 32) -> str:
            return hashlib.sha256(f"deal secret {next(drawn)}".encode()).hexdigest()[: 2 * nbytes]

    with mock.patch.object(table_config_module, "secrets", FixedSecrets):
        yield


class Recorder:
    """Sends requests through a test client and keeps each answer, normalised."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.entries: list[Entry] = []
        self.drawn: dict[str, str] = {}
        self.counts: dict[str, int] = {}

    def learn(self, kind: str, value: Any) -> None:
        """Remember a value the server drew (an id, a token) under a stable placeholder of its kind."""
        if isinstance(value, str) and value and value not in self.drawn:
            self.counts[kind] = self.counts.get(kind, 0) + 1
            self.drawn[value] = f"<{kind}-{self.counts[kind]}>"

    def send(
        self, method: str, path: str, token: str | None = None, body: Any = None, **kwargs: Any
    ) -> tuple[int, str]:
        """One request (``token``: its bearer), unrecorded: (status, body text)."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if body is not None:
            kwargs["json"] = body
        answer = self.client.request(method, path, headers=headers, **kwargs)
        return answer.status_code, answer.text

    def call(self, what: str, method: str, path: str, token: str | None = None, body: Any = None, **kwargs: Any) -> Any:
        """One recorded request: ``what`` says who asks; the answer's JSON (None when it is not JSON)."""
        status, text = self.send(method, path, token, body, **kwargs)
        target = path + ("?" + "&".join(f"{k}={v}" for k, v in kwargs["params"].items()) if "params" in kwargs else "")
        entry: Entry = {"step": len(self.entries) + 1, "what": what, "request": f"{method} {target}"}
        if body is not None:
            entry["sent"] = body
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        self.learn_from(data)
        entry["status"] = status
        entry["answer"] = text
        self.entries.append(self.normalised(entry))
        return data

    def learn_from(self, data: Any) -> None:
        """Learn the ids and tokens an answer hands out."""
        if not isinstance(data, dict):
            return
        for key, kind in (("table_id", "table"), ("event_id", "event")):
            self.learn(kind, data.get(key))
        for key in ("token", "watch_token", "invite"):
            self.learn("token", data.get(key))

    def normalised(self, entry: Entry) -> Entry:
        """The entry with its request and answer normalised (``normalise``)."""
        out = dict(
            entry, request=normalise(entry["request"], self.drawn), answer=normalise(entry["answer"], self.drawn)
        )
        if "sent" in entry:
            out["sent"] = json.loads(normalise(json.dumps(entry["sent"]), self.drawn))
        return out

    def view(self, table_id: str, token: str) -> dict[str, Any]:
        """A chair's view, unrecorded."""
        status, text = self.send("GET", f"/api/tables/{table_id}/state", token)
        if status != 200:
            raise AssertionError(f"state: {status} {text[:300]}")
        view: dict[str, Any] = json.loads(text)
        return view

    def settle(self, table_id: str, token: str, ready: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """Wait (unrecorded) until the chair's view satisfies ``ready``: the bots and the analysis have done."""
        deadline = time.monotonic() + SETTLE_SECONDS
        while time.monotonic() < deadline:
            view = self.view(table_id, token)
            if ready(view):
                return view
            time.sleep(0.02)
        raise AssertionError(f"table {table_id} did not settle: {view}")


def settled(view: dict[str, Any]) -> bool:
    """Every bot call's words are in, and the person may act (its turn, a claim to answer) or the deal is over and
    analysed."""
    if any(entry.get("explain_pending") for entry in view.get("auction") or []):
        return False
    if view["phase"] == "done":
        return view["analysis"] is not None and not view["analysis"].get("pending", False)
    if view["must_answer_claim"]:
        return True
    return view["claim"] is None and bool(view["my_turn"])


def person_action(view: dict[str, Any], bid_made: bool) -> dict[str, Any]:
    """The person's next game action: a bid of 1NT once when legal, else a pass; in play its last legal card."""
    if view["must_answer_claim"]:
        return {"type": "accept_claim"}
    if view["phase"] == "auction":
        call = "1N" if not bid_made and "1N" in view["legal_calls"] else "P"
        return {"type": "call", "call": call}
    return {"type": "play", "card": view["legal_cards"][-1]}


def play_deal(rec: Recorder, table_id: str, token: str, extras: bool) -> dict[str, Any]:
    """The person plays the deal to its end, the bots answering; ``extras``: a hint, an undo and a claim on the way."""
    bid_made = hinted = undone = claimed = False
    view = rec.settle(table_id, token, settled)
    for _ in range(80):
        if view["phase"] == "done":
            return view
        if extras and view["phase"] == "play" and not hinted:
            rec.call("chair 0 asks a hint", "POST", f"/api/tables/{table_id}/hint", token)
            hinted = True
        if extras and view["can_claim"] and not claimed and len(view["hand"]) <= 2:
            claim = {"type": "claim", "tricks": len(view["hand"])}
            rec.call("chair 0 claims the rest", "POST", f"/api/tables/{table_id}/actions", token, claim)
            claimed = True
            view = rec.settle(table_id, token, settled)
            rec.call("chair 0 after the claim", "GET", f"/api/tables/{table_id}/state", token)
            continue
        action = person_action(view, bid_made)
        bid_made = bid_made or action.get("call", "P") != "P"
        answer = rec.call("chair 0 acts", "POST", f"/api/tables/{table_id}/actions", token, action)
        if extras and not undone and answer["can_undo"] and answer["my_turn"]:
            rec.call("chair 0 takes it back", "POST", f"/api/tables/{table_id}/actions", token, {"type": "undo"})
            undone = True
        view = rec.settle(table_id, token, settled)
    raise AssertionError("the deal did not end")


def bad_actions(rec: Recorder, table_id: str, token: str, version: int) -> None:
    """Refused actions: each answered with the error that names its field."""
    path = f"/api/tables/{table_id}/actions"
    for body in (
        {"type": "call", "call": "9Z"},
        {"type": "call"},
        {"type": "fly"},
        {"type": "claim", "tricks": "all"},
        {"type": "watchers", "allow": "yes"},
        {"type": "say", "text": ""},
        {"type": "call", "call": "P", "version": version - 1},
        {"type": "call", "call": "P", "version": "new"},
        {"type": "next"},
        [1, 2],
    ):
        rec.call("a refused action", "POST", path, token, body)
    rec.call("a wrong token", "GET", f"/api/tables/{table_id}/state", "not-a-token")


def one_person_table(rec: Recorder) -> None:
    """A person and two bots on a chosen seed: a whole deal, its review and exports, then the next deal."""
    body = {"chairs": BOTS, "scheme": "classic", "seed": TABLE_SEED, "take": 0}
    created = rec.call("create a table", "POST", "/api/tables", None, body)
    table_id, token = created["table_id"], created["token"]
    base = f"/api/tables/{table_id}"
    rec.call("the lobby's facts", "GET", base)
    rec.call("chair 0's first view", "GET", f"{base}/state", token)
    view = rec.settle(table_id, token, settled)
    bad_actions(rec, table_id, token, view["version"])
    rec.call("chair 0 talks", "POST", f"{base}/actions", token, {"type": "say", "text": "Good luck, bots"})
    rec.call("chair 0 shares its view", "POST", f"{base}/actions", token, {"type": "watchers", "allow": True})
    rec.call("a spectator follows chair 0", "GET", f"{base}/watch", params={"chair": 0})
    rec.call("chair 0 asks an undo of nothing", "POST", f"{base}/actions", token, {"type": "undo"})
    play_deal(rec, table_id, token, extras=True)
    rec.call("chair 0's view of the finished deal", "GET", f"{base}/state", token)
    rec.call("a spectator", "GET", f"{base}/watch")
    rec.call("chair 0's own hand", "GET", f"{base}/hands/N", token)
    rec.call("the review", "GET", f"{base}/deals/1/review", token)
    rec.call("a review of a deal not played", "GET", f"{base}/deals/2/review", token)
    for kind in ("json", "pbn", "lin"):
        rec.call(f"the {kind} export", "GET", f"{base}/export.{kind}", token)
    rec.call("the history", "GET", f"{base}/history", token, params={"offset": 0, "limit": 5})
    rec.call("the next deal", "POST", f"{base}/actions", token, {"type": "next"})


def people_table(rec: Recorder) -> None:
    """Three people on a (fixed) secret deal: each chair's view, an undo by consent, a claim answered."""
    body = {"chairs": PEOPLE, "scheme": "tribridge", "take": 0}
    created = rec.call("create a table of people", "POST", "/api/tables", None, body)
    table_id = created["table_id"]
    base = f"/api/tables/{table_id}"
    tokens = {0: created["token"]}
    rec.call("chair 0 waits for friends", "POST", f"{base}/actions", tokens[0], {"type": "call", "call": "1N"})
    for chair, name in ((1, None), (2, "Cy")):
        taken = rec.call(f"chair {chair} sits", "POST", f"{base}/seats/{chair}", None, {"name": name} if name else None)
        tokens[chair] = taken["token"]
    rec.call("a taken chair", "POST", f"{base}/seats/1", None)
    acts = [
        (0, {"type": "call", "call": "1N"}),
        (1, {"type": "call", "call": "P"}),
        (1, {"type": "undo"}),
        (0, {"type": "undo_agree"}),
        (2, {"type": "undo_refuse"}),
        (1, {"type": "undo"}),
        (2, {"type": "call", "call": "2S"}),
        (0, {"type": "call", "call": "P"}),
        (1, {"type": "call", "call": "P"}),
    ]
    for chair, action in acts:
        rec.call(f"chair {chair} acts", "POST", f"{base}/actions", tokens[chair], action)
    for chair in range(3):
        rec.call(f"chair {chair}'s view", "GET", f"{base}/state", tokens[chair])
    waiting = (rec.view(table_id, tokens[0])["turn_chair"] + 1) % 3
    rec.call(f"chair {waiting} asks a hint out of turn", "POST", f"{base}/hint", tokens[waiting])
    rec.call("chair 1 shares its view", "POST", f"{base}/actions", tokens[1], {"type": "watchers", "allow": True})
    rec.call("a spectator follows chair 1", "GET", f"{base}/watch", params={"chair": 1})
    rec.call("a spectator of chair 2 (not shared)", "GET", f"{base}/watch", params={"chair": 2})
    for _ in range(2):
        chair = rec.view(table_id, tokens[0])["turn_chair"]
        card = {"type": "play", "card": card_of(rec, base, tokens[chair])}
        rec.call(f"chair {chair} plays", "POST", f"{base}/actions", tokens[chair], card)
    view = rec.view(table_id, tokens[0])
    claim = {"type": "claim", "tricks": 13}
    rec.call("the declarer claims", "POST", f"{base}/actions", tokens[view["declarer_chair"]], claim)
    answers = [c for c in range(3) if c != view["declarer_chair"]]
    rec.call("a defender agrees", "POST", f"{base}/actions", tokens[answers[0]], {"type": "accept_claim"})
    rec.call("a defender disputes", "POST", f"{base}/actions", tokens[answers[1]], {"type": "dispute_claim"})
    rec.call("the lobby's facts", "GET", base)


def card_of(rec: Recorder, base: str, token: str) -> str:
    """The first legal card of the chair on turn."""
    status, text = rec.send("GET", f"{base}/state", token)
    cards: list[str] = json.loads(text)["legal_cards"]
    return cards[0]


def event(rec: Recorder) -> None:
    """An event of one board of its own: created, entered, the board played; its standings and travellers."""
    body = {"form": "daily", "name": "Recorded event", "pbn": EVENT_PBN, "scheme": "classic", "filler": "random"}
    created = rec.call("create an event", "POST", "/api/events", None, body)
    event_id = created["event_id"]
    rec.call("a bad event", "POST", "/api/events", None, {"form": "daily", "name": "x", "boards": 0})
    rec.call("enter without the invitation", "POST", f"/api/events/{event_id}/entries", None, {"name": "Ann"})
    invited = {"name": "Ann", "invite": created["invite"]}
    entry = rec.call("enter it", "POST", f"/api/events/{event_id}/entries", None, invited)
    if "table_id" not in entry:
        raise AssertionError(f"the entry was refused: {entry}")
    table_id, token = entry["table_id"], entry["token"]
    rec.call("the event before a board", "GET", f"/api/events/{event_id}", token)
    play_deal(rec, table_id, token, extras=False)
    rec.call("the event's table after its board", "GET", f"/api/tables/{table_id}/state", token)
    rec.call("no board after the last", "POST", f"/api/tables/{table_id}/actions", token, {"type": "next"})
    rec.call("standings and travellers", "GET", f"/api/events/{event_id}", token)
    rec.call("the entrant's export", "GET", f"/api/events/{event_id}/export.json", token)
    rec.call("a spectator's review", "GET", f"/api/tables/{table_id}/deals/1/review")


def robots(rec: Recorder) -> None:
    """The robot APIs on fixed inputs."""
    bid = {"seat": "N", "dealer": "N", "vul": "None", "ctx": "", "hand": ROBOT_DEAL["N"], "board": "1"}
    rec.call("Brill's service", "GET", "/apis/brill")
    rec.call("Brill's bid", "GET", "/apis/brill/bid", params=bid)
    rec.call("Brill's bad bid", "GET", "/apis/brill/bid", params=dict(bid, hand="AKQ"))
    lead = {"seat": "E", "dealer": "N", "vul": "None", "ctx": "1N------", "hand": ROBOT_DEAL["E"]}
    rec.call("Brill's lead", "GET", "/apis/brill/lead", params=lead)
    play = dict(lead, seat="W", hand=ROBOT_DEAL["W"], played="HQH3", dummy=ROBOT_DEAL["S"])
    rec.call("Brill's play", "GET", "/apis/brill/play", params=play)
    rec.call("BEN's bid", "GET", "/bid", params=dict(bid, seat="E", ctx="1C", hand=ROBOT_DEAL["E"], user="x"))
    three = {"seat": "N", "dealer": "N", "ctx": "", "hand": ROBOT_DEAL["N"]}
    rec.call("the three-player bid", "GET", "/apis/3pab/bid", params=three)


def play_script(client: TestClient) -> list[Entry]:
    """Run the whole script against a started app; the normalised answers in order."""
    rec = Recorder(client)
    rec.call("the bots and schemes", "GET", "/api/bots")
    one_person_table(rec)
    people_table(rec)
    event(rec)
    robots(rec)
    return rec.entries


def record() -> list[Entry]:
    """The script's answers from a fresh app on a fresh SQLite store."""
    with tempfile.TemporaryDirectory() as folder, fixed_deal_secrets():
        app = create_app(db_path=Path(folder) / "store.sqlite", bot_delay=0, log_requests=False, robot_layouts=4)
        with TestClient(app) as client:
            return play_script(client)


def recorded_text(entries: list[Entry]) -> str:
    """The file's text: one entry a line inside a JSON list (a difference shows on its own line)."""
    return "[\n" + ",\n".join(json.dumps(e, ensure_ascii=False, sort_keys=True) for e in entries) + "\n]\n"


def first_difference(entries: list[Entry], recorded: list[Entry]) -> str | None:
    """Where the answers differ from the recorded ones (None when byte-identical)."""
    for new, old in zip(entries, recorded):
        if new != old:
            return f"step {old['step']} ({old['what']}, {old['request']}):\n  recorded {old}\n  now      {new}"
    if len(entries) != len(recorded):
        return f"{len(entries)} answers now, {len(recorded)} recorded"
    return None


def main(argv: list[str] | None = None) -> int:
    """``--write``: record the answers into the file; else compare with it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write {RECORDED.name} instead of comparing")
    parser.add_argument("--file", type=Path, default=RECORDED, help="the recorded file")
    args = parser.parse_args(argv)
    entries = record()
    if args.write:
        args.file.write_text(recorded_text(entries), encoding="utf-8")
        print(f"{len(entries)} answers written to {args.file}")
        return 0
    difference = first_difference(entries, json.loads(args.file.read_text(encoding="utf-8")))
    print(difference or f"{len(entries)} answers, byte-identical to {args.file}")
    return 1 if difference else 0


if __name__ == "__main__":
    sys.exit(main())
