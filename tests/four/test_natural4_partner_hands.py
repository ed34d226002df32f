"""Drawing partner hands for the four-handed bidder's trick counts: the compiled sampler agrees with its readable
numpy reference on random ranges, and asking for fewer strains leaves the asked columns unchanged."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.cards import Hand
from tribridge.dealing.streams import random_stream
from tribridge.estimators.tricks import estimate_tricks
from tribridge.four.natural4.core import Shown
from tribridge.four.natural4.partner_kernel import fitting_partner_hands
from tribridge.four.natural4.tricks import (
    _draw_keys,
    kernel_ranges,
    reference_partner_hands,
    sample_partner_hands,
    sampled_tricks,
)


@st.composite
def shown_ranges(draw) -> Shown:
    """What partner may have shown: an HCP range, suit-length ranges, maybe balanced."""
    lo = draw(st.integers(0, 20))
    hi = draw(st.integers(lo, 37))
    min_len = [draw(st.integers(0, 5)) for _ in range(4)]
    max_len = [draw(st.integers(m, 13)) for m in min_len]
    return Shown(lo=lo, hi=hi, min_len=min_len, max_len=max_len, balanced=draw(st.booleans()))


@settings(max_examples=150, deadline=None)
@given(shown_ranges(), st.integers(0, 2**32), st.integers(1, 40))
def test_compiled_sampler_keeps_the_hands_the_reference_keeps(shown, seed, wanted):
    """The same keys give the same fitting hands in the same order (each hand's cards sorted), cut at ``wanted``."""
    rng = np.random.default_rng(seed)
    unseen = np.sort(rng.permutation(52)[:39]).astype(np.int64)
    reference = reference_partner_hands(unseen, shown, np.random.default_rng(seed + 1), 120)
    keys = _draw_keys(unseen, np.random.default_rng(seed + 1), 120)
    compiled = fitting_partner_hands(keys, unseen, kernel_ranges(shown), shown.balanced, wanted)
    assert np.array_equal(compiled, np.sort(reference, axis=1)[:wanted])


def test_sampler_stops_at_the_hands_wanted_and_they_fit():
    """A wide range fills ``wanted`` from the first batch; every hand is 13 unseen cards within the range."""
    hand = Hand.from_pbn("AKQ2.J54.T98.762").cards
    shown = Shown(lo=6, hi=12, min_len=[0, 0, 0, 3], max_len=[13, 13, 13, 5])
    rows = sample_partner_hands(hand, shown, random_stream(5), wanted=12)
    assert rows.shape == (12, 13)
    assert not set(rows.ravel()) & set(hand)
    assert all(len(set(r)) == 13 for r in rows)
    hcp = np.maximum(0, 4 - rows % 13).sum(axis=1)
    spades = (rows // 13 == 3).sum(axis=1)
    assert ((hcp >= 6) & (hcp <= 12)).all() and ((spades >= 3) & (spades <= 5)).all()


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.sets(st.integers(0, 4), min_size=1))
def test_fewer_strains_leave_the_asked_columns_unchanged(seed, strains):
    """Each strain's estimate is computed on its own; the strains not asked are NaN."""
    cards = np.random.default_rng(seed).permutation(52)[:13]
    hand = [int(c) for c in cards]
    key = f"test|{seed}"
    full = sampled_tricks(hand, Shown(lo=8, hi=16), key)
    part = sampled_tricks(hand, Shown(lo=8, hi=16), key, strains=sorted(strains))
    if full is None:
        assert part is None
        return
    asked = sorted(strains)
    assert np.array_equal(part[:, asked], full[:, asked])
    assert np.isnan(np.delete(part, asked, axis=1)).all()


def test_estimator_refuses_strains_outside_the_five():
    """A strain outside 0..4 is refused naming the field."""
    import pytest

    from tribridge.errors import InvalidInput

    masks = np.array([[0b1111, 0b111, 0b111, 0b111]], dtype=np.int64)
    other = np.array([[0b11110000, 0b111000, 0b111000, 0b111000]], dtype=np.int64)
    with pytest.raises(InvalidInput, match="strains"):
        estimate_tricks(masks, other, strains=(5,))
    assert estimate_tricks(masks, other, strains=(4, 0)).shape == (1, 2)
