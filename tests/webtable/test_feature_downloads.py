"""Browser test: the hand record of the deal and of the whole table downloads from the page, PBN and LIN."""

from __future__ import annotations

import pytest
from webtable_helpers import DESKTOP, bid_and_claim_a_grand_slam, claim_grand_slam

from browser_helpers import watched_page

pytestmark = pytest.mark.browser


def saved(page, button: str) -> str:
    """Click a download button and return the text of the file the browser saved."""
    with page.expect_download() as download:
        page.click(button)
    with open(download.value.path(), encoding="utf-8") as file:
        return file.read()


def test_hand_records_download_without_a_token(browser, server_url):
    """After two deals, PBN and LIN of the deal and of the whole table are saved by clicking."""
    errors: list[str] = []
    context, page = watched_page(browser, errors, viewport=DESKTOP, accept_downloads=True)
    bid_and_claim_a_grand_slam(page, server_url)
    page.click("#next-deal")
    page.wait_for_function("() => Number(document.getElementById('table').dataset.dealNo) === 2")
    claim_grand_slam(page)
    deal = saved(page, "#download-deal-pbn")
    assert deal.count("[Board ") == 1 and '[Board "2"]' in deal and '[Contract "7S"]' in deal, deal
    table = saved(page, "#download-table-pbn")
    assert '[Board "1"]' in table and '[Board "2"]' in table, table
    lin_deal = saved(page, "#download-deal-lin")
    lin_table = saved(page, "#download-table-lin")
    assert "md|" in lin_deal and "mb|7s" in lin_deal.lower(), lin_deal
    assert lin_table.count("md|") == 2 and lin_deal.count("md|") == 1
    context.close()
    assert not errors, errors
