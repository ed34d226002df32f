"""``tribridge bid4``: a four-handed bidder's call for one position."""

import json

from tribridge.cards import Hand
from tribridge.cli.main import main
from tribridge.four import natural4
from tribridge.four.rules import Auction4


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_bid4_gives_natural4s_call_and_the_searchs(capsys):
    hand = "AK5.AQ73.432.Q86"
    view = natural4.Bid4View(3, 0, "NS", tuple(Hand.from_pbn(hand).cards), Auction4.from_calls(0, ["1C", "P", "1S"]))
    code, out, _ = run(capsys, "bid4", hand, "--auction", "1C-P-1S", "--vul", "NS", "--json")
    assert code == 0 and json.loads(out)["call"] == natural4.bid(view)
    # the search weighs only contested positions: North after 1H 1S 2H 2S
    hand, calls = "A3.KQJ85.K72.Q93", ["1H", "1S", "2H", "2S"]
    view = natural4.Bid4View(0, 0, "NS", tuple(Hand.from_pbn(hand).cards), Auction4.from_calls(0, calls))
    args = ("bid4", hand, "--auction", "-".join(calls), "--vul", "NS", "--bidder", "natural4-search", "--layouts", "4")
    code, out, _ = run(capsys, *args, "--json")
    data = json.loads(out)
    assert code == 0 and data["bidder"] == "natural4-search" and data["natural4_call"] == natural4.bid(view)
    assert data["searched"] and data["layouts"] == 4
    assert {c["call"] for c in data["candidates"]} == {natural4.bid(view), "P", "X"}
    code, out, _ = run(capsys, *args)
    assert code == 0 and out.startswith(data["call"] + ":")


def test_bid4_names_the_bad_field(capsys):
    code, _, err = run(capsys, "bid4", "AK5.AQ73.432.Q86", "--bidder", "ben")
    assert code == 2 and "--bidder" in err
    code, _, err = run(capsys, "bid4", "AK5.AQ73.432.Q86", "--auction", "1C-P-P-P")
    assert code == 2 and "--auction" in err
