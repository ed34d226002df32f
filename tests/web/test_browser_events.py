"""Browser test of the Events page: a daily event played to the end by one person, then by a second one on a
phone, and both see each other's results in the travellers and the standings."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from browser_helpers import next_deal, play_until_done, watched_page
from event_helpers import address_of, auth, step

pytestmark = pytest.mark.browser

BOARDS = 2


ELSEWHERE = {"X-Forwarded-For": "192.0.2.2"}


def from_(name: str) -> dict[str, str]:
    """Headers of a request from the person ``name``'s own address (``event_helpers.address_of``)."""
    return {"X-Forwarded-For": address_of(name)}


def play_event_boards(page) -> None:
    """From the event page: open one's table, play every board, come back to the event by its link."""
    page.click("[data-testid='play-link']")
    page.wait_for_selector("#table:not([hidden])")
    for board in range(1, BOARDS + 1):
        play_until_done(page)
        link = page.locator("[data-testid='event-link']")
        assert link.is_visible()
        if board < BOARDS:
            assert f"Board {board} of {BOARDS}" in link.inner_text()
            next_deal(page)
    assert "boards are all played" in page.inner_text("[data-testid='event-link']")
    assert not page.locator("#next-deal").is_visible()
    page.click("[data-testid='event-link']")
    page.wait_for_selector("#event:not([hidden])")


def travellers_by_board(page) -> dict[int, dict[str, int]]:
    """Each traveller shown: board -> {entrant: score}."""
    out: dict[int, dict[str, int]] = {}
    for board in page.locator(".traveller").all():
        rows = board.locator("tbody tr").all()
        out[int(board.get_attribute("data-board"))] = {
            row.get_attribute("data-name"): int(row.locator("[data-testid='score']").inner_text()) for row in rows
        }
    return out


def standings(page) -> dict[str, float]:
    """The standings shown: entrant -> percentage."""
    rows = page.locator("[data-testid='standings'] tbody tr").all()
    return {row.get_attribute("data-name"): float(row.locator("[data-testid='percent']").inner_text()) for row in rows}


def create_on_page(page, server_url: str, name: str, form: str, fields: dict[str, str]) -> str:
    """Start an event from the Events page (random bots), with ``fields`` (input id -> value); its id."""
    page.goto(f"{server_url}/events.html?pace=0")
    page.wait_for_selector("#event-filler option[value='random']", state="attached")
    page.fill("#event-name", name)
    page.select_option("#event-form", form)
    for field, value in fields.items():
        page.fill(field, value)
    page.select_option("#event-filler", "random")
    page.click("#create-event")
    page.wait_for_selector("#event:not([hidden])")
    return page.url.split("event=")[1].split("&")[0]


def enter_event(page, name: str) -> None:
    """Type a name and enter the event shown."""
    page.fill("#entrant-name", name)
    page.click("#join-button")
    page.wait_for_selector("[data-testid='play-link']")


def test_daily_event_two_people_see_each_other(page, browser, server_url):
    create_on_page(page, server_url, "Browser daily", "daily", {"#event-boards": str(BOARDS)})
    event_url = page.url
    assert "Browser daily" in page.inner_text("#event-title")
    enter_event(page, "Ann")
    assert page.get_attribute("#event", "data-travellers") == "0"
    play_event_boards(page)
    page.wait_for_function(f"() => document.getElementById('event').dataset.travellers === '{BOARDS}'")
    assert set(travellers_by_board(page)) == set(range(1, BOARDS + 1))
    assert all(set(rows) == {"Ann"} for rows in travellers_by_board(page).values())

    # a second person, on a phone: sees nothing of the boards before playing them
    errors: list[str] = []
    phone_context, phone = watched_page(  # another person, at another address (the browsers' server trusts a
        browser, errors, viewport={"width": 390, "height": 844}, has_touch=True, extra_http_headers=ELSEWHERE
    )  # proxy's X-Forwarded-For from loopback, as uvicorn does by default): one entry per address
    try:
        phone.goto(event_url)
        phone.wait_for_selector("#event:not([hidden])")
        enter_event(phone, "Bob")
        assert phone.get_attribute("#event", "data-travellers") == "0"
        assert phone.locator(".traveller").count() == 0 and phone.locator(".hands").count() == 0
        assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
        play_event_boards(phone)
        phone.wait_for_function(f"() => document.getElementById('event').dataset.travellers === '{BOARDS}'")
        assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
        bob_sees = travellers_by_board(phone)
        bob_standings = standings(phone)
    finally:
        phone_context.close()
    assert not errors, f"JavaScript errors on the phone: {errors}"

    # both results on every board, for both; the standings: two scores per chair, so the percentages add to 100
    assert all(set(rows) == {"Ann", "Bob"} for rows in bob_sees.values())
    page.reload()
    page.wait_for_function(f"() => document.querySelectorAll('.traveller tbody tr').length === {2 * BOARDS}")
    assert travellers_by_board(page) == bob_sees
    ann_standings = standings(page)
    assert ann_standings == bob_standings and set(ann_standings) == {"Ann", "Bob"}
    # each board's percentage from the two scores shown: 100 for the better, 50 each on a tie
    for name, other in (("Ann", "Bob"), ("Bob", "Ann")):
        shown = [rows[name] for rows in bob_sees.values()]
        against = [rows[other] for rows in bob_sees.values()]
        expected = sum(100 if a > b else 50 if a == b else 0 for a, b in zip(shown, against)) / BOARDS
        assert ann_standings[name] == pytest.approx(expected, abs=0.051)


