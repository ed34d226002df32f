"""Scoring of 3PAB deals with schemes given as data (preset names or TOML files), and rubber bookkeeping.

A deal's score is per player: the declarer scores for a made contract; when it fails, *each* defender
scores the undertrick penalty (docs/rules.md). Presets live as TOML files in ``rules/schemes/``; a user's
TOML file may set any subset of the fields, the rest taking the ``classic`` values. Loading a file is
the caller's business (``load_scheme_text`` takes the text; ``get_scheme`` reads a path for the CLI
and server, the one place this pure layer touches a file, and only on request).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from importlib import resources
from pathlib import Path
from typing import Any

from tribridge.cards import Deal, Seat
from tribridge.errors import InvalidInput
from tribridge.rules.auction import Contract, Denom

# The scheme registry: one TOML file per preset in ``rules/schemes/``; ``classic`` first (the default).
PRESETS: tuple[str, ...] = tuple(
    sorted(
        (
            entry.name[:-5]
            for entry in resources.files("tribridge.rules").joinpath("schemes").iterdir()
            if entry.name.endswith(".toml")
        ),
        key=lambda name: (name != "classic", name),
    )
)
DENOM_KEYS: tuple[str, ...] = ("C", "D", "H", "S", "NT")


@dataclass(frozen=True)
class ScoringScheme:
    """A scoring scheme as plain data; see ``rules/schemes/classic.toml`` for every field's meaning."""

    name: str = "classic"
    description: str = ""
    trick_values: tuple[int, int, int, int, int] = (6, 7, 8, 9, 10)
    overtrick_values: tuple[int, int, int, int, int] = (6, 7, 8, 9, 10)
    overtricks_count_for_game: bool = True
    double_bonus: int = 50
    double_bonus_per_overtrick: int = 50
    undertrick_each_defender: int = 50
    undertrick_declarer_penalty: int = 0
    making_bonus: int = 0
    small_slam_bonus: int = 50
    grand_slam_bonus: int = 100
    slam_requires_made: bool = False
    honours: bool = False
    honours_table: tuple[int, ...] = (0, 1, 2, 3, 8, 10)
    nt_ace_value: int = 10
    nt_four_aces: int = 100
    game_points: int = 30
    games_to_win: int = 2
    game_bonus: int = 125
    rubber_bonus: int = 250

    def to_toml_dict(self) -> dict[str, Any]:
        """The scheme in the nested layout of a scheme TOML file."""
        return {
            "name": self.name,
            "description": self.description,
            "tricks": {
                "values": dict(zip(DENOM_KEYS, self.trick_values)),
                "overtrick_values": dict(zip(DENOM_KEYS, self.overtrick_values)),
                "overtricks_count_for_game": self.overtricks_count_for_game,
            },
            "doubling": {"bonus": self.double_bonus, "bonus_per_overtrick": self.double_bonus_per_overtrick},
            "undertricks": {
                "each_defender": self.undertrick_each_defender,
                "declarer_penalty": self.undertrick_declarer_penalty,
            },
            "bonuses": {
                "making": self.making_bonus,
                "small_slam": self.small_slam_bonus,
                "grand_slam": self.grand_slam_bonus,
                "slam_requires_made": self.slam_requires_made,
            },
            "honours": {
                "enabled": self.honours,
                "table": list(self.honours_table),
                "nt_ace": self.nt_ace_value,
                "nt_four_aces": self.nt_four_aces,
            },
            "rubber": {
                "game": self.game_points,
                "games_to_win": self.games_to_win,
                "game_bonus": self.game_bonus,
                "rubber_bonus": self.rubber_bonus,
            },
        }


# TOML layout: section -> key -> (dataclass field, kind)
_LAYOUT: dict[str, dict[str, tuple[str, str]]] = {
    "tricks": {
        "values": ("trick_values", "denoms"),
        "overtrick_values": ("overtrick_values", "denoms"),
        "overtricks_count_for_game": ("overtricks_count_for_game", "bool"),
    },
    "doubling": {"bonus": ("double_bonus", "int"), "bonus_per_overtrick": ("double_bonus_per_overtrick", "int")},
    "undertricks": {
        "each_defender": ("undertrick_each_defender", "int"),
        "declarer_penalty": ("undertrick_declarer_penalty", "int"),
    },
    "bonuses": {
        "making": ("making_bonus", "int"),
        "small_slam": ("small_slam_bonus", "int"),
        "grand_slam": ("grand_slam_bonus", "int"),
        "slam_requires_made": ("slam_requires_made", "bool"),
    },
    "honours": {
        "enabled": ("honours", "bool"),
        "table": ("honours_table", "table"),
        "nt_ace": ("nt_ace_value", "int"),
        "nt_four_aces": ("nt_four_aces", "int"),
    },
    "rubber": {
        "game": ("game_points", "posint"),
        "games_to_win": ("games_to_win", "posint"),
        "game_bonus": ("game_bonus", "int"),
        "rubber_bonus": ("rubber_bonus", "int"),
    },
}


