"""Browser test: a bot's call says what it shows in a tooltip of the page's own, and the line under the auction
follows the latest call it explains (desktop and phone)."""

from __future__ import annotations

import pytest
from webtable_helpers import DESKTOP, PHONE, VIEW, create_table, open_seat

from browser_helpers import watched_page

pytestmark = pytest.mark.browser
PAPER_BOTS = [{"kind": "bot", "bot": "paper"}, {"kind": "bot", "bot": "paper"}]
RANDOM_BOTS = [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
# Indices (in the view's auction) of the calls that come with an explanation.
EXPLAINED = "() => window.tribridge.view.auction.map((e, i) => [e, i]).filter(([e]) => e.explain).map(([, i]) => i)"
CELL = "#auction-table tbody td[data-chair]"
# Every bot call's words have come (they are worked out after the call: meanwhile it says so).
WORDS_IN = "() => window.tribridge.view.auction.every((e) => !e.explain_pending)"


def _cell(page, index: int):
    """The auction cell of the call at ``index``."""
    return page.locator(CELL).nth(index)


def _reveal(page, cell, phone: bool) -> None:
    """Hover (desktop) or tap (phone) a call."""
    if phone:
        cell.tap()
    else:
        cell.hover()


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_a_bot_call_shows_what_it_shows_in_a_tooltip_of_its_own(browser, server_url, viewport):
    """Two paper bots call after my pass: hovering or tapping a call opens a tooltip inside its cell, not the
    browser's title, that leads with what the call shows and keeps how it was chosen as a second line."""
    errors: list[str] = []
    phone = viewport is PHONE
    context, page = watched_page(browser, errors, viewport=viewport, has_touch=phone)
    created = create_table(server_url, [{"kind": "human"}, *PAPER_BOTS], seed=5)
    open_seat(page, server_url, created["table_id"], created["token"], 0)
    page.click("#bidding-box button.call[data-call='P']:enabled", timeout=60_000)
    page.wait_for_function("() => window.tribridge.view.auction.length >= 3", timeout=60_000)
    page.wait_for_function(WORDS_IN, timeout=60_000)
    assert page.evaluate(f"() => [...document.querySelectorAll('{CELL}')].filter((td) => td.title).length") == 0
    assert page.locator("#auction-table td[data-chair='0'] .call-tip").count() == 0, "my own call is not explained"
    if phone and page.evaluate(VIEW)["phase"] == "play":  # the panels hide in the play on a phone
        page.click("#show-side")
    explained = page.evaluate(EXPLAINED)
    assert len(explained) >= 2, explained
    cell = _cell(page, explained[0])
    tip = cell.locator(".call-tip")
    assert not tip.is_visible()
    _reveal(page, cell, phone)
    tip.wait_for(state="visible")
    shows, how = tip.locator(".explain-shows").inner_text(), tip.locator(".explain-how").inner_text()
    assert "Shows" in shows or "No hand" in shows, shows
    assert "No-Trump call rule" in how and "No-Trump call rule" not in shows
    assert cell.get_attribute("aria-describedby") == tip.get_attribute("id")
    box, cell_box = tip.bounding_box(), cell.bounding_box()
    assert box is not None and cell_box is not None
    assert 0 <= box["x"] and box["x"] + box["width"] <= viewport["width"], box
    assert abs(box["y"] - (cell_box["y"] + cell_box["height"])) < 4, (box, cell_box)  # right under its call
    other = _cell(page, explained[1])
    _reveal(page, other, phone)
    other.locator(".call-tip").wait_for(state="visible")
    assert not tip.is_visible(), "one tooltip at a time"
    context.close()
    assert not errors, errors


def _line_index(page) -> int | None:
    """The index of the call the line under the auction explains."""
    index = page.get_attribute("#call-explain", "data-index")
    return None if index is None else int(index)


def test_the_line_under_the_auction_follows_the_latest_call_it_explains(browser, server_url):
    """With random bots: after each of my bids the line explains the newest bot call, also after I tapped an
    older one, and it reads as that call's tooltip."""
    errors: list[str] = []
    context, page = watched_page(browser, errors, viewport=DESKTOP)
    created = create_table(server_url, [{"kind": "human"}, *RANDOM_BOTS], seed=11)
    open_seat(page, server_url, created["table_id"], created["token"], 0)
    tapped_older = followed_after_tap = False
    for _ in range(12):
        page.wait_for_function(
            "() => { const v = window.tribridge.view; return v.phase !== 'auction' || v.my_turn; }", timeout=60_000
        )
        page.wait_for_function(WORDS_IN, timeout=60_000)
        explained = page.evaluate(EXPLAINED)
        if explained:
            assert _line_index(page) == explained[-1], (explained, _line_index(page))
            tip_text = _cell(page, explained[-1]).locator(".call-tip").text_content()
            assert page.text_content("#call-explain") == tip_text
            if tapped_older:
                followed_after_tap = True
                break
            if len(explained) >= 2:
                _cell(page, explained[0]).click()
                assert _line_index(page) == explained[0]
                tapped_older = True
        if page.evaluate(VIEW)["phase"] != "auction":
            break
        count = len(page.evaluate(VIEW)["auction"])
        page.locator("#bidding-box .bids button.call:enabled").first.click()
        page.wait_for_function(f"() => window.tribridge.view.auction.length > {count}")
    assert followed_after_tap, "the auction ended before a bot called after my tap; choose another seed"
    context.close()
    assert not errors, errors
