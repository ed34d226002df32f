"""DealState: random legal games end legally and score as `tribridge score`; views; claims by each chair."""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.cards import Card, Seat, random_deal
from tribridge.cli.main import main as cli_main
from tribridge.errors import IllegalAction, InvalidInput
from tribridge.rules.auction import Call, reseat
from tribridge.rules.deal import DealState, replay
from tribridge.rules.game import DealRecord, play_deal_record, random_bid_policy, random_play_policy
from tribridge.rules.scoring import get_scheme, honours_held
from tribridge.rules.view import AgreeClaim, DisputeClaim, MakeClaim


def _random_game(seed: int, claim_rate: float = 0.0) -> DealState:
    """A whole deal with uniformly random legal actions (claims and answers included when ``claim_rate`` > 0)."""
    rng = np.random.default_rng(seed)
    state = DealState.start(random_deal(rng), Seat(int(rng.integers(4))))
    while not state.is_terminal():
        if state.claim is not None:
            player = state.awaiting[int(rng.integers(len(state.awaiting)))]
            action = AgreeClaim() if rng.random() < 0.6 else DisputeClaim()
            state = state.apply(action, player)
            continue
        if state.phase == "play" and rng.random() < claim_rate:
            player = state.players[int(rng.integers(3))]
            state = state.apply(MakeClaim(int(rng.integers(state.play.tricks_left + 1))), player)
            continue
        legal = [a for a in state.legal_actions() if isinstance(a, (Call, Card))]
        pass_first = state.phase == "auction" and rng.random() < 0.55
        action = Call("pass") if pass_first and Call("pass") in legal else legal[int(rng.integers(len(legal)))]
        state = state.apply(action)
    return state


def _cli_score(contract: str, tricks: int, scheme: str, honours: str | None) -> dict:
    argv = ["score", "--contract", contract, "--tricks", str(tricks), "--scheme", scheme, "--json"]
    if honours is not None:
        argv += ["--honours", honours]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli_main(argv) in (0, None)
    return json.loads(out.getvalue())


@given(st.integers(0, 2**32 - 1), st.sampled_from(["classic", "tribridge"]), st.floats(0, 0.05), st.booleans())
@settings(max_examples=40, deadline=None)
def test_random_games_end_legally_and_score_as_the_score_command(seed, scheme_name, claim_rate, with_honours):
    state = _random_game(seed, claim_rate)
    scheme = replace(get_scheme(scheme_name), honours=with_honours)
    assert state.is_terminal() and state.legal_actions() == [] and state.turn is None
    with pytest.raises(IllegalAction):
        state.apply("P", Seat.N)
    points = state.points(scheme)
    assert set(points) == set(state.players)
    if state.contract is None:
        assert state.play is None and points == {p: 0 for p in state.players}
        return
    play = state.play
    assert play is not None and play.is_over
    assert play.declarer_tricks + play.defender_tricks == 13
    if play.claimed is None:
        assert len(play.played) == 52
    honours = honours_held(play.deal, state.contract)
    honours_arg = f"{honours.declarer},{honours.defenders[0]},{honours.defenders[1]}"
    denom = "NT" if state.contract.denom == 4 else "CDHS"[state.contract.denom]
    contract_text = f"{state.contract.level}{denom}" + "X" * state.contract.doubling
    expected = _cli_score(contract_text, play.declarer_tricks, scheme_name, honours_arg if with_honours else None)
    declarer = state.contract.declarer
    lho, rho = state.player_at(declarer.lho), state.player_at(declarer.rho)
    assert points[declarer] == expected["declarer"]
    assert (points[lho], points[rho]) == tuple(expected["defenders"])


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=15, deadline=None)
def test_views_never_show_a_hidden_card(seed):
    rng = np.random.default_rng(seed)
    state = DealState.start(random_deal(rng), Seat(int(rng.integers(4))))
    while not state.is_terminal():
        for player in state.players:
            view = state.view(player)
            assert view.hand == state.deal[player] and view.held <= set(view.hand.cards)
            assert view.all_hands is None
            played = {c.index for c in view.played_cards}
            if state.play is None or not state.play.played:
                assert view.dummy is None
            else:
                assert view.dummy == state.deal[state.widow]
                assert view.dummy_held == frozenset(state.deal[state.widow].cards) - played
            assert view.my_turn == (player in state.awaiting)
            assert list(view.legal) == state.legal_actions(player)
            # who made each call: the dealing seat, never the widow
            assert all(c.player != state.widow for c in view.calls)
        legal = [a for a in state.legal_actions() if isinstance(a, (Call, Card))]
        state = state.apply(legal[int(rng.integers(len(legal)))])
    for player in state.players:
        assert state.view(player).all_hands is not None  # every hand is shown once the deal is over


