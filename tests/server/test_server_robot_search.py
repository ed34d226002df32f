"""The robot API's bidder choice: ``bidder=natural4-search`` on /apis/brill/bid and BEN's /bid."""

import pytest
from fastapi.testclient import TestClient

from tribridge.cards import Hand
from tribridge.four import natural4
from tribridge.four.rules import Auction4, parse_call
from tribridge.server.app import create_app

# South's 1D, North's 1H response, East's 1NT overcall: natural4 passes with South's 11 HCP, the search doubles
# (by more than 4 IMPs a layout, even when the time budget leaves only 4 layouts)
CALLS = ["1D", "P", "1H", "1N"]
POSITION = {"seat": "S", "dealer": "S", "vul": "EW", "ctx": "1D--1H1N", "hand": "Q6.A97.AJT6.JT96"}


@pytest.fixture(scope="module")
def client(module_db_url):
    # a searched call may take a second or two on a busy machine: a deadline that load does not reach
    app = create_app(db_path=module_db_url, bot_delay=0, log_requests=False, robot_layouts=4, robot_deadline=120)
    with TestClient(app) as c:
        yield c


def natural_call() -> str:
    view = natural4.Bid4View(2, 2, "EW", tuple(Hand.from_pbn(POSITION["hand"]).cards), Auction4.from_calls(2, CALLS))
    return natural4.bid(view)


def test_the_bidder_choice_changes_the_call_and_says_why(client):
    plain = client.get("/apis/brill/bid", params=POSITION).json()
    r = client.get("/apis/brill/bid", params={**POSITION, "bidder": "natural4-search"})
    assert r.status_code == 200, r.text
    searched = r.json()
    assert plain["bidder"] == "natural4" and searched["bidder"] == "natural4-search"
    assert parse_call(plain["bid"]) == natural_call()
    assert searched["bid"] != plain["bid"]
    assert Auction4.from_calls(2, CALLS).is_legal(parse_call(searched["bid"]))
    assert "chosen by simulation over" in searched["explanation"]
    assert "chosen by simulation" not in plain["explanation"]
    ben = client.get("/bid", params={**POSITION, "bidder": "natural4-search", "user": "x"}).json()
    assert ben["who"] == "natural4-search" and parse_call(ben["bid"].replace("PASS", "P")) == parse_call(
        searched["bid"]
    )


def test_bidders_are_listed_and_an_unknown_one_is_refused(client):
    info = client.get("/apis/brill/").json()
    assert info["bidders"] == ["natural4", "natural4-search"] and info["bidder"] == "natural4"
    r = client.get("/apis/brill/bid", params={**POSITION, "bidder": "ben"})
    assert r.status_code == 400 and "bidder" in r.text


def test_our_system_two_over_one_changes_the_call_and_explains_it(client):
    # South, 11 HCP and five diamonds over partner's 1S: 2D in SAYC, the forcing 1NT in 2/1
    base = {"seat": "S", "dealer": "N", "vul": "None", "ctx": "1S--", "hand": "85.K62.AQ983.K72"}
    sayc = client.get("/apis/brill/bid", params=base).json()
    two = client.get("/apis/brill/bid", params={**base, "ourSystem": "2/1 GF", "theirSystem": "SAYC"}).json()
    assert (sayc["bid"], sayc["system"]) == ("2D", "SAYC") and (two["bid"], two["system"]) == ("1N", "2/1")
    assert "forcing 1NT" in two["explanation"] and two["alert"] and "note" not in two
    assert "note" in client.get("/apis/brill/bid", params={**base, "ourSystem": "Precision"}).json()
    assert client.get("/apis/brill/").json()["systems"] == ["SAYC", "2/1"]


def test_each_side_is_read_by_its_system_in_bidding_and_play():
    from tribridge.server.robot.brill import request_systems

    assert request_systems({"ourSystem": "2/1", "theirSystem": "SAYC"}, 1) == (("SAYC", "2/1"), [])
    assert request_systems({"theirSystem": "2/1"}, 0) == (("SAYC", "2/1"), [])
    systems, notes = request_systems({"ourSystem": "Acol"}, 2)
    assert systems == ("SAYC", "SAYC") and notes and notes[0].startswith("ourSystem:")
