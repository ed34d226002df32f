"""Views stay small however long a table plays: a bounded score summary, the whole history paged by its own
endpoint, a cap on the deals a table plays, exports limited per client (live server)."""

import httpx
import pytest

from live_server import start_server
from tribridge.server.tables.views import VIEW_DEALS

pytestmark = pytest.mark.slow

DEALS = 30  # every deal passed out: four actions each


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A three-person table that has passed out DEALS deals, on a server capping tables at DEALS + 1 deals."""
    db = tmp_path_factory.mktemp("history") / "h.sqlite"
    flags = ["--max-deals-per-table", str(DEALS + 1), "--max-client-exports-per-minute", "3"]
    proc, url = start_server(db, *flags)
    client = httpx.Client(base_url=url, timeout=30)
    made = client.post("/api/tables", json={"chairs": [{"kind": "human"}] * 3, "take": 0}).json()
    tid, tokens = made["table_id"], {0: made["token"]}
    for chair in (1, 2):
        tokens[chair] = client.post(f"/api/tables/{tid}/seats/{chair}").json()["token"]
    auth = {c: {"Authorization": f"Bearer {t}"} for c, t in tokens.items()}
    view = client.get(f"/api/tables/{tid}/state", headers=auth[0]).json()
    sizes = {}
    while view["deal_no"] <= DEALS:
        if view["phase"] == "done":
            sizes[view["deal_no"]] = len(client.get(f"/api/tables/{tid}/state", headers=auth[0]).content)
            for chair in (0, 1, 2):  # the next deal starts once every person has pressed Next
                view = client.post(f"/api/tables/{tid}/actions", json={"type": "next"}, headers=auth[chair]).json()
        else:
            action = {"type": "call", "call": "P"}
            view = client.post(f"/api/tables/{tid}/actions", json=action, headers=auth[view["turn_chair"]]).json()
    yield client, tid, auth, view, sizes
    client.close()
    proc.terminate()
    proc.wait(60)


def test_a_view_carries_a_bounded_score_summary(played):
    _client, _tid, _auth, view, sizes = played
    sheet = view["score_sheet"]
    assert sheet["deals_total"] == DEALS and len(sheet["deals"]) == VIEW_DEALS
    assert [d["deal_no"] for d in sheet["deals"]] == list(range(DEALS - VIEW_DEALS + 1, DEALS + 1))
    assert sizes[DEALS] <= sizes[VIEW_DEALS + 2] + 64  # no longer grows with every deal


def test_the_history_is_paged(played):
    client, tid, auth, _view, _sizes = played
    page = client.get(f"/api/tables/{tid}/history", params={"offset": 0, "limit": 12}, headers=auth[1]).json()
    assert page["total"] == DEALS and [d["deal_no"] for d in page["deals"]] == list(range(1, 13))
    assert all(d["result"].startswith("Passed out") for d in page["deals"])
    tail = client.get(f"/api/tables/{tid}/history", params={"offset": 25, "limit": 100}, headers=auth[2]).json()
    assert [d["deal_no"] for d in tail["deals"]] == list(range(26, DEALS + 1))
    r = client.get(f"/api/tables/{tid}/history", params={"limit": 1000}, headers=auth[0])
    assert r.status_code == 400 and r.json()["error"].startswith("limit")
    assert client.get(f"/api/tables/{tid}/history").status_code == 403


def test_a_table_plays_at_most_its_cap_of_deals(played):
    client, tid, auth, view, _sizes = played
    assert view["deal_no"] == DEALS + 1
    while view["phase"] != "done":
        view = client.post(
            f"/api/tables/{tid}/actions", json={"type": "call", "call": "P"}, headers=auth[view["turn_chair"]]
        ).json()
    r = client.post(f"/api/tables/{tid}/actions", json={"type": "next"}, headers=auth[0])
    assert r.status_code == 400 and f"limit of {DEALS + 1} deals" in r.json()["error"]


def test_exports_are_limited_per_client(played):
    client, tid, auth, _view, _sizes = played
    first = client.get(f"/api/tables/{tid}/export.json", headers=auth[0])
    assert first.status_code == 200 and len(first.json()["deals"]) >= DEALS
    again = client.get(f"/api/tables/{tid}/export.json", headers=auth[0])
    assert again.content == first.content  # the same version: the same text
    assert client.get(f"/api/tables/{tid}/export.pbn", headers=auth[0]).text.startswith("% PBN 2.1")
    r = client.get(f"/api/tables/{tid}/export.pbn", headers=auth[0])
    assert r.status_code == 429 and "exports" in r.json()["error"] and int(r.headers["retry-after"]) >= 1
