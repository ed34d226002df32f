"""Tests of scoring: classic cases computed by hand from docs/rules.md, the tribridge preset, TOML schemes, rubbers."""

import pytest

from tribridge.cards import Deal, Seat
from tribridge.errors import InvalidInput
from tribridge.rules.auction import Contract
from tribridge.rules.scoring import (
    DealScore,
    HonoursHeld,
    Rubber,
    ScoringScheme,
    get_scheme,
    honours_held,
    load_scheme_text,
    preset,
    scheme_from_dict,
    score_deal,
)


def C(text):
    return Contract.parse(text, Seat.S)


# (contract, declarer's tricks, declarer's score, each defender's score) — worked by hand from docs/rules.md:
# made: (t-6)*v*m, plus 50*(m/2)*(1+t-N) when doubled; failed: each defender 50*m per undertrick;
# 12 tricks +50, 13 tricks +100 for the declarer (by tricks won).
CLASSIC_CASES = [
    ("1C", 7, 6, 0),  # 1 x 6
    ("3NT", 9, 30, 0),  # 3 x 10
    ("3NT", 10, 40, 0),  # overtrick counts: 4 x 10
    ("4S", 10, 36, 0),  # 4 x 9
    ("2H", 11, 40, 0),  # 5 odd tricks x 8
    ("4SX", 10, 122, 0),  # 4 x 9 x 2 = 72, + 50
    ("4SX", 11, 190, 0),  # 5 x 9 x 2 = 90, + 50 x (1 + 1)
    ("2HXX", 9, 296, 0),  # 3 x 8 x 4 = 96, + 100 x (1 + 1)
    ("1DXX", 7, 128, 0),  # 7 x 4 = 28, + 100
    ("4S", 8, 0, 100),  # down 2: 2 x 50 to each defender
    ("4SX", 8, 0, 200),  # down 2 doubled: 2 x 100 each
    ("3NTXX", 8, 0, 200),  # down 1 redoubled: 200 each
    ("6S", 12, 104, 0),  # 54 + small slam 50
    ("7NT", 13, 170, 0),  # 70 + grand slam 100
    ("3C", 12, 86, 0),  # 6 x 6 = 36 + slam by tricks 50
    ("7H", 12, 50, 50),  # down 1: each defender 50; declarer still has the 12-trick slam 50
    ("7DX", 13, 248, 0),  # 7 x 7 x 2 = 98, + 50, + 100
    ("7NTXX", 0, 0, 2600),  # down 13 redoubled: 13 x 200 each
    ("1NT", 6, 0, 50),  # down 1
]


@pytest.mark.parametrize("contract, tricks, declarer, each", CLASSIC_CASES)
def test_classic_hand_computed(contract, tricks, declarer, each):
    s = score_deal(C(contract), tricks, "classic")
    assert s.declarer == declarer
    assert s.each_defender == each
    assert s.defenders == (each, each)
    assert s.net == declarer - 2 * each
    assert s.made == (tricks >= C(contract).tricks_needed)


def test_trick_points_toward_game():
    assert score_deal(C("3NT"), 10, "classic").trick_points == 40
    assert score_deal(C("4SX"), 10, "classic").trick_points == 72  # the double bonus is not trick points
    assert score_deal(C("6S"), 12, "classic").trick_points == 54  # nor the slam
    assert score_deal(C("4S"), 9, "classic").trick_points == 0


def test_breakdown_adds_up():
    s = score_deal(C("4SX"), 11, "classic")
    assert s.breakdown == {"contract_tricks": 72, "overtricks": 18, "double_bonus": 100}
    f = score_deal(C("4SX"), 8, "classic")
    assert f.breakdown == {"undertricks_each_defender": 200}


def test_passed_out_scores_nothing():
    s = score_deal(None, 0, "classic")
    assert (s.declarer, s.each_defender, s.net, s.breakdown) == (0, 0, 0, {})


def test_honours_on_trump_contract():
    scheme = get_scheme("classic")
    on = ScoringScheme(**{**scheme.__dict__, "honours": True})
    # declarer with dummy holds 4 trump honours (8 x 9 = 72), LHO one (9), RHO none
    s = score_deal(C("4S"), 10, on, HonoursHeld(4, (1, 0)))
    assert s.declarer == 36 + 72 and s.defenders == (9, 0) and s.each_defender == 0
    assert s.net == 108 - 9
    # five honours: 10 x 8 = 80 in hearts; failed contract, each defender 50
    f = score_deal(C("4H"), 9, on, HonoursHeld(5, (0, 0)))
    assert f.declarer == 80 and f.defenders == (50, 50)
    # three honours declarer (3 x 8), two for the LHO (2 x 8) on a failed 4H
    g = score_deal(C("4H"), 9, on, HonoursHeld(3, (2, 0)))
    assert g.declarer == 24 and g.defenders == (66, 50)
    # honours off: the same deal scores no honours
    assert score_deal(C("4S"), 10, "classic", HonoursHeld(4, (1, 0))).declarer == 36


def test_honours_in_no_trump():
    on = ScoringScheme(honours=True)
    assert score_deal(C("3NT"), 9, on, HonoursHeld(4, (0, 0))).declarer == 30 + 100
    s = score_deal(C("3NT"), 9, on, HonoursHeld(2, (1, 1)))
    assert s.declarer == 30 + 20 and s.defenders == (10, 10)
    with pytest.raises(InvalidInput, match="only 4 aces"):
        score_deal(C("3NT"), 9, on, HonoursHeld(3, (1, 1)))
    with pytest.raises(InvalidInput, match="honours"):
        score_deal(C("3NT"), 9, on, None)


