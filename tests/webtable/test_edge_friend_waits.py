"""Browser test: at a friends' table the host cannot call before the friend has taken the chair (the page says the
game starts then); once the friend sits down the host's bidding box opens."""

from __future__ import annotations

import pytest
from webtable_helpers import RANDOM_BOT, api_error, create_table, open_seat, take_seat

pytestmark = pytest.mark.browser


def test_the_host_waits_for_the_friend(desk, server_url):
    """Ann deals deal 1 at a table with a free friend's chair: no call is enabled, the page says it waits for the
    friend, the server refuses her call (409); Bob takes the chair and Ann may call."""
    created = create_table(server_url, [{"kind": "human", "name": "Ann"}, {"kind": "human"}, RANDOM_BOT])
    table_id, token = created["table_id"], created["token"]
    open_seat(desk, server_url, table_id, token, 0)
    assert "game starts when they take their chair" in desk.inner_text("#invite")
    assert "friend" in desk.inner_text("#turn-info").lower()
    assert desk.locator("#bidding-box button.call:enabled").count() == 0
    call = {"type": "call", "call": "P"}
    assert api_error(server_url, "POST", f"/api/tables/{table_id}/actions", call, token) == 409
    take_seat(server_url, table_id, 1, "Bob")
    desk.wait_for_selector("#bidding-box button.call[data-call='P']:enabled", timeout=20_000)
    assert desk.get_attribute("#table", "data-my-turn") == "true"
