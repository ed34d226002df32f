"""Contracts scored without the play, for the bidding-only mode: trick tables and score lookups.

A contract's tricks come either from double dummy (``tribridge.dd``, the declarer and dummy being
the declarer's hand and the widow's, the defenders where the reseating puts them) or from the fast
trick estimator (``tribridge.estimators.tricks``, rounded to whole tricks: it sees only the
declarer's 26 cards). Everything here is compiled from the rules: the reseating from
``rules.auction.reseat``, the points from ``rules.scoring.score_deal``.

Calling positions are 0 (dealer), 1 (dealer's left), 2 (dealer's right), as in ``rules.auction.bidders_for``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache
from typing import Any

import numpy as np

from tribridge.errors import InvalidInput
from tribridge.rules.auction import ALL_BIDS, Contract, bidders_for, reseat
from tribridge.rules.deal import DealState
from tribridge.rules.scoring import ScoringScheme, get_scheme, score_deal

__all__ = [
    "DEFENDER_POSITIONS",
    "PLAY_SEATS",
    "POSITION_SEATS",
    "BATCH_TRICK_SOURCES",
    "TRICK_SPREAD",
    "TRICK_SOURCES",
    "check_batch_tricks_source",
    "check_tricks_source",
    "contract_tricks",
    "dd_contract_tricks",
    "dd_trick_tables",
    "estimated_contract_tricks",
    "estimated_trick_distribution",
    "normal_cdf",
    "play_owners",
    "score_table",
    "settle",
]

TRICK_SOURCES = ("dd", "estimate")
BATCH_TRICK_SOURCES = (*TRICK_SOURCES, "spread")
"""Trick sources of ``BiddingBatch``: also ``spread``, each contract's expected score over a trick distribution."""
TRICK_SPREAD = 0.9
"""Standard deviation (tricks) of the double-dummy tricks around the estimator's expected tricks (``spread``)."""


def _position_seats() -> np.ndarray:
    """``int64[4, 3]``: the dealing seat of each calling position, per dealer."""
    return np.array([[int(s) for s in bidders_for(d)] for d in range(4)], dtype=np.int64)


def _play_seats() -> np.ndarray:
    """``int64[4, 3, 4]``: dealing seat -> play seat, per dealer and declarer's calling position."""
    out = np.zeros((4, 3, 4), dtype=np.int64)
    for d in range(4):
        for p, declarer in enumerate(bidders_for(d)):
            mapping = reseat(d, declarer)
            out[d, p] = [int(mapping[s]) for s in sorted(mapping)]
    return out


POSITION_SEATS = _position_seats()
PLAY_SEATS = _play_seats()


def _defender_positions() -> np.ndarray:
    """``int64[4, 3, 2]``: calling positions of the declarer's left and right defenders (play seats)."""
    out = np.zeros((4, 3, 2), dtype=np.int64)
    for d in range(4):
        for p in range(3):
            declarer = POSITION_SEATS[d, p]
            for k, play_seat in enumerate(((declarer + 1) % 4, (declarer + 3) % 4)):
                dealt = int(np.flatnonzero(PLAY_SEATS[d, p] == play_seat)[0])
                out[d, p, k] = list(POSITION_SEATS[d]).index(dealt)
    return out


DEFENDER_POSITIONS = _defender_positions()


def check_tricks_source(tricks: str) -> str:
    """``tricks`` checked: ``dd`` or ``estimate``."""
    if tricks not in TRICK_SOURCES:
        raise InvalidInput("tricks", f"expected one of {', '.join(TRICK_SOURCES)}, got {tricks!r}")
    return tricks


def check_batch_tricks_source(tricks: str) -> str:
    """``tricks`` checked: ``dd``, ``estimate`` or ``spread``."""
    if tricks not in BATCH_TRICK_SOURCES:
        raise InvalidInput("tricks", f"expected one of {', '.join(BATCH_TRICK_SOURCES)}, got {tricks!r}")
    return tricks


@lru_cache(maxsize=16)
def _score_table(scheme: ScoringScheme) -> np.ndarray:
    table = np.zeros((len(ALL_BIDS), 3, 14, 3), dtype=np.int64)
    for b, call in enumerate(ALL_BIDS):
        assert call.denom is not None
        for doubling in range(3):
            contract = Contract(call.level, call.denom, doubling, bidders_for(0)[0])
            for tricks in range(14):
                score = score_deal(contract, tricks, scheme)
                table[b, doubling, tricks] = (score.declarer, score.defenders[0], score.defenders[1])
    table.setflags(write=False)
    return table


def score_table(scheme: ScoringScheme | str = "classic") -> np.ndarray:
    """``int64[35, 3, 14, 3]``: points of (declarer, left defender, right defender) by bid, doubling, tricks.

    Honours are not in it (they depend on the cards): a scheme that scores them is refused.
    """
    scheme_obj = get_scheme(scheme)
    if scheme_obj.honours:
        raise InvalidInput("scheme", f"{scheme_obj.name} scores honours, which a table of contracts cannot hold")
    return _score_table(scheme_obj)


