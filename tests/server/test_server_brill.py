"""Robot API conformance: whole boards through /bid, /lead and /play as Brill's event page drives them; every error case."""

import numpy as np
import pytest
from fastapi.testclient import TestClient

from tribridge.cards import SEAT_CHARS, Card, Deal, random_deal
from tribridge.four.rules import Auction4, parse_call
from tribridge.rules.auction import Contract, Denom
from tribridge.rules.play import PlayState
from tribridge.server.app import create_app


@pytest.fixture(scope="module")
def client(module_db_url):
    # the robot deadline is tested in test_server_robot_pool.py: a busy machine must not reach it here
    app = create_app(db_path=module_db_url, bot_delay=0, log_requests=False, robot_layouts=4, robot_deadline=120)
    with TestClient(app) as c:
        yield c


def bid_auction(client, deal, dealer, vul="None"):
    """Bid a deal with four /bid requests per round until the auction ends; returns (ctx, Auction4)."""
    ctx = ""
    auction = Auction4(dealer)
    while not auction.is_over:
        seat = auction.turn
        r = client.get(
            "/apis/brill/bid",
            params={
                "seat": SEAT_CHARS[seat],
                "dealer": SEAT_CHARS[dealer],
                "vul": vul,
                "ctx": ctx,
                "hand": deal[seat].to_pbn(),
                "board": "1",
                "user": "x",
                "matchtype": "IMP",
            },
        )
        assert r.status_code == 200, r.text
        assert r.headers["access-control-allow-origin"] == "*"
        body = r.json()
        assert len(body["bid"]) == 2 and body["candidates"][0]["bid"] == body["bid"]
        call = parse_call(body["bid"])
        assert auction.is_legal(call)
        auction = auction.apply(call)
        ctx += body["bid"]
        assert len(auction.calls) < 40
    return ctx, auction


def play_board(client, deal, dealer, ctx, auction):
    """Play all 52 cards, one request per card, ctx and played growing; checks each card with the rules engine."""
    c4 = auction.contract
    contract = Contract(c4.level, Denom(c4.strain), c4.doubling, c4.declarer)
    state = PlayState.start(deal, contract)
    played = ""
    base = {"dealer": SEAT_CHARS[dealer], "vul": "None", "ctx": ctx}
    while not state.is_over:
        turn = int(state.turn)
        asker = int(contract.declarer) if turn == int(state.dummy) else turn
        params = dict(base, seat=SEAT_CHARS[asker], hand=deal[asker].to_pbn())
        if not state.played:
            r = client.get("/apis/brill/lead", params=params)
        else:
            params.update(played=played, dummy=deal[int(state.dummy)].to_pbn())
            r = client.get("/apis/brill/play", params=params)
        assert r.status_code == 200, r.text
        card = Card.parse(r.json()["card"])
        assert state.is_legal(card), (r.json(), [str(c) for c in state.legal_cards()])
        assert {c["card"] for c in r.json()["candidates"]} == {str(c) for c in state.legal_cards()}
        state = state.apply(card)
        played += str(card)
    return state


def test_whole_boards_through_lead_and_play(client):
    rng = np.random.default_rng(20261130)
    boards = 0
    while boards < 2:
        deal = random_deal(rng)
        dealer = int(rng.integers(4))
        ctx, auction = bid_auction(client, deal, dealer)
        if auction.passed_out:
            r = client.get(
                "/apis/brill/lead",
                params={"seat": "N", "dealer": SEAT_CHARS[dealer], "vul": "None", "ctx": ctx, "hand": deal[0].to_pbn()},
            )
            assert r.status_code == 400 and "passed out" in r.json()["error"]
            continue
        state = play_board(client, deal, dealer, ctx, auction)
        assert state.is_over and len(state.played) == 52
        boards += 1


def test_same_request_same_answer(client):
    params = {"seat": "E", "dealer": "N", "vul": "NS", "ctx": "1N------", "hand": "AKQ2.J54.T98.762"}
    a = client.get("/apis/brill/lead", params=params).json()
    b = client.get("/apis/brill/lead", params=dict(params, tournament="x", details="1")).json()
    assert a == b
    bid = {"seat": "N", "dealer": "N", "vul": "None", "ctx": "", "hand": "AKQ2.KJ4.T98.762"}
    assert client.get("/apis/brill/bid", params=bid).json() == client.get("/apis/brill/bid", params=bid).json()


def test_aliases_give_the_same_answer(client):
    plain = {"seat": "E", "dealer": "N", "vul": "None", "ctx": "1N------", "hand": "AKQ2.J54.T98.762"}
    alias = {"seat": "e", "dealer": "n", "vul": "-", "ctx": "1NT-P-P-P", "hand": "akq2_j54_1098_762"}
    assert client.get("/apis/brill/lead", params=plain).json() == client.get("/apis/brill/lead", params=alias).json()
    for vul in ("", "None", "Both", "B", "All", "NS", "EW"):
        r = client.get(
            "/apis/brill/bid", params={"seat": "N", "dealer": "N", "vul": vul, "ctx": "", "hand": "AKQ2.KJ4.T98.762"}
        )
        assert r.status_code == 200, vul


