"""Helpers of the events tests (API and browser): cards in a JSON value, entering and playing as a person would."""

from __future__ import annotations

import hashlib
import ipaddress
import re
import time
from contextlib import contextmanager

CARD = re.compile(r"^[SHDC][AKQJT98765432]$")


PBN_DEAL = re.compile(r"^[NESW]:\s*(?:[AKQJT2-9]*(?:\.[AKQJT2-9]*){3}\s*){4}$")


def cards_in(obj, skip=("analysis",)) -> set[str]:
    """Every card-like string anywhere in a JSON value (``skip``: keys not looked into)."""
    out: set[str] = set()
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key not in skip:
                out |= cards_in(value, skip)
    elif isinstance(obj, list):
        for value in obj:
            out |= cards_in(value, skip)
    elif isinstance(obj, str):
        if CARD.match(obj):
            out.add(obj)
        elif PBN_DEAL.match(obj):  # a PBN deal: its 52 cards
            for hand in obj.split(":", 1)[1].split():
                for suit, holding in zip("SHDC", hand.split(".")):
                    out |= {suit + rank for rank in holding}
    return out


def auth(token: str | None) -> dict[str, str]:
    """The Authorization header of a token (none for None)."""
    return {} if token is None else {"Authorization": f"Bearer {token}"}


def new_event(client, boards=3, **extra) -> str:
    """Create a daily event with random filler bots; its id."""
    body = {"form": "daily", "name": "Test event", "boards": boards, "scheme": "classic", "filler": "random"}
    body.update(extra)
    if "pbn" in extra:
        del body["boards"]
    r = client.post("/api/events", json=body)
    assert r.status_code == 200, r.text
    return r.json()["event_id"]


def address_of(name: str) -> str:
    """A client address of its own for the person ``name`` (an event takes one entry per address)."""
    return str(ipaddress.IPv4Address(0x0A000000 + int.from_bytes(hashlib.sha256(name.encode()).digest()[:3])))


@contextmanager
def from_address(client, host: str):
    """Requests of a test client sent from the client address ``host`` meanwhile."""
    transport = client._transport
    before = transport.client
    transport.client = (host, 50000)
    try:
        yield client
    finally:
        transport.client = before


def post_entry(client, event_id: str, body: dict, address: str | None = None):
    """``POST /api/events/{id}/entries`` from ``address`` (by default one of the entrant's own: ``address_of``)."""
    with from_address(client, address or address_of(str(body.get("name")))):
        return client.post(f"/api/events/{event_id}/entries", json=body)


def enter(client, event_id: str, name: str) -> tuple[str, str]:
    """Enter the event as ``name`` from an address of its own: (table id, token)."""
    r = post_entry(client, event_id, {"name": name})
    assert r.status_code == 200, r.text
    return r.json()["table_id"], r.json()["token"]


def table_state(client, table_id: str, token: str) -> dict:
    """The chair's view of its table."""
    r = client.get(f"/api/tables/{table_id}/state", headers=auth(token))
    assert r.status_code == 200, r.text
    return r.json()


def play_board(client, table_id: str, token: str, check=None) -> dict:
    """Play the current board to its end as the person (first call a bid of 1NT when legal, then passes;
    the last legal card), the bots playing their turns; ``check(view)`` sees every view on the way."""
    bid = False
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        view = table_state(client, table_id, token)
        if check is not None:
            check(view)
        if view["phase"] == "done":
            return view
        if not view["my_turn"]:
            time.sleep(0.01)
            continue
        if view["phase"] == "auction":
            call = "1N" if not bid and "1N" in view["legal_calls"] else "P"
            bid = True
            action = {"type": "call", "call": call, "version": view["version"]}
        else:
            action = {"type": "play", "card": view["legal_cards"][-1], "version": view["version"]}
        r = client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json=action)
        assert r.status_code in (200, 409), r.text  # 409: a bot acted in between
    raise AssertionError("the board did not finish")


def next_board(client, table_id: str, token: str) -> dict:
    """Press "Next deal"; the new view."""
    r = client.post(f"/api/tables/{table_id}/actions", headers=auth(token), json={"type": "next"})
    assert r.status_code == 200, r.text
    return r.json()


def event_view(client, event_id: str, token: str | None = None) -> dict:
    """``GET /api/events/{id}`` as the holder of ``token``."""
    r = client.get(f"/api/events/{event_id}", headers=auth(token))
    assert r.status_code == 200, r.text
    return r.json()


def move_clock(client, seconds: float) -> None:
    """Move the event service's clock of an app under a test client on by ``seconds``."""
    events = client.app.state.events
    now = events.clock() + seconds
    events.clock = lambda: now


def step(http, me: dict) -> dict:
    """One move of a person at its table (``me`` of the event's view), if one is due: pass in the auction, the
    first legal card, or "next" after a board; the view before it. ``http``: a test client or an httpx client."""
    headers = auth(me["table_token"])
    view = http.get(f"/api/tables/{me['table_id']}/state", headers=headers).json()
    url = f"/api/tables/{me['table_id']}/actions"
    if view["phase"] == "done" and not view["event"]["over"]:
        http.post(url, headers=headers, json={"type": "next"})
    elif view["my_turn"] and view["phase"] == "auction":
        http.post(url, headers=headers, json={"type": "call", "call": "P"})
    elif view["my_turn"]:
        http.post(url, headers=headers, json={"type": "play", "card": view["legal_cards"][0]})
    return view
