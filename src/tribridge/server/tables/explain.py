"""What a bot's call shows, in words: the explanation the auction shows on hover and tap.

Its first line is what the call shows, measured from the bidder's own policy (``bots.call_meaning``: the
hands that make this call at this point of the auction); its second line is how the bidder chose it.
For that second line: the three-player bidders (``bots.bidding``) carry no explanation text, so one is derived from what
each bidder uses: the paper bidder's No-Trump call rule (a no-trump bid shows a hand that qualifies
at that level or higher, a pass one that does not qualify for the cheapest no-trump bid), the
estimate bidder's trick estimate with a guessed widow, the simulation bidder's sampled layouts.
An explanation states only what the call shows to everyone, never the cards behind it.

At a table the first line is worked out after the call is made (``meaning_queue``): a bot's call carries the
second line alone (``how_chosen``) until then, shown under ``MEANING_PENDING``; a call made while that queue
is full keeps ``MEANING_BUSY`` as its first line (``MEANING_FAILED`` when working it out failed).
"""

from __future__ import annotations

from tribridge.bots import bot_parts
from tribridge.bots.bidding import cheapest_nt
from tribridge.bots.call_meaning import meaning_of
from tribridge.rules.auction import AuctionState, Call, Denom

__all__ = ["MEANING_BUSY", "MEANING_FAILED", "MEANING_PENDING", "explain_call", "how_chosen"]

MEANING_PENDING = "Working out what this call shows…"
MEANING_BUSY = "What this call shows was not worked out: the server was busy."
MEANING_FAILED = "What this call shows could not be worked out."

STRAIN_WORDS = {Denom.C: "clubs", Denom.D: "diamonds", Denom.H: "hearts", Denom.S: "spades", Denom.NT: "no-trumps"}
NT_RULE = "the seed paper's No-Trump call rule (enough top cards, and no suit too short for the top cards it misses)"


def _paper(call: Call, cheapest_nt: str | None) -> str:
    if call.kind == "bid":
        return f"Shows a hand that qualifies for {call.to_pbn()} or higher by {NT_RULE}."
    if cheapest_nt is not None:
        return f"Shows a hand that does not qualify for {cheapest_nt} by {NT_RULE}; this bot bids only no-trumps."
    return "No no-trump bid is left to make, so this bot passes."


def _estimate(call: Call) -> str:
    if call.kind == "bid" and call.denom is not None:
        return (
            f"Shows a trick estimate (its hand plus a guessed widow as dummy) of at least {call.level + 6} tricks in "
            f"{STRAIN_WORDS[Denom(call.denom)]}, the strain that scores best for it."
        )
    return "Shows no strain where its trick estimate with a guessed widow reaches the tricks of the cheapest bid."


def _simulation(call: Call) -> str:
    what = {
        "bid": f"{call.to_pbn()} scored best",
        "pass": "passing scored best",
        "double": "doubling scored best: it expects the contract to fail",
        "redouble": "redoubling scored best: it expects its contract to make",
    }[call.kind]
    return (
        f"Over layouts of the hidden cards that fit the auction so far, each played out to a contract, {what} "
        "for this bot."
    )


def explain_call(bot_name: str, call: Call, before: AuctionState) -> str:
    """What ``call`` by the bot ``bot_name``, made in the auction ``before``, shows; a second line says how it chose.

    The first line is measured from the bidder's own policy over the public position (``bots.call_meaning``),
    so it is the same whatever the cards of the deal are.
    """
    bidder, _player = bot_parts(bot_name)
    return f"{meaning_of(bidder, call, before).text}\n{how_chosen(bot_name, call, before)}"


def how_chosen(bot_name: str, call: Call, before: AuctionState) -> str:
    """How the bot ``bot_name`` chose ``call`` in the auction ``before`` (the rule or search behind it): at once."""
    bidder, _player = bot_parts(bot_name)
    if bidder == "paper":
        cheapest = cheapest_nt(before)
        return _paper(call, None if cheapest is None else cheapest.to_pbn())
    if bidder == "estimate":
        return _estimate(call)
    if bidder == "simulation":
        return _simulation(call)
    if bidder == "learned":
        return _learned(call)
    if bidder == "learned-sim":
        return _learned_sim(call)
    return "A random legal call: this bot does not look at its hand."


def _learned(call: Call) -> str:
    """The learned bidder's call: what its network valued, in words (it states no system)."""
    if not call.is_bid:
        return f"{call.to_pbn()}: the network valued no bid of its hand above this call here."
    return f"{call.to_pbn()}: the bid the network, trained by self-play, valued highest for its hand here."


def _learned_sim(call: Call) -> str:
    """The learned bidder with simulation: what it valued, in words (it states no system)."""
    return (
        f"{call.to_pbn()}: valued highest by the self-trained network, checked where that was close by simulating "
        "layouts of the hidden cards that fit the auction."
    )
