"""The bot contract: a ``Bidder`` and a ``CardPlayer``, each a function of one player's ``SeatView``.

A bot sees exactly what its player may see (``rules.view.SeatView``, built by ``DealState.view``)
and answers with one legal action; it holds no reference to the deal itself. This is the whole
contract between the game model and every strategy, the built-in bots and plug-ins alike (modelled
on OpenSpiel's ``pyspiel.Bot``: ``step(state) -> action``). ``candidates`` (best first, with a score
whose meaning each bot documents) is optional: the server's hints and the benchmarks use it when
a bot has it.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from tribridge.cards import Card
from tribridge.rules.auction import Call
from tribridge.rules.view import SeatView

__all__ = ["Bidder", "CardPlayer", "RankedBidder", "RankedCardPlayer"]


@runtime_checkable
class Bidder(Protocol):
    """Chooses a call for the player whose turn it is in the auction (``view.legal_calls()`` holds the choices)."""

    def bid(self, view: SeatView) -> Call:
        """One legal call."""
        ...


@runtime_checkable
class CardPlayer(Protocol):
    """Chooses a card for the player to play now, from its own hand or (as declarer) from dummy's.

    A player whose class sets ``sees_all = True`` is given the omniscient view (a test upper bound).
    """

    def play(self, view: SeatView) -> Card:
        """One legal card (``view.legal_cards()``)."""
        ...


@runtime_checkable
class RankedBidder(Bidder, Protocol):
    """A bidder that can also rank the legal calls."""

    def candidates(self, view: SeatView) -> list[tuple[Call, float]]:
        """(call, score) pairs, best first; the first is the call ``bid`` makes."""
        ...


@runtime_checkable
class RankedCardPlayer(CardPlayer, Protocol):
    """A card player that can also rank the legal cards."""

    def candidates(self, view: SeatView) -> list[tuple[Card, float]]:
        """(card, score) pairs, best first; the first is the card ``play`` chooses."""
        ...
