"""A natural four-handed bidder (standard American style) for the robot API's ``/bid``.

The system: 15-17 1NT and 20-21 2NT with Stayman and Jacoby transfers, five-card majors, strong artificial
2♣ with a 2♦ waiting reply, weak twos and three-level preempts, limit raises, overcalls, takeout, negative
and penalty doubles, redouble after a double of partner's opening, Blackwood. Every situation is a list of
rules (``system``, ``compete``); past the fixed sequences the contract is placed from the partnership's points
and fits (``placement``). Each call comes with what it shows: an explanation rendered from claims that
hold for the hand that made it, and an alert flag on artificial calls. The same position always gives the
same call, and every call is legal.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from tribridge.four.natural4.compete import advances, blackwood_replies, contested_responses, direct_actions
from tribridge.four.natural4.contested_rebids import after_negative_double, answers_to_reopening, reopenings
from tribridge.four.natural4.context import Ctx
from tribridge.four.natural4.core import CallKind, HandInfo, Meaning, Rule, Shown
from tribridge.four.natural4.placement import placement, placement_meanings
from tribridge.four.natural4.system import opener_rebids, openings, responder_rebids, responses
from tribridge.four.rules import PASS, Auction4, same_side

__all__ = [
    "NAME",
    "SYSTEM",
    "SYSTEM_ALIASES",
    "SYSTEMS",
    "BOTH_SAYC",
    "TWO_OVER_ONE",
    "side_systems",
    "Bid4View",
    "Decision",
    "read_auction",
    "decide_call",
    "decide",
    "bid",
    "candidates",
    "candidates_of",
    "explain",
    "system_for",
]

NAME = "natural4"
SYSTEM = "SAYC"
TWO_OVER_ONE = "2/1"
SYSTEMS = (SYSTEM, TWO_OVER_ONE)
# Names clients use for the systems this bidder plays (compared without case, spaces, dashes or slashes).
SYSTEM_ALIASES = ("sayc", "standardamerican", "standardamericanyellowcard", "sa", "natural", "tribridge", "gibbbo")
TWO_OVER_ONE_ALIASES = (
    "21",
    "21gf",
    "21gameforcing",
    "2over1",
    "2over1gf",
    "2over1gameforcing",
    "twooverone",
    "twooveronegameforcing",
    "gib21",
    "ben21",
    "bbo21",
)
BOTH_SAYC = (SYSTEM, SYSTEM)
FALLBACK = Meaning("no suitable call")


@dataclass(frozen=True)
class Bid4View:
    """What the seat on turn knows in a four-handed auction."""

    seat: int
    dealer: int
    vul: str
    hand: tuple[int, ...]
    auction: Auction4
    systems: tuple[str, str] = BOTH_SAYC  # the system of North-South, then East-West (``SYSTEMS``)


@dataclass(frozen=True)
class Decision:
    """A call, what it shows and whether it is alertable."""

    call: str
    meaning: Meaning
    alternatives: tuple[str, ...] = ()

    @property
    def explanation(self) -> str:
        """The plain-language explanation of the call."""
        return self.meaning.text()

    @property
    def alert(self) -> bool:
        """Whether the call is artificial (alertable)."""
        return self.meaning.alert


def system_for(name: str | None) -> tuple[str, str | None]:
    """(system played, note): the system ``name`` asks for (SAYC or 2/1), or SAYC with a note for another one."""
    if name is None or not name.strip():
        return SYSTEM, None
    key = "".join(ch for ch in name.lower() if ch.isalnum())
    if key in SYSTEM_ALIASES:
        return SYSTEM, None
    if key in TWO_OVER_ONE_ALIASES:
        return TWO_OVER_ONE, None
    return SYSTEM, f"system {name!r} is not supported: bidding {SYSTEM} (standard American) instead"


def side_systems(seat: int, ours: str, theirs: str) -> tuple[str, str]:
    """The systems of North-South and East-West when ``seat``'s side plays ``ours`` and the other ``theirs``."""
    return (ours, theirs) if seat % 2 == 0 else (theirs, ours)


def _situation(ctx: Ctx) -> list[Rule]:
    """The system's rules for this position (before placement)."""
    me, partner = ctx.seat, ctx.partner
    partner_kinds = ctx.our_kinds(partner)
    if partner_kinds and partner_kinds[-1] == CallKind.BLACKWOOD and ctx.last_call(partner) == "4N":
        return blackwood_replies(ctx)
    opener = ctx.opener
    if opener is None:
        return openings(ctx)
    mine, theirs = ctx.actions_of(me), ctx.actions_of(partner)
    if same_side(opener, me):
        contested = _contested_rebid(ctx, mine, theirs)
        if contested:
            return contested
        if opener == partner and not mine:
            return responses(ctx) if not ctx.opponents_acted() else contested_responses(ctx)
        if opener == partner and len(mine) == 1 and not ctx.opponents_acted():
            return responder_rebids(ctx)
        if opener == me and len(mine) == 1 and len(theirs) == 1 and not ctx.opponents_acted():
            return opener_rebids(ctx)
        return []
    if not mine and not theirs:
        return direct_actions(ctx)
    if theirs and not mine and not (len(theirs) > 1 and theirs[-1] == "X"):  # a later double is not for takeout
        return advances(ctx)
    return []


