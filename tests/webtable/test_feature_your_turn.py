"""Browser test: the lobby's "Your tables" marks a table where it is my turn; the title flashes on my turn."""

from __future__ import annotations

import pytest
from webtable_helpers import DESKTOP, PHONE, create_table, open_seat, take_seat

from browser_helpers import ACTIONABLE, watched_page

pytestmark = pytest.mark.browser
RANDOM_BOT = {"kind": "bot", "bot": "random"}


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_your_turn_is_marked_in_the_lobby_and_the_title(browser, server_url, viewport):
    """Ann deals (her call): the title flashes; in the lobby her table is marked; after her call it is not."""
    errors: list[str] = []
    context, page = watched_page(browser, errors, viewport=viewport)
    created = create_table(server_url, [{"kind": "human", "name": "Ann"}, {"kind": "human"}, RANDOM_BOT])
    take_seat(server_url, created["table_id"], 1, "Bob")
    open_seat(page, server_url, created["table_id"], created["token"], 0)
    page.wait_for_function(ACTIONABLE)
    page.wait_for_function("() => document.title.includes('Your turn')", timeout=3_000)
    page.click("#home-link")
    page.wait_for_selector("#lobby:not([hidden])")
    page.wait_for_selector("[data-testid='your-turn']")
    page.go_back()
    page.wait_for_selector("#table:not([hidden])")
    page.click("#bidding-box button.call[data-call='P']:enabled")
    page.wait_for_function("() => !window.tribridge.view.my_turn")
    page.wait_for_function("() => !document.title.includes('Your turn')", timeout=3_000)
    page.click("#home-link")
    page.wait_for_selector("#resume-list li .table-facts:not(:empty)")
    assert page.locator("[data-testid='your-turn']").count() == 0
    context.close()
    assert not errors, errors
