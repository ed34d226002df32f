"""natural4-search: candidates, the dominance shortcut, legality and determinism, the budget, explanations."""

import itertools

import numpy as np
import pytest

from tribridge.cards import Hand, random_deal
from tribridge.dd import dd_declarer_tricks
from tribridge.dealing.streams import random_stream
from tribridge.four import natural4, search
from tribridge.four.natural4 import Bid4View
from tribridge.four.rules import Auction4, Contract4
from tribridge.four.sampler import auction_constraints, prefer_replayed, replay_misses, sample_layouts
from tribridge.rules.duplicate import duplicate_score
from tribridge.rules.imps import imps

# the search of every position, natural4's call kept only by the margin (as before the competitive-only default)
EVERY = {"competitive_only": False, "min_imps": 0.0, "plausible_only": False}


def view(hand_pbn, calls=(), dealer=0, vul="None"):
    auction = Auction4.from_calls(dealer, list(calls))
    return Bid4View(auction.turn, dealer, vul, tuple(Hand.from_pbn(hand_pbn).cards), auction)


def positions(count, seed=0):
    """Positions part-way through natural4 auctions on random deals."""
    rng = random_stream(seed)
    out = []
    while len(out) < count:
        deal, auction = random_deal(rng), Auction4(int(rng.integers(4)))
        stop = int(rng.integers(1, 8))
        while not auction.is_over and len(auction.calls) < stop:
            seat = auction.turn
            auction = auction.apply(
                natural4.bid(Bid4View(seat, auction.dealer, "NS", tuple(deal[seat].cards), auction))
            )
        if not auction.is_over:
            out.append(Bid4View(auction.turn, auction.dealer, "NS", tuple(deal[auction.turn].cards), auction))
    return out


class Ticks:
    """A clock that moves on a second each time it is read (a budget test without real time)."""

    def __init__(self):
        self.now = 0.0

    def __call__(self):
        self.now += 1.0
        return self.now


def test_imps_of_matches_the_imp_scale():
    diffs = np.arange(-4500, 4501, 5)
    assert search.imps_of(diffs).tolist() == [imps(int(d)) for d in diffs]


def test_duplicate_values_average_against_the_other_candidates():
    scores = np.array([[620.0, -100.0], [170.0, -100.0], [-50.0, 110.0]])
    values = search.duplicate_values(scores)
    for c, j in itertools.product(range(3), range(2)):
        expected = sum(imps(int(scores[c, j] - scores[d, j])) for d in range(3) if d != c) / 2
        assert values[c, j] == expected


def test_competitive_bid_raises_our_strain_over_theirs():
    # N 1H, E 1S, S 2H, W 2S: North may compete in hearts at the three level
    auction = Auction4.from_calls(0, ["1H", "1S", "2H", "2S"])
    assert search.competitive_bid(auction, 0) == "3H"
    assert search.competitive_bid(auction, 1) is None  # East's side holds the highest bid
    assert search.competitive_bid(Auction4.from_calls(0, ["P", "1S"]), 2) is None  # our side has not bid


def test_a_dominant_candidate_is_called_without_search():
    # East opens 1H; South's 1 HCP does not nearly fit a takeout double, so the double's prior is below the threshold
    v = view("T842.983.762.J93", ["1H"], dealer=1)
    assert [c for c, _ in search.search_candidates(v, natural4.decide_call(v))] == ["P", "X"]
    never = search.SearchConfig(clock=lambda: pytest.fail("the clock is read only by a search"))
    d = search.decide_call(v, never)
    assert (d.call, d.searched, d.layouts) == ("P", False, 0)
    assert d.call == natural4.bid(v)
    searched = search.decide_call(v, search.SearchConfig(dominance=0.05, layouts=4, **EVERY))
    assert searched.searched and searched.layouts == 4  # with a lower threshold the same position is searched


def test_chosen_calls_are_legal_and_deterministic_for_a_seed():
    config = search.SearchConfig(layouts=4, dominance=0.05, **EVERY)
    for v in positions(12, seed=4):
        a, b = search.decide_call(v, config), search.decide_call(v, config)
        assert v.auction.is_legal(a.call)
        assert (a.call, a.scores, a.layouts) == (b.call, b.scores, b.layouts)
        assert a.explanation


