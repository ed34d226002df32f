"""Browser tests of the result box: every part of the running total's change named, which total it is (the score
sheet's), and the doubling bonus named as the lobby names it (docs/rules.md: "doubling bonus 50 + 50 per
overtrick")."""

from __future__ import annotations

import pytest
from webtable_helpers import bid_and_claim_a_grand_slam

from browser_helpers import next_deal, play_until_done

pytestmark = pytest.mark.browser
INSULT = "doubling bonus (doubled and made: the insult)"


def numbers(page, testid: str) -> list[int]:
    """The three chairs' numbers of a row of the page."""
    return [int(page.inner_text(f"[data-testid='{testid}-{chair}']")) for chair in range(3)]


def test_the_result_box_names_each_part_and_its_total(desk, server_url):
    """7♠ claimed (a game): the box shows the deal's score, the game bonus, their sum as the change and the running
    total equal to the score sheet's Total; after the next deal (passed by me) the running total is still the
    sheet's Total, the change only what that deal added."""
    created = bid_and_claim_a_grand_slam(desk, server_url)
    desk.wait_for_selector("#result-box:not([hidden])")
    text = desk.inner_text("#result-box")
    assert "game bonus" in text.lower() and "Running total" in text, text
    deal, game, change, total = (
        numbers(desk, t) for t in ("deal-score", "deal-game_bonus", "deal-change", "deal-total")
    )
    assert [d + g for d, g in zip(deal, game)] == change and game[0] == 125
    assert total == numbers(desk, "total")
    next_deal(desk)
    play_until_done(desk, bid_once=False)
    second = numbers(desk, "deal-total")
    assert second == numbers(desk, "total") and second != [0, 0, 0], created
    assert [a + c for a, c in zip(total, numbers(desk, "deal-change"))] == second


def test_the_doubling_bonus_is_named_as_the_lobby_names_it(desk, server_url):
    """The lobby's classic scheme says the doubling bonus with the rules' numbers (50 + 50 per overtrick); the result
    box of a doubled contract made names its part in the same words."""
    desk.goto(f"{server_url}/?pace=0")
    desk.wait_for_selector("#scheme option[value='classic']", state="attached")
    desk.select_option("#scheme", "classic")
    lobby = desk.inner_text("#scheme-desc")
    assert f"{INSULT} 50 + 50 an overtrick" in lobby, lobby
    box = desk.evaluate(
        """async () => {
             const { renderDealScores } = await import('./panels.js');
             const table = document.createElement('table');
             renderDealScores(table, {deal_no: 1, chairs: [{}, {}, {}], my_chair: 0,
               scores: {per_chair: [136, 0, 0], breakdown: {contract_tricks: 24, overtricks: 12, double_bonus: 100}}});
             return table.textContent; }"""
    )
    assert f"{INSULT} 100" in box, box
