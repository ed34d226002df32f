"""Fixtures of the web-table tests: pages at desktop (1366×768) and phone (390×844) size that fail on a JavaScript error."""

from __future__ import annotations

import pytest
from webtable_helpers import DESKTOP, PHONE, pages_for


@pytest.fixture()
def desk(browser):
    """A desktop page (1366×768)."""
    errors: list[str] = []
    contexts, pages = pages_for(browser, errors, 1, DESKTOP)
    yield pages[0]
    contexts[0].close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture()
def phone(browser):
    """A phone-sized touch page (390×844)."""
    errors: list[str] = []
    contexts, pages = pages_for(browser, errors, 1, PHONE, is_mobile=True, has_touch=True)
    yield pages[0]
    contexts[0].close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@pytest.fixture()
def pages(browser):
    """Three desktop pages, each with its own storage (three people)."""
    errors: list[str] = []
    contexts, made = pages_for(browser, errors, 3, DESKTOP)
    yield made
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors on the pages: {errors}"


@pytest.fixture(params=[DESKTOP, PHONE], ids=["desktop", "phone"])
def two_pages(browser, request):
    """Two pages (two people) at desktop, then phone, size."""
    errors: list[str] = []
    contexts, made = pages_for(browser, errors, 2, request.param)
    yield made
    for context in contexts:
        context.close()
    assert not errors, f"JavaScript errors on the pages: {errors}"