def test_individual_event_waits_for_its_places_then_seats_the_person(page, server_url):
    """An individual event started from the page: the entrant waits until every place is taken, then the page
    links to the table of round 1, where the entrant holds the chair the movement gives."""
    event_id = create_on_page(
        page, server_url, "Browser individual", "individual", {"#event-players": "3", "#event-boards": "3"}
    )
    page.fill("#entrant-name", "Ann")
    page.click("#join-button")
    page.wait_for_selector("#my-entry:not([hidden])")
    assert "starts when" in page.inner_text("#my-entry")
    for name in ("Bob", "Cid"):  # two more people enter through the API: the places are full, round 1 starts
        r = httpx.post(f"{server_url}/api/events/{event_id}/entries", json={"name": name}, headers=from_(name))
        assert r.status_code == 200, r.text
    page.wait_for_selector("[data-testid='play-link']", timeout=10_000)
    assert "round 1 of 3" in page.inner_text("[data-testid='event-facts']")
    page.click("[data-testid='play-link']")
    page.wait_for_selector("#table:not([hidden])")
    page.wait_for_function("() => window.tribridge.view && window.tribridge.view.event")
    view = page.evaluate("() => window.tribridge.view")
    assert view["chairs"][view["my_chair"]]["name"] == "Ann"
    assert all(chair["kind"] == "human" for chair in view["chairs"])


def _play_by_api(server_url: str, event_id: str, token: str, stop: threading.Event) -> None:
    """A second person at the teams event, through the API: pass, the first legal card, "next"."""
    with httpx.Client(base_url=server_url, timeout=10) as http:
        while not stop.is_set():
            me = http.get(f"/api/events/{event_id}", headers=auth(token)).json()["me"]
            if me["table_id"]:
                step(http, me)
            time.sleep(0.05)


def test_teams_event_from_the_page_to_the_winner(page, server_url):
    """A teams event of two teams: one person on the page (team Red), one through the API (team Blue); the match
    is played with the bots' team, and the page shows the match's IMPs, its winner and the teams' standings."""
    fields = {"#event-teams": "2", "#event-boards": "1", "#event-start": "0.1"}  # it starts in six seconds
    event_id = create_on_page(page, server_url, "Browser teams", "teams", fields)
    page.fill("#entrant-name", "Ann")
    page.fill("#entrant-team", "Red")
    page.click("#join-button")
    page.wait_for_selector("#my-entry:not([hidden])")
    body = {"name": "Bob", "team": "Blue"}
    r = httpx.post(f"{server_url}/api/events/{event_id}/entries", json=body, headers=from_("Bob"))
    assert r.status_code == 200, r.text
    stop = threading.Event()
    bob = threading.Thread(target=_play_by_api, args=(server_url, event_id, r.json()["token"], stop), daemon=True)
    bob.start()
    try:
        page.wait_for_selector("[data-testid='play-link']", timeout=20_000)
        assert "Red: Ann" in page.inner_text("[data-testid='team-list']")
        page.click("[data-testid='play-link']")
        page.wait_for_selector("#table:not([hidden])")
        play_until_done(page)
        page.click("[data-testid='event-link']")
        page.wait_for_selector("#team-standings-box:not([hidden])", timeout=60_000)
    finally:
        stop.set()
        bob.join(10)
    matches = page.inner_text("[data-testid='matches']")
    assert "Red" in matches and "Blue" in matches and "Bots" in matches and "playing" not in matches
    ranked = page.locator("[data-testid='team-standings'] tbody tr").all()
    assert sorted(row.get_attribute("data-team") for row in ranked) == ["Blue", "Red"]