def play_owners(owners: np.ndarray, dealers: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """``uint8[n, 52]``: the deals in play seats (the widow opposite the declarer at ``positions``)."""
    mapping = PLAY_SEATS[np.asarray(dealers, np.int64), np.asarray(positions, np.int64)]
    return np.take_along_axis(mapping, np.asarray(owners, np.int64), axis=1).astype(np.uint8)


def _seat_masks(owners: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """``int64[n, 4]`` suit masks (bit r = rank r) of the hand of ``seats[i]`` in deal ``i``."""
    held = np.asarray(owners) == np.asarray(seats)[:, None]
    return (held.reshape(-1, 4, 13) * (np.int64(1) << np.arange(13, dtype=np.int64))).sum(axis=2)


def estimated_contract_tricks(
    owners: np.ndarray, dealers: np.ndarray, positions: np.ndarray, strains: np.ndarray
) -> np.ndarray:
    """``int64[n]``: the trick estimator's whole tricks for the declarer at calling ``positions`` with the widow."""
    from tribridge.estimators.tricks import estimate_tricks, whole_tricks  # numba kernels: compiled on first use

    positions = np.asarray(positions, np.int64)
    if len(positions) == 0:
        return np.zeros(0, dtype=np.int64)
    dealers = np.asarray(dealers, np.int64)
    declarer = _seat_masks(owners, POSITION_SEATS[dealers, positions])
    widow = _seat_masks(owners, (dealers + 2) % 4)
    expected = estimate_tricks(declarer, widow)[np.arange(len(positions)), np.asarray(strains, np.int64)]
    return whole_tricks(expected).astype(np.int64)


def normal_cdf(x: np.ndarray) -> np.ndarray:
    """The standard normal distribution function, elementwise (Abramowitz and Stegun 7.1.26: error under 1e-7)."""
    z = np.abs(np.asarray(x, dtype=np.float64)) / np.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * z)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    erf = 1.0 - poly * np.exp(-z * z)
    return 0.5 * (1.0 + np.sign(x) * erf)


def estimated_trick_distribution(
    owners: np.ndarray, dealers: np.ndarray, positions: np.ndarray, strains: np.ndarray, spread: float = TRICK_SPREAD
) -> np.ndarray:
    """``float64[n, 14]``: the chance of each trick count 0..13, a normal around the estimator's tricks, whole.

    The declarer at calling ``positions`` with the widow in ``strains``; the normal has the estimator's
    expected tricks as its mean and ``spread`` as its deviation, its tails folded into 0 and 13.
    """
    from tribridge.estimators.tricks import estimate_tricks

    positions = np.asarray(positions, np.int64)
    if not spread > 0:
        raise InvalidInput("spread", f"expected a positive deviation, got {spread}")
    if len(positions) == 0:
        return np.zeros((0, 14), dtype=np.float64)
    dealers = np.asarray(dealers, np.int64)
    declarer = _seat_masks(owners, POSITION_SEATS[dealers, positions])
    widow = _seat_masks(owners, (dealers + 2) % 4)
    mean = estimate_tricks(declarer, widow)[np.arange(len(positions)), np.asarray(strains, np.int64)]
    edges = (np.arange(1, 14, dtype=np.float64)[None, :] - 0.5 - mean.astype(np.float64)[:, None]) / spread
    cdf = normal_cdf(edges)
    full = np.concatenate([np.zeros((len(mean), 1)), cdf, np.ones((len(mean), 1))], axis=1)
    return np.diff(full, axis=1)


def dd_contract_tricks(
    owners: np.ndarray,
    dealers: np.ndarray,
    positions: np.ndarray,
    strains: np.ndarray,
    cache: Any = False,
    workers: int | None = 1,
    on_progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """``int64[n]``: double-dummy tricks of the declarer at calling ``positions`` in ``strains``, the widow as dummy.

    ``cache``, ``workers`` and ``on_progress`` (cells done in each step) go to ``dd_declarer_tricks``.
    """
    from tribridge.dd import dd_declarer_tricks  # endplay: loaded on the first solve

    positions = np.asarray(positions, np.int64)
    if len(positions) == 0:
        return np.zeros(0, dtype=np.int64)
    played = play_owners(owners, dealers, positions)
    declarers = POSITION_SEATS[np.asarray(dealers, np.int64), positions]
    strains = np.asarray(strains, np.int64)
    return dd_declarer_tricks(played, declarers, strains, cache=cache, workers=workers, on_progress=on_progress)


def dd_trick_tables(
    owners: np.ndarray,
    dealers: np.ndarray,
    cache: Any = True,
    workers: int | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """``uint8[n, 3, 5]``: double-dummy tricks of each calling position as declarer in each strain, the widow as dummy.

    Fifteen cells a deal (``dd_contract_tricks``, cached); ``on_progress`` gets the number of cells
    done in each step.
    """
    n = len(owners)
    positions = np.tile(np.repeat(np.arange(3), 5), n)
    strains = np.tile(np.arange(5), 3 * n)
    cell_owners, cell_dealers = np.repeat(np.asarray(owners, np.uint8), 15, axis=0), np.repeat(dealers, 15)
    tricks = dd_contract_tricks(cell_owners, cell_dealers, positions, strains, cache, workers, on_progress)
    return tricks.reshape(n, 3, 5).astype(np.uint8)


def contract_tricks(state: DealState, source: str) -> int:
    """Tricks of the contract of a finished auction from the trick source (``dd`` or ``estimate``)."""
    contract = state.contract
    if contract is None:
        raise InvalidInput("state", "the deal was thrown in: there is no contract")
    tricks_of = estimated_contract_tricks if check_tricks_source(source) == "estimate" else dd_contract_tricks
    position = state.players.index(contract.declarer)
    args = (np.array([int(state.dealer)]), np.array([position]), np.array([int(contract.denom)]))
    return int(tricks_of(state.deal.to_owners()[None, :], *args)[0])


def settle(state: DealState, source: str) -> DealState:
    """The finished deal of an auction that is over: the contract taken with the source's tricks (as an agreed claim)."""
    if state.phase == "auction":
        raise InvalidInput("state", "the auction is not over")
    if state.is_terminal() or state.play is None or state.contract is None:
        return state
    tricks = contract_tricks(state, source)
    return replace(state, play=state.play.agreed_claim(state.contract.declarer, tricks))
