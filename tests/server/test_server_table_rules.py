"""Table rules at the server: secret deals, claims through DealState, typed options, names, and views that are DealState's."""

import json
import time

import numpy as np
import pytest
from fastapi.testclient import TestClient
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.cards import Card, Seat, random_deal
from tribridge.rules.auction import Call
from tribridge.rules.deal import DealState
from tribridge.rules.view import AgreeClaim, MakeClaim
from tribridge.server.app import create_app
from tribridge.server.tables.table import deal_for

HUMANS = [{"kind": "human"}] * 3
ONE_HUMAN = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]


@pytest.fixture()
def client(db_url):
    app = create_app(db_path=db_url, bot_delay=0, log_requests=False)
    with TestClient(app) as c:
        yield c


def auth(token):
    return {"Authorization": f"Bearer {token}"}


def three_humans(client, **extra):
    body = client.post("/api/tables", json={"chairs": HUMANS, "take": 0, **extra}).json()
    tid, tokens = body["table_id"], {0: body["token"]}
    for chair in (1, 2):
        tokens[chair] = client.post(f"/api/tables/{tid}/seats/{chair}").json()["token"]
    return tid, tokens


def view(client, tid, token):
    r = client.get(f"/api/tables/{tid}/state", headers=auth(token))
    assert r.status_code == 200, r.text
    return r.json()


def act(client, tid, token, action):
    return client.post(f"/api/tables/{tid}/actions", headers=auth(token), json=action)


def to_play_phase(client, tid, tokens):
    """The chair on turn opens 1NT, the others pass; then the opening lead. Returns chair 0's view."""
    for _ in range(3):
        v = view(client, tid, tokens[0])
        turn = v["turn_chair"]
        call = "1N" if not any(a["call"] == "1N" for a in v["auction"]) else "P"
        assert act(client, tid, tokens[turn], {"type": "call", "call": call}).status_code == 200
    v = view(client, tid, tokens[0])
    assert v["phase"] == "play" and v["contract"] == "1NT"
    leader = v["turn_chair"]
    card = view(client, tid, tokens[leader])["legal_cards"][0]
    assert act(client, tid, tokens[leader], {"type": "play", "card": card}).status_code == 200
    return view(client, tid, tokens[0])


def all_keys(obj):
    if isinstance(obj, dict):
        return set(obj) | set().union(*(all_keys(v) for v in obj.values()))
    if isinstance(obj, list):
        return set().union(*(all_keys(v) for v in obj)) if obj else set()
    return set()


# --- finding 1: the creator cannot learn hidden cards -------------------------------------------------------
def test_chosen_deals_only_where_the_other_chairs_are_bots(client):
    for extra in ({"seed": 5}, {"deals": [random_deal(np.random.default_rng(1)).to_pbn()]}):
        r = client.post("/api/tables", json={"chairs": HUMANS, "take": 0, **extra})
        assert r.status_code == 400 and "bots" in r.json()["error"], r.text
        assert r.json()["error"].startswith(next(iter(extra)))
    two = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]
    assert client.post("/api/tables", json={"chairs": two, "take": 0, "seed": 5}).status_code == 400


def test_secret_deals_are_never_sent(client):
    tid, tokens = three_humans(client)
    secret = client.app.state.manager.tables[tid].config["deals"]["secret"]
    texts = [client.get(f"/api/tables/{tid}").text, json.dumps(view(client, tid, tokens[0]))]
    for _ in range(3):
        v = view(client, tid, tokens[0])
        assert act(client, tid, tokens[v["turn_chair"]], {"type": "call", "call": "P"}).status_code == 200
    texts += [
        client.get(f"/api/tables/{tid}/export.json", headers=auth(tokens[0])).text,
        json.dumps(view(client, tid, tokens[1])),
    ]
    for text in texts:
        assert secret not in text and str(int(secret, 16)) not in text
        assert "seed" not in all_keys(json.loads(text))
    # a second table draws other deals: its creator's hand is not a function of anything it chose
    tid2, tokens2 = three_humans(client)
    assert view(client, tid2, tokens2[0])["hand"] != view(client, tid, tokens[0])["hand"] or tid2 == tid


