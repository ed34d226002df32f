"""Claims: a bot's answer depends only on what the claimer has seen (so a dispute leaks no hidden card), and a
player makes at most three claims in a deal (live server)."""

import dataclasses

import httpx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from live_server import start_server
from tribridge.cards import Deal, Seat, random_deal
from tribridge.dd import solve_position
from tribridge.rules.deal import DealState
from tribridge.rules.play import PlayState
from tribridge.rules.view import MakeClaim
from tribridge.server.tables.claims import claim_holds_everywhere, claimer_knowledge


def play_to(rng, tricks_left):
    """A 1N deal by N played at random until ``tricks_left`` tricks remain, at a trick's start."""
    state = DealState.start(random_deal(rng), Seat.N)
    for call in ("1N", "P", "P"):
        state = state.apply(call)
    while state.play.tricks_left > tricks_left or state.play.current_trick:
        legal = state.play.legal_cards()
        state = state.apply(legal[int(rng.integers(len(legal)))])
    return state


def twin(state, claimer, rng):
    """The same position with two cards hidden from ``claimer`` swapped between the two hands that hold them."""
    play = state.play
    hidden = [s for s in Seat if s not in (state.seat_of(claimer), play.dummy)]
    voids = play.voids_shown
    pairs = [
        (a, b)
        for a in play.remaining(hidden[0])
        for b in play.remaining(hidden[1])
        if a // 13 not in voids[hidden[1]] and b // 13 not in voids[hidden[0]]
    ]
    if not pairs:
        return None
    a, b = pairs[int(rng.integers(len(pairs)))]
    owners = np.zeros(52, dtype=np.uint8)
    for s in Seat:
        owners[list(play.deal[s].cards)] = int(s)
    owners[a], owners[b] = owners[b], owners[a]
    return dataclasses.replace(state, play=PlayState(Deal.from_owners(owners), play.contract, play.played))


@given(st.integers(0, 2**31), st.sampled_from([2, 3, 6]), st.integers(0, 2))
@settings(max_examples=10, deadline=None)
def test_a_claim_gets_the_same_answer_whatever_the_cards_the_claimer_cannot_see(seed, tricks_left, who):
    rng = np.random.default_rng(seed)
    state = play_to(rng, tricks_left)
    claimer = state.players[who]
    other = twin(state, claimer, rng)
    if other is None:
        return
    assert claimer_knowledge(state.apply(MakeClaim(0), claimer)) == claimer_knowledge(
        other.apply(MakeClaim(0), claimer)
    )
    for tricks in range(state.play.tricks_left + 1):
        here = claim_holds_everywhere(state.apply(MakeClaim(tricks), claimer))
        there = claim_holds_everywhere(other.apply(MakeClaim(tricks), claimer))
        assert here == there, (tricks, here, there)


def test_a_claim_the_real_cards_allow_but_a_layout_refutes_is_disputed():
    """Found by search: the claimer's side makes the claim on the real cards but not on every layout."""
    rng = np.random.default_rng(11)
    for _ in range(200):
        state = play_to(rng, 6)
        play = state.play
        best = max(solve_position(play).values())
        declarer_on_turn = (int(play.turn) - int(play.declarer)) % 2 == 0
        real = best if declarer_on_turn else play.tricks_left - best
        claimed = state.apply(MakeClaim(real), state.player_at(play.declarer))
        if not claim_holds_everywhere(claimed):
            return  # a claim double dummy allows on the real cards, disputed: the old oracle agreed to it
    pytest.fail("no position found where the claimer's layouts refute a claim the real cards allow")


def act(client, tid, token, body):
    return client.post(f"/api/tables/{tid}/actions", json=body, headers={"Authorization": f"Bearer {token}"})


@pytest.mark.slow
def test_at_most_three_claims_per_player_in_a_deal(tmp_path):
    proc, url = start_server(tmp_path / "claims.sqlite")
    try:
        with httpx.Client(base_url=url, timeout=30) as client:
            made = client.post("/api/tables", json={"chairs": [{"kind": "human"}] * 3, "take": 0}).json()
            tid, tokens = made["table_id"], {0: made["token"]}
            for chair in (1, 2):
                tokens[chair] = client.post(f"/api/tables/{tid}/seats/{chair}").json()["token"]
            view = client.get(f"/api/tables/{tid}/state", headers={"Authorization": f"Bearer {tokens[0]}"}).json()
            first = True
            while view["phase"] == "auction":
                call = "1N" if first else "P"
                first = False
                view = act(client, tid, tokens[view["turn_chair"]], {"type": "call", "call": call}).json()
            assert view["phase"] == "play"
            declarer = view["declarer_chair"]
            defender = next(c for c in range(3) if c != declarer)
            for _ in range(3):
                assert act(client, tid, tokens[declarer], {"type": "claim", "tricks": 13}).status_code == 200
                assert act(client, tid, tokens[defender], {"type": "dispute_claim"}).status_code == 200
            refused = act(client, tid, tokens[declarer], {"type": "claim", "tricks": 13})
            assert refused.status_code == 400 and "at most 3 claims" in refused.json()["error"]
            other = next(c for c in range(3) if c not in (declarer, defender))
            assert act(client, tid, tokens[other], {"type": "claim", "tricks": 0}).status_code == 200  # own count
    finally:
        proc.terminate()
        proc.wait(60)
