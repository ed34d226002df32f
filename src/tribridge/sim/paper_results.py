"""Results of the seed papers' own studies (``sim.papers``): the NT call study and the capture study, as dataclasses.

Readers use the attributes; ``to_json()`` gives the JSON the ``--json`` commands print (keys in the order
of the fields).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

__all__ = [
    "CaptureComparison",
    "CaptureRun",
    "CaptureStudy",
    "NtRun",
    "NtStudy",
    "NtTable3Row",
    "NtTable4Row",
    "RankedReading",
    "ReadingResult",
    "Table1Row",
    "Table2Row",
]

VerdictCounts = dict[str, int]
"""Hands per verdict of the NT call algorithm (``yes``, ``no``, ...)."""


@dataclass(frozen=True)
class NtRun:
    """One run of the NT study: verdict counts per level (``"1"`` .. ``"7"``), single hand and with partner."""

    run: int
    single: dict[str, VerdictCounts]
    with_partner: dict[str, VerdictCounts]


@dataclass(frozen=True)
class NtTable3Row:
    """Table 3, one level: our yes counts per run beside the published runs, with a z score."""

    level: int
    ours: tuple[int, ...]
    ours_per_100k: float
    published: tuple[int, ...]
    published_mean: float
    difference: float
    standard_error: float
    z: float


@dataclass(frozen=True)
class NtTable4Row:
    """Table 4, one level and column (single hand or with partner): yes per 100,000 beside the published figure."""

    level: int
    column: str
    ours_per_100k: float
    published: int
    difference: float
    standard_error: float
    z: float


@dataclass(frozen=True)
class NtStudy:
    """The NT call study (Tables 3 and 4): counts per run and the comparison with the published tables."""

    hands: int
    runs: int
    seed: int | None
    levels: tuple[int, ...]
    results: tuple[NtRun, ...]
    table3: tuple[NtTable3Row, ...]
    table4: tuple[NtTable4Row, ...]

    def to_json(self) -> dict[str, object]:
        """The JSON of ``tribridge study nt --json``."""
        return {"study": "nt", **asdict(self)}


@dataclass(frozen=True)
class CaptureRun:
    """One run of one capture reading: deals per pre-qualification status and the histogram of captures T."""

    run: int
    deals: int
    status: dict[str, int]  # "qualified", "fail_b", "fail_a"
    captures_histogram: tuple[int, ...]  # qualifying deals by T = 0..13


@dataclass(frozen=True)
class Table2Row:
    """Table II, one figure (percent of deals): ours per run and pooled beside the published share."""

    figure: str
    ours_per_run: tuple[float, ...]
    ours: float
    published: float
    difference: float
    standard_error: float


@dataclass(frozen=True)
class Table1Row:
    """Table I, one figure: ours beside the published bound or share (a bound is text such as ``"> 93.0"``)."""

    figure: str
    ours: float
    published: float | str
    difference: float


@dataclass(frozen=True)
class CaptureComparison:
    """One reading's runs pooled and compared with Tables I and II; ``distance`` ranks the readings."""

    table2: tuple[Table2Row, ...]
    table1: tuple[Table1Row, ...]
    distance: float
    histogram_pct_of_qualified: tuple[float, ...]


@dataclass(frozen=True)
class ReadingResult:
    """The runs of one capture reading and their comparison with the paper."""

    results: tuple[CaptureRun, ...]
    comparison: CaptureComparison


@dataclass(frozen=True)
class RankedReading:
    """A reading's label and its distance from Table I."""

    reading: str
    distance: float


@dataclass(frozen=True)
class CaptureStudy:
    """The capture study (Tables I and II) for one or every reading, the readings ranked by distance."""

    deals: int
    runs: int
    seed: int | None
    readings: dict[str, ReadingResult]  # by reading label, e.g. "max/static/1"
    closest_reading: str
    ranking: tuple[RankedReading, ...]

    def to_json(self) -> dict[str, object]:
        """The JSON of ``tribridge study capture --json``."""
        return {"study": "capture", **asdict(self)}
