"""Helpers of the web-table browser tests: tables made through the API, seats remembered in a page, API actions."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

from browser_helpers import watched_page

DESKTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}
VIEW = "() => window.tribridge.view"
RANDOM_BOT = {"kind": "bot", "bot": "random"}
# North holds every spade, East every heart, South (the widow of deal 1) every diamond, West every club.
ONE_SUIT_EACH = "N:AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"


def api(base_url: str, method: str, path: str, body: object = None, token: str | None = None) -> dict:
    """One JSON request to the server; returns the answer (an HTTP error raises with its status and body)."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(base_url + path, data=data, method=method, headers=headers)
    with urllib.request.urlopen(request, timeout=60) as answer:
        return json.loads(answer.read() or b"{}")


def create_table(base_url: str, chairs: list[dict], **extra: object) -> dict:
    """Create a table taking chair 0; returns the server's answer (table id, token)."""
    body = {"chairs": chairs, "scheme": "classic", "take": 0, **extra}
    return api(base_url, "POST", "/api/tables", body)


def take_seat(base_url: str, table_id: str, chair: int, name: str) -> str:
    """Take a free chair under a name; returns its token."""
    return api(base_url, "POST", f"/api/tables/{table_id}/seats/{chair}", {"name": name})["token"]


def open_seat(page, base_url: str, table_id: str, token: str, chair: int) -> None:
    """Remember the chair's token in the page's local storage and open the table."""
    page.goto(f"{base_url}/?pace=0")
    page.evaluate(
        """([id, token, chair]) => localStorage.setItem("tribridge.tables",
             JSON.stringify({[id]: {token, chair, at: Date.now()}}))""",
        [table_id, token, chair],
    )
    page.goto(f"{base_url}/?table={table_id}&pace=0")
    page.wait_for_selector("#table:not([hidden])")
    page.wait_for_function("() => window.tribridge.view && window.tribridge.view.phase")


def state(base_url: str, table_id: str, token: str) -> dict:
    """A chair's view through the API."""
    return api(base_url, "GET", f"/api/tables/{table_id}/state", token=token)


def act_on_turn(base_url: str, table_id: str, tokens: list[str], bid: bool) -> dict:
    """The chair on turn acts through the API: its cheapest bid when ``bid``, else pass; its first legal card."""
    for token in tokens:
        view = state(base_url, table_id, token)
        if not view["my_turn"]:
            continue
        if view["phase"] == "auction":
            bids = [c for c in view["legal_calls"] if c[0].isdigit()]
            action = {"type": "call", "call": bids[0] if bid and bids else "P"}
        else:
            action = {"type": "play", "card": view["legal_cards"][0]}
        return api(base_url, "POST", f"/api/tables/{table_id}/actions", action, token)
    raise AssertionError("nobody is on turn")


def three_people(base_url: str) -> tuple[str, list[str]]:
    """A table of Ann (chair 0), Bob and Cy, seated through the API: (table id, their tokens)."""
    created = create_table(base_url, [{"kind": "human", "name": "Ann"}, {"kind": "human"}, {"kind": "human"}])
    tokens = [created["token"]]
    tokens += [take_seat(base_url, created["table_id"], chair, name) for chair, name in ((1, "Bob"), (2, "Cy"))]
    return created["table_id"], tokens


def two_people(base_url: str) -> tuple[str, str, str]:
    """A table of Ann (chair 0), Bob (chair 1) and a random bot: (table id, Ann's token, Bob's token)."""
    created = create_table(base_url, [{"kind": "human", "name": "Ann"}, {"kind": "human"}, RANDOM_BOT])
    return created["table_id"], created["token"], take_seat(base_url, created["table_id"], 1, "Bob")


def pages_for(browser, errors: list[str], count: int, viewport: dict | None = None, **options) -> tuple[list, list]:
    """``count`` pages with their own storage (contexts, pages); JavaScript errors go to ``errors``."""
    made = [watched_page(browser, errors, viewport=viewport or DESKTOP, **options) for _ in range(count)]
    return [c for c, _ in made], [p for _, p in made]


def wait_version(page, at_least: int) -> None:
    """Wait until the page shows a view of at least this version."""
    page.wait_for_function(f"() => Number(document.getElementById('table').dataset.version) >= {at_least}")


def api_error(base_url: str, method: str, path: str, body: object = None, token: str | None = None) -> int:
    """The HTTP status of a request that is expected to fail (0 if it succeeded)."""
    try:
        api(base_url, method, path, body, token)
    except urllib.error.HTTPError as exc:
        return exc.code
    return 0


def bid_and_claim_a_grand_slam(page, base_url: str, before_bidding: str | None = None) -> dict:
    """A table on ONE_SUIT_EACH against two ``dd`` bots, opened in ``page``; I (North) bid 7♠ and claim all 13."""
    dd_bots = [{"kind": "human"}, {"kind": "bot", "bot": "dd"}, {"kind": "bot", "bot": "dd"}]
    created = create_table(base_url, dd_bots, deals=[ONE_SUIT_EACH])
    open_seat(page, base_url, created["table_id"], created["token"], 0)
    if before_bidding:
        page.evaluate(before_bidding)
    claim_grand_slam(page)
    return created


def claim_grand_slam(page) -> None:
    """Holding every spade: bid 7♠ when it is my call, claim all 13 after the lead; the bots accept."""
    page.click("#bidding-box button.call[data-call='7S']:enabled", timeout=60_000)
    page.wait_for_selector("#claim-box:not([hidden])", timeout=60_000)
    page.select_option("#claim-tricks", index=0)
    page.click("#claim")
    page.wait_for_function("() => document.getElementById('table').dataset.phase === 'done'", timeout=60_000)
