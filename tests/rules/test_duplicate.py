"""Duplicate scoring of four-handed bridge: scores from the Laws' scoring table, and the all-at-once table."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tribridge.rules.duplicate import duplicate_score, score_table

C, D, H, S, N = 0, 1, 2, 3, 4


@pytest.mark.parametrize(
    ("level", "strain", "doubling", "vulnerable", "tricks", "score"),
    [
        (1, N, 0, False, 7, 90),
        (2, C, 0, False, 8, 90),
        (3, N, 0, False, 9, 400),
        (3, N, 0, True, 10, 630),
        (4, S, 0, True, 10, 620),
        (4, H, 0, False, 11, 450),
        (5, D, 0, True, 11, 600),
        (6, S, 0, False, 12, 980),
        (6, N, 0, True, 12, 1440),
        (7, N, 0, True, 13, 2220),
        (7, C, 0, False, 13, 1440),
        (2, H, 1, False, 8, 470),  # doubled into game
        (1, N, 2, True, 8, 1160),  # redoubled, an overtrick
        (4, S, 0, False, 9, -50),
        (4, S, 0, True, 7, -300),
        (3, N, 1, False, 6, -500),  # 100 + 200 + 200
        (3, N, 1, False, 5, -800),  # then 300 each
        (4, H, 1, True, 7, -800),  # 200 + 300 + 300
        (1, C, 2, True, 0, -4000),  # 2 x (200 + 6 x 300)
    ],
)
def test_scores_from_the_scoring_table(level, strain, doubling, vulnerable, tricks, score):
    assert duplicate_score(level, strain, doubling, vulnerable, tricks) == score


@given(st.integers(1, 7), st.integers(0, 4), st.integers(0, 2), st.booleans(), st.integers(0, 13), st.integers(0, 13))
def test_more_tricks_never_score_less(level, strain, doubling, vulnerable, a, b):
    low, high = sorted((a, b))
    assert duplicate_score(level, strain, doubling, vulnerable, low) <= duplicate_score(
        level, strain, doubling, vulnerable, high
    )


@given(st.integers(1, 7), st.integers(0, 4), st.booleans(), st.integers(0, 13))
def test_doubling_multiplies_undertricks_and_table_agrees(level, strain, vulnerable, tricks):
    plain, doubled, redoubled = (duplicate_score(level, strain, x, vulnerable, tricks) for x in range(3))
    if tricks < level + 6:
        assert redoubled == 2 * doubled < plain < 0
    else:
        assert plain < doubled < redoubled
    assert score_table(vulnerable)[level, strain, 1, tricks] == doubled


def test_impossible_contract_is_an_error():
    with pytest.raises(ValueError, match="level=8"):
        duplicate_score(8, 0, 0, False, 13)
