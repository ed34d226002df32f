"""A strategy of one's own: bid the longest suit when the hand is strong; win a trick as cheaply as possible."""

from tribridge.rules.auction import PASS
from tribridge.rules.trick import winning_index


class Greedy:
    """Bids its longest suit with 13+ points (one level higher for each 3 more); plays the cheapest winner, else its lowest card."""

    def bid(self, view):
        hand = view.hand
        points = hand.hcp()
        if points < 13:
            return PASS
        longest = max(range(4), key=lambda suit: (hand.suit_length(suit), suit))
        highest_level = 1 + (points - 13) // 3
        for call in view.legal_calls():
            if call.is_bid and call.denom == longest and call.level <= highest_level:
                return call
        return view.legal_calls()[0]  # pass (or, if the dealer must bid, the lowest bid)

    def play(self, view):
        low_to_high = sorted(view.legal_cards(), key=lambda card: -card.rank)
        on_table = [played.card for played in view.current_trick]
        for card in low_to_high:
            if on_table and winning_index([*on_table, card], view.contract.trump) == len(on_table):
                return card
        return low_to_high[0]


def make():
    """The factory named on the command line: ``docs/examples/greedy_bot.py:make``."""
    return Greedy()
