"""What one player may see of a deal: ``SeatView``, built only by ``DealState.view``.

A view never holds a card its player may not see: its own hand, the widow (dummy) once the
opening lead is made, the auction with the player who made each call, every card played and by
whom, and a pending claim with the claimer's remaining cards. After the deal every hand is shown.
An omniscient view (``reveal_all``) exists for the double-dummy bot and for analysis only.

Seats: a player is known by its *dealing* seat (``player``); during the play the hands sit in
*play* seats (the widow opposite the declarer, see ``rules.auction.reseat``), and ``seat`` is the
player's seat at the moment (its dealing seat during the auction).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Union

from tribridge.cards import Card, Deal, Hand, Seat
from tribridge.rules.auction import AuctionState, Call, Contract

__all__ = [
    "Action",
    "AgreeClaim",
    "CallMade",
    "CardPlayed",
    "Claim",
    "DisputeClaim",
    "MakeClaim",
    "Phase",
    "SeatView",
    "TrickSeen",
    "bidding_view",
]

Phase = Literal["auction", "play", "done"]


@dataclass(frozen=True)
class MakeClaim:
    """A claim: the claimer's side takes ``tricks`` of the remaining tricks (fewer is a concession)."""

    tricks: int


@dataclass(frozen=True)
class AgreeClaim:
    """Agreement to the pending claim."""


@dataclass(frozen=True)
class DisputeClaim:
    """Dispute of the pending claim: it is withdrawn and play goes on."""


Action = Union[Call, Card, MakeClaim, AgreeClaim, DisputeClaim]


@dataclass(frozen=True)
class Claim:
    """A pending claim by ``player`` (dealing seat): its side takes ``tricks`` of the ``tricks_left``."""

    player: Seat
    tricks: int
    tricks_left: int
    agreed: frozenset[Seat] = frozenset()


@dataclass(frozen=True)
class CallMade:
    """One call of the auction and the player (dealing seat, where every player sits then) who made it."""

    player: Seat
    call: Call


@dataclass(frozen=True)
class CardPlayed:
    """One card played: the play ``seat`` it came from and the ``player`` who chose it (declarer for dummy)."""

    seat: Seat
    player: Seat
    card: Card


@dataclass(frozen=True)
class TrickSeen:
    """A completed trick: its leader, its four cards in play order, and the winning play seat."""

    leader: Seat
    cards: tuple[CardPlayed, ...]
    winner: Seat


@dataclass(frozen=True)
class SeatView:
    """Everything ``player`` may see now; also the input of every bot (bidders and card players)."""

    player: Seat
    seat: Seat
    phase: Phase
    dealer: Seat
    hand: Hand
    auction: AuctionState
    calls: tuple[CallMade, ...]
    held: frozenset[int]
    contract: Contract | None = None
    seats: dict[Seat, Seat] = field(default_factory=dict)
    dummy: Hand | None = None
    dummy_held: frozenset[int] | None = None
    played: tuple[CardPlayed, ...] = ()
    tricks: tuple[TrickSeen, ...] = ()
    declarer_tricks: int = 0
    defender_tricks: int = 0
    turn: Seat | None = None
    to_play: Seat | None = None
    legal: tuple[Action, ...] = ()
    claim: Claim | None = None
    claimer_held: frozenset[int] | None = None
    all_hands: Deal | None = None

    # --- convenience for bots and views ---------------------------------------------------------
    @property
    def widow(self) -> Seat:
        """The widow's dealing seat (opposite the dealer)."""
        return self.dealer.partner

    @property
    def declarer(self) -> Seat | None:
        """The declarer's seat (the same in dealing and play seats), once there is a contract."""
        return None if self.contract is None else self.contract.declarer

    @property
    def dummy_seat(self) -> Seat | None:
        """Dummy's play seat (opposite the declarer), once there is a contract."""
        return None if self.contract is None else self.contract.declarer.partner

    @property
    def my_turn(self) -> bool:
        """Whether this player must act now (call, card, or answer a claim)."""
        return self.turn == self.player or any(isinstance(a, (AgreeClaim, DisputeClaim)) for a in self.legal)

    @property
    def played_cards(self) -> tuple[Card, ...]:
        """Every card played so far, in order."""
        return tuple(p.card for p in self.played)

    @property
    def current_trick(self) -> tuple[CardPlayed, ...]:
        """The cards of the trick in progress."""
        return self.played[len(self.tricks) * 4 :]

    def legal_calls(self) -> list[Call]:
        """The calls this player may make now (empty unless it is its turn in the auction)."""
        return [a for a in self.legal if isinstance(a, Call)]

    def legal_cards(self) -> list[Card]:
        """The cards this player may play now (for itself or for dummy)."""
        return [a for a in self.legal if isinstance(a, Card)]

    def player_at(self, seat: Seat) -> Seat | None:
        """The player (dealing seat) sitting at a current seat, or None for the widow/dummy."""
        for player, now in self.seats.items():
            if now == seat:
                return player
        return None


def bidding_view(player: Seat, hand: Hand, auction: AuctionState) -> SeatView:
    """The view of ``player`` in an auction known only from its own side (a robot-API client's request)."""
    player = Seat(player)
    calls = tuple(CallMade(auction.seat_of_call(i), c) for i, c in enumerate(auction.calls))
    legal = tuple(auction.legal_calls()) if auction.turn == player else ()
    phase: Phase = "auction" if not auction.is_over else "done"
    return SeatView(
        player=player,
        seat=player,
        phase=phase,
        dealer=auction.dealer,
        hand=hand,
        auction=auction,
        calls=calls,
        held=frozenset(hand.cards),
        turn=auction.turn,
        legal=legal,
    )