def _convert(value: Any, kind: str, where: str) -> Any:
    if kind == "bool":
        if not isinstance(value, bool):
            raise InvalidInput(where, f"expected true or false, got {value!r}")
        return value
    if kind in ("int", "posint"):
        if not isinstance(value, int) or isinstance(value, bool):
            raise InvalidInput(where, f"expected an integer, got {value!r}")
        if kind == "posint" and value < 1:
            raise InvalidInput(where, f"expected a positive integer, got {value}")
        return value
    if kind == "denoms":
        if not isinstance(value, Mapping):
            raise InvalidInput(where, f"expected a table {{ C = .., D = .., H = .., S = .., NT = .. }}, got {value!r}")
        extra = set(value) - set(DENOM_KEYS)
        missing = [k for k in DENOM_KEYS if k not in value]
        if extra:
            raise InvalidInput(f"{where}.{sorted(extra)[0]}", "unknown denomination (use C, D, H, S, NT)")
        if missing:
            raise InvalidInput(f"{where}.{missing[0]}", "missing value for this denomination")
        return tuple(_convert(value[k], "int", f"{where}.{k}") for k in DENOM_KEYS)
    if kind == "table":
        if not isinstance(value, list) or len(value) != 6:
            raise InvalidInput(where, f"expected a list of 6 integers (for 0..5 honours), got {value!r}")
        return tuple(_convert(v, "int", f"{where}[{i}]") for i, v in enumerate(value))
    raise AssertionError(kind)


def scheme_from_dict(
    data: Mapping[str, Any], base: ScoringScheme | None = None, source: str = "scheme"
) -> ScoringScheme:
    """Build a scheme from the nested TOML layout; missing fields come from ``base`` (classic by default)."""
    if not isinstance(data, Mapping):
        raise InvalidInput(source, "expected a table of scheme settings")
    base = base or ScoringScheme()
    changes: dict[str, Any] = {}
    for key, value in data.items():
        where = f"{source}.{key}"
        if key in ("name", "description"):
            if not isinstance(value, str):
                raise InvalidInput(where, f"expected a string, got {value!r}")
            changes[key] = value
            continue
        if key not in _LAYOUT:
            raise InvalidInput(where, f"unknown section (expected one of: name, description, {', '.join(_LAYOUT)})")
        if not isinstance(value, Mapping):
            raise InvalidInput(where, "expected a table (a [section] in TOML)")
        for sub, sub_value in value.items():
            if sub not in _LAYOUT[key]:
                raise InvalidInput(f"{where}.{sub}", f"unknown field (expected one of: {', '.join(_LAYOUT[key])})")
            name, kind = _LAYOUT[key][sub]
            changes[name] = _convert(sub_value, kind, f"{where}.{sub}")
    return replace(base, **changes)


def load_scheme_text(text: str, source: str = "scheme") -> ScoringScheme:
    """Parse a scheme from TOML text (fields not given take the classic values)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(source, f"not valid TOML: {exc}") from None
    return scheme_from_dict(data, source=source)


_PRESET_CACHE: dict[str, ScoringScheme] = {}


def scheme_names() -> list[str]:
    """The preset schemes' names (the registry), the default ``classic`` first."""
    return list(PRESETS)


def preset(name: str) -> ScoringScheme:
    """A preset scheme by name (see ``scheme_names``)."""
    if name not in PRESETS:
        raise InvalidInput("scheme", f"unknown preset {name!r} (expected one of {', '.join(PRESETS)} or a .toml file)")
    if name not in _PRESET_CACHE:
        text = resources.files("tribridge.rules").joinpath("schemes", f"{name}.toml").read_text(encoding="utf-8")
        _PRESET_CACHE[name] = load_scheme_text(text, source=f"scheme {name}")
    return _PRESET_CACHE[name]


def get_scheme(spec: str | Path | ScoringScheme = "classic") -> ScoringScheme:
    """A scheme from a preset name, a path to a TOML file, or an existing scheme (returned as is)."""
    if isinstance(spec, ScoringScheme):
        return spec
    text = str(spec)
    if text in PRESETS:
        return preset(text)
    path = Path(text)
    if path.suffix.lower() == ".toml" or path.exists():
        try:
            content = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InvalidInput("scheme", f"cannot read {text!r}: {exc.strerror or exc}") from None
        return load_scheme_text(content, source=f"scheme {path.name}")
    raise InvalidInput("scheme", f"unknown scheme {text!r} (expected one of {', '.join(PRESETS)} or a .toml file)")