def test_honours_counted_from_a_deal():
    deal = Deal.from_pbn("N:AKQJT.A.2.AKQJT2 98765.K.63.98765 432.Q98765.54.43 .JT432.AKQJT987.")
    # declarer N in spades: N holds A K Q J T of spades
    assert honours_held(deal, Contract.parse("4S", Seat.N)) == HonoursHeld(5, (0, 0))
    # declarer E in hearts: E holds K, dummy W holds J T; LHO S holds Q, RHO N holds A
    assert honours_held(deal, Contract.parse("2H", Seat.E)) == HonoursHeld(3, (1, 1))
    # no-trump, declarer S: dummy N has three aces (S, H, C), LHO W the DA, RHO E none
    assert honours_held(deal, Contract.parse("1NT", Seat.S)) == HonoursHeld(3, (1, 0))


def test_tribridge_preset_pays_overtricks_more():
    tb = preset("tribridge")
    assert tb.name == "tribridge"
    s = score_deal(C("3NT"), 10, tb)
    assert s.declarer == 30 + 20 and s.trick_points == 30
    d = score_deal(C("4SX"), 11, tb)
    assert d.declarer == 72 + 36 + 100  # contract 4x9x2, one overtrick 18x2, bonus 50x(1+1)
    for denom in ("C", "D", "H", "S", "NT"):
        # an overtrick is worth more than a contracted trick
        made = score_deal(C(f"2{denom}"), 8, tb).declarer
        over = score_deal(C(f"2{denom}"), 9, tb).declarer
        higher = score_deal(C(f"3{denom}"), 9, tb).declarer
        assert over - made > higher - made
    assert score_deal(C("4S"), 8, tb).each_defender == 100


def test_toml_scheme_partial_and_errors(tmp_path):
    text = 'name = "mine"\n[undertricks]\neach_defender = 100\n[tricks]\nvalues = { C = 20, D = 20, H = 30, S = 30, NT = 30 }\n'
    scheme = load_scheme_text(text)
    assert scheme.name == "mine" and scheme.undertrick_each_defender == 100
    assert scheme.grand_slam_bonus == 100  # not given: classic value
    assert score_deal(C("4S"), 8, scheme).each_defender == 200
    assert score_deal(C("2H"), 8, scheme).declarer == 60
    path = tmp_path / "mine.toml"
    path.write_text(text)
    assert get_scheme(str(path)) == scheme
    for bad, field in [
        ("[undertricks]\neach_defendr = 1\n", "undertricks.each_defendr"),
        ("[bonuses]\nsmall_slam = 'x'\n", "bonuses.small_slam"),
        ("[tricks]\nvalues = { C = 1, D = 1, H = 1, S = 1 }\n", "tricks.values.NT"),
        ("[honours]\ntable = [1, 2]\n", "honours.table"),
        ("[rubber]\ngames_to_win = 0\n", "rubber.games_to_win"),
        ("[wat]\nx = 1\n", "wat"),
        ("name = \n", "not valid TOML"),
    ]:
        with pytest.raises(InvalidInput) as info:
            load_scheme_text(bad)
        assert field in str(info.value)
    with pytest.raises(InvalidInput, match="unknown scheme"):
        get_scheme("nonsense")
    with pytest.raises(InvalidInput, match="cannot read"):
        get_scheme(str(tmp_path / "missing.toml"))


def test_presets_round_trip_through_their_layout():
    for name in ("classic", "tribridge"):
        s = preset(name)
        assert scheme_from_dict(s.to_toml_dict()) == s
    # the classic file holds exactly the dataclass defaults (docs/rules.md values)
    assert preset("classic") == ScoringScheme(name="classic", description=preset("classic").description)


def test_deal_score_json_round_trip():
    s = score_deal(C("4SX"), 11, "classic")
    assert DealScore.from_json(s.to_json()) == s


def test_rubber_games_and_bonus():
    r = Rubber(("ann", "bob", "cy"), preset("classic"))
    assert r.record("ann", ("bob", "cy"), score_deal(C("2S"), 8, "classic")) == []  # 18 below
    assert r.below["ann"] == 18
    r.record("bob", ("cy", "ann"), score_deal(C("4S"), 8, "classic"))  # fails: cy and ann +100
    assert r.above == {"ann": 100, "bob": 0, "cy": 100}
    ev = r.record("ann", ("bob", "cy"), score_deal(C("1NT"), 7, "classic"))  # 18 + 10 = 28: no game
    assert ev == [] and r.below["ann"] == 28
    ev = r.record("cy", ("ann", "bob"), score_deal(C("3NT"), 9, "classic"))  # cy: game
    assert ev == ["cy wins a game"] and r.below == {"ann": 0, "bob": 0, "cy": 0}
    ev = r.record("cy", ("ann", "bob"), score_deal(C("4SX"), 10, "classic"))  # 72 below, 50 above: game + rubber
    assert ev == ["cy wins a game", "cy wins the rubber"] and r.is_over and r.winner == "cy"
    # cy: 30 + 72 trick points, 50 double bonus, 2 games x 125, rubber 250
    assert r.totals() == {"ann": 28 + 100, "bob": 0, "cy": 30 + 72 + 50 + 250 + 250 + 100}
    assert Rubber.from_json(r.to_json()) == r
    with pytest.raises(InvalidInput, match="over"):
        r.record("ann", ("bob", "cy"), score_deal(C("1C"), 7, "classic"))
