"""Browser tests: a double click registers once and shows no conflict; names cut by code points; friends and a full table."""

from __future__ import annotations

import pytest
from webtable_helpers import VIEW, create_table, open_seat, take_seat

from browser_helpers import ACTIONABLE, playable_cards

pytestmark = pytest.mark.browser
RANDOM_BOTS = [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
NO_CONFLICT = "() => !/stale|version|409/i.test(document.getElementById('table-msg').dataset.last || '')"


def test_a_double_click_acts_once_and_shows_no_conflict(pages, server_url):
    """Double-clicking a bid, then a card, makes one action each and never shows the 409 of the second click."""
    page = pages[0]
    created = create_table(server_url, [{"kind": "human"}, *RANDOM_BOTS], seed=7)
    open_seat(page, server_url, created["table_id"], created["token"], 0)
    page.wait_for_function(ACTIONABLE)
    page.dblclick("#bidding-box button.call[data-call='1C']")
    page.wait_for_timeout(600)
    assert page.evaluate(NO_CONFLICT), page.get_attribute("#table-msg", "data-last")
    my_calls = [c for c in page.evaluate(VIEW)["auction"] if c["chair"] == 0]
    assert my_calls[0]["call"] == "1C"
    for _ in range(100):
        page.wait_for_function(ACTIONABLE, timeout=60_000)
        view = page.evaluate(VIEW)
        if view["phase"] != "auction":
            break
        page.click("#bidding-box button.call[data-call='P']")
        page.wait_for_function(f"() => window.tribridge.view.version > {view['version']}")
    if page.evaluate(VIEW)["phase"] == "play":
        card = playable_cards(page)[0]
        page.dblclick(f".felt .hand button.card[data-card='{card}']")
        page.wait_for_timeout(600)
        assert page.evaluate(NO_CONFLICT), page.get_attribute("#table-msg", "data-last")


def test_names_are_counted_by_code_points_and_long_names_do_not_stretch_the_auction(pages, server_url):
    """The name field holds 40 characters; a 41-character name gets a message saying so (it is not cut without a
    word); one ending in an emoji keeps the whole emoji; a 40-letter name fits the auction header."""
    page = pages[0]
    page.goto(f"{server_url}/?pace=0")
    page.wait_for_selector("#chair-1 option[value='bot:random']", state="attached")
    assert page.get_attribute("#player-name", "maxlength") == "40"
    page.fill("#player-name", "a" * 41)
    assert page.input_value("#player-name") == "a" * 40  # typing stops at 40
    long = "a" * 39 + "😀" + "b"  # 41 characters, as a name kept from before may be
    page.evaluate("(name) => { document.getElementById('player-name').value = name; }", long)
    page.select_option("#chair-1", "bot:random")
    page.select_option("#chair-2", "bot:random")
    page.click("#start-game")
    page.wait_for_function("() => document.getElementById('lobby-error').textContent.includes('41 characters')")
    assert "at most 40" in page.inner_text("#lobby-error") and page.is_visible("#lobby")
    page.fill("#player-name", "a" * 38 + "😀")
    page.click("#start-game")
    page.wait_for_selector("#table:not([hidden])")
    page.wait_for_function("() => window.tribridge.view")
    assert page.evaluate(VIEW)["chairs"][0]["name"] == "a" * 38 + "😀"

    created = create_table(server_url, [{"kind": "human"}, {"kind": "human"}, RANDOM_BOTS[0]])
    take_seat(server_url, created["table_id"], 1, "W" * 40)
    other = pages[1]
    open_seat(other, server_url, created["table_id"], created["token"], 0)
    widths = other.evaluate(
        "() => [document.getElementById('auction-table').getBoundingClientRect().width,"
        " document.getElementById('auction-box').clientWidth]"
    )
    assert widths[0] <= widths[1], f"the auction table is {widths[0]} px wide in a box of {widths[1]} px"


def test_a_friend_not_yet_joined_and_a_full_table(pages, server_url):
    """The inviter reads that the friend has not joined yet; a third person finds the table full and can watch."""
    ann, bob, cy = pages
    ann.goto(f"{server_url}/?pace=0")
    ann.wait_for_selector("#chair-1 option[value='friend']", state="attached")
    ann.fill("#player-name", "Ann")
    ann.select_option("#chair-1", "friend")
    ann.select_option("#chair-2", "bot:random")
    ann.click("#start-game")
    ann.wait_for_selector("#invite:not([hidden])")
    assert "not joined yet" in ann.inner_text("#invite")
    assert "Open chair" not in ann.inner_text("#table")
    link = ann.input_value("#invite-link")
    bob.goto(link)
    bob.wait_for_selector("#join:not([hidden])")
    bob.fill("#join-name", "Bob")
    bob.click("#join-chairs button[data-chair='1']")
    bob.wait_for_selector("#table:not([hidden])")
    ann.wait_for_selector("#invite", state="hidden")
    cy.goto(link)
    cy.wait_for_selector("#join:not([hidden])")
    cy.wait_for_function("() => /table is full/i.test(document.getElementById('join').innerText)")
    cy.click("#watch-table")
    cy.wait_for_selector("#table:not([hidden])")
    cy.wait_for_function("() => window.tribridge.view && window.tribridge.view.spectator === true")