def test_practice_table_plays_the_chosen_seed_or_deals(client):
    r = client.post("/api/tables", json={"chairs": ONE_HUMAN, "take": 0, "seed": 42})
    assert r.status_code == 200 and r.json()["seed"] == 42
    v = view(client, r.json()["table_id"], r.json()["token"])
    expected = deal_for(42, 1)[Seat.parse(v["my_seat"])]
    assert sorted(v["hand"]) == sorted(str(Card(c)) for c in expected.cards)
    deal = random_deal(np.random.default_rng(9))
    r = client.post("/api/tables", json={"chairs": ONE_HUMAN, "take": 0, "deals": [deal.to_pbn()]})
    assert r.status_code == 200 and "seed" not in r.json()
    v = view(client, r.json()["table_id"], r.json()["token"])
    assert sorted(v["hand"]) == sorted(str(Card(c)) for c in deal[Seat.parse(v["my_seat"])].cards)
    bad = client.post("/api/tables", json={"chairs": ONE_HUMAN, "take": 0, "deals": ["N:AKQ.."]})
    assert bad.status_code == 400 and bad.json()["error"].startswith("deals[0]")


# --- finding 4: claims need the others' agreement -------------------------------------------------------
def test_defender_not_on_turn_cannot_end_the_deal(client):
    tid, tokens = three_humans(client)
    v = to_play_phase(client, tid, tokens)
    declarer, turn = v["declarer_chair"], v["turn_chair"]
    idle_defender = next(c for c in range(3) if c not in (declarer, turn))
    r = act(client, tid, tokens[idle_defender], {"type": "claim", "tricks": 0})
    assert r.status_code == 200 and r.json()["phase"] == "play"
    claim = r.json()["claim"]
    assert claim["chair"] == idle_defender and claim["tricks"] == 0 and claim["tricks_left"] == 13
    assert claim["awaiting_chairs"] == sorted({0, 1, 2} - {idle_defender}) and claim["agreed_chairs"] == []
    assert claim["claimer_hand"] is None  # the claimer's own view: its hand is in "hand"
    others = view(client, tid, tokens[declarer])
    own = view(client, tid, tokens[idle_defender])["hand"]
    assert others["must_answer_claim"] and sorted(others["claim"]["claimer_hand"]) == sorted(own)
    # the other defender disputes: play goes on, nothing was conceded
    partner = next(c for c in range(3) if c not in (declarer, idle_defender))
    assert act(client, tid, tokens[declarer], {"type": "accept_claim"}).status_code == 200
    assert act(client, tid, tokens[partner], {"type": "dispute_claim"}).status_code == 200
    after = view(client, tid, tokens[0])
    assert after["phase"] == "play" and after["claim"] is None and after["tricks"] == {"declarer": 0, "defenders": 0}
    # a second concession that both others accept ends the deal
    assert act(client, tid, tokens[idle_defender], {"type": "claim", "tricks": 0}).status_code == 200
    assert act(client, tid, tokens[idle_defender], {"type": "accept_claim"}).status_code == 400  # not its own
    for chair in (declarer, partner):
        assert act(client, tid, tokens[chair], {"type": "accept_claim"}).status_code == 200
    done = view(client, tid, tokens[0])
    assert done["phase"] == "done" and done["tricks"] == {"declarer": 13, "defenders": 0}


def test_declarer_claim_needs_both_defenders_and_survives_restart(db_url):
    db = db_url
    with TestClient(create_app(db_path=db, bot_delay=0, log_requests=False)) as c:
        tid, tokens = three_humans(c)
        v = to_play_phase(c, tid, tokens)
        declarer = v["declarer_chair"]
        defenders = [ch for ch in range(3) if ch != declarer]
        assert view(c, tid, tokens[declarer])["can_claim"]
        assert act(c, tid, tokens[declarer], {"type": "claim", "tricks": 13}).status_code == 200
        assert act(c, tid, tokens[declarer], {"type": "play", "card": "SA"}).status_code == 400  # claim pending
        assert act(c, tid, tokens[defenders[0]], {"type": "accept_claim"}).status_code == 200
        mid = view(c, tid, tokens[0])
        assert mid["phase"] == "play" and mid["claim"]["agreed_chairs"] == [defenders[0]]
        assert mid["claim"]["awaiting_chairs"] == [defenders[1]]
        before = {ch: view(c, tid, t) for ch, t in tokens.items()}
    with TestClient(create_app(db_path=db, bot_delay=0, log_requests=False)) as c2:
        assert {ch: view(c2, tid, t) for ch, t in tokens.items()} == before
        assert act(c2, tid, tokens[defenders[1]], {"type": "accept_claim"}).status_code == 200
        assert view(c2, tid, tokens[0])["tricks"]["declarer"] == 13


