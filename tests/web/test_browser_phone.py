"""Browser tests at phone size (390×844, touch): one screen during the play, 13 cards in one row, short messages."""

from __future__ import annotations

import pytest

from browser_helpers import (
    ACTIONABLE,
    make_call,
    next_deal,
    play_card,
    play_to_my_first_card,
    playable_cards,
    start_game,
    wait_actionable,
    watched_page,
)

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
# Every visible element of the table whose box ends below the viewport or past its right edge.
OUTSIDE = """() => {
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('[hidden]') || !el.getClientRects().length) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.display === 'none') continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5) out.push(`${el.tagName}#${el.id}.${el.className} ${Math.round(r.bottom)}`);
  }
  return out;
}"""


@pytest.fixture()
def phone(browser):
    """A phone-sized touch page that fails the test on any JavaScript error."""
    errors: list[str] = []
    context, page = watched_page(browser, errors, viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def card_rows(page) -> list[int]:
    """The distinct top edges (px) of the cards of my hand: one value means one row."""
    tops = page.eval_on_selector_all("[data-hand='mine'] .card", "els => els.map(e => Math.round(e.offsetTop))")
    return sorted(set(tops))


def test_phone_play_fits_one_screen_with_one_row_of_cards(phone, server_url):
    """During the play nothing is below the fold or off to the side, and a full hand is one overlapped row."""
    start_game(phone, server_url)
    play_to_my_first_card(phone)
    assert phone.locator("[data-hand='mine'] .card").count() == 13
    assert len(card_rows(phone)) == 1, "a card of the 13 wraps onto a second row"
    assert phone.evaluate(OUTSIDE) == []
    assert phone.evaluate("() => document.documentElement.scrollHeight") <= PHONE["height"]
    # the auction and the score sheet open on demand, over the table
    phone.click("#show-side")
    assert phone.is_visible("#auction-box")
    phone.click("#show-side")
    assert phone.is_hidden("#auction-box")
    # a message appears next to the hand, on screen, and goes with the next change of the table
    cards = playable_cards(phone)  # mine, or the dummy's when I declare and the dummy is on turn
    suit = cards[0][0]
    rank = next(r for r in "AKQJT98765432" if suit + r not in cards)  # a card of that suit I cannot play now
    phone.keyboard.press(suit.lower())
    phone.keyboard.press(rank.lower())
    message = phone.locator("#table-msg")
    # the message may already have gone (a change of the table clears it): its last text is kept
    phone.wait_for_function(
        "() => (document.getElementById('table-msg').dataset.last || '').includes('cannot be played')"
    )
    box = message.bounding_box()
    assert box is not None and box["y"] + box["height"] <= PHONE["height"]
    play_card(phone, cards[0])
    phone.wait_for_function("() => document.getElementById('table-msg').textContent === ''", timeout=2_000)


# The dummy's suit rows whose last card ends past the right edge of the dummy's seat box (px past it).
ROWS_PAST_THEIR_SEAT = """() => [...document.querySelectorAll("[data-hand='dummy'] .suit-row")]
  .map(row => row.lastElementChild.getBoundingClientRect().right - row.closest('.seat').getBoundingClientRect().right)
  .filter(past => past > 0.5)"""
# Every hand has a suit of eight or more cards: whichever is the widow, the dummy shows one.
LONG_SUIT_DEAL = "N:AKQJT987.32.32.2 65.AKQJT987.54.3 43.65.AKQJT987.4 2.4.6.AKQJT98765"


def open_table_with_deal(page, base_url: str, pbn: str) -> None:
    """Create a table on ``pbn`` through the API (me against two random bots), remember my chair, and open it."""
    page.goto(f"{base_url}/?pace=0")
    created = page.evaluate(
        """async (pbn) => {
          const chairs = [{kind: "human"}, {kind: "bot", bot: "random"}, {kind: "bot", bot: "random"}];
          const r = await fetch("/api/tables", {method: "POST", headers: {"Content-Type": "application/json"},
            body: JSON.stringify({chairs, scheme: "classic", deals: Array(20).fill(pbn), take: 0})});
          return r.json();
        }""",
        pbn,
    )
    assert created.get("token"), created
    page.evaluate(
        """(t) => localStorage.setItem("tribridge.tables",
             JSON.stringify({[t.table_id]: {token: t.token, chair: t.chair, at: Date.now()}}))""",
        created,
    )
    page.goto(f"{base_url}/?table={created['table_id']}&pace=0")
    page.wait_for_selector("#table:not([hidden])")


def test_phone_dummy_with_a_long_suit_stays_on_screen(phone, server_url):
    """A dummy's long suit at the side overlaps more instead of pushing the page wider (zooming the table out)."""
    open_table_with_deal(phone, server_url, LONG_SUIT_DEAL)
    for _ in range(300):  # I only pass, so a bot declares and the dummy sits at my left or right
        phase = wait_actionable(phone)
        if phase == "done":
            next_deal(phone)
        elif phase == "auction":
            make_call(phone, bid_once=False)
        elif phone.locator("[data-hand='dummy'] .card").count() == 0:  # my opening lead: the dummy shows after it
            play_card(phone, playable_cards(phone)[0])
        else:
            break
    assert phone.locator(".pos-left [data-hand='dummy'], .pos-right [data-hand='dummy']").count() == 1
    row_lengths = phone.eval_on_selector_all(
        "[data-hand='dummy'] .suit-row", "rows => rows.map(r => r.children.length)"
    )
    assert max(row_lengths) >= 7  # eight or more dealt; the dummy may have played one of them
    assert phone.evaluate(ROWS_PAST_THEIR_SEAT) == [], "a suit row of the dummy sticks out of its seat"
    assert phone.evaluate("() => innerWidth") == PHONE["width"], "the page grew wider than the phone"
    assert phone.evaluate(OUTSIDE) == []
    assert phone.evaluate("() => document.documentElement.scrollHeight") <= PHONE["height"]


def test_phone_next_deal_has_no_keyboard_hint(phone, server_url):
    """On a touch screen the button says "Next deal", without "(Enter)", and the score sheet fits the width."""
    start_game(phone, server_url)
    for _ in range(300):
        phone.wait_for_function(ACTIONABLE, timeout=60_000)
        phase = phone.get_attribute("#table", "data-phase")
        if phase == "done":
            break
        if phase == "auction":
            make_call(phone, bid_once=False)
        else:
            play_card(phone, playable_cards(phone)[0])
    assert phone.inner_text("#next-deal").strip() == "Next deal"
    width = phone.evaluate("() => document.querySelector('#score-sheet table').getBoundingClientRect().right")
    assert width <= PHONE["width"]
    rows = phone.eval_on_selector_all(
        "#score-sheet tbody td.contract", "els => els.map(e => e.getClientRects().length)"
    )
    assert all(n == 1 for n in rows), "a contract on the score sheet wraps"
