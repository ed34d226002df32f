"""Spectators: a watch link shows no hidden hand until the deal is over, a player may share their view, players see a count."""

from __future__ import annotations

import pytest
from webtable_helpers import api, bid_and_claim_a_grand_slam, open_seat, two_people

FACES = "() => document.querySelectorAll('.felt .card.face').length"


def test_the_watch_view_holds_no_hidden_card(server_url):
    """During the auction a spectator's view has no hand, no legal calls and no card of anyone."""
    table_id, _ann, _bob = two_people(server_url)
    view = api(server_url, "GET", f"/api/tables/{table_id}/watch")
    assert view["spectator"] and view["hand"] == [] and view["legal_calls"] == [] and not view["my_turn"]
    assert "talk" not in view and view["widow"] is None
    followed = api(server_url, "GET", f"/api/tables/{table_id}/watch?chair=0")
    assert followed["hand"] == [] and followed["watching_chair"] is None, "chair 0 did not allow it"


@pytest.mark.browser
def test_a_spectator_watches_and_a_player_shares_a_view(two_pages, server_url):
    """Cy watches by the link: no face card in the auction; Ann sees one watcher; Ann shares and Cy sees her hand."""
    ann, cy = two_pages
    table_id, ann_token, _bob = two_people(server_url)
    open_seat(ann, server_url, table_id, ann_token, 0)
    cy.goto(f"{server_url}/?table={table_id}&watch&pace=0")
    cy.wait_for_function("() => window.tribridge.view && window.tribridge.view.spectator === true")
    assert cy.evaluate(FACES) == 0 and cy.is_visible("#watching-note")
    assert cy.locator("#bidding-box button.call:enabled").count() == 0
    ann.wait_for_function("() => document.getElementById('watchers').textContent.includes('1 watching')")
    ann.check("#share-view")
    ann.wait_for_function("() => (window.tribridge.view.shown_to_watchers || []).includes(0)")
    cy.goto(f"{server_url}/?table={table_id}&watch&chair=0&pace=0")
    cy.wait_for_function("() => document.querySelectorAll('.felt .card.face').length === 13")
    assert "Ann" in cy.inner_text("#watching-note")


@pytest.mark.browser
def test_a_spectator_opens_the_review_of_a_finished_deal(pages, server_url):
    """Ann bids 7♠ and claims; Cy, watching by the link, opens the review the result box offers (no 403)."""
    ann, cy, _ = pages
    created = bid_and_claim_a_grand_slam(ann, server_url)
    cy.goto(f"{server_url}/?table={created['table_id']}&watch&pace=0")
    cy.wait_for_function("() => document.getElementById('table').dataset.phase === 'done'")
    cy.click("#review-deal")
    cy.wait_for_selector("#review:not([hidden])")
    assert cy.locator("#review-auction td[data-call='7S']").count() == 1
    assert not cy.locator(".error:visible, #message:visible").filter(has_text="seat token").count()