def test_bots_answer_a_claim_as_double_dummy_says(client):
    """A person claims at a table of two bots: they agree exactly when double dummy confirms; a concession always."""
    r = client.post("/api/tables", json={"chairs": ONE_HUMAN, "take": 0, "seed": 3})
    tid, token = r.json()["table_id"], r.json()["token"]
    deadline = time.time() + 60
    while time.time() < deadline:
        v = view(client, tid, token)
        if v["phase"] == "play" and v["can_claim"]:
            break
        if v["phase"] == "done":
            assert act(client, tid, token, {"type": "next"}).status_code == 200
        elif v["my_turn"] and v["phase"] == "auction":
            call = "1N" if "1N" in v["legal_calls"] else "P"
            assert act(client, tid, token, {"type": "call", "call": call}).status_code == 200
        elif v["my_turn"]:
            assert act(client, tid, token, {"type": "play", "card": v["legal_cards"][0]}).status_code == 200
        else:
            time.sleep(0.02)
    assert v["claim"] is None
    # claim every remaining trick: the bots agree exactly when double dummy confirms it
    from tribridge.server.tables.bots import claim_is_sound

    table = client.app.state.manager.tables[tid]
    left = table.current().play.tricks_left
    assert act(client, tid, token, {"type": "claim", "tricks": left}).status_code == 200
    sound = claim_is_sound(table.current())
    while time.time() < deadline and view(client, tid, token)["claim"] is not None:
        time.sleep(0.05)
    answered = view(client, tid, token)
    assert answered["phase"] == ("done" if sound else "play"), (sound, answered["phase"])
    if sound:
        return
    assert act(client, tid, token, {"type": "claim", "tricks": 0}).status_code == 200
    while time.time() < deadline and view(client, tid, token)["phase"] != "done":
        time.sleep(0.05)
    assert view(client, tid, token)["phase"] == "done"


def _declarer_total(play):
    """The declarer side's tricks at the end under best play by both sides (exhaustive; small endings only)."""
    if play.is_over:
        return play.declarer_tricks
    totals = [_declarer_total(play.apply(card)) for card in play.legal_cards()]
    declarer_side = (int(play.turn) - int(play.contract.declarer)) % 2 == 0
    return max(totals) if declarer_side else min(totals)


@given(st.integers(0, 2**31))
@settings(max_examples=8, deadline=None)
def test_claim_check_agrees_with_exhaustive_search(seed):
    """``claim_is_sound`` (double dummy) against a plain search of the last two tricks, for every claim size."""
    from tribridge.server.tables.bots import claim_is_sound

    rng = np.random.default_rng(seed)
    state = DealState.start(random_deal(rng), Seat.N)
    for call in ("1N", "P", "P"):
        state = state.apply(call)
    while state.play.tricks_left > 2 or state.play.current_trick:
        legal = state.play.legal_cards()
        state = state.apply(legal[int(rng.integers(len(legal)))])
    play = state.play
    declarer_rest = _declarer_total(play) - play.declarer_tricks
    for claimer in state.players:
        on_declarer_side = (int(state.seat_of(claimer)) - int(play.contract.declarer)) % 2 == 0
        best = declarer_rest if on_declarer_side else play.tricks_left - declarer_rest
        for tricks in range(play.tricks_left + 1):
            claimed = state.apply(MakeClaim(tricks), claimer)
            assert claim_is_sound(claimed) == (best >= tricks), (claimer, tricks, best)


# --- finding 5: typed options, names ------------------------------------------------------------------
def test_options_are_type_checked(client):
    for options, field in (
        ({"dealer_must_bid": "no"}, "options.dealer_must_bid"),
        ({"ranking": "x"}, "options.ranking"),
        ("yes", "options"),
    ):
        r = client.post("/api/tables", json={"options": options, "take": 0})
        assert r.status_code == 400 and r.json()["error"].startswith(field), r.text
    r = client.post("/api/tables", json={"options": {"dealer_must_bid": True}, "take": 0})
    assert r.status_code == 200
    assert client.app.state.manager.tables[r.json()["table_id"]].options().dealer_must_bid is True