def _in_play(seed: int = 5, dealer: Seat = Seat.N) -> DealState:
    """A deal in play after 1NT by the dealer's LHO (so the widow moves) and four cards."""
    deal = random_deal(np.random.default_rng(seed))
    state = replay(deal, dealer, ["P", "1N", "P", "P"])
    for _ in range(4):
        state = state.apply(state.legal_actions()[0])
    return state


def test_reseating_happens_once_and_cards_are_credited_to_players():
    state = _in_play()
    declarer = state.contract.declarer
    assert state.seats == reseat(state.dealer, declarer)
    assert state.seat_of(state.widow) == declarer.partner  # the widow's hand is dummy, opposite the declarer
    view = state.view(declarer)
    for card in view.played:
        expected = declarer if card.seat == declarer.partner else state.player_at(card.seat)
        assert card.player == expected and card.player != state.widow
    assert [c.player for c in view.calls] == [state.auction.seat_of_call(i) for i in range(4)]


def test_declarer_claim_needs_both_defenders():
    state = _in_play()
    declarer = state.contract.declarer
    defenders = [p for p in state.players if p != declarer]
    left = state.play.tricks_left
    claimed = state.apply(MakeClaim(left), declarer)
    assert claimed.claim is not None and set(claimed.awaiting) == set(defenders)
    assert claimed.turn is None  # nobody plays while a claim is pending
    with pytest.raises(IllegalAction, match="pending"):
        claimed.apply(claimed.play.legal_cards()[0], state.turn)
    # the defenders see the claimer's remaining cards; the claimer sees its own as always
    seen = claimed.view(defenders[0]).claimer_held
    assert seen == frozenset(claimed.play.remaining(declarer))
    one = claimed.apply(AgreeClaim(), defenders[0])
    assert not one.is_terminal() and one.awaiting == (defenders[1],)
    with pytest.raises(IllegalAction):
        one.apply(AgreeClaim(), defenders[0])  # no second answer
    done = one.apply(AgreeClaim(), defenders[1])
    assert done.is_terminal() and done.declarer_tricks == state.play.declarer_tricks + left


def test_a_dispute_withdraws_the_claim_and_play_goes_on():
    state = _in_play()
    declarer = state.contract.declarer
    defender = next(p for p in state.players if p != declarer)
    disputed = state.apply(MakeClaim(5), declarer).apply(DisputeClaim(), defender)
    assert disputed.claim is None and disputed.phase == "play" and disputed.turn == state.turn
    assert disputed.play == state.play


def test_a_defender_cannot_concede_for_the_other_defender():
    state = _in_play()
    declarer = state.contract.declarer
    first, second = [p for p in state.players if p != declarer]
    conceded = state.apply(MakeClaim(0), first)  # the defenders' side takes none of the rest
    assert set(conceded.awaiting) == {declarer, second}
    after_declarer = conceded.apply(AgreeClaim(), declarer)
    assert not after_declarer.is_terminal()  # not binding without the other defender
    assert after_declarer.apply(DisputeClaim(), second).phase == "play"
    ended = after_declarer.apply(AgreeClaim(), second)
    assert ended.is_terminal() and ended.play.defender_tricks == state.play.defender_tricks


def test_claim_errors_name_the_field():
    state = _in_play()
    with pytest.raises(InvalidInput, match="tricks"):
        state.apply(MakeClaim(14), state.contract.declarer)
    with pytest.raises(IllegalAction, match="widow"):
        state.apply(MakeClaim(1), state.widow)
    with pytest.raises(IllegalAction, match="no claim"):
        state.apply(AgreeClaim(), state.contract.declarer)
    auction = DealState.start(random_deal(np.random.default_rng(1)), Seat.S)
    with pytest.raises(IllegalAction, match="during the play"):
        auction.apply(MakeClaim(1), auction.turn)


def test_not_your_turn():
    state = DealState.start(random_deal(np.random.default_rng(2)), Seat.E)
    other = next(p for p in state.players if p != state.turn)
    with pytest.raises(IllegalAction, match="not .*turn"):
        state.apply(Call("pass"), other)


def test_the_record_and_its_policies_see_exactly_the_deal_state_views():
    deal = random_deal(np.random.default_rng(21))
    rng = np.random.default_rng(4)
    seen: list = []

    def watch(inner):
        def policy(view):
            seen.append(view)
            return inner(view)

        return policy

    players = DealState.start(deal, Seat.W).players
    record = play_deal_record(
        deal,
        Seat.W,
        {s: watch(random_bid_policy(rng)) for s in players},
        {s: watch(random_play_policy(rng)) for s in players},
    )
    state = record.state()
    assert DealRecord.from_state(state, record.scheme) == record
    # replay the same actions and compare every view a policy was given with DealState.view
    replayed = DealState.start(deal, Seat.W)
    actions = list(record.calls) + list(record.play)
    assert len(seen) == len(actions)
    for view, action in zip(seen, actions):
        assert view == replayed.view(replayed.turn)
        replayed = replayed.apply(action)
