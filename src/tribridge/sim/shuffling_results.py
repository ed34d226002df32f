"""The shuffling report's tables as dataclasses (``sim.shuffling_report`` fills them, ``to_json()`` prints them).

Field names follow the JSON keys, except where a key is not a Python name (``ordered/cyclic``, the
constants by dealing name, ``riffles_for_first_order_tv_0.1``); ``to_json`` writes those keys as they were.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

__all__ = [
    "BayerDiaconisRow",
    "ExactCurve",
    "ExactSmall",
    "FirstOrderRow",
    "MonteCarlo",
    "MonteCarloPoint",
    "RatioRow",
    "RepeatedValuesRow",
    "ShufflingReport",
    "TournamentRow",
    "TwoTypesRow",
]


@dataclass(frozen=True)
class BayerDiaconisRow:
    """Exact TV of the order of 52 cards after ``shuffles`` riffles, beside the published three digits."""

    shuffles: int
    ours: float
    ours_3dp: str
    published: float
    match: bool


@dataclass(frozen=True)
class FirstOrderRow:
    """A classic dealing of bridge hands: its first-order constant C (TV ≈ C/2^k) and the riffles for TV 0.1."""

    pattern: str
    word: str
    constant: float
    exact: str | None  # the exact fraction when it is short enough to print
    method: str
    riffles_for_tv_01: float

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict."""
        return {
            "pattern": self.pattern,
            "word": self.word,
            "constant": self.constant,
            "exact": self.exact,
            "method": self.method,
            "riffles_for_first_order_tv_0.1": self.riffles_for_tv_01,
        }


@dataclass(frozen=True)
class RatioRow:
    """A ratio of first-order constants (or the riffles it is worth) beside Conger–Howald's figure."""

    figure: str
    ours: float
    published: float


@dataclass(frozen=True)
class RepeatedValuesRow:
    """Balázs–Szabó: the first-order constants of a two-colour deck, 4 players of ``hand_size`` cards."""

    deck: str
    players: int
    hand_size: int
    constants: dict[str, float]  # by dealing name: ordered, cyclic, back-and-forth
    ordered_over_cyclic: float | None
    cyclic_over_back_and_forth: float | None
    published: str

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict (the constants as one key per dealing)."""
        return {
            "deck": self.deck,
            "players": self.players,
            "hand_size": self.hand_size,
            **self.constants,
            "ordered/cyclic": self.ordered_over_cyclic,
            "cyclic/back-and-forth": self.cyclic_over_back_and_forth,
            "published": self.published,
        }


@dataclass(frozen=True)
class TwoTypesRow:
    """Two card types, odd hand size: the best dealing pattern found against back-and-forth."""

    players: int
    hand_size: int
    search: str  # "exhaustive" or "local"
    best_word: str
    best: float
    best_exact: str | None
    back_and_forth: float
    beats_back_and_forth: bool


@dataclass(frozen=True)
class TournamentRow:
    """One orientation of M_L with entries ±1: its sorted row sums, whether it is transitive, and C."""

    scores: tuple[int, ...]
    transitive: bool
    constant: float


@dataclass(frozen=True)
class ExactCurve:
    """Exact TV of the hands after 2^k-shuffles (by ``str(k)``) and the first-order constant, for one dealing."""

    tv: dict[str, float]
    constant: float


@dataclass(frozen=True)
class ExactSmall:
    """The exact TV curves of a small deck (every permutation enumerated), by dealing name."""

    players: int
    hand_size: int
    curves: dict[str, ExactCurve]


@dataclass(frozen=True)
class MonteCarloPoint:
    """Monte Carlo TV of a feature after ``shuffles`` riffles, its standard error and noise floor."""

    shuffles: int
    tv: float
    stderr: float
    floor: float


@dataclass(frozen=True)
class MonteCarlo:
    """Monte Carlo TV curves of 52-card deal features: ``features[feature][dealing]`` is one point per k."""

    samples: int
    features: dict[str, dict[str, tuple[MonteCarloPoint, ...]]]


@dataclass(frozen=True)
class ShufflingReport:
    """Every shuffling table of the reproduction; ``tournaments`` only at the paper scale."""

    scale: str
    seed: int
    bayer_diaconis: tuple[BayerDiaconisRow, ...]
    bridge_first_order: tuple[FirstOrderRow, ...]
    bridge_ratios: tuple[RatioRow, ...]
    repeated_values: tuple[RepeatedValuesRow, ...]
    two_types: tuple[TwoTypesRow, ...]
    tournaments: tuple[TournamentRow, ...] | None
    exact_small: ExactSmall
    monte_carlo: MonteCarlo
    seconds: float

    def to_json(self) -> dict[str, object]:
        """The JSON of ``tribridge shuffle report --json``."""
        out: dict[str, object] = {
            "scale": self.scale,
            "seed": self.seed,
            "bayer_diaconis": [asdict(r) for r in self.bayer_diaconis],
            "bridge_first_order": [r.to_json() for r in self.bridge_first_order],
            "bridge_ratios": [asdict(r) for r in self.bridge_ratios],
            "repeated_values": [r.to_json() for r in self.repeated_values],
            "two_types": [asdict(r) for r in self.two_types],
        }
        if self.tournaments is not None:
            out["tournaments"] = [asdict(r) for r in self.tournaments]
        out["exact_small"] = asdict(self.exact_small)
        out["monte_carlo"] = asdict(self.monte_carlo)
        out["seconds"] = self.seconds
        return out
