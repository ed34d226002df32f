"""Expected tricks of a partnership from one hand and what partner has shown: partner hands are drawn from
the unseen cards within partner's shown ranges, and the fast trick estimator
(``tribridge.estimators.tricks``) counts each pair's double-dummy tricks."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from tribridge.dealing.streams import random_stream
from tribridge.four.natural4.core import Shown

__all__ = ["PARTNER_SAMPLES", "DRAWS", "MOST_DRAWS", "sample_partner_hands", "sampled_tricks", "expected_tricks"]

PARTNER_SAMPLES = 16
DRAWS = 160
MOST_DRAWS = 800  # expected_tricks tries more hands, in batches of DRAWS, while too few fit
ALL_STRAINS = (0, 1, 2, 3, 4)
SUIT_SHIFTS, SUIT_MASK = np.int64(13) * np.arange(4, dtype=np.int64), np.int64((1 << 13) - 1)


def _draw_keys(unseen: np.ndarray, rng: np.random.Generator, draws: int) -> np.ndarray:
    """Random keys ``float[draws, unseen]``: row ``i``'s 13 smallest pick the ``i``-th random hand."""
    return rng.random((draws, unseen.size))


def reference_partner_hands(unseen: np.ndarray, partner: Shown, rng: np.random.Generator, draws: int) -> np.ndarray:
    """The hands ``int64[k, 13]`` among ``draws`` random 13-card draws from ``unseen`` that lie within partner's
    HCP range and suit-length ranges (and balanced when partner showed it): the readable version of
    ``partner_kernel.fitting_partner_hands`` (which sorts each hand's cards and stops at the hands wanted)."""
    keys = _draw_keys(unseen, rng, draws)
    picks = unseen[np.argpartition(keys, 13, axis=1)[:, :13]]
    hcp = np.maximum(0, 4 - picks % 13).sum(axis=1)
    lens = np.stack([(picks // 13 == s).sum(axis=1) for s in range(4)], axis=1)
    ok = (hcp >= partner.lo) & (hcp <= partner.hi)
    ok &= (lens >= np.asarray(partner.min_len)).all(axis=1) & (lens <= np.asarray(partner.max_len)).all(axis=1)
    if partner.balanced:
        ok &= (lens >= 2).all(axis=1) & ((lens == 2).sum(axis=1) <= 1) & (lens.max(axis=1) <= 5)
    return picks[ok]


def kernel_ranges(partner: Shown) -> np.ndarray:
    """Partner's ranges as ``fitting_partner_hands`` reads them: HCP low, high, then each suit's length low, high."""
    lengths = [bound for s in range(4) for bound in (partner.min_len[s], partner.max_len[s])]
    return np.array([partner.lo, partner.hi, *lengths], dtype=np.int64)


def sample_partner_hands(
    hand: Sequence[int],
    partner: Shown,
    rng: np.random.Generator,
    wanted: int = PARTNER_SAMPLES,
    draws: int = DRAWS,
    most_draws: int | None = None,
) -> np.ndarray:
    """Up to ``wanted`` partner hands ``int64[k, 13]`` from the unseen cards, within partner's HCP range and
    suit-length ranges (and balanced when partner showed it): ``draws`` random hands are tried, and more in
    batches of ``draws`` while fewer than ``wanted`` fit, up to ``most_draws`` in all (default: ``draws``)."""
    from tribridge.four.natural4.partner_kernel import fitting_partner_hands  # numba: loaded when first needed

    unseen = np.array(sorted(set(range(52)) - {int(c) for c in hand}), dtype=np.int64)
    ranges = kernel_ranges(partner)

    def fitting(batch: int, still_wanted: int) -> np.ndarray:
        return fitting_partner_hands(_draw_keys(unseen, rng, batch), unseen, ranges, partner.balanced, still_wanted)

    found = [fitting(draws, wanted)]
    have, tried, limit = len(found[0]), draws, draws if most_draws is None else most_draws
    while have < wanted and tried < limit:
        batch = min(draws, limit - tried)
        found.append(fitting(batch, wanted - have))
        have, tried = have + len(found[-1]), tried + batch
    return np.concatenate(found)


def _masks(rows: np.ndarray) -> np.ndarray:
    """Suit masks ``int64[k, 4]`` (bit r = rank r) of hands given as card indices ``int[k, 13]`` (card 13 s + r)."""
    cards = (np.int64(1) << rows.astype(np.int64)).sum(axis=1)  # bit c for card c: distinct cards, so sum is or
    return (cards[:, None] >> SUIT_SHIFTS) & SUIT_MASK


def sampled_tricks(
    hand: Sequence[int],
    partner: Shown,
    key: str,
    wanted: int = PARTNER_SAMPLES,
    draws: int = DRAWS,
    most_draws: int | None = None,
    strains: Sequence[int] = ALL_STRAINS,
) -> np.ndarray | None:
    """Estimated tricks ``float[k, 5]`` (C D H S NT) of this hand with each of ``k`` partner hands drawn within
    what partner showed (``draws`` tried, more up to ``most_draws`` while too few fit); None when fewer than
    four fit. Only the columns of ``strains`` are estimated (the others are NaN). ``key`` seeds the draw (the
    same position gives the same answer, whichever strains are asked)."""
    import numba  # with the numba-compiled estimator: loaded on the first call that needs them (start-up time)

    from tribridge.estimators.tricks import estimate_tricks

    seed = int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little")
    rows = sample_partner_hands(hand, partner, random_stream(seed), wanted, draws, most_draws)
    if len(rows) < 4:
        return None
    mine = np.repeat(_masks(np.asarray(sorted(hand), dtype=np.int64)[None, :]), len(rows), axis=0)
    asked = sorted(set(strains))
    threads = numba.get_num_threads()
    numba.set_num_threads(1)  # a small batch: threads cost more than they give (the setting is per thread)
    try:
        estimated = estimate_tricks(mine, _masks(rows), strains=asked)
    finally:
        numba.set_num_threads(threads)
    tricks = np.full((len(rows), 5), np.nan)
    tricks[:, asked] = estimated
    return tricks


def expected_tricks(
    hand: Sequence[int], partner: Shown, key: str, strains: Sequence[int] = ALL_STRAINS
) -> np.ndarray | None:
    """Mean estimated tricks ``float[5]`` (C D H S NT; NaN outside ``strains``) for this hand and partner (see
    :func:`sampled_tricks`)."""
    tricks = sampled_tricks(hand, partner, key, most_draws=MOST_DRAWS, strains=strains)
    return None if tricks is None else tricks.mean(axis=0)
