"""Browser tests at phone size (390×844, touch): one screen during the play, 13 cards in one row, short messages."""

from __future__ import annotations

import pytest

from browser_helpers import ACTIONABLE, make_call, next_deal, play_card, playable_cards, start_game, watched_page

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


def play_to_my_first_card(page) -> None:
    """Call (one cheap bid, then passes) until the play reaches my first card, skipping passed-out deals."""
    bid = False
    for _ in range(300):
        page.wait_for_function(ACTIONABLE, timeout=60_000)
        phase = page.get_attribute("#table", "data-phase")
        if phase == "done":
            next_deal(page)
            bid = False
        elif phase == "auction":
            choice = make_call(page, bid_once=not bid)
            bid = bid or choice != "P"
        else:
            return
    pytest.fail("never reached the play")


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
    cards = playable_cards(phone)
    held = set(phone.eval_on_selector_all("[data-hand='mine'] .card", "els => els.map(e => e.dataset.card)"))
    suit = cards[0][0]
    rank = next(r for r in "AKQJT98765432" if suit + r not in held)
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
