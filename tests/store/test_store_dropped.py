"""Two `tribridge serve` processes on one PostgreSQL while the database cuts every connection they hold.

While people's actions are driven and acknowledged through both processes at three tables of people
and one of a person and two bots (whose turns either process takes), the test terminates every backend of the database from its own connection
(``pg_terminate_backend``), several times. Afterwards every acknowledged action is in the log exactly
once, each process's memory matches the log, both processes serve every table, sockets opened before
the cuts get pushes of actions made through the other process (the listener came back), the bots play
on and ``/healthz`` answers ok again. Requests during a cut may fail, with a 503 only.
"""

from __future__ import annotations

import json
import signal
import threading
import time
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from tribridge.server.store import open_store
from tribridge.server.tables.manager import replay_table
from tribridge.testing import PgServer, start_server, ws_token_message

pytestmark = pytest.mark.slow

HUMANS = [{"kind": "human"}] * 3
WITH_BOTS = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
HUMAN_TABLES = 3
CUTS = 3
CUT_GAP_SECONDS = 1.2
REQUEST_TIMEOUT = 8.0  # a request that takes longer hangs, which is a bug
HEALTHY_WITHIN_SECONDS = 5.0
PUSH_WITHIN_SECONDS = 5.0


def auth(token: str) -> dict[str, str]:
    """The header that carries a seat token."""
    return {"Authorization": f"Bearer {token}"}


@dataclass
class Attempt:
    """One POSTed action: the table, its log number, the chair, the move, the answer (status or 'timeout')."""

    table_id: str
    seq: int  # its number in the log, once acknowledged (the answer's version less the table's offset)
    chair: int
    move: dict[str, Any]
    status: int | str
    text: str = ""
    answered: float = 0.0  # time.monotonic() when the answer came


