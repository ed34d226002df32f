"""Browser test of an event's navigation and words: "Play board N" opens board N, the traveller names the bots as
the table does, chairs by seat and role, "1 entrant", "Board" at the event's table, long names inside the panel;
the week's daily series on the Events page."""

from __future__ import annotations

import re
import time

import httpx
import pytest

from account_helpers import sign_up
from browser_helpers import play_until_done

pytestmark = pytest.mark.browser
LONG_NAME = "Bartholomew Featherstonehaugh-Cholmondeley"[:40]  # as long as a name may be


def test_event_words_and_the_board_to_play(page, server_url):
    """Enter a two-board daily event on the page, play board 1, come back: the link says and opens board 2 (its
    auction, "Board 2" on the table); the traveller's words; at phone width the results fit their panel."""
    body = {"form": "daily", "name": "Words", "boards": 2, "scheme": "classic", "filler": "random"}
    event_id = httpx.post(f"{server_url}/api/events", json=body).json()["event_id"]
    page.goto(f"{server_url}/events.html?event={event_id}&pace=0")
    page.fill("#entrant-name", LONG_NAME)
    page.click("#join-button")
    page.wait_for_selector("[data-testid='play-link']")
    facts = page.inner_text("[data-testid='event-facts']")
    assert "1 entrant " in f"{facts} " and "1 entrants" not in facts and "2 boards" in facts, facts
    page.click("[data-testid='play-link']")
    page.wait_for_selector("#table:not([hidden])")
    page.wait_for_function("() => window.tribridge.view && window.tribridge.view.event")
    assert page.inner_text("#deal-info").startswith("Board 1")
    felt = page.inner_text(".felt")
    assert "random bot 2" in felt and "random bot 3" in felt, felt
    play_until_done(page)
    assert "Board over" in page.inner_text("#turn-info") and "Next board" in page.inner_text("#next-deal")
    page.click("[data-testid='event-link']")
    page.wait_for_selector("#event:not([hidden])")
    page.wait_for_function("() => document.getElementById('event').dataset.travellers === '1'")
    link = page.locator("[data-testid='play-link']")
    assert link.inner_text() == "Play board 2 of 2"
    row = page.locator(".traveller[data-board='1'] tbody tr").first
    assert row.locator("td").nth(1).inner_text() == "North, dealer"  # board 1: dealer North, the entrant deals it
    token = page.evaluate("(id) => JSON.parse(localStorage.getItem('tribridge.events'))[id].token", event_id)
    seen = httpx.get(f"{server_url}/api/events/{event_id}", headers={"Authorization": f"Bearer {token}"}).json()
    [result] = seen["travellers"][0]["results"]
    assert result["players"] == [LONG_NAME, "random bot 2", "random bot 3"]  # as the table page names them
    page.set_viewport_size({"width": 390, "height": 844})  # a phone: the long name wraps inside its cell
    name_cell = page.locator(".traveller[data-board='1'] tbody td").first
    em = page.evaluate("() => parseFloat(getComputedStyle(document.querySelector('.event-table td')).fontSize)")
    assert name_cell.bounding_box()["width"] <= 17 * em, (name_cell.bounding_box(), em)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390  # nothing out of the page's panel
    page.set_viewport_size({"width": 1200, "height": 900})
    link.click()
    page.wait_for_selector("#table:not([hidden])")
    page.wait_for_function("() => window.tribridge.view && window.tribridge.view.deal_no === 2", timeout=20_000)
    page.wait_for_function("() => window.tribridge.view.phase !== 'done'")
    assert re.match(r"Board 2\b", page.inner_text("#deal-info"))


def test_the_events_page_leads_with_todays_daily_event(page, server_url):
    """With no event created by anyone, the Events page opens on today's daily event (above the list) and takes one
    into it."""
    page.goto(f"{server_url}/events.html?pace=0")
    page.wait_for_selector("[data-testid='daily']:not([hidden])")
    first = page.evaluate(
        "() => [...document.querySelectorAll('#events-home > :not([hidden])')].find((e) => e.tagName !== 'H1'"
        " && !e.classList.contains('intro')).id"
    )
    assert first == "daily-box"
    today = time.strftime("%Y-%m-%d", time.gmtime())
    assert f"Daily {today}" in page.inner_text("[data-testid='daily']")
    page.click("#daily-link")
    page.wait_for_selector("#event:not([hidden])")
    assert page.inner_text("#event-title") == f"Daily {today}"
    assert page.is_visible("#join-event")


def test_the_events_page_shows_two_accounts_of_todays_daily_in_the_weeks_series(page, server_url):
    """Two accounts enter today's daily event: the Events page's series of the week lists both."""
    for name in ("page_tia", "page_uma"):
        client = sign_up(server_url, name)
        daily = next(e for e in client.get("/api/events").json()["events"] if e["house"])
        assert client.post(f"/api/events/{daily['event_id']}/entries", json={}).status_code == 200
    page.goto(f"{server_url}/events.html?pace=0")
    page.wait_for_selector("[data-testid='series'] tbody tr[data-name='page_uma']")
    shown = page.locator("[data-testid='series'] tbody tr").evaluate_all("rows => rows.map((r) => r.dataset.name)")
    assert {"page_tia", "page_uma"} <= set(shown)
    assert page.is_hidden("#no-series")
