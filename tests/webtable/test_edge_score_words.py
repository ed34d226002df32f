"""Browser tests: the result names every bonus, the lobby and the analysis explain their words, errors in plain words."""

from __future__ import annotations

import pytest
from webtable_helpers import DESKTOP, bid_and_claim_a_grand_slam, create_table

from browser_helpers import watched_page

pytestmark = pytest.mark.browser
# Classic scheme (docs/rules.md): spades 9 a trick, grand slam 100, game bonus 125 once 30 trick points are made.
GRAND_SLAM_IN_SPADES = 7 * 9 + 100 + 125
# Records the most status lines ("in progress", "computing") the analysis box ever showed at once.
WATCH_STATUS = """() => { window.mostStatus = 0;
  const count = () => [...document.querySelectorAll('#analysis p')]
    .filter((p) => /progress|computing/i.test(p.textContent)).length;
  new MutationObserver(() => { window.mostStatus = Math.max(window.mostStatus, count()); })
    .observe(document.getElementById('analysis'), {childList: true, subtree: true}); }"""


def test_the_result_names_every_bonus_and_adds_up_to_the_total(desk, server_url):
    """A grand slam that wins a game: the result lists trick points, the slam and the game bonus; the sum is the total."""
    bid_and_claim_a_grand_slam(desk, server_url)
    text = desk.inner_text("#result-box").lower()
    assert "grand slam" in text and "game bonus" in text, text
    change = int(desk.inner_text("[data-testid='deal-change-0']"))
    assert change == int(desk.inner_text("[data-testid='total-0']")) == GRAND_SLAM_IN_SPADES


def test_the_analysis_explains_its_words_with_one_status_line(desk, server_url):
    """After the deal the research words have explanations; at most one status line shows at a time; Back closes review."""
    bid_and_claim_a_grand_slam(desk, server_url, WATCH_STATUS)
    desk.wait_for_selector("[data-testid='declarer-tricks'] tbody tr", timeout=120_000)
    terms = desk.eval_on_selector_all("#analysis .glossary dt", "els => els.map(e => e.textContent.toLowerCase())")
    for word in ("double dummy", "best contract", "capture count", "no-trump call rule"):
        assert any(word in term for term in terms), (word, terms)
    assert all(desk.eval_on_selector_all("#analysis .glossary dd", "els => els.map(e => e.textContent.length > 20)"))
    assert desk.evaluate("() => window.mostStatus") <= 1
    desk.click("#review-deal")
    desk.wait_for_selector("#review:not([hidden])")
    desk.go_back()
    desk.wait_for_selector("#review", state="hidden")
    assert desk.is_visible("#table") and "table=" in desk.url


def test_the_lobby_explains_every_bot_and_scheme(desk, server_url):
    """Every bot of the server and both scoring schemes have their own description in the lobby."""
    desk.goto(f"{server_url}/?pace=0")
    desk.wait_for_selector("#chair-1 option[value='bot:random']", state="attached")
    bots = desk.eval_on_selector_all("#chair-1 option", "els => els.map(e => e.value)")
    assert "bot:pimc-model" in bots
    for value in bots:
        desk.select_option("#chair-1", value)
        text = desk.inner_text("#chair-1-desc")
        assert len(text) > 20 and "A bot of this server" not in text, (value, text)
    described = desk.eval_on_selector_all("#bot-list dd", "els => els.map(e => e.textContent)")
    assert len(described) == len(bots) - 1 and not any("A bot of this server" in d for d in described)
    schemes = {}
    for scheme in ("classic", "tribridge"):
        desk.select_option("#scheme", scheme)
        schemes[scheme] = desk.inner_text("#scheme-desc")
    assert all(len(t) > 20 for t in schemes.values()) and schemes["classic"] != schemes["tribridge"], schemes


def test_a_chair_taken_meanwhile_is_told_in_plain_words(browser, server_url):
    """Two people open a link; the second to press the same chair reads the chair as the page numbers it."""
    errors: list[str] = []
    made = [watched_page(browser, errors, viewport=DESKTOP) for _ in range(2)]
    first, second = (page for _, page in made)
    created = create_table(server_url, [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}])
    for page in (first, second):
        page.goto(f"{server_url}/?table={created['table_id']}&pace=0")
        page.wait_for_selector("#join-chairs button[data-chair='1']:enabled")
    first.click("#join-chairs button[data-chair='1']")
    first.wait_for_selector("#table:not([hidden])")
    second.click("#join-chairs button[data-chair='1']")
    second.wait_for_function("() => document.getElementById('join-error').textContent.length > 0")
    message = second.inner_text("#join-error")
    assert "chair 1" not in message.lower() and "chair 2" in message.lower(), message
    for context, _ in made:
        context.close()
    assert not errors, errors