@dataclass
class Record:
    """Everything the drivers saw: each action attempt and each failed read."""

    attempts: list[Attempt] = field(default_factory=list)
    failed_reads: list[tuple[int | str, str]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def failures(self) -> list[tuple[int | str, str]]:
        """(status, text) of every request that did not succeed."""
        posts = [(a.status, a.text) for a in self.attempts if a.status != 200]
        return posts + self.failed_reads


class Pushes:
    """A table's WebSocket whose views a thread reads as they come (the newest is kept)."""

    def __init__(self, stack: ExitStack, base: str, table_id: str, token: str) -> None:
        url = base.replace("http://", "ws://") + f"/api/tables/{table_id}/ws"
        self.ws = stack.enter_context(connect(url, open_timeout=10))
        self.ws.send(ws_token_message(token))
        self.latest: dict[str, Any] = json.loads(self.ws.recv(timeout=10))
        self.closed_by: str | None = None
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for message in self.ws:
                self.latest = json.loads(message)
        except Exception as exc:  # noqa: BLE001 - the test reports how the socket ended
            self.closed_by = repr(exc)
        self.closed_by = self.closed_by or "closed"

    def wait_for(self, version: int, seconds: float = PUSH_WITHIN_SECONDS) -> dict[str, Any]:
        """The newest view once one at ``version`` or later has come (the last one seen after ``seconds``)."""
        deadline = time.monotonic() + seconds
        while self.latest["version"] < version and time.monotonic() < deadline and self.closed_by is None:
            time.sleep(0.02)
        return self.latest


def drain(proc: Any, into: list[str]) -> None:
    """Read a server's stderr in a thread (a full pipe would stop the server) into ``into``."""

    def read() -> None:
        for line in proc.stderr:
            into.append(line)

    threading.Thread(target=read, daemon=True).start()


class RequestFailed(Exception):
    """A request answered with another status than 200."""

    def __init__(self, status: int, text: str) -> None:
        super().__init__(f"{status}: {text}")
        self.status = status
        self.text = text


def state(base: str, tid: str, token: str) -> dict[str, Any]:
    """A chair's view from ``base`` (``RequestFailed`` unless 200)."""
    r = httpx.get(f"{base}/api/tables/{tid}/state", headers=auth(token), timeout=REQUEST_TIMEOUT)
    if r.status_code != 200:
        raise RequestFailed(r.status_code, r.text[:200])
    return r.json()


@dataclass
class Table:
    """A table of the test: its id, the tokens of its people's chairs, its version while its log was empty."""

    table_id: str
    tokens: dict[int, str]
    offset: int  # each chair taken counts in the version, not in the log


def next_move(base: str, table: Table, step: int) -> tuple[int, dict[str, Any], int] | None:
    """(chair, move, the view's version) for the person who must act now (None: a bot's turn, or no one's)."""
    view = state(base, table.table_id, table.tokens[0])
    if view["phase"] == "done":
        waiting = [c for c in table.tokens if c not in view["next_ready"]]
        return (waiting[0], {"type": "next"}, view["version"]) if waiting else None
    chair = view["turn_chair"]
    if chair not in table.tokens:
        return None
    mine = state(base, table.table_id, table.tokens[chair])
    if mine["phase"] == "auction":
        calls = mine["legal_calls"]
        call = "1N" if "1N" in calls and not mine["auction"] else calls[step % len(calls)]
        return chair, {"type": "call", "call": call}, mine["version"]
    cards = mine["legal_cards"]
    return chair, {"type": "play", "card": cards[step % len(cards)]}, mine["version"]


def post_move(base: str, table: Table, chair: int, move: dict[str, Any]) -> httpx.Response:
    """POST one action for ``chair`` through ``base``."""
    return httpx.post(
        f"{base}/api/tables/{table.table_id}/actions",
        headers=auth(table.tokens[chair]),
        json=move,
        timeout=REQUEST_TIMEOUT,
    )


def drive(servers: tuple[str, str], table: Table, stop: threading.Event, record: Record) -> None:
    """Act for the people at one table through both processes in turn until ``stop``, recording every answer."""
    step = 0
    while not stop.is_set():
        step += 1
        here = servers[step % 2]
        try:
            found = next_move(here, table, step)
        except (RequestFailed, httpx.TimeoutException) as exc:
            with record.lock:
                record.failed_reads.append((getattr(exc, "status", "timeout"), getattr(exc, "text", str(exc))[:200]))
            time.sleep(0.05)
            continue
        if found is None:  # the bots' turn
            time.sleep(0.02)
            continue
        chair, move, _version = found
        attempt = Attempt(table.table_id, 0, chair, move, "timeout")
        try:
            r = post_move(here, table, chair, move)
            attempt.status, attempt.text = r.status_code, r.text[:200]
            if r.status_code == 200:
                attempt.seq = r.json()["version"] - table.offset
        except httpx.TimeoutException:
            pass
        attempt.answered = time.monotonic()
        with record.lock:
            record.attempts.append(attempt)


def made_table(base: str, takers: list[str], chairs: list[dict[str, Any]]) -> Table:
    """A table made on ``base`` whose human chairs are taken in order through ``takers`` (chair 0 on ``base``)."""
    body = httpx.post(f"{base}/api/tables", json={"chairs": chairs, "take": 0}).json()
    tid, tokens = body["table_id"], {0: body["token"]}
    for chair, taker in zip([c for c, kind in enumerate(chairs) if kind["kind"] == "human"][1:], takers):
        tokens[chair] = httpx.post(f"{taker}/api/tables/{tid}/seats/{chair}").json()["token"]
    return Table(tid, tokens, state(base, tid, tokens[0])["version"])


def seconds_until_healthy(servers: tuple[str, ...], since: float, limit: float = 15.0) -> float:
    """Seconds from ``since`` until every server's /healthz answers 200 (each asked every 50 ms)."""
    waiting = set(servers)
    while waiting and time.monotonic() - since < limit:
        for base in list(waiting):
            try:
                if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                    waiting.discard(base)
            except httpx.HTTPError:
                pass
        time.sleep(0.05)
    assert not waiting, f"/healthz not ok {limit} s after the last cut: {waiting}"
    return time.monotonic() - since


def check_log_against_attempts(store: Any, table: Table, attempts: list[Attempt]) -> None:
    """Each acknowledged action is in the log at its number, once; every other action of a person there is one
    whose request failed (its commit went through unseen), each failed request explaining one at most."""
    assert store.check_log(table.table_id) == []
    logged = [(chair, action) for _seq, chair, action in store.load(table.table_id).actions]
    # numbered as the version counts them: the explanations of bots' calls are logged as entries of their own
    log = dict(enumerate(((c, a) for c, a in logged if a["type"] != "explain"), start=1))
    acked = {a.seq: a for a in attempts if a.status == 200}
    assert len(acked) == sum(1 for a in attempts if a.status == 200), "two acknowledgements for one log number"
    for seq, a in acked.items():
        assert log.get(seq) == (a.chair, a.move), (table.table_id, seq, a.move, log.get(seq))
    unanswered = Counter((a.chair, json.dumps(a.move, sort_keys=True)) for a in attempts if a.status != 200)
    for seq, (chair, action) in log.items():
        if seq not in acked and chair in table.tokens:
            key = (chair, json.dumps(action, sort_keys=True))
            assert unanswered[key] > 0, ("logged but never asked for", table.table_id, seq, action)
            unanswered[key] -= 1


def act_through(base: str, table: Table, seconds: float = 10.0) -> int:
    """The next person's action at the table through ``base`` (once the bots let them), which must succeed;
    the new version."""
    deadline = time.monotonic() + seconds
    while (found := next_move(base, table, 0)) is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert found is not None, f"no person's turn at {table.table_id} within {seconds} s"
    chair, move, version = found
    r = post_move(base, table, chair, move)
    assert r.status_code == 200, (base, r.status_code, r.text)
    assert r.json()["version"] == version + 1
    return version + 1


def check_memory_matches_log(store: Any, servers: tuple[str, str], table: Table, seconds: float = 10.0) -> None:
    """Both processes show every person the same view, at the version the log replays to (once the bots, if
    any, have taken the turns they are due)."""
    deadline = time.monotonic() + seconds
    while True:
        replayed = replay_table(store.load(table.table_id)).version
        views = {
            chair: [state(base, table.table_id, token) for base in servers] for chair, token in table.tokens.items()
        }
        same = all(v[0] == v[1] and v[0]["version"] == replayed for v in views.values())
        if same or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    for chair, (in_a, in_b) in views.items():
        assert in_a == in_b, (table.table_id, chair)
        assert in_a["version"] == replayed, (table.table_id, chair, in_a["version"], replayed)


def bot_actions_after(store: Any, table: Table, seq: int) -> int:
    """How many actions numbered above ``seq`` the table's bots logged."""
    return sum(1 for s, chair, _a in store.load(table.table_id).actions if s > seq and chair not in table.tokens)


@dataclass
class Cuts:
    """What the cuts did: backends terminated per cut, seconds from the last cut until every /healthz was ok."""

    terminated: list[int]
    healthy_after: float
    first: float  # time.monotonic() of the first and of the last cut
    last: float

    def acked_during(self, record: Record) -> int:
        """Actions acknowledged between the first cut and the last."""
        return sum(1 for x in record.attempts if x.status == 200 and self.first <= x.answered <= self.last)


def cut_while_driving(pg: PgServer, db: str, servers: tuple[str, str], tables: list[Table], record: Record) -> Cuts:
    """Drive every table through both processes while every connection is cut ``CUTS`` times; until healthy + 1 s."""
    stop = threading.Event()
    drivers = [threading.Thread(target=drive, args=(servers, table, stop, record)) for table in tables]
    for t in drivers:
        t.start()
    try:
        time.sleep(1.0)
        terminated, first = [pg.drop_connections(db)], time.monotonic()
        for _ in range(CUTS - 1):
            time.sleep(CUT_GAP_SECONDS)
            terminated.append(pg.drop_connections(db))
        last = time.monotonic()
        healthy_after = seconds_until_healthy(servers, last)
        time.sleep(1.0)  # actions after the recovery
    finally:
        stop.set()
        for t in drivers:
            t.join(REQUEST_TIMEOUT * 3)
    return Cuts(terminated, healthy_after, first, last)


def report(cuts: Cuts, record: Record, logs: list[str]) -> None:
    """Print what the cuts did (``pytest -s`` shows it)."""
    failures = record.failures()
    acked = sum(1 for x in record.attempts if x.status == 200)
    statuses = sorted({str(s) for s, _t in failures})
    print(
        f"\nterminated backends per cut: {cuts.terminated}; acknowledged actions: {acked} "
        f"({cuts.acked_during(record)} between the first cut and the last); "
        f"failed requests: {len(failures)} {statuses}; healthy {cuts.healthy_after:.2f} s after the last cut"
    )
    for status, text in failures[:6]:
        print(f"  {status}: {text}")
    errors = [line for line in logs if '"level": "error"' in line]
    print(f"server log lines: {len(logs)}, errors: {len(errors)}")
    for line in errors[:4]:
        print("  " + line.strip()[:400])


def check_pushes_cross(servers: tuple[str, str], tables: list[Table], before_cut: list[Pushes]) -> None:
    """A socket opened before the cuts on one process gets the view of an action made through the other."""
    a, b = servers
    for table, socket, other, own in zip(tables, before_cut, (a, b), (b, a)):
        version = act_through(other, table)
        pushed = socket.wait_for(version)
        assert pushed["version"] == version, (table.table_id, pushed["version"], version, socket.closed_by)
        assert pushed == state(own, table.table_id, table.tokens[0])


def test_every_connection_cut_while_actions_are_acknowledged(pg_server):
    db = pg_server.new_database()
    started = [start_server(db, bot_delay=0.1) for _ in range(2)]
    logs: list[str] = []
    for proc, _url in started:
        drain(proc, logs)
    servers = (started[0][1], started[1][1])
    a, b = servers
    store = None
    try:
        with ExitStack() as stack:
            people = [
                made_table(a, [b, a], HUMANS) if i % 2 == 0 else made_table(b, [a, b], HUMANS)
                for i in range(HUMAN_TABLES)
            ]
            bots = made_table(a, [], WITH_BOTS)
            before_cut = [Pushes(stack, b, people[0].table_id, people[0].tokens[0])]
            before_cut.append(Pushes(stack, a, people[1].table_id, people[1].tokens[0]))

            record = Record()
            cuts = cut_while_driving(pg_server, db, servers, [*people, bots], record)
            store = open_store(db)  # the test's own reads open after the cuts
            bots_logged = len(store.load(bots.table_id).actions)
            report(cuts, record, logs)
            # the first cut ends both listeners and a pooled connection of each process at least; every cut ends some
            assert cuts.terminated[0] >= 4 and min(cuts.terminated) >= 2, cuts.terminated
            assert cuts.acked_during(record) >= 1, "no action was acknowledged while the connections were cut"
            assert all(status == 503 for status, _t in record.failures()), record.failures()[:10]
            assert cuts.healthy_after < HEALTHY_WITHIN_SECONDS

            for table in [*people, bots]:
                check_log_against_attempts(store, table, [x for x in record.attempts if x.table_id == table.table_id])
                check_memory_matches_log(store, servers, table)
            check_pushes_cross(servers, people, before_cut)
            for table in [*people, bots]:
                act_through(a, table)
                act_through(b, table)
                check_memory_matches_log(store, servers, table)
            # the bots play on: each person's action below waits for a person's turn, which needs the bots' turns
            # before it taken (two in a row can be the person's: `next` at a finished deal, then the call of a deal
            # the person deals)
            for step in range(4):
                if bot_actions_after(store, bots, bots_logged) > 0:
                    break
                act_through(servers[step % 2], bots)
            assert bot_actions_after(store, bots, bots_logged) > 0, "the bots stopped playing after the cuts"
    finally:
        if store is not None:
            store.close()
        for proc, _url in started:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                proc.wait(30)


def outage_answers(base: str, table: Table) -> list[tuple[str, int | str, str, float]]:
    """(what, status, body, seconds) of a read, an action, /healthz and a WebSocket while the store is away."""
    answers = []
    asks = {
        "state": lambda: httpx.get(
            f"{base}/api/tables/{table.table_id}/state", headers=auth(table.tokens[0]), timeout=REQUEST_TIMEOUT
        ),
        "action": lambda: post_move(base, table, 0, {"type": "call", "call": "P"}),
        "healthz": lambda: httpx.get(f"{base}/healthz", timeout=REQUEST_TIMEOUT),
    }
    for what, ask in asks.items():
        started = time.monotonic()
        r = ask()
        answers.append((what, r.status_code, r.text[:200], time.monotonic() - started))
    started = time.monotonic()
    url = base.replace("http://", "ws://") + f"/api/tables/{table.table_id}/ws"
    try:
        with connect(url, open_timeout=REQUEST_TIMEOUT) as ws:
            ws.send(ws_token_message(table.tokens[0]))
            ws.recv(timeout=REQUEST_TIMEOUT)
            outcome: tuple[int | str, str] = ("open", "a view came")
    except ConnectionClosed as exc:
        outcome = (exc.rcvd.code if exc.rcvd else "closed", exc.rcvd.reason if exc.rcvd else "")
    except InvalidStatus as exc:
        outcome = (
            exc.response.status_code,
            exc.response.body.decode(errors="replace")[:200] if exc.response.body else "",
        )
    answers.append(("websocket", *outcome, time.monotonic() - started))
    return answers


def test_a_database_that_refuses_connections_for_a_moment(pg_server):
    """While the database refuses connections, requests answer 503 with a clear message (a socket is told to come
    back: 1013); afterwards /healthz is ok again and the person and the bots play on."""
    db = pg_server.new_database()
    proc, base = start_server(db, bot_delay=0.1)
    drain(proc, [])
    store = None
    try:
        table = made_table(base, [], WITH_BOTS)
        act_through(base, table)
        with pg_server.refusing(db):
            answers = outage_answers(base, table)
        back = time.monotonic()
        healthy_after = seconds_until_healthy((base,), back, limit=20.0)
        print(f"\nwhile refused: {answers}; healthy {healthy_after:.2f} s after the database took connections again")
        for what, status, body, seconds in answers:
            assert seconds < REQUEST_TIMEOUT, (what, seconds)
            if what == "websocket":
                assert status == 503 and "store" in body, (status, body)  # the handshake is refused
            else:
                assert status == 503 and "store" in body, (what, status, body)
        store = open_store(db)
        logged = len(store.load(table.table_id).actions)
        act_through(base, table)
        act_through(base, table)
        check_memory_matches_log(store, (base, base), table)
        assert bot_actions_after(store, table, logged) > 0
    finally:
        if store is not None:
            store.close()
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)
