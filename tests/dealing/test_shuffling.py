"""Tests of riffle shuffles, dealing patterns and the total-variation mathematics (dealing/)."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.dealing import randomness as R
from tribridge.dealing import shuffles as S
from tribridge.errors import InvalidInput

# Published figures (Bayer–Diaconis 1992, 52 cards, k = 1..10 riffles)
PUBLISHED_52 = [1.000, 1.000, 1.000, 1.000, 0.924, 0.614, 0.334, 0.167, 0.085, 0.043]


def test_bayer_diaconis_52_card_table_matches_published_three_digits():
    table = R.bayer_diaconis_table(52, range(1, 11))
    assert [round(float(table[k]), 3) for k in range(1, 11)] == PUBLISHED_52
    assert all(isinstance(v, Fraction) for v in table.values())


def test_eulerian_numbers_small_rows():
    assert R.eulerian_numbers(4) == (1, 11, 11, 1)
    for n in range(1, 9):
        assert sum(R.eulerian_numbers(n)) == math.factorial(n)


@pytest.mark.parametrize("n,a", [(3, 2), (4, 2), (4, 3), (5, 2)])
def test_bayer_diaconis_tv_equals_brute_force_over_digit_strings(n, a):
    counts = {}
    for digits in itertools.product(range(a), repeat=n):
        pi = tuple(S.digits_to_positions(np.asarray(digits)).tolist())
        counts[pi] = counts.get(pi, 0) + 1
    total = a**n
    tv = Fraction(0)
    for perm in itertools.permutations(range(n)):
        tv += abs(Fraction(counts.get(perm, 0), total) - Fraction(1, math.factorial(n)))
    assert tv / 2 == R.bayer_diaconis_tv(n, a)


def test_forward_sampler_is_stable_argsort_of_digits_and_inverse_is_its_inverse():
    n, a = 9, 5
    pi = S.a_shuffle(n, a, np.random.default_rng(3), size=200)
    digits = np.random.default_rng(3).integers(0, a, size=(200, n), dtype=np.uint8)
    assert np.array_equal(pi, S.digits_to_positions(digits))
    inv = S.inverse_a_shuffle(n, a, np.random.default_rng(3), size=200)
    assert np.array_equal(S.compose_positions(pi, inv), np.tile(np.arange(n), (200, 1)))
    assert np.all(np.sort(pi, axis=1) == np.arange(n))


@pytest.mark.parametrize(
    "deck,players,hand,pattern,a",
    [
        ("distinct", 3, 2, "cyclic", 2),
        ("distinct", 3, 2, "ordered", 3),
        ("distinct", 2, 3, "back-and-forth", 3),
        ("colors", 3, 2, "NSEESN", 4),
        ("BRBRR", 5, 1, "ordered", 3),
        ("suits", 2, 4, "back-and-forth", 2),
    ],
)
def test_exact_forward_sampler_law_equals_formula_law(deck, players, hand, pattern, a):
    word = S.dealing_pattern(pattern, players, hand)
    values = S.deck_values(deck, players * hand)
    law = R.exact_deal_law(values, word)
    brute = R.forward_sampler_weights(values, word, a)
    formula = {law.outcomes[i].astype(np.int16).tobytes(): w for i, w in enumerate(law.weights(a)) if w}
    assert brute == formula
    assert sum(brute.values()) == a ** (players * hand)


def test_inverse_shuffle_has_a_different_law_of_hands():
    word = S.dealing_pattern("cyclic", 2, 2)
    values = S.deck_values("distinct", 4)
    a = 2
    forward = R.forward_sampler_weights(values, word, a)
    inverse: dict[bytes, int] = {}
    for digits in itertools.product(range(a), repeat=4):
        pi = S.invert_positions(S.digits_to_positions(np.asarray(digits)))
        table = S.hand_counts(S.owner_words(pi, word)[None, :], values, 2)[0].astype(np.int16)
        inverse[table.tobytes()] = inverse.get(table.tobytes(), 0) + 1
    assert forward != inverse
    assert sorted(forward.values()) != sorted(inverse.values()) or set(forward) != set(inverse)


def test_two_riffles_compose_to_a_four_shuffle_exactly():
    n = 4
    law4: dict[tuple, int] = {}
    for digits in itertools.product(range(4), repeat=n):
        pi = tuple(S.digits_to_positions(np.asarray(digits)).tolist())
        law4[pi] = law4.get(pi, 0) + 1
    law22: dict[tuple, int] = {}
    twos = [S.digits_to_positions(np.asarray(d)) for d in itertools.product(range(2), repeat=n)]
    for first in twos:
        for second in twos:
            pi = tuple(S.compose_positions(first, second).tolist())
            law22[pi] = law22.get(pi, 0) + 1
    assert law4 == law22


@pytest.mark.parametrize(
    "deck,players,hand,pattern",
    [
        ("distinct", 3, 2, "ordered"),
        ("distinct", 2, 3, "cyclic"),
        ("colors", 2, 3, "ordered"),
        ("colors", 3, 2, "NESNES"),
        ("BRRBRB", 2, 3, "back-and-forth"),
        ("suits", 4, 2, "cyclic"),
    ],
)
def test_first_order_formula_equals_exact_descent_histogram_per_outcome(deck, players, hand, pattern):
    word = S.dealing_pattern(pattern, players, hand)
    values = S.deck_values(deck, players * hand)
    law = R.exact_deal_law(values, word)
    from_histogram = law.first_order_coefficients()
    from_formula = [R.hand_first_order_coefficient(values, word, t) for t in law.outcomes]
    assert from_histogram == from_formula
    assert R.first_order_constant(values, word, hand).exact == law.first_order_constant()


def test_deck_first_order_coefficient_matches_exact_transition_law():
    source = [0, 0, 1, 1, 2]
    n = len(source)
    targets = sorted(set(itertools.permutations(source)))
    perms = R.all_permutations(n)
    des = S.descents(perms)
    for target in targets[:10]:
        # permutations carrying source onto target: target[pi[i]] == source[i]
        mask = np.all(np.asarray(target)[perms] == np.asarray(source), axis=1)
        mean_des = Fraction(int(des[mask].sum()), int(mask.sum()))
        expected = n * (Fraction(n - 1, 2) - mean_des)
        assert R.deck_first_order_coefficient(source, list(target)) == expected


@pytest.mark.parametrize(
    "deck,players,hand,pattern",
    [("distinct", 3, 2, "ordered"), ("colors", 2, 3, "cyclic"), ("distinct", 2, 3, "back-and-forth")],
)
def test_a_times_tv_converges_to_first_order_constant(deck, players, hand, pattern):
    word = S.dealing_pattern(pattern, players, hand)
    values = S.deck_values(deck, players * hand)
    law = R.exact_deal_law(values, word)
    constant = law.first_order_constant()
    assert constant > 0
    gaps = [abs(a * law.tv(a) - constant) for a in (10**2, 10**3, 10**4, 10**5)]
    assert all(later < earlier / 5 for earlier, later in zip(gaps, gaps[1:]))
    assert gaps[-1] < Fraction(1, 1000)


@pytest.mark.parametrize("players,hand", [(2, 3), (3, 3), (2, 5), (4, 3), (4, 13)])
def test_distinct_cards_ratios_are_s_squared_s_one_for_odd_s(players, hand):
    values = S.deck_values("distinct", players * hand)
    c = {name: R.first_order_constant(values, w, hand).exact for name, w in R.classic_patterns(players, hand).items()}
    assert c["back-and-forth"] > 0
    assert c["ordered"] / c["cyclic"] == hand
    assert c["cyclic"] / c["back-and-forth"] == hand


def test_ratios_from_exact_enumeration_without_the_formula():
    values = S.deck_values("distinct", 9)
    c = {name: R.exact_deal_law(values, w).first_order_constant() for name, w in R.classic_patterns(3, 3).items()}
    assert c["ordered"] == 3 * c["cyclic"] == 9 * c["back-and-forth"] > 0


@pytest.mark.parametrize(
    "players,hand,deck", [(2, 2, "distinct"), (4, 2, "distinct"), (2, 4, "distinct"), (4, 2, "colors"), (2, 4, "suits")]
)
def test_back_and_forth_first_order_constant_is_zero_for_even_s(players, hand, deck):
    values = S.deck_values(deck, players * hand)
    word = S.dealing_pattern("back-and-forth", players, hand)
    law = R.exact_deal_law(values, word)
    assert law.first_order_constant() == 0
    assert law.tv(2**6) > 0  # the second-order term remains
    cyclic = R.exact_deal_law(values, S.dealing_pattern("cyclic", players, hand)).first_order_constant()
    assert cyclic > 0


def test_repeated_values_ratios_are_s_and_s_for_odd_s():
    values = S.deck_values("colors", 12)
    c = {name: R.first_order_constant(values, w, 3).exact for name, w in R.classic_patterns(4, 3).items()}
    assert c["ordered"] / c["cyclic"] == 3
    assert c["cyclic"] / c["back-and-forth"] == 3


def test_two_types_with_matching_top_and_bottom_cancel_for_every_pattern():
    values = S.deck_values("BRRRRBBB", 8)
    best = R.exhaustive_best_patterns(values, 4, 2, top=2000)
    assert len(best) == math.factorial(8) // (2**4 * 24)
    assert all(p.exact == 0 for p in best)


def test_two_types_odd_s_something_beats_back_and_forth():
    values = S.deck_values("colors", 12)
    best = R.exhaustive_best_patterns(values, 4, 3, top=1)[0]
    bf = R.first_order_constant(values, S.dealing_pattern("back-and-forth", 4, 3), 3).exact
    assert best.exact < bf
    # the winner's exact law (enumeration of S_12 is too big, so check a*TV on the formula's side)
    assert best.exact == R.exact_outcome_statistics(values, 4, 3).constant(best.pattern)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=2, max_size=3), st.integers(0, 2**16))
def test_fast_pair_statistic_dp_equals_reference(counts, seed):
    counts = [c + 1 for c in counts]
    k = len(counts)
    rng = np.random.default_rng(seed)
    upper = rng.integers(-2, 3, size=(k, k))
    steps = np.triu(upper, 1) - np.triu(upper, 1).T
    assert R.pair_statistic_law(counts, steps) == R.pair_statistic_distribution(counts, steps)


def test_bridge_first_order_constants_and_published_factor_13():
    values = S.deck_values("distinct", 52)
    c = {name: R.first_order_constant(values, w, 13) for name, w in R.classic_patterns(4, 13).items()}
    assert all(v.method == "dp" for v in c.values())
    assert c["ordered"].exact == 13 * c["cyclic"].exact == 169 * c["back-and-forth"].exact
    # Conger–Howald's "about 3.7 extra shuffles" per factor of 13
    assert round(math.log2(c["cyclic"].exact / c["back-and-forth"].exact), 1) == 3.7
    mc = R.first_order_constant(
        values,
        S.dealing_pattern("cyclic", 4, 13),
        13,
        method="monte-carlo",
        samples=40_000,
        rng=np.random.default_rng(1),
    )
    assert abs(mc.value - c["cyclic"].value) < 4 * mc.stderr


def test_monte_carlo_feature_tv_is_near_one_early_and_near_floor_late():
    rng = np.random.default_rng(2)
    early = R.monte_carlo_feature_tv("ascent-descent", "ordered", [2], 4000, rng)[0]
    assert early.tv > 0.95
    late = R.monte_carlo_feature_tv("colors", "cyclic", [14], 20000, rng)[0]
    assert late.tv < late.floor + 5 * late.stderr + 0.01
    ordered = R.monte_carlo_feature_tv("suits", "ordered", [3], 20000, rng)[0]
    assert ordered.tv > ordered.floor + 5 * ordered.stderr


def test_feature_uniform_laws_sum_to_one():
    for feature in R.FEATURES:
        law, total = R.feature_uniform_law(feature, 4, 13)
        assert sum(law.values()) == total


def test_dealing_patterns_and_words():
    assert S.pattern_to_word(S.dealing_pattern("ordered", 4, 2)) == "NNEESSWW"
    assert S.pattern_to_word(S.dealing_pattern("cyclic", 4, 2)) == "NESWNESW"
    assert S.pattern_to_word(S.dealing_pattern("back-and-forth", 4, 3)) == "NESWWSENNESW"
    assert S.dealing_pattern("1221", 2, 2).tolist() == [0, 1, 1, 0]
    with pytest.raises(InvalidInput) as err:
        S.dealing_pattern("NNNE", 2, 2)
    assert err.value.field == "pattern"
    with pytest.raises(InvalidInput):
        S.dealing_pattern("zigzag", 4, 13)


def test_bridge_and_three_player_deals():
    owners = S.deal_bridge(np.random.default_rng(0), 7, "back-and-forth", size=50)
    assert owners.shape == (50, 52)
    assert np.all(np.stack([(owners == s).sum(axis=1) for s in range(4)]) == 13)
    owners3, widow = S.deal_three_player(np.random.default_rng(0), 7, dealer=1, size=5)
    assert widow == 3
    # dealt from the dealer's left: with 0 shuffles and ordered dealing the top 13 go to seat 2
    fixed, _ = S.deal_three_player(np.random.default_rng(0), 0, dealer=1, pattern="ordered")
    assert fixed[0, :13].tolist() == [2] * 13 and fixed[0, 39:].tolist() == [1] * 13
    assert np.all((owners3 == widow).sum(axis=1) == 13)


def test_exact_law_tv_decreases_and_bounded():
    law = R.exact_deal_law(S.deck_values("distinct", 8), S.dealing_pattern("cyclic", 4, 2))
    tvs = [law.tv(2**k) for k in range(0, 9)]
    assert tvs[0] > Fraction(9, 10) and all(0 <= t <= 1 for t in tvs)
    assert all(b < a for a, b in zip(tvs, tvs[1:]))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([(2, 3), (3, 2), (4, 2)]))
def test_hand_counts_and_sampled_statistics_match_naive(seed, shape):
    players, hand = shape
    n = players * hand
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 3, size=n).astype(np.int16)
    values = S.deck_values(values, n)
    owners = rng.permuted(np.tile(np.repeat(np.arange(players), hand), (5, 1)), axis=1).astype(np.int8)
    tables = S.hand_counts(owners, values, players)
    for b in range(5):
        naive = np.zeros(tables.shape[1:], dtype=int)
        for i in range(n):
            naive[values[i], owners[b, i]] += 1
        assert np.array_equal(tables[b], naive)
    # Monte Carlo statistics of a distinct deck: the fast digraph path equals the general formula
    distinct = S.deck_values("distinct", n)
    fast = R.sampled_outcome_statistics(distinct, players, hand, 50, np.random.default_rng(seed))
    base = np.repeat(np.arange(players, dtype=np.int8), hand)
    words = np.random.default_rng(seed).permuted(np.tile(base, (50, 1)), axis=1)
    general, scale = R.outcome_g(distinct, S.hand_counts(words, distinct, players))
    assert scale == 1 and np.array_equal(fast.g, general)
