#!/usr/bin/env python3
"""Takes the README's screenshots of the web table (lobby, a deal in progress, the analysis, the review) with Debian's chromium.

Usage: .venv/bin/python scripts/screenshots.py [--out docs/img] [--bots paper paper] [--seed-tries 8]
Starts the real server on a free port with a temporary database, plays like a simple person
(one cheap bid, then passes; plays the lowest playable card) until a deal has been played, and saves PNG files: lobby, table, table-phone (one 390×844 screen), analysis, result (every bonus named,
the hand-record downloads), review, help (the rules overlay).
"""

from __future__ import annotations

import argparse
import importlib
import socket
import tempfile
import threading
import time
from pathlib import Path

from tribridge.testing import CHROMIUM, CHROMIUM_ARGS

ACTIONABLE = """() => { const t = document.getElementById('table');
  return !t.hidden && (t.dataset.myTurn === 'true' || t.dataset.phase === 'done'); }"""


def free_port() -> int:
    """A free loopback TCP port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(app_path: str, db_path: Path, bot_delay: float):
    """Run the app under uvicorn in a daemon thread; returns (server, base URL)."""
    import uvicorn

    module_name, factory_name = app_path.split(":")
    factory = getattr(importlib.import_module(module_name), factory_name)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(factory(db_path=db_path, bot_delay=bot_delay), host="127.0.0.1", port=port, log_level="warning")
    )
    threading.Thread(target=server.run, daemon=True).start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline:
            raise SystemExit("the server did not start")
        time.sleep(0.05)
    return server, f"http://127.0.0.1:{port}"


def version(page) -> int:
    """The state version on the page."""
    return int(page.get_attribute("#table", "data-version"))


def act_once(page) -> str:
    """Take our one action like a simple person (one cheap bid at the one level, then passes; the lowest playable card)."""
    phase = page.get_attribute("#table", "data-phase")
    before = version(page)
    if phase == "auction":
        calls = page.eval_on_selector_all("#bidding-box button.call:enabled", "els => els.map(e => e.dataset.call)")
        bid_before = page.evaluate(
            "() => { const v = window.tribridge.view;"
            " return v.auction.some(c => c.chair === v.my_chair && /^[1-7]/.test(c.call)); }"
        )
        cheap = [c for c in calls if c[0] == "1"]
        choice = cheap[0] if cheap and not bid_before else ("P" if "P" in calls else calls[0])
        page.click(f"#bidding-box button.call[data-call='{choice}']")
    elif phase == "play":
        cards = page.eval_on_selector_all(".felt .hand button.card:enabled", "els => els.map(e => e.dataset.card)")
        page.click(f".felt .hand button.card[data-card='{cards[-1]}']")
    page.wait_for_function(f"() => Number(document.getElementById('table').dataset.version) > {before}")
    return phase


def main() -> None:
    """Take the four screenshots (and a phone-size one)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="docs/img", help="folder for the PNG files (default docs/img)")
    parser.add_argument("--bots", nargs=2, default=["paper", "paper"], help="the two bots (default paper paper)")
    parser.add_argument("--app", default="tribridge.server.app:create_app", help="app factory module:function")
    parser.add_argument("--tricks", type=int, default=5, help="tricks to play before the in-progress picture")
    parser.add_argument("--name", default="Ann", help="the player's name typed in the lobby")
    parser.add_argument("--review-step", type=int, default=23, help="cards to step through in the review picture")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        server, base = start_server(args.app, Path(tmp) / "tables.sqlite", bot_delay=0.0)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            page = browser.new_page(viewport={"width": 1200, "height": 860}, device_scale_factor=1)
            page.set_default_timeout(60_000)
            page.goto(f"{base}/?pace=0")
            page.wait_for_selector("#lobby:not([hidden])")
            page.wait_for_selector(f"#chair-1 option[value='bot:{args.bots[0]}']", state="attached")
            page.select_option("#chair-1", f"bot:{args.bots[0]}")
            page.select_option("#chair-2", f"bot:{args.bots[1]}")
            page.fill("#player-name", args.name)
            page.click("summary")
            page.screenshot(path=str(out / "lobby.png"))
            page.click("#start-game")
            page.wait_for_selector("#table:not([hidden])")

            in_progress_taken = False
            for _ in range(400):
                page.wait_for_function(ACTIONABLE)
                phase = page.get_attribute("#table", "data-phase")
                if phase == "done":
                    if page.locator("#contract").count() and in_progress_taken:
                        break
                    in_progress_taken = False
                    deal = int(page.get_attribute("#table", "data-deal-no"))
                    page.click("#next-deal")
                    page.wait_for_function(f"() => Number(document.getElementById('table').dataset.dealNo) > {deal}")
                    continue
                tricks_done = page.evaluate(
                    "() => { const v = window.tribridge.view;"
                    " return (v.tricks.declarer || 0) + (v.tricks.defenders || 0); }"
                )
                trick_cards = page.locator("#trick:not(.last) .card").count()
                if phase == "play" and not in_progress_taken and tricks_done >= args.tricks and trick_cards > 0:
                    page.screenshot(path=str(out / "table.png"))
                    page.set_viewport_size({"width": 390, "height": 844})
                    page.screenshot(path=str(out / "table-phone.png"))
                    page.set_viewport_size({"width": 1200, "height": 860})
                    in_progress_taken = True
                act_once(page)
            page.wait_for_selector("#analysis-box:not([hidden])")
            page.wait_for_selector("[data-testid='declarer-tricks']", timeout=180_000)
            page.locator("#analysis-box").scroll_into_view_if_needed()
            page.screenshot(path=str(out / "analysis.png"), full_page=True)
            page.locator("#result-box").screenshot(path=str(out / "result.png"))
            page.click("#review-deal")
            page.wait_for_selector("#review:not([hidden])")
            for _ in range(args.review_step):
                page.keyboard.press("ArrowRight")
            page.screenshot(path=str(out / "review.png"))
            page.keyboard.press("Escape")
            page.click("#help-toggle")
            page.wait_for_selector("#help:not([hidden])")
            page.screenshot(path=str(out / "help.png"))
            browser.close()
        server.should_exit = True
    for name in ("lobby.png", "table.png", "table-phone.png", "analysis.png", "result.png", "review.png", "help.png"):
        print(out / name)


if __name__ == "__main__":
    main()
