"""Browser test of undo by consent: Ann takes back her call when Bob agrees; the table and the review say so."""

from __future__ import annotations

import time

import pytest
from webtable_helpers import VIEW, act_on_turn, create_table, open_seat, state, take_seat

pytestmark = pytest.mark.browser
RANDOM_BOT = {"kind": "bot", "bot": "random"}


def finish_by_api(base_url: str, table_id: str, tokens: list[str]) -> None:
    """Ann and Bob pass and play their first legal card until the deal is over (the bot plays itself)."""
    for _ in range(400):
        if state(base_url, table_id, tokens[0])["phase"] == "done":
            return
        try:
            act_on_turn(base_url, table_id, tokens, bid=False)
        except AssertionError:  # the bot is on turn
            time.sleep(0.05)
    raise AssertionError("the deal did not end")


def test_a_call_is_taken_back_when_the_other_player_agrees(two_pages, server_url):
    """Ann bids 1♣ and asks to undo; Bob agrees; the auction is empty again and the review lists the undo."""
    ann, bob = two_pages
    created = create_table(server_url, [{"kind": "human", "name": "Ann"}, {"kind": "human"}, RANDOM_BOT])
    tokens = [created["token"], take_seat(server_url, created["table_id"], 1, "Bob")]
    open_seat(ann, server_url, created["table_id"], tokens[0], 0)
    open_seat(bob, server_url, created["table_id"], tokens[1], 1)
    ann.click("#bidding-box button.call[data-call='1C']:enabled")
    ann.click("#undo")
    bob.wait_for_selector("#undo-agree:visible")
    assert "Ann asks to take back" in bob.inner_text("#undo-text")
    assert not ann.is_visible("#undo-agree"), "the asker does not answer"
    bob.click("#undo-agree")
    for page in (ann, bob):
        page.wait_for_function("() => window.tribridge.view.auction.length === 0")
        page.wait_for_function("() => document.getElementById('table-msg').textContent.includes('took back')")
    assert ann.evaluate(VIEW)["my_turn"]
    ann.click("#bidding-box button.call[data-call='1D']:enabled")  # a bid: the deal has a contract to review
    ann.wait_for_function("() => window.tribridge.view.auction.length === 1")  # (committed before the API acts)
    finish_by_api(server_url, created["table_id"], tokens)
    ann.wait_for_function("() => document.getElementById('table').dataset.phase === 'done'")
    ann.click("#review-deal")
    ann.wait_for_selector("[data-testid='review-undone']")
    assert "You: 1♣" in ann.inner_text("[data-testid='review-undone']")
