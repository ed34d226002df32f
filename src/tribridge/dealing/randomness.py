"""How random are dealt hands after riffle shuffles: exact and first-order total variation, Monte Carlo, best patterns.

Notation (docs/shuffling.md): a shuffle ``pi`` moves the card at
position i to ``pi[i]``; ``des(pi)`` counts its descents; an a-shuffle gives
``P_a(pi) = C(a + n - 1 - des(pi), n) / a^n`` (Bayer–Diaconis).  A deal by pattern
``L`` gives the card that started at position i to player ``h_i = L[pi[i]]``; the
outcome ``omega`` is the table ``c[v, p]`` of how many cards of value v player p holds.

First order (derived in docs/shuffling.md): expanding the binomial,
``P_a(pi) = (1/n!)(1 + n((n-1)/2 - des(pi))/a + O(a^-2))``, so
``P_a(omega) = Pi(omega)(1 + c1(omega)/a + ...)`` with
``c1(omega) = n((n-1)/2 - E[des | omega])``.  Given the owner word h, pi is uniform
among the maps that respect L, so ``E[1/2 - 1{pi(i) > pi(i+1)} | h] = Z_L(h_i, h_{i+1})``
with ``Z_L(x, y) = (N_L(x, y) - N_L(y, x)) / (2 s_x s_y)``; averaging over the owner
words that give omega,
``c1(omega) = n * sum_{v != w} W_D(v, w) * c_v^T Z_L c_w / (m_v m_w)``
(W_D: digraphs of the source deck, m_v: multiplicities).  We write it
``c1 = n/(2 s^2) * <G(omega), M_L>`` with ``M_L = N_L - N_L^T`` (integers) and
``G(omega) = sum W_D(v,w) c_v c_w^T / (m_v m_w)``; the first-order constant
``lim a*TV = (1/2) E_Pi |c1|`` then splits into a deck part (the law of G) and a
pattern part (M_L).  For distinct cards G is the digraph table of the owner word, and
for the three classic patterns ``M_L = beta * sign(y - x)`` (beta = s^2, s, s mod 2),
so ``c1 = n beta/(2 s^2) * (asc - des)(h)`` and the constant is exact from the law of
ascents-minus-descents of a random word, computed by a dynamic programme.

The work is split by method: ``exact_law`` (Bayer–Diaconis; exact laws of small decks),
``first_order`` (the first-order constant and the pair-statistic law), ``patterns`` (Monte Carlo
total variation of 52-card deals; best dealing patterns). This module gathers their public names.
"""

from __future__ import annotations

from tribridge.dealing.exact_law import (
    MAX_EXACT_CARDS,
    PUBLISHED_BAYER_DIACONIS_52,
    DealLaw,
    a_shuffle_weight,
    all_permutations,
    bayer_diaconis_table,
    bayer_diaconis_tv,
    eulerian_numbers,
    exact_deal_law,
    forward_sampler_weights,
    players_of,
)
from tribridge.dealing.first_order import (
    DP_MAX_CELLS,
    FirstOrderConstant,
    OutcomeStatistics,
    ascending_sign,
    ascent_descent_distribution,
    classic_factor,
    clear_pair_statistic_cache,
    contingency_tables,
    deck_first_order_coefficient,
    digraph_counts,
    distinct_dp_constant,
    exact_outcome_statistics,
    first_order_constant,
    hand_first_order_coefficient,
    outcome_g,
    pair_statistic,
    pair_statistic_distribution,
    pair_statistic_dp_cells,
    pair_statistic_law,
    pattern_antisymmetry,
    precedence_counts,
    sampled_outcome_statistics,
    table_count_bound,
)
from tribridge.dealing.patterns import (
    FEATURES,
    FeatureTV,
    PatternScore,
    canonical_patterns,
    classic_patterns,
    exhaustive_best_patterns,
    feature_uniform_law,
    local_search_pattern,
    monte_carlo_feature_tv,
    shuffles_for_tv,
    tournament_constants,
    tv_by_shuffles_exact,
)

__all__ = [
    "MAX_EXACT_CARDS",
    "PUBLISHED_BAYER_DIACONIS_52",
    "DealLaw",
    "a_shuffle_weight",
    "all_permutations",
    "bayer_diaconis_table",
    "bayer_diaconis_tv",
    "eulerian_numbers",
    "exact_deal_law",
    "forward_sampler_weights",
    "players_of",
    "DP_MAX_CELLS",
    "FirstOrderConstant",
    "OutcomeStatistics",
    "ascending_sign",
    "ascent_descent_distribution",
    "classic_factor",
    "clear_pair_statistic_cache",
    "contingency_tables",
    "deck_first_order_coefficient",
    "digraph_counts",
    "distinct_dp_constant",
    "exact_outcome_statistics",
    "first_order_constant",
    "hand_first_order_coefficient",
    "outcome_g",
    "pair_statistic",
    "pair_statistic_distribution",
    "pair_statistic_dp_cells",
    "pair_statistic_law",
    "pattern_antisymmetry",
    "precedence_counts",
    "sampled_outcome_statistics",
    "table_count_bound",
    "FEATURES",
    "FeatureTV",
    "PatternScore",
    "canonical_patterns",
    "classic_patterns",
    "exhaustive_best_patterns",
    "feature_uniform_law",
    "local_search_pattern",
    "monte_carlo_feature_tv",
    "shuffles_for_tv",
    "tournament_constants",
    "tv_by_shuffles_exact",
]
