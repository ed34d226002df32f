"""Browser tests of the web table: Playwright drives Debian's chromium against the real server on a free port."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
# Trick values and doubling bonus of the classic preset (docs/rules.md), for checking the page's score.
TRICK_VALUE = {"C": 6, "D": 7, "H": 8, "S": 9, "N": 10}
SUIT_OF_SYMBOL = {"♣": "C", "♦": "D", "♥": "H", "♠": "S", "NT": "N", "N": "N"}
ACTIONABLE = """() => {
  const t = document.getElementById('table');
  return !t.hidden && (t.dataset.myTurn === 'true' || t.dataset.phase === 'done');
}"""


def free_port() -> int:
    """A TCP port that is free right now on the loopback interface."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory):
    """The real server (create_app) under uvicorn in a thread, bots without delay, on a temporary database."""
    import uvicorn

    from tribridge.server.app import create_app

    db_path = tmp_path_factory.mktemp("browser") / "tables.sqlite"
    app = create_app(db_path=db_path, bot_delay=0.0)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            pytest.fail("the server did not start")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=15)


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium, headless, driven by Playwright (no downloaded browsers)."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium)")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture()
def page(browser):
    """A fresh page (own local storage) that fails the test on any JavaScript error."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


# ---------------------------------------------------------------- helpers that act like a person


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
    page.wait_for_function("() => document.getElementById('table').dataset.phase !== undefined"
                           " && document.getElementById('table').dataset.phase !== ''")


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
    """(declarer's points, each defender's points) of a deal under docs/rules.md's classic preset, honours off."""
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
    dd_cells = page.eval_on_selector_all("[data-testid='declarer-tricks'] tbody td", "els => els.map(e => e.textContent)")
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
        friend.wait_for_function("() => document.getElementById('table').dataset.version !== ''")
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
