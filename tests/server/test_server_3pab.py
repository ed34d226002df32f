"""The three-player robot API (/apis/3pab): legal answers, reseating, deterministic, clear 400s."""

import numpy as np
import pytest
from fastapi.testclient import TestClient

from tribridge.cards import Card, random_deal
from tribridge.server.app import create_app


@pytest.fixture(scope="module")
def client(module_db_url):
    # the robot deadline is tested in test_server_robot_pool.py: a busy machine must not reach it here
    app = create_app(db_path=module_db_url, bot_delay=0, log_requests=False, robot_layouts=4, robot_deadline=120)
    with TestClient(app) as c:
        yield c


def test_bid_lead_and_play_a_whole_first_trick(client):
    deal = random_deal(np.random.default_rng(7))
    # dealer N, widow S; N opens 1NT, E and W pass: N declares, the widow is already opposite, E leads.
    base = {"dealer": "N", "ctx": "1N----"}
    bid = client.get(
        "/apis/3pab/bid", params={"seat": "N", "dealer": "N", "ctx": "", "hand": deal[0].to_pbn(), "model": "random"}
    )
    assert bid.status_code == 200 and "bid" in bid.json()
    lead = client.get("/apis/3pab/lead", params={**base, "seat": "E", "hand": deal[1].to_pbn()})
    assert lead.status_code == 200, lead.text
    card = Card.parse(lead.json()["card"])
    assert card.index in deal[1].cards
    again = client.get("/apis/3pab/lead", params={**base, "seat": "E", "hand": deal[1].to_pbn()})
    assert again.json()["card"] == lead.json()["card"]
    # declarer N asks for the widow's (dummy's) card at play seat S
    dummy = client.get(
        "/apis/3pab/play",
        params={**base, "seat": "N", "hand": deal[0].to_pbn(), "dummy": deal[2].to_pbn(), "played": str(card)},
    )
    assert dummy.status_code == 200, dummy.text
    answer = Card.parse(dummy.json()["card"])
    assert answer.index in deal[2].cards
    led_suit = [c for c in deal[2].cards if c // 13 == card.index // 13]
    assert not led_suit or answer.index in led_suit  # follows suit when it can


def test_lead_errors_are_400_json(client):
    deal = random_deal(np.random.default_rng(8))
    played = client.get(
        "/apis/3pab/lead",
        params={"dealer": "N", "ctx": "1N----", "seat": "E", "hand": deal[1].to_pbn(), "played": "SA"},
    )
    assert played.status_code == 400 and "played" in played.json()["error"]
    unfinished = client.get(
        "/apis/3pab/lead", params={"dealer": "N", "ctx": "1N", "seat": "E", "hand": deal[1].to_pbn()}
    )
    assert unfinished.status_code == 400 and "error" in unfinished.json()
