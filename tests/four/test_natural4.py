"""Tests of the standard American four-handed bidder behind /bid and /apis/brill/bid."""

import math
import re

import numpy as np
import pytest

from tribridge.cards import Hand, random_deal
from tribridge.four.natural4 import Bid4View, bid, candidates, decide, decide_call, read_auction, system_for
from tribridge.four.natural4.core import HCP_WEIGHTS, Shown
from tribridge.four.rules import Auction4

SUITS = {"spades": 3, "hearts": 2, "diamonds": 1, "clubs": 0}


def view(hand_pbn, calls=(), seat=0, dealer=0):
    auction = Auction4.from_calls(dealer, list(calls))
    return Bid4View(seat, dealer, "None", tuple(Hand.from_pbn(hand_pbn).cards), auction)


def bid_deal(deal, dealer, check=None):
    auction = Auction4(dealer)
    while not auction.is_over:
        seat = auction.turn
        v = Bid4View(seat, dealer, "None", tuple(deal[seat].cards), auction)
        d = decide_call(v)
        assert auction.is_legal(d.call), (auction.calls, d.call)
        if check:
            check(deal[seat], d)
        auction = auction.apply(d.call)
        assert len(auction.calls) <= 40
    return auction


def claims_hold(hand, text):
    """Parse the explanation's claims (HCP range, suit lengths, balanced) and check each against the hand."""
    cards = list(hand.cards)
    hcp = sum(max(0, 4 - c % 13) for c in cards)
    lens = [sum(1 for c in cards if c // 13 == s) for s in range(4)]
    problems = []
    for lo, hi in re.findall(r"(\d+)-(\d+) HCP", text):
        if not int(lo) <= hcp <= int(hi):
            problems.append(f"{hcp} HCP not in {lo}-{hi}")
    for lo in re.findall(r"(?<![-\d])(\d+)\+ HCP", text):
        if hcp < int(lo):
            problems.append(f"{hcp} HCP below {lo}")
    for hi in re.findall(r"at most (\d+) HCP", text):
        if hcp > int(hi):
            problems.append(f"{hcp} HCP above {hi}")
    for name, s in SUITS.items():
        for lo, hi in re.findall(rf"(\d+)-(\d+) {name}", text):
            if not int(lo) <= lens[s] <= int(hi):
                problems.append(f"{lens[s]} {name} not in {lo}-{hi}")
        for lo in re.findall(rf"(?<![-\d])(\d+)\+ {name}", text):
            if lens[s] < int(lo):
                problems.append(f"{lens[s]} {name} below {lo}")
        for hi in re.findall(rf"at most (\d+) {name}", text):
            if lens[s] > int(hi):
                problems.append(f"{lens[s]} {name} above {hi}")
    if re.search(r"\bbalanced\b", text):
        shape = sorted(lens)
        if shape not in ([3, 3, 3, 4], [2, 3, 4, 4], [2, 3, 3, 5]):
            problems.append(f"shape {lens} is not balanced")
    return problems


def test_openings():
    assert bid(view("AQ2.KJ4.KT98.A62")) == "1N"  # 17 balanced
    assert bid(view("AKJ52.K4.Q98.762")) == "1S"  # 13, five spades
    assert bid(view("AKJ52.K4.T98.762")) == "P"  # 11 and rule of 20 not met
    assert bid(view("KQ2.AJ4.T98.K762")) == "1C"  # 13, no five-card major, clubs longer
    assert bid(view("KQT982.K4.T98.62")) == "2S"  # weak two, 8 HCP
    assert bid(view("AKQ2.AKJ4.AQ8.K2")) == "2C"  # 26: strong artificial
    assert decide_call(view("AKQ2.AKJ4.AQ8.K2")).alert
    assert bid(view("9832.543.T98.762")) == "P"


def test_notrump_structure():
    assert bid(view("K32.QJ4.KJ98.762", ["1N", "P"], seat=2)) == "3N"  # 10 balanced, no major
    assert bid(view("932.854.T98.7632", ["1N", "P"], seat=2)) == "P"
    stayman = decide_call(view("KJ92.A54.T982.62", ["1N", "P"], seat=2))
    assert stayman.call == "2C" and stayman.alert and "Stayman" in stayman.explanation
    transfer = decide_call(view("K2.QJ987.T98.762", ["1N", "P"], seat=2))
    assert transfer.call == "2D" and transfer.alert
    # opener answers: a 4-card heart suit over Stayman, completes the transfer
    assert bid(view("AQ2.KJ43.KT9.A62", ["1N", "P", "2C", "P"], seat=0)) == "2H"
    assert bid(view("AQ2.KJ4.KT98.A62", ["1N", "P", "2D", "P"], seat=0)) == "2H"


def test_major_raises_and_blackwood_reply():
    assert bid(view("KJ92.A54.T982.62", ["1S", "P"], seat=2)) == "2S"  # 8 HCP, 4 trumps
    assert bid(view("KJ92.A54.KT98.62", ["1S", "P"], seat=2)) == "3S"  # 11: limit raise
    reply = decide_call(view("A2.KJ4.KT98.A762", ["1S", "P", "4N", "P"], seat=0))
    assert reply.call == "5H" and reply.alert  # two aces


def test_redouble_after_one_notrump_doubled_is_not_a_grand_slam():
    # 22 HCP opposite a 1NT that was doubled: redouble, never a jump to 7NT
    d = decide_call(view("AKQ2.AKJ4.AQ8.32", ["1N", "X"], seat=2))
    assert d.call == "XX"


def test_deterministic_and_candidates_lead_with_the_call():
    v = view("K32.QJ4.KT98.762", ["1N", "P"], seat=2)
    assert [decide(v) for _ in range(3)] == [decide(v)] * 3
    assert candidates(v)[0] == (bid(v), 1.0)


def test_systems():
    assert system_for("SAYC") == ("SAYC", None)
    assert system_for("standard american")[1] is None
    played, note = system_for("Precision")
    assert played == "SAYC" and "Precision" in note


def test_every_explanation_is_true_of_the_hand():
    rng = np.random.default_rng(2026)
    bad, calls = [], 0

    def check(hand, decision):
        nonlocal calls
        calls += 1
        text = decision.explanation
        assert text and not re.search(r"\b0N\b|(?<!\d)-\d|\b\d{3,}\b", text), text
        assert all(int(a) <= int(b) for a, b in re.findall(r"(\d+)-(\d+)", text)), text
        for p in claims_hold(hand, text):
            bad.append((hand.to_pbn(), decision.call, text, p))

    for k in range(300):
        bid_deal(random_deal(rng), k % 4, check)
    assert calls > 1500
    assert not bad, bad[:5]


def test_random_deals_legal_and_mostly_makeable():
    pytest.importorskip("endplay")
    from tribridge.dd import dd_tables_array

    rng = np.random.default_rng(77)
    deals, contracts = [], []
    for k in range(40):
        deal = random_deal(rng)
        auction = bid_deal(deal, k % 4)
        if auction.contract is not None:
            deals.append(deal)
            contracts.append(auction.contract)
    assert len(contracts) >= 30
    tables = dd_tables_array(deals, cache=False, workers=1)
    margin = np.array([int(tables[i, c.declarer, c.strain]) - (c.level + 6) for i, c in enumerate(contracts)])
    assert margin.mean() >= -1.0, margin.mean()
    assert (margin >= 0).mean() >= 0.5, (margin >= 0).mean()


def test_hcp_weights_count_every_hand_and_average_ten():
    # C(52, 13) hands in all; the 40 HCP are shared by four hands, so a hand averages 10
    assert sum(HCP_WEIGHTS) == math.comb(52, 13)
    assert sum(p * w for p, w in enumerate(HCP_WEIGHTS)) == 10 * math.comb(52, 13)
    assert Shown().expect() == 10
    # an opening's range is mostly its bottom: the mean lies below the middle of 10-21
    assert 12 <= Shown(lo=10, hi=21).expect() < 15
    assert Shown(lo=15, hi=17).expect() == 16


def test_five_card_major_before_a_negative_double():
    d = decide_call(view("74.AQ8642.Q74.K4", ["1C", "1S"], seat=2))
    assert d.call == "2H" and "5+ hearts" in d.explanation


def test_penalty_double_of_an_overcall_and_partner_leaves_it_in():
    d = decide_call(view("84.KQT9.A743.J42", ["1S", "2H"], seat=2))
    assert d.call == "X" and "penalty" in d.explanation and not d.alert
    assert bid(view("AKJ52.4.KQ8.Q763", ["1S", "2H", "X", "P"], seat=0)) == "P"


def test_advancer_shows_a_five_card_major_before_no_trump():
    assert bid(view("KQT94.8.73.AJT75", ["P", "1C", "1D", "P"], seat=0)) == "1S"


def test_no_three_no_trump_without_a_stopper_in_their_suit():
    # 20 HCP and a singleton queen of their clubs: the five-card heart suit, not 3NT
    d = decide_call(view("AQJ4.AKJ73.KT5.Q", ["P", "P", "P", "1H", "2C", "P", "3C"], seat=0, dealer=1))
    assert d.call == "4H"


def test_responder_does_not_leave_partner_in_a_suit_without_a_fit():
    # 1♣-1♥-1♠: with a doubleton spade and 5-5 in the red suits, a two-level partscore of our own
    calls = ["1C", "P", "1H", "P", "1S", "P"]
    d = decide_call(view("93.JT962.AKJ76.7", calls, seat=0, dealer=2))
    assert d.call in ("2H", "2D")
    # three spades opposite partner's four: content with the seven-card fit
    assert bid(view("T93.JT962.AKJ7.7", calls, seat=0, dealer=2)) == "P"


def test_partners_penalty_double_after_an_overcall_is_left_in():
    # 1♣-P-1♥-1NT(partner)-4♥-P-P-X(partner)-P: a 1-count does not answer it like a takeout double
    calls = ["1C", "P", "1H", "1N", "4H", "P", "P", "X", "P"]
    assert bid(view("9652.54.J863.832", calls, seat=3, dealer=2)) == "P"


def test_five_card_major_after_a_one_notrump_rebid_offers_the_choice_of_games():
    calls = ["1C", "P", "1S", "P", "1N", "P"]
    d = decide_call(view("AQ975.K4.Q83.K62", calls, seat=2))
    assert d.call == "3S" and "5+ spades" in d.explanation
    calls += ["3S", "P"]
    assert bid(view("K32.A4.KJ93.Q762", calls, seat=0)) == "4S"  # three-card support: the major game
    assert bid(view("K2.A43.KJ93.Q762", calls, seat=0)) == "3N"  # a doubleton: 3NT


def test_a_seventeen_count_with_a_five_card_major_overcalls():
    # too strong for 8-16 and the wrong shape for a takeout double: still a one-level overcall, not a pass
    assert bid(view("AQJ95.9.AQ92.A54", ["1C"], seat=3, dealer=2)) == "1S"


def test_a_seven_card_major_is_preferred_to_a_minor_fit():
    # opposite partner's weak 2♦: the solid seven-card spade suit, not 3NT through the diamond fit
    assert bid(view("AKQ7543.A2.85.Q8", ["2D", "P"], seat=3, dealer=1)) == "4S"


def test_no_weak_two_with_a_side_four_card_major():
    d = decide_call(view("Q.87652.KQT853.T"))
    assert d.call != "2D"
    d = decide_call(view("Q2.875.KQT853.T4"))
    assert d.call == "2D" and "at most 3 hearts" in d.explanation


def test_an_old_takeout_double_does_not_force_an_answer_at_the_four_level():
    # partner doubled 2♥; the opponents have since bid 4♥: a 1-count passes
    calls = ["P", "P", "1N", "2D", "2H", "X", "2N", "P", "4H", "P", "P"]
    assert bid(view("T62.T6.J763.7632", calls, seat=0, dealer=3)) == "P"


def test_splinter_and_opener_s_answer():
    d = decide_call(view("J873.AJ752..AK94", ["1S", "P"], seat=0, dealer=2))
    assert d.call == "4D" and d.alert and "at most 1 diamonds" in d.explanation and "4+ spades" in d.explanation
    calls = ["1S", "P", "4D", "P"]
    assert bid(view("AKQ92.K5.952.AJ2", calls, seat=2, dealer=2)) == "4N"  # 15 working HCP
    assert bid(view("AKQ92.Q5.KQ2.J32", calls, seat=2, dealer=2)) == "4S"  # K-Q of diamonds wasted


def test_one_notrump_opener_accepts_the_invitation_with_a_maximum():
    assert bid(view("AQ2.KJ4.KT98.K62", ["1N", "P", "2N", "P"])) == "3N"  # 16
    assert bid(view("AQ2.KJ4.KT98.Q62", ["1N", "P", "2N", "P"])) == "P"  # 15


def test_advancing_a_one_notrump_overcall():
    # East opened 1♦, partner overcalled 1NT (15-18): answered as a no-trump opening, without the conventions
    calls = ["1D", "1N", "P"]
    invite = decide_call(view("K93.QJ4.8752.Q63", calls, seat=0, dealer=1))  # 8 HCP
    assert invite.call == "2N" and "invites 3NT" in invite.explanation
    assert bid(view("K93.QJ4.8752.AQ3", calls, seat=0, dealer=1)) == "3N"  # 12 HCP
    assert bid(view("QJ9742.84.762.83", calls, seat=0, dealer=1)) == "2S"  # weak, six spades: to play
    assert bid(view("9832.Q54.J62.832", calls, seat=0, dealer=1)) == "P"
    # the overcaller declines the invitation with 15 and accepts with 17
    assert bid(view("AQ2.KJ4.KT9.Q652", calls + ["2N", "P"], seat=2, dealer=1)) == "P"
    assert bid(view("AQ2.KJ4.AT9.K652", calls + ["2N", "P"], seat=2, dealer=1)) == "3N"


def test_opener_passes_a_game_raise_without_calling_it_an_invitation():
    d = decide_call(view("K2.AQJ84.K93.874", ["1H", "P", "4H", "P"]))  # 13 HCP, no slam
    assert d.call == "P" and "invitation" not in d.explanation


def test_five_five_in_the_majors_responds_in_spades_first():
    assert bid(view("KQ874.AJ965.4.52", ["1C", "P"], seat=2)) == "1S"


def test_opener_answers_partner_s_negative_double():
    # 1♦-(2♣)-X-(P): the double promised both majors; opener shows four hearts
    d = decide_call(view("K4.AQ85.KJ763.42", ["1D", "2C", "X", "P"]))
    assert d.call == "2H" and "partner's major" in d.explanation
    # after a weak two the double is not passed out for want of a suit: the six-card suit again
    assert bid(view("A53.52.AJ9762.J3", ["2D", "2H", "X", "P"])) == "3D"
    # over their raise, an 18-count with a second five-card suit still bids it
    assert bid(view("93.K.AJ863.AKQJ3", ["1D", "2H", "X", "3H"])) == "4C"


def test_opener_reopens_with_a_double_and_partner_converts_with_their_suit():
    d = decide_call(view("7.AQ85.KJ763.K42", ["1D", "1S", "P", "P"]))
    assert d.call == "X" and d.explanation.startswith("reopening double") and "at most 1 spades" in d.explanation
    calls = ["1D", "1S", "P", "P", "X", "P"]
    assert bid(view("AT93.T92.83.K862", calls, seat=2)) == "P"  # four good spades: for penalties
    assert bid(view("Q62.T92.83.K8652", calls, seat=2)) == "2C"  # no spade strength: takes it out


def test_actions_over_a_three_level_preempt():
    assert bid(view("AQ4.KJ5.KQ3.Q932", ["3D"], seat=1)) == "3N"
    # 15 HCP, short in their spades, a doubleton club: a takeout double is still the call
    d = decide_call(view("K9.AKQ4.KT942.75", ["2S", "P", "3S"], seat=0, dealer=1))
    assert d.call == "X" and "takeout" in d.explanation


def test_jacoby_two_notrump_and_opener_s_replies():
    d = decide_call(view("KQ74.A52.K83.Q62", ["1S", "P"], seat=2))
    assert d.call == "2N" and d.alert and "4+ spades" in d.explanation
    calls = ["1S", "P", "2N", "P"]
    d = decide_call(view("AJ862.K4.AQ953.7", calls))
    assert d.call == "3C" and "at most 1 clubs" in d.explanation
    assert bid(view("AJ862.K43.AQ9.J7", calls)) == "3N"  # 15-17, no shortness
    assert bid(view("AKJ62.KQ3.AQ9.J7", calls)) == "3S"  # 18+
    assert bid(view("AJ862.K43.Q92.J7", calls)) == "4S"  # a minimum
    # responder does not stop short of game once it has forced
    assert bid(view("KQ74.A52.K83.Q62", calls + ["3C", "P"], seat=2)) == "4S"


def placement_read_as_bid(hand_pbn, calls, dealer, vul):
    """(explanation, reading) of natural4's placement call at the end of ``calls``: what made it, what partner reads."""
    auction = Auction4.from_calls(dealer, list(calls))
    made = decide_call(Bid4View(auction.turn, dealer, vul, tuple(Hand.from_pbn(hand_pbn).cards), auction))
    _, meanings = read_auction(auction.apply(made.call), vul)
    return made, meanings[-1]


def test_a_bid_below_game_over_their_contract_is_read_as_competing():
    # W has 11 HCP and six hearts after P 1H X 2H 2S: 3H competes (priced against defending 2S); partner must not
    # read it as a game try (its range would then say 12-19 HCP and invite a raise to game)
    made, read = placement_read_as_bid("K2.AQJ873.QJ7.J6", ["P", "1H", "X", "2H", "2S"], dealer=2, vul="All")
    assert made.call == "3H" and made.meaning.label == "competes for the partscore"
    assert read.text() == made.meaning.text()


def test_the_slam_bid_after_a_blackwood_reply_is_read_as_placed_after_blackwood():
    made, read = placement_read_as_bid("AQJ94.AJT8.A8.KQ", ["P", "1S", "P", "3S", "P", "4N", "P", "5D", "P"], 1, "None")
    assert made.call == "6S" and made.meaning.label == "to play, after Blackwood"
    assert read.text() == made.meaning.text()
