"""The benchmark's natural4-search policy: its stored settings make the same search again."""

import numpy as np
from benchmarks.bidding4_search import SearchPolicy, deviation_split

from tribridge.cards import Hand
from tribridge.four.rules import Auction4


def test_competitive_only_and_min_imps_are_stored_and_used():
    policy = SearchPolicy(4, 2.0, 0.0, 1e9, competitive_only=True, min_imps=1.5)
    config = policy.config()
    assert config["competitive_only"] is True and config["min_imps"] == 1.5
    assert SearchPolicy(**config).config() == config
    hand = tuple(Hand.from_pbn("A3.KQJ85.K72.Q93").cards)
    policy(0, Auction4.from_calls(0, []), hand, "None")  # an opening: not competitive, not searched
    assert policy.searched == 0
    policy(0, Auction4.from_calls(0, ["1H", "1S", "2H", "2S"]), hand, "None")
    assert policy.searched == 1
    assert "competitive_only" not in SearchPolicy(4, 2.0, 0.0, 1e9).config()  # stored earlier runs searched all


def test_double_when_down_is_stored_and_reaches_the_search():
    policy = SearchPolicy(4, 0.0, 0.0, 1e9, competitive_only=True, double_when_down=2, double_ours_only=True)
    config = policy.config()
    assert config["double_when_down"] == 2 and config["double_ours_only"] is True
    assert SearchPolicy(**config).config() == config
    plain = SearchPolicy(4, 0.0, 0.0, 1e9, competitive_only=True)
    assert "double_when_down" not in plain.config() and "double_ours_only" not in plain.config()
    assert (policy.search_config().double_when_down, policy.search_config().double_ours_only) == (2, True)
    assert (plain.search_config().double_when_down, plain.search_config().double_ours_only) == (0, False)


def test_deviations_are_put_by_the_side_that_first_called_otherwise():
    natural = [("1H", "P", "2H", "P", "P", "P"), ("1S", "P", "P", "P"), ("P", "P", "P", "P")]
    searched = [("1H", "X", "2H", "P", "P", "P"), ("1S", "P", "P", "P"), ("P", "1D", "P", "P", "P")]
    dealers = [0, 1, 3]  # deal 0: East (index 1 from North) doubles; deal 2: North (index 1 from West) opens
    natural_ns = np.array([-4.0, 0.0, 0.0])  # North-South's IMPs against par
    searched_ns = np.array([-1.0, 0.0, 2.0])
    split = deviation_split(natural, searched, dealers, natural_ns, searched_ns, skip=0)
    # deal 0: East-West deviated and lost 3 IMPs, par loss 4 -> 1; deal 2: North-South gained 2, par loss 0 -> 2
    by_outcome, by_call = split["by_outcome"], split["by_call"]
    assert by_outcome["deviator lost"] == {"deals": 1, "deviator_imps_per_deal": -1.0, "par_loss_added_per_deal": -1.0}
    gained = {"deals": 1, "deviator_imps_per_deal": round(2 / 3, 3), "par_loss_added_per_deal": round(2 / 3, 3)}
    assert by_outcome["deviator gained"] == gained and by_outcome["same score"]["deals"] == 0
    assert by_call == {"double for pass": by_outcome["deviator lost"], "bid for pass": gained}
    later = deviation_split(natural, searched, dealers, natural_ns, searched_ns, skip=1)["by_outcome"]
    assert later["deviator lost"]["deals"] == 0 and later["deviator gained"]["deals"] == 1
