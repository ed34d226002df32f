"""Browser tests of the web table: Playwright drives Debian's chromium against the real server on a free port."""

from __future__ import annotations

import json
import re

import pytest

from browser_helpers import (
    classic_scores,
    contract_from_page,
    make_call,
    my_hand,
    next_deal,
    play_card,
    play_until_done,
    playable_cards,
    start_game,
    table_version,
    wait_actionable,
)

pytestmark = pytest.mark.browser


# ---------------------------------------------------------------- the tests


def test_full_game_against_two_bots(page, server_url):
    """Lobby → two bots → legal calls → all 13 tricks by clicking → the page shows the result and the score."""
    start_game(page, server_url)
    for _ in range(6):  # passed-out deals are skipped with "Next deal"
        summary = play_until_done(page)
        if page.locator("#contract").count():
            break
        assert "pass" in page.inner_text("#result").lower()
        next_deal(page)
    else:
        pytest.fail("six deals in a row were passed out")

    assert summary["widow_hidden_in_auction"]
    assert summary["cards"] >= 13, "a player of the contract clicks at least one card per trick"
    declarer_tricks = int(page.inner_text("#tricks-declarer"))
    defender_tricks = int(page.inner_text("#tricks-defenders"))
    assert declarer_tricks + defender_tricks == 13
    assert page.locator(".felt .hand .card.face").count() == 0, "no card is left in the hands"

    # The result line and this deal's score under the classic scheme, recomputed from docs/rules.md.
    level, denom, doubling = contract_from_page(page)
    assert str(declarer_tricks) in page.inner_text("#result")
    declarer_points, defender_points = classic_scores(level, denom, doubling, declarer_tricks)
    view = page.evaluate("() => window.tribridge.view")
    declarer_chair = view["declarer_chair"]
    shown = [int(page.inner_text(f"[data-testid='deal-score-{chair}']")) for chair in range(3)]
    for chair in range(3):
        expected = declarer_points if chair == declarer_chair else defender_points
        assert shown[chair] == expected, f"chair {chair}: page shows {shown[chair]}, classic rules give {expected}"
    # The running score sheet has the deal and totals that add up.
    totals = [int(page.inner_text(f"[data-testid='total-{chair}']")) for chair in range(3)]
    assert sum(totals) >= sum(shown) > 0

    # The analysis panel follows (computed on the server after the deal): one row per player, best contract.
    page.wait_for_selector("#analysis-box:not([hidden])", timeout=60_000)
    try:
        page.wait_for_selector("[data-testid='declarer-tricks'] tbody tr", timeout=120_000)
    except Exception:
        pytest.fail(f"no double-dummy table; analysis was {page.evaluate('() => window.tribridge.view.analysis')}")
    assert page.locator("[data-testid='declarer-tricks'] tbody tr").count() == 3
    dd_cells = page.eval_on_selector_all(
        "[data-testid='declarer-tricks'] tbody td", "els => els.map(e => e.textContent)"
    )
    assert all(cell.isdigit() and 0 <= int(cell) <= 13 for cell in dd_cells), dd_cells
    assert page.locator("[data-testid='best-contract']").count() == 1


