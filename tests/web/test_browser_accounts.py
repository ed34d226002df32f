"""Accounts in Chromium: sign up, play a deal, log in from a second browser context, see the table there and take
the seat back, with the deal in "My deals" (its review opened there) and the rating graph drawn (screenshots ``account-tables.png`` and
``account-seat-back.png`` in pytest's temporary folder)."""

from __future__ import annotations

import pytest

from browser_helpers import play_until_done, start_game, watched_page

pytestmark = pytest.mark.browser

PASSWORD = "a phrase for the browser test"


def test_sign_up_play_and_take_the_seat_back_in_another_browser(page, browser, server_url, tmp_path):
    page.goto(f"{server_url}/account.html")
    page.wait_for_selector("#guest:not([hidden])")
    page.fill("[data-testid=signup-username]", "browser_quinn")
    page.fill("[data-testid=signup-password]", PASSWORD)
    page.click("[data-testid=signup-submit]")
    page.wait_for_selector("#member:not([hidden])")
    assert page.inner_text("[data-testid=account-name]") == "browser_quinn"

    start_game(page, server_url)  # a guest's table, now tied to the account by its seat token
    play_until_done(page)
    table_id = page.evaluate("() => new URLSearchParams(location.search).get('table')")
    assert table_id

    errors: list[str] = []
    context, other = watched_page(browser, errors, viewport={"width": 1200, "height": 900})
    try:
        other.goto(f"{server_url}/account.html")
        other.wait_for_selector("#guest:not([hidden])")
        other.fill("[data-testid=login-username]", "browser_quinn")
        other.fill("[data-testid=login-password]", PASSWORD)
        other.click("[data-testid=login-submit]")
        other.wait_for_selector("[data-testid=take-seat-back]")
        assert table_id in other.inner_text("[data-testid=my-tables]")
        other.wait_for_selector("[data-testid=deal-row]")  # the deal played in the first browser, in "My deals"
        assert table_id in other.inner_text("[data-testid=my-deals]")
        other.click("[data-testid=deal-review]")  # that deal's review, on this device without its seat token
        other.wait_for_selector("[data-testid=review]:not([hidden])")
        assert other.inner_text("#review-title") == "Deal 1"
        other.keyboard.press("Escape")
        other.wait_for_selector("[data-testid=review]", state="hidden")
        other.wait_for_function(  # the rating graph is a picture that loaded, drawn after the rated deal
            "() => { const g = document.querySelector('[data-testid=rating-graph]');"
            " return g.complete && g.naturalWidth > 0; }"
        )
        assert "after 2 games" in other.inner_text("[data-testid=rating-text]")
        opponents = other.locator("#head-to-head tr td:first-child").all_inner_texts()  # the two bots of the table
        assert opponents and all(name.startswith("bot:") for name in opponents)
        other.screenshot(path=str(tmp_path / "account-tables.png"))
        other.click("[data-testid=take-seat-back]")
        other.click("[data-testid=my-table-link]")
        other.wait_for_selector("#table:not([hidden])")
        other.wait_for_function("() => document.getElementById('table').dataset.phase === 'done'")
        other.screenshot(path=str(tmp_path / "account-seat-back.png"))
        assert errors == []
    finally:
        context.close()
    # the first browser's token was replaced: its socket was closed, and the page says why without a reload
    page.wait_for_selector("text=Your seat at this table was taken on another device.", timeout=30_000)
    assert page.evaluate(f"() => !(JSON.parse(localStorage.getItem('tribridge.tables') || '{{}}')['{table_id}'])")
