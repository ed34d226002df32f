"""Browser test of a claim at a table of three people: the declarer claims, a dispute withdraws it, both accept."""

from __future__ import annotations

import re

import pytest

from browser_helpers import watched_page

pytestmark = pytest.mark.browser

VIEW = "() => window.tribridge.view"


@pytest.fixture()
def three_pages(browser):
    """Three browsers (own local storage each) that fail the test on any JavaScript error."""
    errors: list[str] = []
    contexts, pages = zip(*(watched_page(browser, errors, viewport={"width": 1200, "height": 900}) for _ in range(3)))
    yield list(pages)
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors on the pages: {errors}"


def seat_three_people(pages, base_url: str) -> None:
    """Ann opens a table with two friends' chairs; Bob and Cy join by the link with their names."""
    host = pages[0]
    host.goto(f"{base_url}/?pace=0")
    host.wait_for_selector("#chair-1 option[value='friend']", state="attached")
    host.fill("#player-name", "Ann")
    host.select_option("#chair-1", "friend")
    host.select_option("#chair-2", "friend")
    host.click("#start-game")
    host.wait_for_selector("#invite:not([hidden])")
    link = host.input_value("#invite-link")
    for chair, (page, name) in enumerate(zip(pages[1:], ["Bob", "Cy"]), start=1):
        page.goto(link)
        page.wait_for_selector("#join:not([hidden])")
        page.fill("#join-name", name)
        page.click(f"#join-chairs button[data-chair='{chair}']")
        page.wait_for_selector("#table:not([hidden])")


def version(page) -> int:
    """The state version shown on the page."""
    return int(page.get_attribute("#table", "data-version") or -1)


def settle(pages) -> int:
    """Wait until all three pages show the same (newest) version; return it."""
    for _ in range(100):
        versions = {version(page) for page in pages}
        if len(versions) == 1:
            return versions.pop()
        pages[0].wait_for_timeout(50)
    raise AssertionError(f"the pages never agreed on a version: {[version(p) for p in pages]}")


def act_once(pages, bid: bool) -> None:
    """The player on turn acts by clicking: its cheapest bid when ``bid``, else Pass; in the play its first card."""
    settle(pages)
    for page in pages:
        view = page.evaluate(VIEW)
        if not view["my_turn"]:
            continue
        if view["phase"] == "auction":
            calls = page.eval_on_selector_all("#bidding-box button.call:enabled", "els => els.map(e => e.dataset.call)")
            bids = [c for c in calls if re.fullmatch(r"[1-7][CDHSN]", c)]
            choice = bids[0] if bid and bids else "P"
            page.click(f"#bidding-box button.call[data-call='{choice}']")
        else:
            card = page.eval_on_selector_all(".felt .hand button.card:enabled", "els => els.map(e => e.dataset.card)")[
                0
            ]
            page.click(f".felt .hand button.card[data-card='{card}']")
        page.wait_for_function(f"() => Number(document.getElementById('table').dataset.version) > {view['version']}")
        return
    raise AssertionError("nobody is on turn")


def test_a_claim_is_disputed_then_made_again_and_accepted(three_pages, server_url):
    """The declarer claims all the rest; the defenders see the claim and its hand; a dispute, then two accepts."""
    pages = three_pages
    seat_three_people(pages, server_url)
    act_once(pages, bid=True)  # the dealer opens, the others pass
    while pages[0].evaluate(VIEW)["phase"] == "auction":
        act_once(pages, bid=False)
    for _ in range(4):  # one trick
        act_once(pages, bid=False)
    settle(pages)
    views = [page.evaluate(VIEW) for page in pages]
    declarer_chair = views[0]["declarer_chair"]
    declarer = pages[declarer_chair]
    defenders = [page for chair, page in enumerate(pages) if chair != declarer_chair]
    assert {v["chairs"][declarer_chair]["name"] for v in views} == {["Ann", "Bob", "Cy"][declarer_chair]}
    won = views[0]["tricks"]["declarer"]

    declarer.wait_for_selector("#claim-box:not([hidden])")
    assert all(page.is_hidden("#claim-box") for page in defenders)
    declarer.select_option("#claim-tricks", "12")
    declarer.click("#claim")
    for page in defenders:
        page.wait_for_selector("#claim-pending:not([hidden])")
        assert "claims 12 of the 12 remaining tricks" in page.inner_text("#claim-text")
        assert page.locator("#claim-hand .mini-hand div").count() == 4, "the claimer's hand is shown"
        assert page.is_visible("#accept-claim") and page.is_visible("#dispute-claim")
    defenders[0].click("#dispute-claim")
    declarer.wait_for_selector("#claim-pending", state="hidden")
    assert declarer.evaluate(VIEW)["phase"] == "play"

    declarer.wait_for_selector("#claim-box:not([hidden])")
    declarer.select_option("#claim-tricks", "12")
    declarer.click("#claim")
    for page in defenders:
        page.wait_for_selector("#accept-claim:visible")
    defenders[0].click("#accept-claim")
    defenders[1].wait_for_function("() => document.getElementById('claim-text').textContent.includes('Accepted by')")
    defenders[1].click("#accept-claim")
    for page in pages:
        page.wait_for_function("() => document.getElementById('table').dataset.phase === 'done'")
        assert f"{won + 12} tricks" in page.inner_text("#result")
