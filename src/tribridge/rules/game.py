"""One whole 3PAB deal driven by plain policy callables over ``DealState``; the deal record.

Seats: the three players are known by their *dealing* seats (the keys of the ``bidders`` and ``players``
dicts); a policy is called with its player's ``SeatView`` (``DealState.view``), which shows the *play*
seats after the auction. The declarer's policy also plays dummy's cards.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tribridge.cards import Card, Deal, Seat, random_deal
from tribridge.dealing.streams import random_stream
from tribridge.errors import IllegalAction, InvalidInput
from tribridge.rules import pbn, pbn_write
from tribridge.rules.auction import PASS, AuctionOptions, AuctionState, Call, Contract, play_deal
from tribridge.rules.deal import DealState, options_from, replay
from tribridge.rules.play import PlayState
from tribridge.rules.scoring import DealScore, ScoringScheme, get_scheme
from tribridge.rules.view import SeatView

BidPolicy = Callable[[SeatView], Call]
PlayPolicy = Callable[[SeatView], Card]


@dataclass(frozen=True)
class DealRecord:
    """A finished deal: deal (dealing seats), dealer, auction, contract, seat map, play, tricks and scores."""

    deal: Deal
    dealer: Seat
    calls: tuple[Call, ...]
    contract: Contract | None
    seat_map: dict[Seat, Seat]  # dealing seat -> play seat
    play: tuple[Card, ...] = ()
    claimed: tuple[Seat, int] | None = None
    declarer_tricks: int | None = None
    score: DealScore = field(default_factory=DealScore)
    scheme: str = "classic"
    options: AuctionOptions = AuctionOptions()

    @property
    def declarer(self) -> Seat | None:
        """The declarer's seat (the same in dealing and play seats), or None when thrown in."""
        return None if self.contract is None else self.contract.declarer

    @property
    def widow(self) -> Seat:
        """The widow's dealing seat (opposite the dealer)."""
        return self.dealer.partner

    @property
    def passed_out(self) -> bool:
        """True when the deal was thrown in."""
        return self.contract is None

    @property
    def play_deal(self) -> Deal:
        """The hands in play seats (the deal itself when thrown in)."""
        if self.contract is None:
            return self.deal
        return play_deal(self.deal, self.dealer, self.contract.declarer)

    def auction(self) -> AuctionState:
        """The finished auction, replayed."""
        return AuctionState.from_calls(self.dealer, self.calls, self.options)

    @classmethod
    def from_state(cls, state: DealState, scheme: ScoringScheme | str = "classic") -> DealRecord:
        """The record of a finished ``DealState``, scored under ``scheme``."""
        scheme_obj = get_scheme(scheme)
        score = state.score(scheme_obj)
        play = state.play
        if play is None:
            return cls(
                state.deal,
                state.dealer,
                state.auction.calls,
                None,
                state.seats,
                (),
                None,
                None,
                score,
                scheme_obj.name,
                state.auction.options,
            )
        return cls(
            state.deal,
            state.dealer,
            state.auction.calls,
            state.contract,
            state.seats,
            play.played,
            play.claimed,
            play.declarer_tricks,
            score,
            scheme_obj.name,
            state.auction.options,
        )

    def state(self) -> DealState:
        """The deal replayed as a ``DealState`` (every call and card checked)."""
        return replay(self.deal, self.dealer, self.calls, self.play, self.options, self.claimed)

    def play_state(self) -> PlayState | None:
        """The finished play, replayed (None when thrown in)."""
        if self.contract is None:
            return None
        state = PlayState(self.play_deal, self.contract, self.play)
        if self.claimed is not None:
            state = PlayState(state.deal, state.contract, state.played, self.claimed)
        return state

    # --- JSON ---------------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (use ``json.dumps`` on it); ``from_json`` reads it back."""
        return {
            "deal": self.deal.to_pbn(),
            "dealer": self.dealer.letter,
            "widow": self.widow.letter,
            "options": {"ranking": self.options.ranking, "dealer_must_bid": self.options.dealer_must_bid},
            "auction": [str(c) for c in self.calls],
            "contract": None if self.contract is None else str(self.contract),
            "declarer": None if self.declarer is None else self.declarer.letter,
            "seat_map": {a.letter: b.letter for a, b in sorted(self.seat_map.items())},
            "play": [str(c) for c in self.play],
            "claimed": None if self.claimed is None else {"seat": self.claimed[0].letter, "tricks": self.claimed[1]},
            "declarer_tricks": self.declarer_tricks,
            "scheme": self.scheme,
            "score": self.score.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str) -> DealRecord:
        """Read a record from ``to_json`` output (a dict or its JSON text); the auction and play are re-checked."""
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as exc:
                raise InvalidInput("record", f"not valid JSON: {exc}") from None
        if not isinstance(data, Mapping):
            raise InvalidInput("record", "expected a JSON object")
        try:
            deal = Deal.from_pbn(data["deal"], "record.deal")
            dealer = Seat.parse(data["dealer"], "record.dealer")
            options = options_from(data.get("options"))
            calls = tuple(Call.parse(c, f"record.auction[{i}]") for i, c in enumerate(data["auction"]))
            play = tuple(Card.parse(c, f"record.play[{i}]") for i, c in enumerate(data.get("play") or []))
            claimed_data = data.get("claimed")
            claimed = (
                None
                if not claimed_data
                else (Seat.parse(claimed_data["seat"], "record.claimed.seat"), int(claimed_data["tricks"]))
            )
            state = replay(deal, dealer, calls, play, options, claimed)  # every call and card checked
            if not state.auction.is_over:
                raise InvalidInput("record.auction", "the auction is not finished")
            contract = state.contract
            if (None if contract is None else str(contract)) != data.get("contract"):
                raise InvalidInput("record.contract", f"does not match the auction ({contract})")
            tricks = data.get("declarer_tricks")
            if state.play is not None and state.play.is_over and tricks != state.play.declarer_tricks:
                raise InvalidInput(
                    "record.declarer_tricks", f"the play gives {state.play.declarer_tricks}, not {tricks}"
                )
            return cls(
                deal,
                dealer,
                calls,
                contract,
                state.seats,
                play,
                claimed,
                tricks,
                DealScore.from_json(data["score"]),
                str(data.get("scheme", "classic")),
                options,
            )
        except KeyError as exc:
            raise InvalidInput(f"record.{exc.args[0]}", "missing") from None
        except (TypeError, ValueError) as exc:
            if isinstance(exc, InvalidInput):
                raise
            raise InvalidInput("record", f"malformed record: {exc}") from None

    # --- PBN ----------------------------------------------------------------------------------
    def to_pbn(self, event: str = "tribridge 3PAB", board: int | None = None) -> str:
        """PBN text of the deal (the format is described in ``rules.pbn``); ``from_pbn`` reads it back."""
        return pbn_write.record_to_pbn(self, event, board)

    @classmethod
    def from_pbn(cls, text: str | pbn.PbnBoard) -> DealRecord:
        """Read one game written by ``to_pbn`` (text or a ``PbnBoard``); the auction and play are re-checked."""
        return cls.from_json(pbn.record_json(text))