def _contested_rebid(ctx: Ctx, mine: list[str], theirs: list[str]) -> list[Rule]:
    """Opener's side after the opponents came in: answering a negative double, reopening, answering that."""
    partner, kinds = ctx.partner, ctx.our_kinds(ctx.partner)
    if ctx.opener == ctx.seat and len(mine) == 1 and theirs == ["X"] and ctx.last_call(partner) == "X":
        if kinds[-1] == CallKind.NEGATIVE_DOUBLE:
            return after_negative_double(ctx)
    if ctx.opener == ctx.seat and len(mine) == 1 and not theirs and ctx.opponents_acted():
        return reopenings(ctx)
    reopened = ctx.last_call(partner) == "X" and kinds[-1] == CallKind.REOPENING_DOUBLE
    if ctx.opener == partner and not mine and reopened and ctx.auction.calls[-1] == PASS:
        return answers_to_reopening(ctx)
    return []


def _reading(ctx: Ctx, call: str) -> Meaning:
    """What ``call`` shows in this position, whoever made it: the first (main) rule of the system that makes it."""
    found = [r.meaning for r in _situation(ctx) if r.call == call]
    if not found:
        found = placement_meanings(ctx, call)
    if not found:
        return FALLBACK
    return found[0]


def read_auction(
    auction: Auction4, vul: str = "None", systems: tuple[str, str] = BOTH_SAYC
) -> tuple[list[Shown], list[Meaning]]:
    """Each seat's shown values and each call's meaning, each side's calls read by its system (NS, EW)."""
    shown, meanings = _read(auction.dealer, tuple(auction.calls), vul, systems)
    return [s.copy() for s in shown], list(meanings)


@lru_cache(maxsize=4096)
def _read(
    dealer: int, calls: tuple[str, ...], vul: str, systems: tuple[str, str]
) -> tuple[tuple[Shown, ...], tuple[Meaning, ...]]:
    """The reading of an auction (it does not depend on any hand, so it is cached; callers get copies)."""
    if calls:
        before, meanings_before = _read(dealer, calls[:-1], vul, systems)
        shown = [s.copy() for s in before]
        meanings = list(meanings_before)
    else:
        return tuple(Shown() for _ in range(4)), ()
    seat = (dealer + len(calls) - 1) % 4
    ctx = Ctx(Auction4(dealer, calls[:-1]), seat, shown, meanings, vul, systems[seat % 2])
    meaning = _reading(ctx, calls[-1])
    meanings.append(meaning)
    shown[seat].add(meaning)
    return tuple(shown), tuple(meanings)


def decide_call(view: Bid4View) -> Decision:
    """The call for the seat on turn, with what it shows and the other calls that fitted the hand."""
    shown, meanings = read_auction(view.auction, view.vul, view.systems)
    ctx = Ctx(view.auction, view.seat, shown, meanings, view.vul, view.systems[view.seat % 2])
    hand = HandInfo.of(view.hand)
    fitting = [r for r in _situation(ctx) if r.fits(hand, ctx)]
    if fitting:
        chosen = fitting[0]
    else:
        chosen = placement(hand, ctx)
        if not view.auction.is_legal(chosen.call):
            chosen = Rule(PASS, FALLBACK)
        elif not chosen.meaning.holds(hand):  # say what the call is for, without claims this hand does not meet
            chosen = Rule(
                chosen.call, Meaning(chosen.meaning.label, alert=chosen.meaning.alert, kind=chosen.meaning.kind)
            )
    others = tuple(dict.fromkeys(r.call for r in fitting[1:] if r.call != chosen.call))
    return Decision(chosen.call, chosen.meaning, others)


def decide(view: Bid4View) -> tuple[str, str]:
    """The call and its explanation."""
    d = decide_call(view)
    return d.call, d.explanation


def bid(view: Bid4View) -> str:
    """This bidder's call (canonical: P, X, XX, 1C..7N); always legal."""
    return decide_call(view).call


def candidates(view: Bid4View) -> list[tuple[str, float]]:
    """The chosen call scored 1.0, other calls the system allowed with this hand 0.5, then pass 0.1."""
    return candidates_of(decide_call(view))


def candidates_of(d: Decision) -> list[tuple[str, float]]:
    """The candidates of a decision (see :func:`candidates`)."""
    out = [(d.call, 1.0)] + [(c, 0.5) for c in d.alternatives]
    if all(c != PASS for c, _ in out):
        out.append((PASS, 0.1))
    return out


def explain(view: Bid4View) -> str:
    """The explanation of this bidder's call."""
    return decide_call(view).explanation
