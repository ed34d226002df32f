"""Helpers of the browser tests that act like a person at the web table (Playwright page in, facts out)."""

from __future__ import annotations

import re

# Trick values and doubling bonus of the classic preset (docs/rules.md), for checking the page's score.
TRICK_VALUE = {"C": 6, "D": 7, "H": 8, "S": 9, "N": 10}
SUIT_OF_SYMBOL = {"♣": "C", "♦": "D", "♥": "H", "♠": "S", "NT": "N", "N": "N"}
ACTIONABLE = """() => {
  const t = document.getElementById('table');
  return !t.hidden && (t.dataset.myTurn === 'true' || t.dataset.phase === 'done');
}"""


def start_game(page, base_url: str, bots: tuple[str, str] = ("random", "random"), scheme: str = "classic") -> None:
    """Open the lobby, choose the two bots and the scheme, start, and wait for the table."""
    page.goto(f"{base_url}/?pace=0")
    page.wait_for_selector("#lobby:not([hidden])")
    page.wait_for_selector(f"#chair-1 option[value='bot:{bots[0]}']", state="attached")
    page.select_option("#chair-1", f"bot:{bots[0]}")
    page.select_option("#chair-2", f"bot:{bots[1]}")
    page.select_option("#scheme", scheme)
    page.click("#start-game")
    page.wait_for_selector("#table:not([hidden])")
    page.wait_for_function(
        "() => document.getElementById('table').dataset.phase !== undefined"
        " && document.getElementById('table').dataset.phase !== ''"
    )


def wait_actionable(page, timeout_ms: int = 60_000) -> str:
    """Wait until it is this chair's turn or the deal is over; return the phase."""
    page.wait_for_function(ACTIONABLE, timeout=timeout_ms)
    return page.get_attribute("#table", "data-phase")


def table_version(page) -> int:
    """The state version shown on the page."""
    return int(page.get_attribute("#table", "data-version"))


def enabled_calls(page) -> list[str]:
    """The calls the bidding box lets us click."""
    return page.eval_on_selector_all("#bidding-box button.call:enabled", "els => els.map(e => e.dataset.call)")


def make_call(page, bid_once: bool) -> str:
    """Click a legal call: the cheapest bid if we have not bid yet in this deal, else Pass."""
    calls = enabled_calls(page)
    assert calls, "my turn in the auction but no call is enabled"
    bids = [c for c in calls if re.fullmatch(r"[1-7][CDHSN]", c)]
    choice = bids[0] if (bid_once and bids) else ("P" if "P" in calls else calls[0])
    before = table_version(page)
    page.click(f"#bidding-box button.call[data-call='{choice}']")
    page.wait_for_function(f"() => Number(document.getElementById('table').dataset.version) > {before}")
    return choice


def my_hand(page) -> list[str]:
    """The cards of my own hand as shown at the bottom."""
    return page.eval_on_selector_all("[data-hand='mine'] .card", "els => els.map(e => e.dataset.card)")


def playable_cards(page) -> list[str]:
    """Cards that can be clicked now (my hand, or dummy's when I declare)."""
    return page.eval_on_selector_all(".felt .hand button.card:enabled", "els => els.map(e => e.dataset.card)")


def play_card(page, card: str) -> None:
    """Click one card and wait for the new state."""
    before = table_version(page)
    page.click(f".felt .hand button.card[data-card='{card}']")
    page.wait_for_function(f"() => Number(document.getElementById('table').dataset.version) > {before}")


def next_deal(page) -> None:
    """Press "Next deal" and wait for the new deal's auction."""
    deal_no = int(page.get_attribute("#table", "data-deal-no"))
    page.click("#next-deal")
    page.wait_for_function(f"() => Number(document.getElementById('table').dataset.dealNo) > {deal_no}")


def contract_from_page(page) -> tuple[int, str, int]:
    """(level, denomination letter, doubling) of the contract shown in the status bar."""
    text = page.inner_text("#contract").strip()
    match = re.fullmatch(r"([1-7])(♣|♦|♥|♠|NT|N)(X{0,2})", text)
    assert match, f"unexpected contract text {text!r}"
    return int(match[1]), SUIT_OF_SYMBOL[match[2]], len(match[3])


def classic_scores(level: int, denom: str, doubling: int, tricks: int) -> tuple[int, int]:
    """(declarer's points, each defender's points) of a deal under the classic preset of docs/rules.md, honours off."""
    multiplier = (1, 2, 4)[doubling]
    needed = level + 6
    if tricks >= needed:
        points = (tricks - 6) * TRICK_VALUE[denom] * multiplier
        if multiplier > 1:
            points += 50 * (multiplier // 2) * (1 + tricks - needed)
        points += {12: 50, 13: 100}.get(tricks, 0)
        return points, 0
    return 0, 50 * multiplier * (needed - tricks)


def play_until_done(page, bid_once: bool = True) -> dict:
    """Play the current deal to its end by clicking; returns counts of what we clicked."""
    clicked_cards = 0
    calls = []
    saw_widow_hidden = False
    for _ in range(200):
        phase = wait_actionable(page)
        if phase == "done":
            return {"cards": clicked_cards, "calls": calls, "widow_hidden_in_auction": saw_widow_hidden}
        if phase == "auction":
            faces_elsewhere = page.locator(".felt .seat:not(.pos-bottom) .card.face").count()
            assert faces_elsewhere == 0, "another hand or the widow is face up during the auction"
            saw_widow_hidden = True
            calls.append(make_call(page, bid_once and not any(re.fullmatch(r"[1-7][CDHSN]", c) for c in calls)))
        else:
            cards = playable_cards(page)
            assert cards, "my turn to play but no card is clickable"
            play_card(page, cards[0])
            clicked_cards += 1
    raise AssertionError("the deal did not end")


def watched_page(browser, errors: list[str], **context_options):
    """A new context and page (own local storage) whose JavaScript errors are appended to ``errors``."""
    context = browser.new_context(**context_options)
    page = context.new_page()
    page.set_default_timeout(30_000)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    return context, page


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
    raise AssertionError("never reached the play")