def play_deal_record(
    deal: Deal,
    dealer: Seat | int | str,
    bidders: Mapping[Seat, BidPolicy],
    players: Mapping[Seat, PlayPolicy],
    scheme: ScoringScheme | str = "classic",
    options: AuctionOptions | None = None,
) -> DealRecord:
    """Play one whole deal. ``bidders``/``players`` are keyed by the three players' dealing seats."""
    scheme_obj = get_scheme(scheme)
    state = DealState.start(deal, dealer, options)
    for seat in state.players:
        if seat not in bidders:
            raise InvalidInput("bidders", f"no bidding policy for {seat.letter}")
    state = play_to_end(bid_to_end(state, bidders), players)
    return DealRecord.from_state(state, scheme_obj)


def bid_to_end(state: DealState, bidders: Mapping[Seat, BidPolicy]) -> DealState:
    """The state once the auction is over, each player calling with its policy (keyed by dealing seat; checked)."""
    while state.phase == "auction":
        player = state.turn
        assert player is not None
        state = state.apply(checked_call(bidders[player], state, player))
    return state


def play_to_end(state: DealState, players: Mapping[Seat, PlayPolicy]) -> DealState:
    """The state once the deal is over, each player (for dummy too) playing with its policy (checked)."""
    while not state.is_terminal():
        player = state.turn
        assert player is not None
        if player not in players:
            raise InvalidInput("players", f"no card-play policy for {player.letter}")
        state = state.apply(checked_card(players[player], state, player))
    return state


def checked_call(policy: BidPolicy, state: DealState, player: Seat) -> Call:
    """The call ``policy`` chooses for ``player``, checked against the rules."""
    call = policy(state.view(player))
    if isinstance(call, str):
        call = Call.parse(call)
    reason = state.auction.illegal_reason(call)
    if reason is not None:
        raise IllegalAction("call", f"policy for {player.letter} chose {call}: {reason}")
    return call


def checked_card(policy: PlayPolicy, state: DealState, player: Seat) -> Card:
    """The card ``policy`` chooses for ``player`` (for dummy too), checked against the rules."""
    card = policy(state.view(player, reveal_all=bool(getattr(policy, "sees_all", False))))
    if isinstance(card, str):
        card = Card.parse(card)
    assert state.play is not None and state.to_play is not None
    reason = state.play.illegal_reason(card)
    if reason is not None:
        raise IllegalAction("card", f"policy for {player.letter} chose {card} for {state.to_play.letter}: {reason}")
    return card


def random_bid_policy(rng: np.random.Generator, pass_probability: float = 0.5) -> BidPolicy:
    """A bidder that passes with ``pass_probability`` when it may, else makes a uniformly random other legal call."""

    def policy(view: SeatView) -> Call:
        legal = view.legal_calls()
        others = [c for c in legal if c != PASS]
        if PASS in legal and (not others or rng.random() < pass_probability):
            return PASS
        return others[int(rng.integers(len(others)))]

    return policy


def random_play_policy(rng: np.random.Generator) -> PlayPolicy:
    """A player that plays a uniformly random legal card."""

    def policy(view: SeatView) -> Card:
        legal = view.legal_cards()
        return legal[int(rng.integers(len(legal)))]

    return policy


def play_random_deal(
    seed: int | None,
    scheme: ScoringScheme | str = "classic",
    dealer: Seat | int | str = Seat.N,
    options: AuctionOptions | None = None,
) -> DealRecord:
    """One random deal played by random policies (a smoke test of the whole engine)."""
    rng = random_stream(seed)
    deal = random_deal(rng)
    seats = AuctionState.start(dealer).bidders
    bidders = {s: random_bid_policy(rng) for s in seats}
    players = {s: random_play_policy(rng) for s in seats}
    return play_deal_record(deal, dealer, bidders, players, scheme, options)