def test_reload_mid_deal_returns_to_same_seat_and_state(page, server_url):
    """Reloading the page in the middle of the play shows the same chair, hand, auction and trick."""
    start_game(page, server_url)
    for _ in range(6):
        phase = wait_actionable(page)
        if phase == "play":
            break
        if phase == "done":
            next_deal(page)
            continue
        calls = page.locator("#auction-table td[data-call]").all_inner_texts()
        make_call(page, bid_once=not any(re.search(r"[1-7]", c) for c in calls))
    # Play one card with the keyboard (suit letter, then rank), then wait for our next turn
    # (the state cannot change while it is our turn).
    cards = playable_cards(page)
    assert cards, "expected to be on turn in the play"
    before = table_version(page)
    page.keyboard.press(cards[0][0].lower())
    page.keyboard.press(cards[0][1].lower())
    page.wait_for_function(f"() => Number(document.getElementById('table').dataset.version) > {before}")
    in_hands = page.eval_on_selector_all(".felt .hand .card.face", "els => els.map(e => e.dataset.card)")
    assert cards[0] not in in_hands, "the card typed on the keyboard was played"
    assert wait_actionable(page) in ("play", "done")

    def snapshot() -> dict:
        return {
            "url": page.url,
            "version": table_version(page),
            "deal": page.get_attribute("#table", "data-deal-no"),
            "seat": page.get_attribute("#table", "data-my-seat"),
            "hand": my_hand(page),
            "playable": playable_cards(page),
            "auction": page.locator("#auction-table td[data-call]").all_inner_texts(),
            "contract": page.inner_text("#contract-info"),
            "tricks": page.inner_text("#tricks-info"),
            "trick": page.eval_on_selector_all("#trick .card", "els => els.map(e => e.dataset.card)"),
        }

    before = snapshot()
    assert before["hand"], "mid-deal: my hand is not empty"
    stored = page.evaluate("() => localStorage.getItem('tribridge.tables')")
    assert stored and json.loads(stored), "the seat token is kept in local storage"
    page.reload()
    page.wait_for_selector("#table:not([hidden])")
    page.wait_for_function(f"() => Number(document.getElementById('table').dataset.version) >= {before['version']}")
    after = snapshot()
    assert after == before


def test_illegal_card_cannot_be_played(page, server_url):
    """When we must follow suit, other cards are disabled; forcing a click or the keys or the API plays nothing."""
    start_game(page, server_url)
    for _ in range(400):
        phase = wait_actionable(page)
        if phase == "done":
            next_deal(page)
            continue
        if phase == "auction":
            calls = page.locator("#auction-table td[data-call]").all_inner_texts()
            make_call(page, bid_once=not any(re.search(r"[1-7]", c) for c in calls))
            continue
        hand = my_hand(page)
        playable = set(playable_cards(page))
        illegal = [card for card in hand if card not in playable]
        if not illegal or not (set(hand) & playable):
            play_card(page, sorted(playable)[0])
            continue
        card = illegal[0]
        locator = page.locator(f"[data-hand='mine'] button.card[data-card='{card}']")
        assert locator.is_disabled()
        version = table_version(page)
        trick_before = page.eval_on_selector_all("#trick .card", "els => els.map(e => e.dataset.card)")
        locator.click(force=True)
        page.keyboard.press(card[0].lower())
        page.keyboard.press(card[1].lower())
        page.wait_for_function("() => document.getElementById('table-msg').textContent.length > 0")
        # The server refuses it too, with 400 and a reason.
        status, body = page.evaluate(
            """async (card) => {
                 const table = new URLSearchParams(location.search).get('table');
                 const token = JSON.parse(localStorage.getItem('tribridge.tables'))[table].token;
                 const r = await fetch(`/api/tables/${table}/actions`, {method: 'POST',
                   headers: {'Content-Type': 'application/json', Authorization: `Bearer ${token}`},
                   body: JSON.stringify({type: 'play', card})});
                 return [r.status, await r.json()];
               }""",
            card,
        )
        assert status == 400 and body.get("error")
        page.wait_for_timeout(300)
        assert table_version(page) == version
        assert card in my_hand(page)
        assert page.eval_on_selector_all("#trick .card", "els => els.map(e => e.dataset.card)") == trick_before
        return
    pytest.fail("never had to follow suit while holding other suits")


