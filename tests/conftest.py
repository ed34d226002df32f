"""Shared fixtures: the real server on a free port, Debian's chromium driven by Playwright (browser tests), and
game stores on both backends (``db_url``: a fresh SQLite file or a fresh database on a real PostgreSQL)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from browser_helpers import watched_page
from loop_watch_check import watched_module
from tribridge.bots import plugins
from tribridge.testing import CHROMIUM, CHROMIUM_ARGS, MISSING_REASON, PgServer, free_port, pg_bin_dir

BACKENDS = ["sqlite", "postgres"]


@pytest.fixture(scope="module", autouse=True)
def _watch_the_servers_loops(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """In modules marked ``loop_watch``: servers report slow callbacks, and the module fails on one (loop_watch_check)."""
    yield from watched_module(request, tmp_path_factory.mktemp("loop_watch"))


@pytest.fixture(autouse=True)
def _forget_enabled_plugins():
    """Each test starts with no plug-in enabled: a CLI test's spec (written to the environment) would otherwise reach
    every server a later test starts, relative to a folder that server does not run in."""
    plugins.disable_all()
    yield
    plugins.disable_all()


@pytest.fixture(scope="session")
def pg_server():
    """A real PostgreSQL server for the whole session (skips when Debian's binaries are missing)."""
    bin_dir = pg_bin_dir()
    if bin_dir is None:
        pytest.skip(MISSING_REASON)
    server = PgServer(bin_dir).start()
    yield server
    server.stop()


def _store_url(request: pytest.FixtureRequest, folder: Path) -> str:
    if request.param == "postgres":
        return request.getfixturevalue("pg_server").new_database()
    return str(folder / "store.sqlite")


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty game store for one test: an SQLite file, or a new database on the session's PostgreSQL."""
    return _store_url(request, tmp_path)


@pytest.fixture()
def another_db_url(request: pytest.FixtureRequest, db_url: str, tmp_path: Path) -> str:
    """A second fresh store on the same backend as ``db_url``."""
    if "://" in db_url:
        return request.getfixturevalue("pg_server").new_database()
    return str(tmp_path / "another.sqlite")


@pytest.fixture(scope="module", params=BACKENDS)
def module_db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A fresh, empty game store for one module, on each backend in turn."""
    return _store_url(request, tmp_path_factory.mktemp("store"))


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
    errors: list[str] = []
    context, page = watched_page(browser, errors, viewport={"width": 1200, "height": 900})
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
