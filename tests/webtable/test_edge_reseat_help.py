"""Browser tests: the reseating told after the auction, one seat label in the analysis, help as an overlay, the phone."""

from __future__ import annotations

import pytest
from webtable_helpers import VIEW, create_table, open_seat

from browser_helpers import (
    ACTIONABLE,
    make_call,
    next_deal,
    play_card,
    play_to_my_first_card,
    play_until_done,
    playable_cards,
)

pytestmark = pytest.mark.browser
RANDOM_BOTS = [{"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
# Every hand has a suit of eight or more cards: whichever is the widow, the dummy shows one.
LONG_SUIT_DEAL = "N:AKQJT987.32.32.2 65.AKQJT987.54.3 43.65.AKQJT987.4 2.4.6.AKQJT98765"
# (row, the suit's symbol shown somewhere in it uncovered, every card's rank uncovered) of each dummy suit row.
DUMMY_ROWS_READABLE = """() => [...document.querySelectorAll("[data-hand='dummy'] .suit-row")].map((row) => {
  const seen = (el) => { const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return hit !== null && (hit === el || el.contains(hit)); };
  const symbols = [...row.querySelectorAll('.pip, .suit')].filter(seen);
  const ranks = [...row.querySelectorAll('.rank')];
  return [row.innerText, symbols.length > 0, ranks.length > 0 && ranks.every(seen)];
})"""


def test_the_reseating_is_told_and_the_analysis_has_one_label_per_seat(desk, server_url):
    """After the auction a line says where the widow's hand went; the analysis names each seat one way."""
    created = create_table(server_url, [{"kind": "human"}, *RANDOM_BOTS], seed=11)
    open_seat(desk, server_url, created["table_id"], created["token"], 0)
    play_to_my_first_card(desk)
    note = desk.inner_text("#reseat-note")
    assert "widow" in note and "dummy" in note and "opposite you" in note, note
    play_until_done(desk)
    desk.wait_for_selector("[data-testid='declarer-tricks'] tbody tr", timeout=120_000)
    view = desk.evaluate(VIEW)
    hand_titles = desk.eval_on_selector_all(".hand-cell .cell-title", "els => els.map(e => e.textContent)")
    for chair in range(3):
        row = desk.inner_text(f"[data-testid='declarer-tricks'] tr[data-chair='{chair}'] th")
        assert row in hand_titles, f"chair {chair}: {row!r} in the DD table, {hand_titles} over the hands"
        for table in ("capture", "nt-calls"):
            assert desk.inner_text(f"[data-testid='{table}'] tr[data-chair='{chair}'] th") == row, table
    assert view["phase"] == "done"


def test_help_is_an_overlay_with_the_rules(desk, server_url):
    """Help opens over the table without moving it and explains the bidding, widow, reseating, claims, schemes."""
    created = create_table(server_url, [{"kind": "human"}, *RANDOM_BOTS], seed=3)
    open_seat(desk, server_url, created["table_id"], created["token"], 0)
    before = desk.evaluate("() => document.getElementById('felt').getBoundingClientRect().toJSON()")
    desk.click("#help-toggle")
    desk.wait_for_selector("#help:not([hidden])")
    after = desk.evaluate("() => document.getElementById('felt').getBoundingClientRect().toJSON()")
    assert after == before, "opening help moved the table"
    assert desk.evaluate("() => getComputedStyle(document.getElementById('help')).position") == "fixed"
    text = desk.inner_text("#help").lower()
    for word in ("three players bid", "widow", "opposite", "claim", "classic", "tribridge"):
        assert word in text, word
    desk.click("#help-close")
    desk.wait_for_selector("#help", state="hidden")


def test_phone_dummy_shows_every_suit_symbol_and_the_panels_close(phone, server_url):
    """On a phone the dummy's long suit keeps its suit symbol and ranks readable; Auction · score has a close."""
    created = create_table(server_url, [{"kind": "human"}, *RANDOM_BOTS], deals=[LONG_SUIT_DEAL] * 20)
    open_seat(phone, server_url, created["table_id"], created["token"], 0)
    for _ in range(300):  # I only pass, so a bot declares and the dummy sits at my left or right
        phone.wait_for_function(ACTIONABLE, timeout=60_000)
        phase = phone.get_attribute("#table", "data-phase")
        if phase == "done":
            next_deal(phone)
        elif phase == "auction":
            make_call(phone, bid_once=False)
        elif phone.locator("[data-hand='dummy'] .card").count() == 0:
            play_card(phone, playable_cards(phone)[0])
        else:
            break
    rows = phone.evaluate(DUMMY_ROWS_READABLE)
    assert rows and all(symbol and ranks for _, symbol, ranks in rows), rows
    phone.click("#show-side")
    phone.wait_for_selector("#side-close:visible")
    phone.click("#side-close")
    phone.wait_for_selector("#auction-box", state="hidden")