def test_friend_takes_a_chair_from_the_shared_link(page, browser, server_url):
    """A table with a friend's chair shows a link; a second browser opens it, takes the chair and sees the deal."""
    page.goto(f"{server_url}/?pace=0")
    page.wait_for_selector("#chair-1 option[value='friend']", state="attached")
    page.select_option("#chair-1", "friend")
    page.select_option("#chair-2", "bot:random")
    page.click("#start-game")
    page.wait_for_selector("#invite:not([hidden])")
    link = page.input_value("#invite-link")
    assert "table=" in link

    friend_context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        friend = friend_context.new_page()
        friend.set_default_timeout(30_000)
        friend.goto(link)
        friend.wait_for_selector("#join:not([hidden])")
        assert friend.locator("#join-chairs button[data-chair='0']").is_disabled(), "chair 1 is taken by the host"
        assert friend.locator("#join-chairs button[data-chair='2']").is_disabled(), "chair 3 is a bot"
        friend.click("#join-chairs button[data-chair='1']")
        friend.wait_for_selector("#table:not([hidden])")
        # dataset.version is undefined until the first view is drawn, then a number
        friend.wait_for_function("() => (document.getElementById('table').dataset.version || '') !== ''")
        # Both see the same deal from different seats, each with a hand of 13 cards and no other face.
        page.wait_for_selector("#invite[hidden]", state="attached")
        assert friend.get_attribute("#table", "data-deal-no") == page.get_attribute("#table", "data-deal-no")
        assert friend.get_attribute("#table", "data-my-seat") != page.get_attribute("#table", "data-my-seat")
        host_hand, friend_hand = my_hand(page), my_hand(friend)
        assert len(host_hand) == len(friend_hand) == 13
        assert not set(host_hand) & set(friend_hand)
        assert friend.locator(".pos-bottom .who").inner_text() == "You"
        # Readable at phone width: nothing sticks out sideways.
        assert friend.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
        # Whoever of the two is on turn calls; the other page gets the new state pushed (no reload).
        for _ in range(600):
            if page.get_attribute("#table", "data-my-turn") == "true":
                actor, watcher = page, friend
                break
            if friend.get_attribute("#table", "data-my-turn") == "true":
                actor, watcher = friend, page
                break
            page.wait_for_timeout(100)
        else:
            pytest.fail("neither human chair got a turn in the auction")
        version = table_version(actor)
        make_call(actor, bid_once=False)
        watcher.wait_for_function(f"() => Number(document.getElementById('table').dataset.version) > {version}")
        assert watcher.locator("#auction-table td[data-call]").count() >= 1
    finally:
        friend_context.close()


def test_polling_keeps_the_table_going_without_websocket(page, server_url):
    """With no WebSocket in the browser the page polls, and the bots' calls still appear."""
    page.add_init_script("delete window.WebSocket;")
    start_game(page, server_url)
    page.wait_for_function("() => document.getElementById('conn').textContent.includes('polling')")
    actions = 0
    while actions < 2:
        phase = wait_actionable(page)
        if phase == "done":
            next_deal(page)
        elif phase == "auction":
            make_call(page, bid_once=False)
        else:
            play_card(page, playable_cards(page)[0])
        actions += 1
    # Our turn came back (or the deal ended) after the bots acted: polled, not pushed.
    assert wait_actionable(page) in ("auction", "play", "done")


def test_unknown_table_link_says_so(page, server_url):
    """A link to a table that does not exist explains it instead of offering chairs."""
    page.goto(f"{server_url}/?table=no-such-table")
    page.wait_for_selector("#join:not([hidden])")
    page.wait_for_function("() => document.getElementById('join-error').textContent.length > 0")
    assert "no table" in page.inner_text("#join-error").lower()
    assert page.locator("#join-chairs button").count() == 0


def test_lobby_describes_the_bots_and_lists_your_tables_with_players_deal_and_score(page, server_url):
    """Each bot choice has a one-line description; "Your tables" names the players, the deal number and the score."""
    page.goto(f"{server_url}/?pace=0")
    page.wait_for_selector("#chair-1 option[value='bot:paper']", state="attached")
    page.select_option("#chair-1", "bot:paper")
    assert "No-Trump call rule" in page.inner_text("[data-testid='chair-1-desc']")
    assert page.locator("#bot-list dt").count() == page.locator("#chair-1 option[value^='bot:']").count()
    start_game(page, server_url, bots=("random", "paper"))
    page.goto(f"{server_url}/?pace=0")
    page.wait_for_selector("#resume:not([hidden])")
    page.wait_for_function("() => document.querySelector('#resume-list .table-facts').textContent.length > 0")
    facts = page.inner_text("#resume-list li:first-child .table-facts")
    assert facts == "you, random bot, paper bot · deal 1 · score 0 / 0 / 0", facts