def test_service_description(client):
    for path in ("/apis/brill", "/apis/brill/"):
        body = client.get(path).json()
        assert body["ok"] is True and body["models"] and body["default_model"] in body["models"]
        assert "/apis/brill/play" in body["endpoints"]


def test_dummy_convention(client):
    # 1S by N; E leads; after E's lead it is S (dummy)'s turn: declarer N asks with dummy given.
    deal = Deal.from_pbn("N:AKQJ2.K32.A32.32 T98.QJT.KQJ.AKQJ 7654.A54.654.654 3.9876.T987.T987")
    base = {"dealer": "N", "vul": "None", "ctx": "1S------", "played": "CA"}
    ok = client.get("/apis/brill/play", params=dict(base, seat="N", hand=deal[0].to_pbn(), dummy=deal[2].to_pbn()))
    assert ok.status_code == 200, ok.text
    assert Card.parse(ok.json()["card"]).index in deal[2].cards  # a card from dummy
    as_dummy = client.get(
        "/apis/brill/play", params=dict(base, seat="S", hand=deal[2].to_pbn(), dummy=deal[0].to_pbn())
    )
    assert as_dummy.status_code == 400 and "dummy" in as_dummy.json()["error"]


HAND_N = "AKQJ2.K32.A32.32"
HAND_E = "T98.QJT.KQJ.AKQJ"
HAND_S = "7654.A54.654.654"
BID = {"seat": "N", "dealer": "N", "vul": "None", "ctx": "", "hand": HAND_N}
LEAD = {"seat": "E", "dealer": "N", "vul": "None", "ctx": "1S------", "hand": HAND_E}
PLAY = {"seat": "N", "dealer": "N", "vul": "None", "ctx": "1S------", "hand": HAND_N, "dummy": HAND_S, "played": "CA"}


def drop(params, key):
    return {k: v for k, v in params.items() if k != key}


ERROR_CASES = [
    ("bid", drop(BID, "hand"), "hand"),
    ("bid", drop(BID, "ctx"), "ctx"),
    ("lead", drop(LEAD, "ctx"), "ctx"),
    ("bid", dict(BID, seat="Q"), "seat"),
    ("bid", dict(BID, dealer="X"), "dealer"),
    ("bid", dict(BID, hand="AKQJ.K32.A32.32"), "got 12"),
    ("bid", dict(BID, hand="AKQJA.K32.A32.32"), "twice"),
    ("bid", dict(BID, hand="AKQJ2.K32.A32.3Z"), "hand"),
    ("bid", dict(BID, vul="Sometimes"), "vul"),
    ("bid", dict(BID, ctx="1SZZ", seat="W"), "ctx"),
    ("bid", dict(BID, ctx="1S1C", seat="S"), "illegal"),
    ("bid", dict(BID, ctx="--Db", seat="S"), "illegal"),
    ("bid", dict(BID, seat="E"), "not on turn"),
    ("bid", dict(BID, ctx="1S------"), "already over"),
    ("lead", dict(LEAD, ctx="--------"), "passed out"),
    ("lead", dict(LEAD, ctx="1S--"), "not over"),
    ("lead", dict(LEAD, played="CA"), "opening lead"),
    ("lead", dict(LEAD, seat="W", hand="3.9876.T987.T987"), "opening leader"),
    ("play", drop(PLAY, "played"), "played"),
    ("play", dict(PLAY, played="CAX"), "malformed"),
    ("play", dict(PLAY, played="CZ"), "malformed"),
    ("play", dict(PLAY, played="CAC4C7C2CA"), "already played"),
    ("play", dict(PLAY, played="SA"), "N's hand"),  # E cannot lead N's ace
    ("play", dict(PLAY, played="CAD4"), "revokes"),  # dummy holds clubs but played a diamond
    ("play", dict(PLAY, dummy=HAND_N), "share"),
    ("play", dict(PLAY, seat="S", hand=HAND_S, dummy=HAND_N), "dummy"),
    ("play", dict(PLAY, played="CAC4C7C2"), "not on turn"),  # E won the trick and leads
    ("play", dict(PLAY, seat="W", hand="3.9876.T987.T987"), "ask as declarer"),
    ("play", dict(PLAY, model="nonsense"), "model"),
]


@pytest.mark.parametrize("endpoint,params,fragment", ERROR_CASES)
def test_errors_are_400_json(client, endpoint, params, fragment):
    r = client.get(f"/apis/brill/{endpoint}", params=params)
    assert r.status_code == 400, r.text
    assert r.headers["content-type"].startswith("application/json")
    assert r.headers["access-control-allow-origin"] == "*"
    message = r.json()["error"]
    assert isinstance(message, str) and fragment in message, message