# --- honours -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class HonoursHeld:
    """Honours held: trump honours (A K Q J T), or aces in no-trump. Declarer's count includes dummy's."""

    declarer: int = 0
    defenders: tuple[int, int] = (0, 0)  # (declarer's LHO, declarer's RHO) in play seats

    def check(self, denom: Denom) -> None:
        """Raise InvalidInput unless the counts are possible in ``denom``."""
        top = 4 if denom == Denom.NT else 5
        what = "aces" if denom == Denom.NT else "trump honours"
        counts = (self.declarer, *self.defenders)
        if len(self.defenders) != 2 or any(not isinstance(c, int) or c < 0 for c in counts):
            raise InvalidInput("honours", "expected three counts >= 0: declarer (with dummy), defender, defender")
        if sum(counts) > top:
            raise InvalidInput("honours", f"there are only {top} {what}, got {sum(counts)} in all")


def honours_held(deal: Deal, contract: Contract) -> HonoursHeld:
    """Count honours in a deal in play seats: declarer with dummy, then the LHO and the RHO."""
    decl = Seat(contract.declarer)
    if contract.denom == Denom.NT:
        wanted = {s * 13 for s in range(4)}  # the aces
    else:
        wanted = {int(contract.denom) * 13 + r for r in range(5)}  # A K Q J T of trumps

    def count(seat: Seat) -> int:
        return len(deal[seat].cards & wanted)

    return HonoursHeld(count(decl) + count(decl.partner), (count(decl.lho), count(decl.rho)))


def honour_points(count: int, denom: Denom, scheme: ScoringScheme) -> int:
    """Points for one player's honours: the per-player table (× trump value), or aces in no-trump."""
    if count <= 0:
        return 0
    if denom == Denom.NT:
        return scheme.nt_four_aces if count >= 4 else count * scheme.nt_ace_value
    return scheme.honours_table[min(count, 5)] * scheme.trick_values[int(denom)]


