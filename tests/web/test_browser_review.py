"""Browser tests of the post-deal pages: the analysis against an independent solve, the review, reopening a deal."""

from __future__ import annotations

import pytest

from browser_helpers import next_deal, play_until_done, start_game

pytestmark = pytest.mark.browser

endplay_types = pytest.importorskip("endplay.types")
endplay_dds = pytest.importorskip("endplay.dds")
SEAT_INDEX = {"N": 0, "E": 1, "S": 2, "W": 3}
EP_PLAYERS = [
    endplay_types.Player.north,
    endplay_types.Player.east,
    endplay_types.Player.south,
    endplay_types.Player.west,
]
EP_STRAINS = {
    "C": endplay_types.Denom.clubs,
    "D": endplay_types.Denom.diamonds,
    "H": endplay_types.Denom.hearts,
    "S": endplay_types.Denom.spades,
    "NT": endplay_types.Denom.nt,
}


def play_a_contract(page) -> None:
    """Play deals (skipping passed-out ones) until one with a contract is over."""
    for _ in range(6):
        play_until_done(page)
        if page.locator("#contract").count():
            return
        next_deal(page)
    pytest.fail("six deals in a row were passed out")


def wait_for_analysis(page) -> dict:
    """The finished analysis of the deal on screen, once the page shows it."""
    page.wait_for_selector("[data-testid='declarer-tricks'] tbody tr", timeout=120_000)
    return page.evaluate("() => window.tribridge.view.analysis")


def independent_tricks(declarer_seat: str, hands: dict[str, str], widow_seat: str) -> dict[str, int]:
    """endplay's double-dummy tricks for ``declarer_seat`` after swapping the widow with the hand opposite it."""
    opposite = "NESW"[(SEAT_INDEX[declarer_seat] + 2) % 4]
    seated = dict(hands)
    seated[widow_seat], seated[opposite] = hands[opposite], hands[widow_seat]
    pbn = "N:" + " ".join(seated[s] for s in "NESW")
    table = endplay_dds.calc_dd_table(endplay_types.Deal(pbn))
    return {key: int(table[strain, EP_PLAYERS[SEAT_INDEX[declarer_seat]]]) for key, strain in EP_STRAINS.items()}


def test_analysis_numbers_equal_the_view_and_an_independent_solve(page, server_url):
    """Each player's row on the page = the view's declarer_tricks = endplay with the widow opposite that player."""
    start_game(page, server_url)
    play_a_contract(page)
    analysis = wait_for_analysis(page)
    entries = analysis["declarer_tricks"]
    assert sorted(e["chair"] for e in entries) == [0, 1, 2]
    hands = {e["seat"]: e["hand"] for e in entries}
    hands[analysis["widow"]["seat"]] = analysis["widow"]["hand"]
    assert sorted(hands) == ["E", "N", "S", "W"]
    for entry in entries:
        row = f"[data-testid='declarer-tricks'] tr[data-chair='{entry['chair']}']"
        shown = {key: int(page.inner_text(f"{row} td[data-strain='{key}']")) for key in EP_STRAINS}
        assert shown == entry["tricks"], f"chair {entry['chair']}: page {shown}, view {entry['tricks']}"
        assert shown == independent_tricks(entry["seat"], hands, analysis["widow"]["seat"])
    best = analysis["best_contract"]
    if best is not None:
        strain = best["contract"][1:]
        assert best["tricks"] == entries[best["declarer_chair"]]["tricks"][strain]
        assert page.inner_text("[data-testid='best-contract']").count(f"{best['tricks']} tricks") == 1
    text = page.inner_text("#analysis")
    assert "fail_" not in text and "not double-dummy tricks" in text


def test_review_steps_through_a_whole_deal_and_a_finished_deal_reopens(page, server_url):
    """ "Review the play" steps card by card to the end (buttons and arrow keys); the score sheet reopens deal 1."""
    start_game(page, server_url)
    play_a_contract(page)
    first_deal = int(page.get_attribute("#table", "data-deal-no"))
    declarer_tricks = int(page.inner_text("#tricks-declarer"))
    page.click("#review-deal")
    page.wait_for_selector("#review:not([hidden])")
    steps = int(page.get_attribute("#review", "data-steps"))
    assert steps == 52, "a played-out deal has 52 cards to step through"
    assert page.locator("#review-auction td[data-call]").count() >= 3
    page.click("#review-next")
    assert page.get_attribute("#review", "data-step") == "1"
    page.click("#review-prev")
    assert page.get_attribute("#review", "data-step") == "0"
    marked = page.locator(".rv-step.cost").count()
    for step in range(1, steps + 1):
        page.keyboard.press("ArrowRight")
        assert page.get_attribute("#review", "data-step") == str(step)
    assert page.get_attribute("#review-next", "disabled") is not None
    final = page.inner_text("[data-testid='review-dd']")
    assert f"takes {declarer_tricks} trick" in final, final
    # the marks on the page are the review's cards that cost a trick
    review = page.evaluate(
        """async (dealNo) => {
             const table = new URLSearchParams(location.search).get('table');
             const token = JSON.parse(localStorage.getItem('tribridge.tables'))[table].token;
             const r = await fetch(`/api/tables/${table}/deals/${dealNo}/review`,
                                   {headers: {Authorization: `Bearer ${token}`}});
             return await r.json();
           }""",
        first_deal,
    )
    assert marked == sum(1 for t in review["tricks"] for c in t["cards"] if c["cost"] > 0)
    page.keyboard.press("Escape")
    assert page.is_hidden("#review")

    next_deal(page)
    play_until_done(page)
    page.click(f"[data-testid='reopen-{first_deal}']")
    page.wait_for_selector("#review:not([hidden])")
    assert page.inner_text("#review-title") == f"Deal {first_deal}"
    assert page.get_attribute("#review", "data-steps") == "52"


def test_review_needs_a_finished_deal(page, server_url):
    """The review endpoint answers 404 for a deal not yet finished, to a chair and to a watcher (no token) alike
    (a watcher may review a finished deal: ``tests/webtable/test_feature_spectators.py``)."""
    start_game(page, server_url)
    statuses = page.evaluate(
        """async () => {
             const table = new URLSearchParams(location.search).get('table');
             const token = JSON.parse(localStorage.getItem('tribridge.tables'))[table].token;
             const url = `/api/tables/${table}/deals/1/review`;
             const anonymous = await fetch(url);
             const early = await fetch(url, {headers: {Authorization: `Bearer ${token}`}});
             return [anonymous.status, early.status, (await early.json()).error];
           }"""
    )
    assert statuses[0] == 404
    assert statuses[1] == 404 and "not finished" in statuses[2]
