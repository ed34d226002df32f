"""One whole 3PAB deal: auction, reseating, play and score, driven by plain policy callables; the deal record.

Seats: the three players are known by their *dealing* seats (the keys of the ``bidders`` and ``players``
dicts); after the auction the widow's hand is moved opposite the declarer (``auction.reseat``), and a
player's ``PlayView`` shows the *play* seats. The declarer's policy also plays dummy's cards.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from tribridge.cards import Card, Deal, Hand, Seat
from tribridge.errors import IllegalAction, InvalidInput
from tribridge.rules.auction import (
    PASS, AuctionOptions, AuctionState, Call, Contract, opening_leader, play_deal, reseat,
)
from tribridge.rules.play import PlayState
from tribridge.rules.scoring import DealScore, ScoringScheme, get_scheme, honours_held, score_deal


@dataclass(frozen=True)
class BidView:
    """What a bidder sees: its dealing ``seat``, its ``hand``, the ``dealer`` and the ``auction`` so far."""

    seat: Seat
    hand: Hand
    dealer: Seat
    auction: AuctionState

    def legal_calls(self) -> list[Call]:
        """The calls this bidder may make now."""
        return self.auction.legal_calls()


@dataclass(frozen=True)
class PlayView:
    """What a card player sees: ``seat`` to move (play seats; may be dummy's), the deciding player's own
    13-card ``hand``, dummy's 13-card hand once exposed (after the opening lead), and the ``state``.

    Bots must read only visible information from ``state``: the cards played, the contract, whose
    turn it is, and ``state.remaining`` of their own hand and of dummy.
    """

    seat: Seat
    hand: Hand
    dummy: Hand | None
    state: PlayState

    @property
    def controller(self) -> Seat:
        """The seat that decides: the declarer when dummy is to play, else ``seat``."""
        return self.state.declarer if self.seat == self.state.dummy else self.seat

    def legal_cards(self) -> list[Card]:
        """The cards that may be played now."""
        return self.state.legal_cards()


BidPolicy = Callable[[BidView], Call]
PlayPolicy = Callable[[PlayView], Card]


def play_view(state: PlayState) -> PlayView:
    """The view of the player who decides the next card in ``state``."""
    seat = state.turn
    if seat is None:
        raise InvalidInput("state", "play is over: nobody is to move")
    controller = state.declarer if seat == state.dummy else seat
    dummy = state.deal[state.dummy] if state.dummy_exposed else None
    return PlayView(seat, state.deal[controller], dummy, state)


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
    def from_json(cls, data: Mapping[str, Any] | str) -> "DealRecord":
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
            opts = data.get("options") or {}
            options = AuctionOptions(opts.get("ranking", "contract"), bool(opts.get("dealer_must_bid", False)))
            calls = tuple(Call.parse(c, f"record.auction[{i}]") for i, c in enumerate(data["auction"]))
            auction = AuctionState.from_calls(dealer, calls, options)
            if not auction.is_over:
                raise InvalidInput("record.auction", "the auction is not finished")
            contract = auction.contract
            if (None if contract is None else str(contract)) != data.get("contract"):
                raise InvalidInput("record.contract", f"does not match the auction ({contract})")
            play = tuple(Card.parse(c, f"record.play[{i}]") for i, c in enumerate(data.get("play") or []))
            claimed_data = data.get("claimed")
            claimed = None if not claimed_data else (Seat.parse(claimed_data["seat"], "record.claimed.seat"),
                                                     int(claimed_data["tricks"]))
            seat_map = {s: s for s in Seat} if contract is None else reseat(dealer, contract.declarer)
            if contract is None and play:
                raise InvalidInput("record.play", "a thrown-in deal has no play")
            tricks = data.get("declarer_tricks")
            if contract is not None:
                state = PlayState(play_deal(deal, dealer, contract.declarer), contract, play)  # validates the cards
                if claimed is not None:
                    state = state.apply_claim(*claimed)
                if state.is_over and tricks != state.declarer_tricks:
                    raise InvalidInput("record.declarer_tricks", f"the play gives {state.declarer_tricks}, not {tricks}")
            return cls(deal, dealer, calls, contract, seat_map, play, claimed, tricks,
                       DealScore.from_json(data["score"]), str(data.get("scheme", "classic")), options)
        except KeyError as exc:
            raise InvalidInput(f"record.{exc.args[0]}", "missing") from None
        except (TypeError, ValueError) as exc:
            if isinstance(exc, InvalidInput):
                raise
            raise InvalidInput("record", f"malformed record: {exc}") from None

    # --- PBN ----------------------------------------------------------------------------------
    def to_pbn(self, event: str = "tribridge 3PAB", board: int | None = None) -> str:
        """PBN text of the deal: Dealer, Deal (in play seats), Declarer, Contract, Auction, Play, Result.

        The widow sat opposite the dealer; the ``Deal`` tag shows the hands after the widow moved
        opposite the declarer, so that the Play section reads naturally; the ``Auction`` section
        has ``-`` in the widow's column (the widow does not call).
        """
        lines = [f'[Event "{event}"]']
        if board is not None:
            lines.append(f'[Board "{board}"]')
        lines.append(f'[Dealer "{self.dealer.letter}"]')
        lines.append(f'[Deal "{self.play_deal.to_pbn(int(self.dealer))}"]')
        lines.append(f'[Declarer "{"" if self.declarer is None else self.declarer.letter}"]')
        lines.append(f'[Contract "{"Pass" if self.contract is None else str(self.contract)}"]')
        moved = ""
        if self.contract is not None and self.seat_map[self.widow] != self.widow:
            partner_seat = self.seat_map[self.widow]
            moved = f" The player dealt {partner_seat.letter} moved to {self.widow.letter}."
        lines.append(f"{{3PAB: the widow was dealt {self.widow.letter}, opposite the dealer "
                     f"{self.dealer.letter}; it is dummy, opposite the declarer.{moved} "
                     f"Dealt: {self.deal.to_pbn(int(self.dealer))}}}")
        lines.append(f'[Auction "{self.dealer.letter}"]')
        tokens: list[str] = []
        for i, call in enumerate(self.calls):
            tokens.append(call.to_pbn())
            if i % 3 == 1:  # after the dealer's LHO comes the widow's seat
                tokens.append("-")
        while tokens and tokens[-1] == "-":
            tokens.pop()
        lines.extend(" ".join(tokens[i:i + 4]) for i in range(0, len(tokens), 4))
        if self.contract is not None:
            leader = opening_leader(self.contract.declarer)
            lines.append(f'[Play "{leader.letter}"]')
            state = self.play_state()
            assert state is not None
            for trick_leader, cards, _winner in state.tricks:
                lines.append(_pbn_trick_line(leader, trick_leader, list(cards)))
            if state.current_trick:
                lead = state.current_trick[0][0]
                cards = [c for _, c in state.current_trick]
                lines.append(_pbn_trick_line(leader, lead, cards))
            if len(self.play) < 52:
                lines.append("*")
            lines.append(f'[Result "{self.declarer_tricks if self.declarer_tricks is not None else ""}"]')
        else:
            lines.append('[Result ""]')
        lines.append(f'[Scoring "{self.scheme}"]')
        return "\n".join(lines) + "\n"


def _pbn_trick_line(first_column: Seat, trick_leader: Seat, cards: list[Card]) -> str:
    """One PBN play line: columns in seat order from the opening leader; ``-`` for cards not played."""
    by_seat: dict[int, str] = {}
    for i, c in enumerate(cards):
        by_seat[(int(trick_leader) + i) % 4] = str(c)
    return " ".join(by_seat.get((int(first_column) + j) % 4, "-") for j in range(4))


def play_deal_record(
    deal: Deal,
    dealer: Seat | int | str,
    bidders: Mapping[Seat, BidPolicy],
    players: Mapping[Seat, PlayPolicy],
    scheme: ScoringScheme | str = "classic",
    options: AuctionOptions | None = None,
) -> DealRecord:
    """Play one whole deal. ``bidders``/``players`` are keyed by the three players' dealing seats."""
    dealer = Seat.parse(dealer, "dealer")
    scheme_obj = get_scheme(scheme)
    auction = AuctionState.start(dealer, options or AuctionOptions())
    for seat in auction.bidders:
        if seat not in bidders:
            raise InvalidInput("bidders", f"no bidding policy for {seat.letter}")
    while not auction.is_over:
        seat = auction.turn
        assert seat is not None
        call = bidders[seat](BidView(seat, deal[seat], dealer, auction))
        if isinstance(call, str):
            call = Call.parse(call)
        reason = auction.is_legal(call)
        if reason is not None:
            raise IllegalAction("call", f"policy for {seat.letter} chose {call}: {reason}")
        auction = auction.apply(call)
    contract = auction.contract
    if contract is None:
        score = score_deal(None, 0, scheme_obj)
        return DealRecord(deal, dealer, auction.calls, None, {s: s for s in Seat}, (), None, None, score,
                          scheme_obj.name, auction.options)
    seat_map = reseat(dealer, contract.declarer)
    play_seat_to_player = {play: dealt for dealt, play in seat_map.items()}
    for seat in auction.bidders:
        if seat not in players:
            raise InvalidInput("players", f"no card-play policy for {seat.letter}")
    state = PlayState.start(play_deal(deal, dealer, contract.declarer), contract)
    while not state.is_over:
        view = play_view(state)
        person = play_seat_to_player[view.controller]
        card = players[person](view)
        if isinstance(card, str):
            card = Card.parse(card)
        reason = state.is_legal(card)
        if reason is not None:
            raise IllegalAction("card", f"policy for {person.letter} chose {card} for {view.seat.letter}: {reason}")
        state = state.apply(card)
    honours = honours_held(state.deal, contract) if scheme_obj.honours else None
    score = score_deal(contract, state.declarer_tricks, scheme_obj, honours)
    return DealRecord(deal, dealer, auction.calls, contract, seat_map, state.played, state.claimed,
                      state.declarer_tricks, score, scheme_obj.name, auction.options)


def random_bid_policy(rng: np.random.Generator, pass_probability: float = 0.5) -> BidPolicy:
    """A bidder that passes with ``pass_probability`` when it may, else makes a uniformly random other legal call."""

    def policy(view: BidView) -> Call:
        legal = view.auction.legal_calls()
        others = [c for c in legal if c != PASS]
        if PASS in legal and (not others or rng.random() < pass_probability):
            return PASS
        return others[int(rng.integers(len(others)))]

    return policy


def random_play_policy(rng: np.random.Generator) -> PlayPolicy:
    """A player that plays a uniformly random legal card."""

    def policy(view: PlayView) -> Card:
        legal = view.state.legal_cards()
        return legal[int(rng.integers(len(legal)))]

    return policy


def play_random_deal(seed: int | None, scheme: ScoringScheme | str = "classic", dealer: Seat | int | str = Seat.N,
                     options: AuctionOptions | None = None) -> DealRecord:
    """One random deal played by random policies (a smoke test of the whole engine)."""
    from tribridge.cards import random_deal

    rng = np.random.default_rng(seed)
    deal = random_deal(rng)
    seats = AuctionState.start(dealer).bidders
    bidders = {s: random_bid_policy(rng) for s in seats}
    players = {s: random_play_policy(rng) for s in seats}
    return play_deal_record(deal, dealer, bidders, players, scheme, options)