def test_the_budget_caps_layouts_and_time():
    v = view("AQ3.KJ4.Q872.K93")
    capped = search.decide_call(v, search.SearchConfig(dominance=0.05, layouts=8, seconds=1000.0, **EVERY))
    assert capped.layouts == 8
    hurried = search.decide_call(
        v, search.SearchConfig(dominance=0.05, layouts=16, seconds=0.5, clock=Ticks(), **EVERY)
    )
    assert hurried.layouts == search.MIN_LAYOUTS  # the first chunk, then the clock says the time is up
    with pytest.raises(ValueError, match="layouts"):
        search.SearchConfig(layouts=search.MAX_LAYOUTS + 1)


def test_explanations_say_when_the_search_overrode_natural4():
    # margin 0: the best mean wins, so some of these positions change natural4's call
    config = search.SearchConfig(layouts=4, dominance=0.05, margin=0.0, **EVERY)
    changed = 0
    for v in positions(30, seed=9):
        d = search.decide_call(v, config)
        note = f"chosen by simulation over {d.layouts} layouts"
        if d.call == d.natural:  # natural4's own explanation (the rule that made the call, true of the hand)
            assert d.explanation == natural4.decide_call(v).meaning.text() and note not in d.explanation
            continue
        _, meanings = natural4.read_auction(v.auction.apply(d.call), v.vul)
        assert d.explanation == f"{meanings[-1].text()} ({note})"  # what partner reads from the call, and the note
        changed += 1
    assert changed > 0


def test_plausible_only_drops_calls_whose_reading_the_hand_misses():
    # 11 HCP over partner's 1S: natural4's 2D and its alternatives stay; a pass ("too weak to respond": 0-5) goes
    v = view("85.K62.AQ983.K72", ["1S", "P"])
    everything = search.decide_call(v, search.SearchConfig(layouts=4, dominance=0.0, **EVERY))
    plausible = search.decide_call(
        v, search.SearchConfig(layouts=4, dominance=0.0, **{**EVERY, "plausible_only": True})
    )
    assert "P" in {s.call for s in everything.scores} and "P" not in {s.call for s in plausible.scores}
    assert all(search.plausible(v, s.call) for s in plausible.scores)


def test_competitive_means_both_sides_have_bid():
    assert search.competitive(Auction4.from_calls(0, ["1H", "1S"]))
    assert search.competitive(Auction4.from_calls(0, ["1H", "P", "P", "2C"]))
    assert not search.competitive(Auction4.from_calls(0, ["1H", "X", "2H"]))  # a double is not a bid
    assert not search.competitive(Auction4.from_calls(0, ["1H", "P", "2H", "P"]))
    assert not search.competitive(Auction4.from_calls(0, []))


def test_competitive_only_searches_contested_positions_among_calls_natural4_reads():
    config = search.SearchConfig(layouts=4, dominance=0.0, **{**EVERY, "competitive_only": True})
    # East opens 1H and South has not bid: not competitive, so natural4's call without search
    quiet = view("T842.983.762.J93", ["1H"], dealer=1)
    assert search.search_candidates(quiet, natural4.decide_call(quiet))[1:]  # the full search would weigh others
    d = search.decide_call(quiet, config)
    assert (d.call, d.searched) == (natural4.bid(quiet), False)
    contested = 0
    for v in positions(40, seed=5):
        d = search.decide_call(v, config)
        if not search.competitive(v.auction):
            assert not d.searched
            continue
        allowed = {d.natural, "P", "X", search.competitive_bid(v.auction, v.seat)}
        assert all(s.call in allowed for s in d.scores)
        assert all(s.call == d.natural or search.read_right(v, s.call) for s in d.scores)
        contested += d.searched
    assert contested > 0


def test_read_right_is_false_for_a_call_natural4_gives_no_meaning():
    # N 1H, E 1S, S 2H, W doubles: natural4 reads a redouble by North as "no suitable call", a pass or 3H as calls
    v = view("A3.KQJ85.K72.Q93", ["1H", "1S", "2H", "X"])
    assert v.auction.is_legal("XX") and not search.read_right(v, "XX")
    assert search.read_right(v, "P") and search.read_right(v, "3H")


def test_min_imps_keeps_natural4_calls_that_win_by_too_little():
    # margin 0: the best mean wins (some calls change); an advantage of 24 IMPs a layout is never reached
    loose = search.SearchConfig(layouts=4, dominance=0.05, margin=0.0, **EVERY)
    strict = search.SearchConfig(layouts=4, dominance=0.05, margin=0.0, **{**EVERY, "min_imps": 24.0})
    changed = 0
    for v in positions(30, seed=9):
        a, b = search.decide_call(v, loose), search.decide_call(v, strict)
        assert b.call == b.natural and b.scores == a.scores
        if a.call != a.natural:
            changed += 1
            assert max(a.scores, key=lambda s: s.imps).call == a.call
    assert changed > 0
    with pytest.raises(ValueError, match="min_imps"):
        search.SearchConfig(min_imps=-1.0)


