"""The robot API's answers as typed JSON: what each endpoint sends its client (``docs/server.md``).

TypedDicts, since the JSON shape is the contract: Brill's and the three-player API's answers
(``BidAnswerJson``, ``CardAnswerJson``) and BEN's, whose extra fields BEN's clients read.
"""

from __future__ import annotations

from typing import NotRequired, TypedDict

__all__ = [
    "BenBidJson",
    "BenCardCandidate",
    "BenCardJson",
    "BenExplainJson",
    "BidAnswerJson",
    "CallCandidate",
    "CardAnswerJson",
    "CardCandidate",
    "ThreeBidJson",
    "ThreeCallCandidate",
    "ThreeCardJson",
]


class CallCandidate(TypedDict):
    """A call the bidder considered: ``bid`` and ``call`` spell it the same way, for both clients' parsers."""

    bid: str
    call: str
    score: float
    insta_score: float


class BidAnswerJson(TypedDict):
    """``/apis/brill/bid``: the call (Brill's spelling), whether it is alerted, what it shows."""

    bid: str
    alert: bool
    explanation: str
    candidates: list[CallCandidate]
    model: str
    system: str
    bidder: str
    note: NotRequired[str]


class CardCandidate(TypedDict):
    """A card PIMC considered, with its mean double-dummy tricks (None when it was not searched)."""

    card: str
    score: float | None


class CardAnswerJson(TypedDict):
    """``/apis/brill/lead`` and ``/play``: the card, the candidates, the model."""

    card: str
    candidates: list[CardCandidate]
    model: str


class ThreeCallCandidate(TypedDict):
    """A call a three-player bidder considered, with its score."""

    bid: str
    score: float


class ThreeBidJson(TypedDict):
    """``/apis/3pab/bid``: a registry bot's call."""

    bid: str
    alert: bool
    explanation: str
    candidates: list[ThreeCallCandidate]
    model: str


class ThreeCardJson(CardAnswerJson):
    """``/apis/3pab/lead`` and ``/play``: the card, and which play seat each dealing seat moved to."""

    play_seats: NotRequired[dict[str, str]]


class BenBidJson(TypedDict):
    """BEN's ``/bid``; ``details`` adds the candidates and BEN's placeholders for samples and shape."""

    bid: str
    who: str
    alert: bool
    explanation: str
    model: str
    system: str
    note: NotRequired[str]
    candidates: NotRequired[list[CallCandidate]]
    samples: NotRequired[list[str]]
    hcp: NotRequired[int]
    shape: NotRequired[int]
    explanations: NotRequired[list[list[str]]]


class BenCardCandidate(TypedDict):
    """A card of BEN's ``details``: its expected double-dummy tricks when searched."""

    card: str
    expected_tricks_dd: NotRequired[float]


class BenCardJson(TypedDict):
    card: str
    who: str
    quality: None
    hcp: int
    shape: int
    model: str
    candidates: NotRequired[list[BenCardCandidate]]
    samples: NotRequired[list[str]]
    player: NotRequired[int]
    matchpoint: NotRequired[bool]
    MP_or_IMP: NotRequired[bool]


"""BEN's ``/lead`` and ``/play``: the card and BEN's extra fields (``player`` and the scoring for ``/play``)."""


class BenExplainJson(TypedDict):
    explanation: str
    Alert: bool


"""BEN's ``/explain``: the meaning of the last call and whether it is alertable."""
