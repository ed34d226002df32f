"""Browser tests of a table of three people: only the defenders answer a claim, a dispute is named, Next deal waits."""

from __future__ import annotations

import pytest
from webtable_helpers import VIEW, act_on_turn, api, open_seat, pages_for, state, three_people, wait_version

pytestmark = pytest.mark.browser
NAMES = ["Ann", "Bob", "Cy"]


@pytest.fixture()
def people(browser, server_url):
    """Ann, Bob and Cy at one table, each in a browser of their own, the auction over and the opening lead made."""
    errors: list[str] = []
    contexts, pages = pages_for(browser, errors, 3)
    table_id, tokens = three_people(server_url)
    act_on_turn(server_url, table_id, tokens, bid=True)
    while state(server_url, table_id, tokens[0])["phase"] == "auction":
        act_on_turn(server_url, table_id, tokens, bid=False)
    view = act_on_turn(server_url, table_id, tokens, bid=False)  # the opening lead
    for chair, page in enumerate(pages):
        open_seat(page, server_url, table_id, tokens[chair], chair)
        wait_version(page, view["version"])
    yield table_id, tokens, pages
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors on the pages: {errors}"


def claim_all(page) -> None:
    """The declarer claims every remaining trick from the page."""
    page.wait_for_selector("#claim-box:not([hidden])")
    page.select_option("#claim-tricks", index=0)
    page.click("#claim")


def test_only_defenders_answer_a_claim_and_a_dispute_is_named(people, server_url):
    """The claimer sees no Accept or Dispute; when a defender disputes, every page says who did."""
    _table_id, _tokens, pages = people
    declarer_chair = pages[0].evaluate(VIEW)["declarer_chair"]
    declarer = pages[declarer_chair]
    defenders = [chair for chair in range(3) if chair != declarer_chair]
    claim_all(declarer)
    for chair in defenders:
        pages[chair].wait_for_selector("#accept-claim:visible")
    declarer.wait_for_selector("#claim-pending:not([hidden])")
    assert not declarer.is_visible("#accept-claim") and not declarer.is_visible("#dispute-claim")
    pages[defenders[0]].click("#dispute-claim")
    disputer = NAMES[defenders[0]]
    for chair, page in enumerate(pages):
        expected = "You disputed the claim" if chair == defenders[0] else f"{disputer} disputed the claim"
        page.wait_for_function(
            "(text) => document.getElementById('table-msg').textContent.includes(text)", arg=expected
        )


def test_next_deal_waits_for_every_person(people, server_url):
    """One player's Next deal does not move the others on: the page shows who is ready; all three press it."""
    table_id, tokens, pages = people
    declarer_chair = pages[0].evaluate(VIEW)["declarer_chair"]
    left = state(server_url, table_id, tokens[0])
    tricks_left = 13 - left["tricks"]["declarer"] - left["tricks"]["defenders"]
    api(
        server_url,
        "POST",
        f"/api/tables/{table_id}/actions",
        {"type": "claim", "tricks": tricks_left},
        tokens[declarer_chair],
    )
    for chair in range(3):
        if chair != declarer_chair:
            api(server_url, "POST", f"/api/tables/{table_id}/actions", {"type": "accept_claim"}, tokens[chair])
    for page in pages:
        page.wait_for_function("() => document.getElementById('table').dataset.phase === 'done'")
    pages[0].click("#next-deal")
    pages[1].wait_for_function("() => document.getElementById('next-ready').textContent.includes('Ann')")
    assert "waiting for Bob, Cy" in pages[0].inner_text("#next-ready")
    assert all(page.evaluate(VIEW)["deal_no"] == 1 for page in pages), "one press moved the table on"
    pages[1].click("#next-deal")
    pages[2].wait_for_function("() => document.getElementById('next-ready').textContent.includes('Bob')")
    assert pages[2].evaluate(VIEW)["deal_no"] == 1
    pages[2].click("#next-deal")
    for page in pages:
        page.wait_for_function("() => Number(document.getElementById('table').dataset.dealNo) === 2")
