"""Browser test: a bot's call explains what it shows, on hover (its title) and on a tap, at desktop and phone width."""

from __future__ import annotations

import pytest
from webtable_helpers import DESKTOP, PHONE, VIEW, create_table, open_seat

from browser_helpers import watched_page

pytestmark = pytest.mark.browser
PAPER_BOTS = [{"kind": "bot", "bot": "paper"}, {"kind": "bot", "bot": "paper"}]
# The auction cells of the bots' calls: (chair, the call's title).
BOT_CELLS = (
    "() => [...document.querySelectorAll('#auction-table td[data-chair]')].filter((td) => td.dataset.chair !== '0')"
    ".map((td) => [td.dataset.chair, td.title])"
)


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_bot_calls_explain_what_they_show(browser, server_url, viewport):
    """Two paper bots call after my pass: each call says what it shows by the No-Trump call rule; a tap tells it."""
    errors: list[str] = []
    context, page = watched_page(browser, errors, viewport=viewport, has_touch=viewport is PHONE)
    created = create_table(server_url, [{"kind": "human"}, *PAPER_BOTS], seed=5)
    open_seat(page, server_url, created["table_id"], created["token"], 0)
    page.click("#bidding-box button.call[data-call='P']:enabled", timeout=60_000)
    page.wait_for_function("() => window.tribridge.view.auction.length >= 3", timeout=60_000)
    cells = page.evaluate(BOT_CELLS)
    assert len(cells) >= 2 and all("No-Trump call rule" in title for _, title in cells), cells
    mine = page.get_attribute("#auction-table td[data-chair='0']", "title")
    assert not mine, "my own call gets no explanation"
    if viewport is PHONE and page.evaluate(VIEW)["phase"] == "play":  # the panels hide in the play on a phone
        page.click("#show-side")
    cell = page.locator("#auction-table td[data-chair='1']").first
    if viewport is PHONE:
        cell.tap()
    else:
        cell.click()
    assert "No-Trump call rule" in page.inner_text("#call-explain")
    context.close()
    assert not errors, errors
