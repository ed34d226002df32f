"""Table talk: short messages pushed to everyone at the table, shown as text, cut to length, rate limited, not for bots."""

from __future__ import annotations

import pytest
from webtable_helpers import RANDOM_BOT, api, api_error, open_seat, two_people

MARKUP = "<b>well</b> played & <img src=x onerror=alert(1)> 😀"


@pytest.mark.browser
def test_a_message_reaches_the_other_player_as_text(two_pages, server_url):
    """Ann says something with markup in it; Bob's page shows exactly that text and no element made from it."""
    ann, bob = two_pages
    table_id, ann_token, bob_token = two_people(server_url)
    open_seat(ann, server_url, table_id, ann_token, 0)
    open_seat(bob, server_url, table_id, bob_token, 1)
    version = ann.evaluate("() => window.tribridge.view.version")
    ann.fill("#talk-input", MARKUP)
    ann.press("#talk-input", "Enter")
    bob.wait_for_function("() => document.getElementById('talk-log').textContent.includes('played')")
    assert bob.inner_text("#talk-log li").strip() == f"Ann: {MARKUP}"
    assert bob.locator("#talk-log b, #talk-log img").count() == 0
    assert ann.evaluate("() => window.tribridge.view.version") == version, "talk does not move the game's version"


def test_talk_is_cut_rate_limited_kept_and_not_for_bots(server_url):
    """A long message is cut to 200 characters; the sixth in ten seconds is refused; a bots' table has no talk."""
    table_id, ann, _bob = two_people(server_url)

    def say(text: str) -> int:
        return api_error(server_url, "POST", f"/api/tables/{table_id}/actions", {"type": "say", "text": text}, ann)

    assert say("x" * 500) == 0
    assert [say(f"m{i}") for i in range(5)] == [0, 0, 0, 0, 429]
    talk = api(server_url, "GET", f"/api/tables/{table_id}/state", token=ann)["talk"]
    assert talk[0] == {"chair": 0, "text": "x" * 200} and len(talk) == 5
    bots = api(server_url, "POST", "/api/tables", {"chairs": [RANDOM_BOT] * 3, "seed": 1})
    refused = api_error(
        server_url,
        "POST",
        f"/api/tables/{bots['table_id']}/actions",
        {"type": "say", "text": "hi"},
        bots["watch_token"],
    )
    assert refused in (400, 403), "a bot's chair (a watcher's token) does not talk"


@pytest.mark.browser
def test_a_new_message_is_marked_and_the_talk_box_one_click_away(pages, server_url):
    """At 1280×800 the talk box's field is below the fold: Bob's messages out of sight show "2 new" on the status bar's Table talk
    button, which brings the box into view with the cursor in its field and clears the mark."""
    ann = pages[0]
    ann.set_viewport_size({"width": 1280, "height": 800})
    table_id, ann_token, bob_token = two_people(server_url)
    open_seat(ann, server_url, table_id, ann_token, 0)
    ann.wait_for_selector("#talk-jump:not([hidden])")
    below = "() => document.getElementById('talk-input').getBoundingClientRect().bottom > innerHeight"
    assert ann.evaluate(below), "the talk box's field is on screen: nothing to reach"
    for n, text in enumerate(("hello", "are you there?", "your call"), 1):  # the later ones land below the fold
        api(server_url, "POST", f"/api/tables/{table_id}/actions", {"type": "say", "text": text}, bob_token)
        ann.wait_for_function(f"() => document.getElementById('talk-log').children.length === {n}")
    ann.wait_for_selector("#talk-unread:not([hidden])")
    assert ann.inner_text("#talk-unread") == "2 new"
    box = ann.locator("#talk-jump").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 800, box
    ann.click("#talk-jump")
    ann.wait_for_function("() => document.activeElement && document.activeElement.id === 'talk-input'")
    assert not ann.evaluate(below)
    assert ann.is_hidden("#talk-unread")


@pytest.mark.browser
def test_your_tables_show_at_1280_by_800(pages, server_url):
    """Back in the lobby with a table of one's own, "Your tables" is on screen at 1280×800 without scrolling."""
    ann = pages[0]
    ann.set_viewport_size({"width": 1280, "height": 800})
    table_id, ann_token, _bob = two_people(server_url)
    open_seat(ann, server_url, table_id, ann_token, 0)
    ann.goto(f"{server_url}/?pace=0")
    ann.wait_for_selector("#resume:not([hidden])")
    box = ann.locator("#resume").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 800, box
