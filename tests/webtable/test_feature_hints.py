"""Hints: the button gives the hint bot's suggestion and reason on my turn; off when the creator says so; rate limited."""

from __future__ import annotations

import pytest
from webtable_helpers import DESKTOP, PHONE, VIEW, api, api_error, create_table, open_seat

from browser_helpers import ACTIONABLE, watched_page

RANDOM_BOTS = [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]


@pytest.mark.browser
@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_the_hint_button_suggests_a_legal_call_with_a_reason(browser, server_url, viewport):
    """On my call the Hint button shows one of my legal calls and why; a table without hints has no button."""
    errors: list[str] = []
    context, page = watched_page(browser, errors, viewport=viewport)
    created = create_table(server_url, [{"kind": "human"}, *RANDOM_BOTS], seed=9)
    open_seat(page, server_url, created["table_id"], created["token"], 0)
    page.wait_for_function(ACTIONABLE)
    page.click("#hint")
    page.wait_for_selector("#hint-text [data-suggestion]", timeout=60_000)
    suggestion = page.get_attribute("#hint-text [data-suggestion]", "data-suggestion")
    assert suggestion in page.evaluate(VIEW)["legal_calls"]
    assert "scored best" in page.inner_text("#hint-text") or "qualif" in page.inner_text("#hint-text")
    off = create_table(server_url, [{"kind": "human"}, *RANDOM_BOTS], seed=9, hints=False)
    open_seat(page, server_url, off["table_id"], off["token"], 0)
    page.wait_for_function(ACTIONABLE)
    assert page.is_hidden("#hint")
    context.close()
    assert not errors, errors


def test_hints_are_refused_when_off_out_of_turn_and_too_often(server_url):
    """403 at a table without hints; 400 when it is not my turn; 429 after the per-person allowance."""
    off = create_table(server_url, [{"kind": "human"}, *RANDOM_BOTS], seed=9, hints=False)
    assert api_error(server_url, "POST", f"/api/tables/{off['table_id']}/hint", {}, off["token"]) == 403
    three = create_table(server_url, [{"kind": "human"}, {"kind": "human"}, RANDOM_BOTS[0]], hints=True)
    other = api(server_url, "POST", f"/api/tables/{three['table_id']}/seats/1", {"name": "Bo"})["token"]
    assert api_error(server_url, "POST", f"/api/tables/{three['table_id']}/hint", {}, other) == 400  # chair 0 deals
    statuses = [
        api_error(server_url, "POST", f"/api/tables/{three['table_id']}/hint", {}, three["token"]) for _ in range(8)
    ]
    assert statuses[:6] == [0] * 6 and statuses[6:] == [429, 429], statuses
