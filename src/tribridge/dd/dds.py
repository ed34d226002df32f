"""The one door to the DDS solver (endplay's ``_dds`` bindings) and DDS's card layout.

Every module of :mod:`tribridge.dd` that solves reaches DDS through :func:`require_dds`, which is
also the one place a missing solver is reported: every solving entry point calls it first, before
any cache is read, so a cached answer never hides a solver that is not installed.

endplay is imported on first use, not when :mod:`tribridge.dd` is imported: it is an optional
dependency (``tribridge[dd]``) and importing it costs about a second, which the cache tools, the
CLI's start-up and the server's start-up should not pay before they solve.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

__all__ = [
    "MAX_BOARDS",
    "MAX_FULL_TABLES",
    "MAX_NT_TABLES",
    "NT",
    "STRAIN_NAMES",
    "UNKNOWN",
    "SolverUnavailable",
    "dds_strain",
    "fill_remain_cards",
    "owners_from_remain_cards",
    "require_dds",
]

STRAIN_NAMES = ("C", "D", "H", "S", "NT")
NT = 4
MAX_FULL_TABLES = 40  # DDS: deals per CalcAllTables call with all five strains
MAX_NT_TABLES = 200  # DDS: deals per call with one strain
MAX_BOARDS = 200  # DDS: boards per SolveAllBoards call
UNKNOWN = 255  # marker for a table cell not computed (and for a card nobody holds)

# our rank r (0 = Ace) -> DDS rank bit (Ace = 1 << 14, two = 1 << 2)
DDS_RANK_BIT = [1 << (14 - r) for r in range(13)]


class SolverUnavailable(RuntimeError):
    """The double-dummy solver (endplay's DDS) cannot be imported; nothing can be solved."""


def require_dds() -> Any:
    """endplay's ``_dds`` module, or :class:`SolverUnavailable` saying how to install it."""
    try:
        return importlib.import_module("endplay._dds")
    except ImportError as exc:
        raise SolverUnavailable(
            "double-dummy solver unavailable: endplay (DDS) cannot be imported "
            f"({exc}); install it with pip install 'tribridge[dd]'"
        ) from exc


def dds_strain(strain: int) -> int:
    """DDS strain code (S=0 H=1 D=2 C=3 NT=4) of our strain (C=0 D=1 H=2 S=3 NT=4)."""
    return NT if strain == NT else 3 - strain


def fill_remain_cards(remain: Any, owners: np.ndarray) -> None:
    """Write an owner row (values > 3 = card gone) into a DDS ``remainCards[4][4]`` array."""
    for seat in range(4):
        for dds_suit in range(4):
            remain[seat][dds_suit] = 0
    for c in range(52):
        seat = int(owners[c])
        if seat < 4:
            remain[seat][3 - c // 13] |= DDS_RANK_BIT[c % 13]


def owners_from_remain_cards(remain: Any) -> np.ndarray:
    """The owner row (255 where nobody holds the card) of a DDS ``remainCards`` array."""
    owners = np.full(52, UNKNOWN, dtype=np.uint8)
    for seat in range(4):
        for dds_suit in range(4):
            bits = int(remain[seat][dds_suit])
            for r in range(13):
                if bits & DDS_RANK_BIT[r]:
                    owners[(3 - dds_suit) * 13 + r] = seat
    return owners