# --- one deal ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class DealScore:
    """Per-player score of one deal: ``declarer``, ``each_defender`` (the part both get), ``defenders`` (each,
    honours included; LHO then RHO), the ``breakdown``, ``net`` (declarer minus the defenders' total) and
    ``trick_points`` (declarer's points toward game)."""

    declarer: int = 0
    each_defender: int = 0
    defenders: tuple[int, int] = (0, 0)
    breakdown: dict[str, int] = field(default_factory=dict)
    net: int = 0
    trick_points: int = 0
    made: bool | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        d = asdict(self)
        d["defenders"] = list(self.defenders)
        return d

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DealScore:
        """Inverse of ``to_json``."""
        try:
            return cls(
                int(data["declarer"]),
                int(data["each_defender"]),
                tuple(int(x) for x in data["defenders"]),  # type: ignore[arg-type]
                {str(k): int(v) for k, v in data["breakdown"].items()},
                int(data["net"]),
                int(data["trick_points"]),
                data.get("made"),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise InvalidInput("score", f"malformed deal score: {exc}") from None


def score_deal(
    contract: Contract | None,
    declarer_tricks: int,
    scheme: ScoringScheme | str = "classic",
    honours: HonoursHeld | None = None,
) -> DealScore:
    """Score one deal. ``honours`` is required when the scheme scores honours, ignored otherwise."""
    scheme = get_scheme(scheme)
    if contract is None:
        return DealScore(breakdown={}, made=None)
    if not isinstance(declarer_tricks, int) or isinstance(declarer_tricks, bool) or not 0 <= declarer_tricks <= 13:
        raise InvalidInput("tricks", f"declarer's tricks must be 0..13, got {declarer_tricks!r}")
    denom = Denom(contract.denom)
    v = scheme.trick_values[denom]
    m = contract.multiplier
    need = contract.tricks_needed
    t = declarer_tricks
    bd: dict[str, int] = {}
    declarer = 0
    each = 0
    trick_points = 0
    made = t >= need
    if made:
        over = t - need
        bd["contract_tricks"] = contract.level * v * m
        bd["overtricks"] = over * scheme.overtrick_values[denom] * m
        trick_points = bd["contract_tricks"] + (bd["overtricks"] if scheme.overtricks_count_for_game else 0)
        if contract.doubling:
            bd["double_bonus"] = (m // 2) * (scheme.double_bonus + scheme.double_bonus_per_overtrick * over)
        if scheme.making_bonus:
            bd["making_bonus"] = scheme.making_bonus
    else:
        under = need - t
        each = under * scheme.undertrick_each_defender * m
        bd["undertricks_each_defender"] = each
        if scheme.undertrick_declarer_penalty:
            bd["declarer_penalty"] = -under * scheme.undertrick_declarer_penalty * m
    if t >= 12 and (made or not scheme.slam_requires_made):
        bd["slam_bonus"] = scheme.grand_slam_bonus if t == 13 else scheme.small_slam_bonus
    declarer = sum(v_ for k, v_ in bd.items() if k != "undertricks_each_defender")
    defenders = [each, each]
    if scheme.honours:
        if honours is None:
            raise InvalidInput("honours", "this scheme scores honours: give the honours held")
        honours.check(denom)
        bd["honours_declarer"] = honour_points(honours.declarer, denom, scheme)
        bd["honours_defender_lho"] = honour_points(honours.defenders[0], denom, scheme)
        bd["honours_defender_rho"] = honour_points(honours.defenders[1], denom, scheme)
        declarer += bd["honours_declarer"]
        defenders[0] += bd["honours_defender_lho"]
        defenders[1] += bd["honours_defender_rho"]
    return DealScore(declarer, each, (defenders[0], defenders[1]), bd, declarer - sum(defenders), trick_points, made)


# --- rubbers (web table) ------------------------------------------------------------------------
@dataclass
class Rubber:
    """Rubber bookkeeping for three players: per-player trick points toward game, games, and totals.

    Game = ``scheme.game_points`` trick points in a player's own column; when a player makes game,
    every player's partial score is closed (a new game starts). The first player with
    ``scheme.games_to_win`` games wins the rubber. Each game won adds ``game_bonus``; the rubber adds
    ``rubber_bonus``.
    """

    players: tuple[str, str, str]
    scheme: ScoringScheme = field(default_factory=ScoringScheme)
    below: dict[str, int] = field(default_factory=dict)  # trick points in the current game
    above: dict[str, int] = field(default_factory=dict)  # everything else (bonuses, penalties, honours)
    trick_total: dict[str, int] = field(default_factory=dict)  # trick points over the whole rubber
    games: dict[str, int] = field(default_factory=dict)
    winner: str | None = None
    deals: int = 0

    def __post_init__(self) -> None:
        if len(self.players) != 3 or len(set(self.players)) != 3:
            raise InvalidInput("players", "a rubber needs three distinct players")
        self.players = tuple(str(p) for p in self.players)  # type: ignore[assignment]
        for book in (self.below, self.above, self.trick_total, self.games):
            for p in self.players:
                book.setdefault(p, 0)

    @property
    def is_over(self) -> bool:
        """True once some player has won the rubber."""
        return self.winner is not None

    def totals(self) -> dict[str, int]:
        """Each player's total so far (trick points plus everything above the line)."""
        return {p: self.trick_total[p] + self.above[p] for p in self.players}

    def record(self, declarer: str, defenders: tuple[str, str], score: DealScore) -> list[str]:
        """Enter one deal's score (``defenders`` as LHO, RHO like ``score.defenders``); returns events."""
        if self.is_over:
            raise InvalidInput("rubber", f"the rubber is over ({self.winner} won it)")
        people = (declarer, *defenders)
        if sorted(people) != sorted(self.players):
            raise InvalidInput("players", f"expected the rubber's players {list(self.players)}, got {list(people)}")
        self.deals += 1
        events: list[str] = []
        self.below[declarer] += score.trick_points
        self.trick_total[declarer] += score.trick_points
        self.above[declarer] += score.declarer - score.trick_points
        for who, pts in zip(defenders, score.defenders):
            self.above[who] += pts
        if score.trick_points and self.below[declarer] >= self.scheme.game_points:
            self.games[declarer] += 1
            self.above[declarer] += self.scheme.game_bonus
            events.append(f"{declarer} wins a game")
            for p in self.players:
                self.below[p] = 0
            if self.games[declarer] >= self.scheme.games_to_win:
                self.winner = declarer
                self.above[declarer] += self.scheme.rubber_bonus
                events.append(f"{declarer} wins the rubber")
        return events

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the scheme by its TOML layout)."""
        return {
            "players": list(self.players),
            "scheme": self.scheme.to_toml_dict(),
            "below": dict(self.below),
            "above": dict(self.above),
            "trick_total": dict(self.trick_total),
            "games": dict(self.games),
            "winner": self.winner,
            "deals": self.deals,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rubber:
        """Inverse of ``to_json``."""
        try:
            return cls(
                tuple(data["players"]),
                scheme_from_dict(data["scheme"]),
                dict(data["below"]),  # type: ignore[arg-type]
                dict(data["above"]),
                dict(data["trick_total"]),
                dict(data["games"]),
                data["winner"],
                int(data["deals"]),
            )
        except (KeyError, TypeError) as exc:
            raise InvalidInput("rubber", f"malformed rubber: {exc}") from None


def scheme_field_names() -> list[str]:
    """Names of every ScoringScheme field (for documentation and tests)."""
    return [f.name for f in fields(ScoringScheme)]