def test_double_when_down_scores_contracts_going_that_far_down_doubled():
    four_spades = Contract4(4, 3, 0, 0)
    assert search.doubling_of(four_spades, 9, 2) == 0  # one down: not doubled
    assert search.doubling_of(four_spades, 8, 2) == 1  # two down: doubled
    assert search.doubling_of(four_spades, 3, 0) == 0  # off
    assert search.doubling_of(Contract4(4, 3, 2, 0), 3, 1) == 2  # a redoubled contract stays redoubled
    # 7NT by North and by East on one layout: one of them goes far down, and is scored doubled from 3 down
    layout = random_stream(7).permutation(np.repeat(np.arange(4), 13))
    grand = [[Contract4(7, 4, 0, 0)], [Contract4(7, 4, 0, 1)]]
    plain = search.contract_scores(grand, layout[None, :], "None", 0)
    doubled = search.contract_scores(grand, layout[None, :], "None", 0, double_when_down=3)
    tricks = dd_declarer_tricks(layout[None, :].repeat(2, axis=0), [0, 1], [4, 4], cache=False, workers=1)
    for row, declarer, t in zip(range(2), (0, 1), tricks.tolist()):
        sign = 1 if declarer == 0 else -1
        assert plain[row, 0] == sign * duplicate_score(7, 4, 0, False, t)
        assert doubled[row, 0] == sign * duplicate_score(7, 4, 1 if t <= 10 else 0, False, t)
    assert (plain != doubled).any()
    ours = search.contract_scores(grand, layout[None, :], "None", 0, double_when_down=3, ours_only=True)
    assert ours[0, 0] == doubled[0, 0] and ours[1, 0] == plain[1, 0] != doubled[1, 0]  # East declares: undoubled
    with pytest.raises(ValueError, match="double_when_down"):
        search.SearchConfig(double_when_down=-1)


def test_double_when_down_reaches_the_search_and_is_off_by_default():
    off = search.SearchConfig(layouts=4, dominance=0.05, **EVERY)
    assert off == search.SearchConfig(layouts=4, dominance=0.05, double_when_down=0, **EVERY)
    on = search.SearchConfig(layouts=4, dominance=0.05, double_when_down=1, **EVERY)
    differ = sum(search.decide_call(v, off).scores != search.decide_call(v, on).scores for v in positions(12, seed=4))
    assert differ > 0  # some rollout went down undoubled, and costs more scored doubled


def test_replay_prefers_layouts_natural4_would_have_bid_the_auction_with():
    plain = search.SearchConfig(layouts=8, dominance=0.05, replay=1, **EVERY)
    replayed = search.SearchConfig(layouts=8, dominance=0.05, replay=6, **EVERY)
    assert search.SearchConfig().replay == search.REPLAY == 8  # on by default
    searched = 0
    for v in positions(10, seed=5):
        a, b = search.decide_call(v, plain), search.decide_call(v, replayed)
        assert b.call in v.auction.legal_calls() and b == search.decide_call(v, replayed)  # legal, deterministic
        if b.searched:
            searched += 1
            assert 0 <= b.unreplayed <= b.layouts and a.unreplayed == 0  # counted only with the check on
    assert searched > 0
    with pytest.raises(ValueError, match="replay"):
        search.SearchConfig(replay=0)


def test_replayed_layouts_fit_the_auction_better_than_the_constraints_alone():
    better = 0
    for v in positions(10, seed=6):
        others = [s for s in range(4) if s != v.seat]
        constraints = auction_constraints(v.auction, v.vul, others)
        pool = sample_layouts(v.seat, v.hand, constraints, 32, random_stream(1))
        misses = replay_misses(pool.layouts, v.auction, v.vul, others)
        kept, kept_misses = prefer_replayed(pool, misses, 8)
        assert kept_misses.tolist() == sorted(kept_misses.tolist()) or kept.relaxed.any()
        assert kept_misses.mean() <= misses[:8].mean()  # never worse than the first 8 drawn
        better += kept_misses.mean() < misses[:8].mean()
    assert better > 0
