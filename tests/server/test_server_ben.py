"""Replays of real clients against BEN's API at the server root and Brill's under /apis/brill.

Each request is built the way the client's own code builds it (URL strings concatenated without encoding),
and each answer goes through the client's own parsing rules: BEN's web page (``callAPI``/``displayBid``),
BBOalert's "play with BEN/Brill" scripts (``makeBid``/``makePlay``), and Pidgin's two-character rule for
``/apis/brill``.
"""

import json
import re
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from tribridge.cards import SEAT_CHARS, Card, Hand, random_deal
from tribridge.four.rules import Auction4, legal_cards, parse_call, trace_play
from tribridge.server.app import create_app
from tribridge.server.robot.ben import pbn_play_order


@pytest.fixture(scope="module")
def client(module_db_url):
    # the robot deadline is tested in test_server_robot_pool.py: a busy machine must not reach it here
    app = create_app(module_db_url, bot_delay=0, log_requests=False, robot_layouts=4, robot_deadline=120)
    with TestClient(app) as c:
        yield c


def bboalert_hand(cards):
    """BBOalert's formatCards: S.H.D.C, each suit low card first (it prepends the cards it reads high to low)."""
    suits = []
    for suit in (3, 2, 1, 0):
        ranks = sorted((c % 13 for c in cards if c // 13 == suit), reverse=True)
        suits.append("".join("AKQJT98765432"[r] for r in ranks))
    return ".".join(suits)


def bboalert_ctx(calls):
    return "".join({"P": "--", "X": "Db", "XX": "Rd"}.get(c, c) for c in calls)


def make_bid(bid):
    """BBOalert's makeBid: which bidding-box buttons the answer clicks, as the call they make (None: nothing)."""
    if not isinstance(bid, str):
        return None
    if bid in ("PASS", "P"):
        return "P"
    if bid in ("X", "XX"):
        return bid
    if len(bid) >= 2 and bid[0] in "1234567" and bid[1] in "CDHSN":
        return bid[:2]
    return None


def make_play(card):
    """BBOalert's makePlay(data.card[1].replace("T", "10") + data.card[0]): rank then suit, as a card index."""
    value = card[1].replace("T", "10") + card[0]
    rank, suit = value[:-1].replace("10", "T"), value[-1]
    return Card.parse(suit + rank).index


def ben_page_bidding(calls):
    """BEN's page: the bidding box text (1S-P-2H-X-XX) turned into ctx by its replace chain."""
    text = "-".join(calls)
    return text.replace("-", "").replace("XX", "Rd").replace("X", "Db").replace("P", "--")


def bboalert_bid_url(base, calls, dealer, seat, vul, hand, dealno=7):
    return (
        f"{base}/bid?user=robot&dealer={SEAT_CHARS[dealer]}&dealno={dealno}&seat={SEAT_CHARS[seat]}&vul={vul}"
        f"&ctx={bboalert_ctx(calls)}&hand={bboalert_hand(hand)}&board=20261201_IMP_00{dealno}_CM-robot"
    )


def test_issue_request_passes_at_the_root_and_stays_brill_under_apis(client):
    query = "user=Srobot&dealer=E&dealno=2&seat=S&vul=NS&ctx=1D&hand=6JK.78JK.458Q.47&board=20261201_IMP_002_CM-robot"
    root = client.get("/bid?" + query)
    assert root.status_code == 200 and make_bid(root.json()["bid"]) is not None
    brill = client.get("/apis/brill/bid?" + query).json()
    assert len(brill["bid"]) == 2 and parse_call(brill["bid"])
    assert all(len(c["bid"]) == 2 and c["call"] == c["bid"] for c in brill["candidates"])


@pytest.mark.parametrize("base", ["", "/apis/brill"])
def test_bboalert_bids_whole_auctions(client, base):
    rng = np.random.default_rng(17)
    for k in range(6):
        deal, dealer = random_deal(rng), k % 4
        auction = Auction4(dealer)
        while not auction.is_over:
            seat = auction.turn
            r = client.get(bboalert_bid_url(base, auction.calls, dealer, seat, "All", deal[seat].cards, k))
            assert r.status_code == 200, r.text
            data = r.json()
            assert "message" not in data
            if base:  # Pidgin's rule for /apis/brill: two-character tokens, for the call and every candidate
                assert len(data["bid"]) == 2 and all(len(c["bid"]) == 2 for c in data["candidates"])
            call = make_bid(data["bid"]) if base == "" else parse_call(data["bid"])
            assert call is not None and auction.is_legal(call), (data, auction.calls)
            assert isinstance(data["explanation"], str) and isinstance(data["alert"], bool)
            auction = auction.apply(call)


def play_with_bboalert(client, deal, dealer, calls):
    auction = Auction4.from_calls(dealer, calls)
    contract = auction.contract
    played = []
    while len(played) < 52:
        trace = trace_play(contract, played, {}, "played")
        due = trace.turn
        asker = contract.declarer if due == contract.dummy else due
        common = (
            f"user=robot&dealer={SEAT_CHARS[dealer]}&dealno=3&seat={SEAT_CHARS[asker]}&vul=None"
            f"&ctx={bboalert_ctx(calls)}&hand={bboalert_hand(deal[asker].cards)}"
        )
        if not played:
            url = "/lead?" + common
        else:
            url = (
                f"/play?{common}&dummy={bboalert_hand(deal[contract.dummy].cards)}"
                f"&played={''.join(str(Card(c)) for c in played)}&board=x&tournament=IMP"
            )
        r = client.get(url)
        assert r.status_code == 200, r.text
        data = r.json()
        assert "message" not in data and data["card"][0] in "SHDC"
        card = make_play(data["card"])
        holder = deal[due].cards
        assert card in legal_cards(trace, [c for c in holder if c not in played]), (data, played)
        if played:
            assert data["player"] == {0: 3, 1: 0, 3: 2}[(asker - contract.declarer) % 4]
        played.append(card)
    return played


def test_bboalert_plays_a_board_at_the_root(client):
    rng = np.random.default_rng(5)
    for _ in range(10):
        deal = random_deal(rng)
        auction = Auction4(0)
        while not auction.is_over:
            r = client.get(bboalert_bid_url("", auction.calls, 0, auction.turn, "None", deal[auction.turn].cards))
            auction = auction.apply(make_bid(r.json()["bid"]))
        if auction.contract is not None:
            assert len(play_with_bboalert(client, deal, 0, list(auction.calls))) == 52
            return
    pytest.fail("every auction was passed out")


def test_ben_page_bid_with_details_is_displayable(client):
    # callAPI('bid') with vul from its select box ('@v@V' = both), details on, and displayBid's reads
    url = (
        "/bid?user=me&dealer=N&seat=S&vul=@v@V&ctx="
        + ben_page_bidding(["1N", "P"])
        + "&hand=K2.QJ987.T98.762&dummy=&played=&tournament=&details=1"
    )
    r = client.get(url)
    assert r.status_code == 200
    data = r.json()
    assert "message" not in data and data["bid"] == "2D" and data["alert"] is True
    for cand in data["candidates"]:
        assert isinstance(cand["call"], str) and cand["call"].replace("PASS", "P") and cand["bid"] == cand["call"]
    assert data["hcp"] == -1 or (isinstance(data["hcp"], list) and isinstance(data["shape"], list))
    assert [row[0] for row in data["explanations"]] == ["1N", "PASS"]


def test_ben_page_lead_and_play(client):
    # with nothing played the page asks /lead (and still sends its dummy box); then /play with details
    lead = client.get(
        "/lead?user=me&dealer=N&seat=E&vul=&ctx="
        + ben_page_bidding(["1N", "P", "P", "P"])
        + "&hand=AKQ2.J54.T98.762&dummy=7654.A54.654.654&played=&tournament="
    ).json()
    assert "message" not in lead
    assert Card.parse(lead["card"]).index in Hand.from_pbn("AKQ2.J54.T98.762").cards
    play = client.get(
        "/play?user=me&dealer=N&seat=N&vul=@v&ctx="
        + ben_page_bidding(["1S", "P", "P", "P"])
        + "&hand=AKQJ2.K32.A32.32&dummy=7654.A54.654.654&played=CA&tournament=mp&details=1"
    ).json()
    assert play["card"] in ("C4", "C5", "C6") and play["matchpoint"] is True and play["player"] == 3
    assert all("card" in c for c in play["candidates"])


def test_explain_endpoint(client):
    data = client.get("/explain?dealer=N&seat=S&vul=&ctx=1N--2C").json()
    assert data["Alert"] is True and "Stayman" in data["explanation"]


def test_pbn_play_order_rotates_to_each_trick_winner():
    # N leads; trick 1 (columns N E S W): N SA, E S2, S S3, W S4 -> N wins; trick 2 listed N E S W too
    cards = [Card.parse(t).index for t in ("SA", "S2", "S3", "S4", "HA", "H2", "H3", "H4")]
    assert pbn_play_order(cards, None) == cards
    # W wins trick 1 with SK over S2 led... columns N E S W: N S2, E S3, S S4, W SK -> next trick starts with W's column
    cards = [Card.parse(t).index for t in ("S2", "S3", "S4", "SK", "H2", "H3", "H4", "HA")]
    order = pbn_play_order(cards, None)
    assert [str(Card(c)) for c in order[4:]] == ["HA", "H2", "H3", "H4"]


def test_system_parameters_answer_with_a_note(client):
    base = "/apis/brill/bid?seat=N&dealer=N&vul=None&ctx=&hand=AKQ2.KJ4.T98.762"
    assert "note" not in client.get(base + "&ourSystem=SAYC&theirSystem=SAYC").json()
    data = client.get(base + "&ourSystem=Precision&theirSystem=Acol").json()
    assert data["bid"] == "1C" and "Precision" in data["note"] and "Acol" in data["note"]
    assert client.get("/apis/brill").json()["systems"] == ["SAYC", "2/1"]


def test_root_errors_are_400_json(client):
    r = client.get("/bid?user=me&dealer=N&seat=E&vul=&ctx=&hand=AKQ2.KJ4.T98.762")
    assert r.status_code == 400 and "not on turn" in r.json()["error"]


DOC = Path(__file__).resolve().parents[2] / "docs" / "server.md"


def robot_api_examples():
    """(path, expected pairs) for every curl example of the four-handed robot API section of docs/server.md."""
    text = DOC.read_text()
    section = text[text.index("## Robot API (four-handed)") : text.index("## Robot API (three players)")]
    lines = [ln for block in re.findall(r"```bash\n(.*?)```", section, flags=re.S) for ln in block.splitlines()]
    out = []
    for i, line in enumerate(lines):
        m = re.match(r"curl -s '?localhost:8080(/[^' ]*)'?$", line.strip())
        if not m:
            continue
        comment = lines[i + 1] if i + 1 < len(lines) and lines[i + 1].startswith("# {") else ""
        comment = re.sub(r"\[.*\]", "[]", comment)  # top-level fields only
        pairs = [(k, json.loads(v)) for k, v in re.findall(r'"(\w+)": ("[^"]*"|true|false)', comment) if v != '"..."']
        out.append((m.group(1), pairs))
    return out


def test_doc_examples_answer_as_documented(client):
    examples = robot_api_examples()
    assert len(examples) >= 12
    checked = 0
    for path, pairs in examples:
        r = client.get(path)
        expect_error = any(k == "error" for k, _ in pairs)
        assert r.status_code == (400 if expect_error else 200), (path, r.text)
        body = r.json()
        for key, value in pairs:
            assert body.get(key) == value, (path, key, body.get(key), value)
            checked += 1
    assert checked >= 10
