"""Card play with the auction: layouts are drawn to fit what the hidden hands' calls showed."""

import numpy as np

from tribridge.bots.belief import sample_layouts
from tribridge.bots.play import CardPosition
from tribridge.cards import Hand
from tribridge.four.natural4 import read_auction
from tribridge.four.natural4.core import Shown
from tribridge.four.natural4.inference import auction_violations, pimc_with_auction
from tribridge.four.rules import Auction4


def test_violations_count_hcp_and_length_misses():
    owners = np.repeat(np.arange(4, dtype=np.uint8), 13)[None, :]  # N clubs, E diamonds, S hearts, W spades
    shown = [Shown() for _ in range(4)]
    shown[3] = Shown(lo=5, hi=10, min_len=[0, 0, 0, 6], max_len=[13, 13, 13, 6])
    # W holds all 13 spades (10 HCP): 7 cards too many spades
    assert auction_violations(owners, shown, [3]).tolist() == [7]
    shown[3].max_len[3] = 13
    assert auction_violations(owners, shown, [3]).tolist() == [0]
    assert auction_violations(owners, shown, [0, 1, 2]).tolist() == [0]


def test_opening_lead_samples_follow_the_auction():
    # W opens a weak 2S, N ends in 3NT; E leads: W's spade length in the searched layouts follows the weak two
    auction = Auction4.from_calls(3, ["2S", "3N", "P", "P", "P"])
    shown, _ = read_auction(auction)
    assert shown[3].min_len[3] == 6
    east = tuple(sorted(Hand.from_pbn("K2.QJ98.T987.Q32").cards))
    position = CardPosition(0, None, ((1, east),), ())
    decision = pimc_with_auction(position, shown, layouts=12, seed=5)
    spades = (decision.sample.layouts[:, 39:52] == 3).sum(axis=1)
    plain = sample_layouts(position.knowledge(), 384, np.random.default_rng(5)).layouts
    plain_spades = (plain[:, 39:52] == 3).sum(axis=1)
    assert spades.mean() >= 5 and spades.mean() >= plain_spades.mean() + 1.5, (spades.mean(), plain_spades.mean())
    hidden = [0, 2, 3]
    assert auction_violations(decision.sample.layouts, shown, hidden).max() <= np.median(
        auction_violations(plain, shown, hidden)
    )
    assert decision.card in east