def test_names_are_validated_and_shown(client):
    lone = '{"chairs": [{"kind": "human", "name": "A\\ud800"}, {"kind": "bot"}, {"kind": "bot"}], "take": 0}'
    r = client.post("/api/tables", content=lone, headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and r.json()["error"].startswith("chairs[0].name") and "surrogate" in r.json()["error"]
    for bad in ("x" * 41, "", "a\x07b", 7):
        chairs = [{"kind": "human", "name": bad}, {"kind": "bot"}, {"kind": "bot"}]
        assert client.post("/api/tables", json={"chairs": chairs, "take": 0}).status_code == 400, bad
    chairs = [{"kind": "human", "name": " Ann "}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]
    body = client.post("/api/tables", json={"chairs": chairs, "take": 0}).json()
    tid = body["table_id"]
    assert [c["name"] for c in body["chairs"]] == ["Ann", "Player 2", "Bot (random)"]
    bad = client.post(
        f"/api/tables/{tid}/seats/1", content='{"name": "\\udfff"}', headers={"Content-Type": "application/json"}
    )
    assert bad.status_code == 400 and "surrogate" in bad.json()["error"]
    tok = client.post(f"/api/tables/{tid}/seats/1", json={"name": "Bo"}).json()["token"]
    info = client.get(f"/api/tables/{tid}").json()
    assert [c["name"] for c in info["chairs"]] == ["Ann", "Bo", "Bot (random)"]
    assert info["deal_no"] == 1 and info["totals"] == [0, 0, 0]
    assert client.get(f"/api/tables/{tid}/export.json", headers=auth(tok)).status_code == 200


# --- every chair's JSON view is DealState.view, serialised ---------------------------------------------------
def _expected(sv, chair_of):
    """The visibility-bearing fields of a chair's JSON view, written here from the SeatView alone."""

    def cards(idx):
        return sorted(str(Card(c)) for c in idx)

    return {
        "hand": cards(sv.held),
        "widow": None if sv.dummy_held is None else cards(sv.dummy_held),
        "legal_calls": sorted(str(a) for a in sv.legal if isinstance(a, Call)),
        "legal_cards": sorted(str(a) for a in sv.legal if isinstance(a, Card)),
        "auction": [(chair_of(c.player), c.player.letter, str(c.call)) for c in sv.calls],
        "played": [str(p.card) for p in sv.played[len(sv.tricks) * 4 :]],
        "my_seat": sv.seat.letter,
        "phase": sv.phase,
        "can_claim": any(isinstance(a, MakeClaim) for a in sv.legal),
        "must_answer_claim": any(isinstance(a, AgreeClaim) for a in sv.legal),
        "claimer_hand": None if sv.claimer_held is None else cards(sv.claimer_held),
    }


def _actual(v):
    return {
        "hand": sorted(v["hand"]),
        "widow": None if v["widow"] is None else sorted(v["widow"]),
        "legal_calls": sorted(v["legal_calls"]),
        "legal_cards": sorted(v["legal_cards"]),
        "auction": [(a["chair"], a["seat"], a["call"]) for a in v["auction"]],
        "played": [c["card"] for c in v["current_trick"]],
        "my_seat": v["my_seat"],
        "phase": v["phase"],
        "can_claim": v["can_claim"],
        "must_answer_claim": v["must_answer_claim"],
        "claimer_hand": None
        if v["claim"] is None
        else v["claim"]["claimer_hand"] and sorted(v["claim"]["claimer_hand"]),
    }


def test_every_chair_view_is_the_deal_state_view(client):
    tid, tokens = three_humans(client)
    table = client.app.state.manager.tables[tid]
    rng = np.random.default_rng(11)
    for step in range(60):
        state = table.current()
        for chair, token in tokens.items():
            sv = state.view(table.player_of(chair))
            assert _actual(view(client, tid, token)) == _expected(sv, table.chair_of_player), (step, chair)
        if state.phase == "done":
            break
        if state.claim is not None:
            chair = table.chair_of_player(state.awaiting[0])
            action = {"type": "accept_claim" if rng.random() < 0.5 else "dispute_claim"}
        elif state.phase == "play" and rng.random() < 0.1:
            chair, action = (
                int(rng.integers(3)),
                {"type": "claim", "tricks": int(rng.integers(state.play.tricks_left + 1))},
            )
        else:
            chair = table.chair_of_player(state.turn)
            sv = state.view(state.turn)
            if state.phase == "auction":
                legal = sv.legal_calls()
                call = legal[0] if rng.random() < 0.6 else legal[int(rng.integers(len(legal)))]
                action = {"type": "call", "call": str(call)}
            else:
                legal = sv.legal_cards()
                action = {"type": "play", "card": str(legal[int(rng.integers(len(legal)))])}
        assert act(client, tid, tokens[chair], action).status_code == 200, action
