"""Placing the contract once the system's fixed sequences are over: pick the strain (an 8-card fit, no-trump,
a long suit), count the partnership's points from what partner has shown, and bid the level they support
(partscore, invitation, game, slam through Blackwood), compete by the law of total tricks, or double."""

from __future__ import annotations

from tribridge.four.natural4.compete import partner_aces
from tribridge.four.natural4.context import Ctx, bid_of, strain_of
from tribridge.four.natural4.core import BLACKWOOD_KINDS, MAX_HCP, TO_PLAY_KINDS, CallKind, HandInfo, Meaning, Rule
from tribridge.four.natural4.expected import ContractValues
from tribridge.four.natural4.system import at_least
from tribridge.four.natural4.tricks import expected_tricks, sampled_tricks

__all__ = ["placement", "placement_meanings", "plan"]

M = Meaning
C, D, H, S, N = 0, 1, 2, 3, 4
GAME = {C: 5, D: 5, H: 4, S: 4, N: 3}
NEED_GAME = {C: 28, D: 28, H: 25, S: 25, N: 25}
NEED_SLAM, NEED_GRAND, NEED_INVITE = 32, 37, 23
# The trick count's corrections: counted from TRICKS_FROM points together; a slam at SLAM_TRICKS estimated
# tricks with SLAM_POINTS together; a game bid within GAME_MARGIN tricks of it, dropped DROP_MARGIN short.
TRICKS_FROM, SLAM_TRICKS, SLAM_POINTS, GAME_MARGIN, DROP_MARGIN = 20, 12.4, 29, 0.8, 1.5
# From SCORE_FROM points together the contracts are priced by expected score over SCORE_SAMPLES partner hands
# (SCORE_DRAWS random hands of the unseen cards tried at a time, up to SCORE_MOST_DRAWS while too few fit):
# a slam is bid when one prices best, and when the opponents hold the contract, the call that prices best is
# made (pass, or a contract of ours).
SCORE_FROM, SCORE_SAMPLES, SCORE_DRAWS, SCORE_MOST_DRAWS = 16, 32, 320, 2000
SLAM_PRICE_FROM = 24  # when we hold the contract (or nobody bid), only slams are looked for: from 24 points
# In competition a contract this many down is priced as doubled (an uncontested one never is).
DOUBLED_FROM = 2
LABELS = {
    "part": "to play (partscore)",
    "invite": "invites game",
    "game": "to play (game)",
    "slam": "to play (slam)",
    "compete": "competes for the partscore",
    "after-bw": "to play, after Blackwood",
}
LABEL_KINDS = {
    "part": CallKind.TO_PLAY,
    "game": CallKind.TO_PLAY,
    "slam": CallKind.TO_PLAY,
    "after-bw": CallKind.AFTER_BLACKWOOD,
}


def _partner_estimate(ctx: Ctx, hand: HandInfo | None = None) -> int:
    """Partner's expected HCP from the shown range, capped by the points left for partner (when a hand is given)."""
    est = ctx.shown[ctx.partner].expect()
    if hand is None:
        return est
    opponents = ctx.shown[(ctx.seat + 1) % 4].lo + ctx.shown[(ctx.seat + 3) % 4].lo
    return max(0, min(est, 40 - hand.hcp - opponents))


def _strain(hand: HandInfo, ctx: Ctx) -> tuple[int, str]:
    """(strain, reason): ``fit`` (8+ together), ``nt`` or ``long`` (own 6+ suit)."""
    p = ctx.shown[ctx.partner]
    floor = 2 if p.balanced else 0  # a balanced hand holds at least two cards in every suit
    fits = [s for s in (S, H, D, C) if hand.lens[s] + max(p.min_len[s], floor) >= 8]
    majors = [s for s in fits if s in (H, S)]
    if majors:
        return max(majors, key=lambda s: (hand.lens[s] + p.min_len[s], s)), "fit"
    long_suits = [s for s in (S, H, D, C) if hand.lens[s] >= 6 and s not in ctx.their_suits()]
    if any(s in (H, S) and hand.lens[s] >= 7 for s in long_suits):  # a seven-card major before a minor fit
        return max((s for s in long_suits if s in (H, S)), key=lambda s: (hand.lens[s], s)), "long"
    shapely = min(hand.lens) <= 1
    if fits and (shapely or not (hand.balanced or p.balanced)):
        return max(fits, key=lambda s: (hand.lens[s] + p.min_len[s], s)), "fit"
    if hand.balanced or p.balanced or not long_suits:
        if any(not hand.stopper(s) for s in ctx.their_suits()):  # no-trump without a stopper in their suit
            if fits:
                return max(fits, key=lambda s: (hand.lens[s] + p.min_len[s], s)), "fit"
            five = [s for s in (S, H, D, C) if hand.lens[s] >= 5 and s not in ctx.their_suits()]
            if five:
                return max(five, key=lambda s: (hand.lens[s], s)), "long"
        return N, "nt"
    return max(long_suits, key=lambda s: (hand.lens[s], s)), "long"


def _no_trump_ok(hand: HandInfo, ctx: Ctx) -> bool:
    """No-trump is playable: no void or singleton (unless partner is balanced), their suits stopped, and at most
    one suit neither stopped here nor bid by partner."""
    shapely = min(hand.lens) <= 1 and not ctx.shown[ctx.partner].balanced
    open_suits = sum(1 for s in range(4) if not hand.stopper(s) and ctx.shown[ctx.partner].min_len[s] < 4)
    return not shapely and all(hand.stopper(s) for s in ctx.their_suits()) and open_suits <= 1


def _points(hand: HandInfo, strain: int, reason: str) -> int:
    if reason == "fit":
        return hand.hcp + hand.shortness_points(strain)
    if reason == "long":
        return hand.hcp + hand.length_points()
    return hand.hcp


def _blackwood_used(ctx: Ctx) -> bool:
    return any(kind in BLACKWOOD_KINDS for who in (ctx.seat, ctx.partner) for kind in ctx.our_kinds(who))


def _they_hold(ctx: Ctx) -> bool:
    """Whether the highest bid so far is the opponents'."""
    return ctx.last_bid is not None and not ctx.ours()


def _asked_blackwood(ctx: Ctx) -> bool:
    """Whether this seat asked for aces with its last call and partner has replied (its next bid places the slam)."""
    mine, theirs = ctx.our_kinds(ctx.seat), ctx.our_kinds(ctx.partner)
    return bool(mine and mine[-1] == CallKind.BLACKWOOD and theirs and theirs[-1] == CallKind.BLACKWOOD_REPLY)


def _after_blackwood(hand: HandInfo, ctx: Ctx) -> tuple[str, str] | None:
    """The asker's contract once partner has replied to Blackwood."""
    if not _asked_blackwood(ctx):
        return None
    strain, _ = _strain(hand, ctx)
    strain = N if strain == N else strain
    aces = hand.aces + partner_aces(ctx.last_call(ctx.partner) or "", hand)
    total = hand.hcp + _partner_estimate(ctx, hand)
    level = 5 if aces <= 2 else 7 if aces == 4 and total >= NEED_GRAND else 6
    call = bid_of(level, strain)
    if not ctx.auction.is_legal(call):
        six = bid_of(6, strain)
        call = six if aces >= 3 and ctx.auction.is_legal(six) else "P"
    return call, "after-bw"


def plan(hand: HandInfo, ctx: Ctx) -> tuple[str, str, int]:
    """(call, reason, strain) the partnership's contract calls for from this seat's view."""
    bw = _after_blackwood(hand, ctx)
    if bw is not None:
        return bw[0], bw[1], strain_of(bw[0]) if bw[0][0].isdigit() else N
    kinds = ctx.our_kinds(ctx.partner)
    if kinds and kinds[-1] in (CallKind.AFTER_BLACKWOOD, CallKind.BLACKWOOD_REPLY):
        return "P", "pass", N
    if kinds and kinds[-1] == CallKind.PENALTY and tuple(ctx.auction.calls[-2:]) == ("X", "P"):
        return "P", "pass", N  # partner's penalty double stands
    strain, reason = _strain(hand, ctx)
    total = _points(hand, strain, reason) + _partner_estimate(ctx, hand)
    they_hold = _they_hold(ctx)
    priced = total >= SCORE_FROM and (they_hold or total >= SLAM_PRICE_FROM)
    scored = _by_score(hand, ctx, strain) if priced else None
    priced_slam = scored is not None and scored[0] >= 6  # a slam scores best over partner's possible hands
    partner_placed = bool(kinds) and kinds[-1] in TO_PLAY_KINDS and ctx.last_bidder == ctx.partner
    if partner_placed and total < NEED_SLAM and not (priced_slam and not _blackwood_used(ctx)):
        return "P", "pass", strain  # partner chose the contract: respect it short of slam values
    game = GAME[strain]
    if strain in (C, D) and NEED_GAME[N] <= total < NEED_SLAM and _no_trump_ok(hand, ctx):
        strain, game = N, 3
    p = ctx.shown[ctx.partner]
    sure = total - _partner_estimate(ctx, hand) + min(_partner_estimate(ctx, hand), p.lo + 4)
    real_fit = strain != N and hand.lens[strain] + p.min_len[strain] >= 8  # not counting a balanced partner's two
    slam_ok = real_fit or strain == N
    if slam_ok and sure >= NEED_GRAND:
        level, why = 7, "slam"
    elif slam_ok and sure >= NEED_SLAM:
        level, why = 6, "slam"
    elif total >= NEED_GAME[strain]:
        level, why = game, "game"
    elif total >= NEED_INVITE:
        level, why = min(game - 1, 3), "invite"
    else:
        level, why = 1, "part"
    level, why = _by_tricks(hand, ctx, strain, reason, total, level, why)
    if priced_slam and scored is not None:
        level, strain, why = scored[0], scored[1], "slam"
    elif scored is not None and they_hold:
        if scored[0] == 0:  # the opponents hold the contract: defending it prices best
            return "P", "pass", strain
        level, strain = scored  # or the contract of ours that prices best over theirs
        why = "game" if level >= GAME[strain] else "compete"
        return bid_of(level, strain), why, strain
    if why == "slam" and strain != N and not _blackwood_used(ctx) and ctx.auction.is_legal("4N"):
        return "4N", "blackwood", strain
    trumps = hand.lens[strain] + ctx.shown[ctx.partner].min_len[strain] if strain != N else 0
    if why == "part" and ctx.opponents_acted() and trumps >= 8:
        level, why = min(trumps - 6, 3), "compete"
    return _pick(hand, ctx, level, strain, why, total)


def _by_tricks(hand: HandInfo, ctx: Ctx, strain: int, reason: str, total: int, level: int, why: str) -> tuple[int, str]:
    """Correct the point count's level by the estimated tricks of the pair (partner drawn from its shown
    ranges): bid a game or a slam the tricks are there for, drop a game they are clearly not there for."""
    if total < TRICKS_FROM:
        return level, why
    key = f"{ctx.seat}|{hand.cards}|{ctx.auction.calls}"
    tricks = expected_tricks(hand.cards, ctx.shown[ctx.partner], key, strains=(strain,))
    if tricks is None:
        return level, why
    t, game = float(tricks[strain]), GAME[strain]
    real_fit = strain != N and hand.lens[strain] + ctx.shown[ctx.partner].min_len[strain] >= 8
    fit_slam = (real_fit or strain == N) and t >= SLAM_TRICKS and total >= SLAM_POINTS
    if fit_slam or reason == "long" and t >= SLAM_TRICKS + 0.2 and total >= SLAM_POINTS + 2:
        return (7 if t >= SLAM_TRICKS + 1 and total >= SLAM_POINTS + 5 else 6), "slam"
    if why in ("part", "invite") and t + GAME_MARGIN >= game + 6:
        return game, "game"
    if why == "game" and t + DROP_MARGIN < game + 6:
        return min(game - 1, 3), "invite"
    return level, why


def _candidate_strains(hand: HandInfo, ctx: Ctx, strain: int) -> set[int]:
    """The strains worth pricing: the one chosen by fit and shape, every known 8-card fit, our own six-card suits
    they have not bid, no-trump when it is playable, and the strain we already hold."""
    p = ctx.shown[ctx.partner]
    out = {strain}
    out |= {s for s in range(4) if hand.lens[s] + p.min_len[s] >= 8}
    out |= {s for s in range(4) if hand.lens[s] >= 6 and s not in ctx.their_suits()}
    if strain == N or _no_trump_ok(hand, ctx):
        out.add(N)
    if ctx.ours() and ctx.last_bid is not None:
        out.add(strain_of(ctx.last_bid))
    return out


def _by_score(hand: HandInfo, ctx: Ctx, strain: int) -> tuple[int, int] | None:
    """(level, strain) with the best expected score for our side (level 0: pass), or None when too few partner
    hands fit what partner showed."""
    key = f"score|{ctx.seat}|{hand.cards}|{ctx.auction.calls}"
    last = ctx.last_bid
    candidates = sorted(_candidate_strains(hand, ctx, strain))
    priced = candidates + ([] if last is None else [strain_of(last)])  # and the strain of the contract held
    partner = ctx.shown[ctx.partner]
    tricks = sampled_tricks(hand.cards, partner, key, SCORE_SAMPLES, SCORE_DRAWS, SCORE_MOST_DRAWS, priced)
    if tricks is None:
        return None
    doubled_from = DOUBLED_FROM if ctx.opponents_acted() else 99
    values = ContractValues.of(tricks, ctx.we_vulnerable(), ctx.they_vulnerable(), doubled_from)
    if last is None:
        best, choice = 0.0, (0, strain)
    else:
        held = (int(last[0]), strain_of(last), ctx.auction.doubling())
        value = values.declare(*held) if ctx.ours() else values.defend(*held)
        best, choice = value, (0, held[1])
    for s in candidates:
        for level in range(ctx.cheapest(s), 8):
            value = values.declare(level, s)
            if value > best:
                best, choice = value, (level, s)
    return choice


def _better_partscore(hand: HandInfo, ctx: Ctx, strain: int) -> int | None:
    """The strain our partscore belongs in rather than partner's last suit, if any: no fit in partner's suit,
    and ``strain`` (or this unbalanced hand's longest suit) has five cards here and is biddable at the two level."""
    last = ctx.last_bid or ""
    held = strain_of(last)
    if strain == N and not hand.balanced:
        strain = max((S, H, D, C), key=lambda s: (hand.lens[s], s))
    if ctx.last_bidder != ctx.partner or strain == N or held in (strain, N) or ctx.cheapest(strain) > 2:
        return None
    if hand.lens[held] + ctx.shown[ctx.partner].min_len[held] >= 7 or strain in ctx.their_suits():
        return None  # a seven-card fit in partner's suit is good enough
    return strain if hand.lens[strain] >= 5 else None


def _pick(hand: HandInfo, ctx: Ctx, level: int, strain: int, why: str, total: int) -> tuple[str, str, int]:
    """The call that reaches ``level`` in ``strain`` from the current auction (or pass / double)."""
    last = ctx.last_bid
    cheapest = ctx.cheapest(strain)
    if last is not None and ctx.ours() and strain_of(last) == strain and int(last[0]) >= level:
        return "P", "pass", strain
    if why == "part" and last is not None and ctx.ours():
        better = _better_partscore(hand, ctx, strain)
        if better is None:
            return "P", "pass", strain
        strain, cheapest = better, ctx.cheapest(better)
    target = max(level, cheapest) if why in ("part", "compete") and cheapest <= max(level, 2) else level
    if target >= cheapest and target <= 7:
        return bid_of(target, strain), why, strain
    if (
        last is not None
        and not ctx.ours()
        and ctx.auction.is_legal("X")
        and int(last[0]) >= 2
        and total >= 25
        and (last[1] == "N" or hand.lens[strain_of(last)] >= 3)
    ):
        return "X", "penalty", strain
    return "P", "pass", strain


def _meaning(ctx: Ctx, call: str, why: str, strain: int) -> Meaning:
    """What a placement call claims, hand-independently (the plan only chooses it when the claims hold)."""
    est = _partner_estimate(ctx)
    if why == "blackwood":
        return M("Blackwood (asks for aces)", max(0, NEED_SLAM - est - 6), MAX_HCP, alert=True, kind=CallKind.BLACKWOOD)
    if why == "penalty":
        return M("penalty double", max(0, 25 - est - 3), MAX_HCP, kind=CallKind.PENALTY)
    if why == "pass":
        return M("no reason to bid on")
    need = {"invite": NEED_INVITE, "game": NEED_GAME[strain], "slam": NEED_SLAM}.get(why, 0)
    lo = max(0, need - est - 6) if need else 0
    hi = MAX_HCP
    if why == "invite":  # below game by the count that chose it (with room for distribution and the cap on partner)
        lo, hi = max(0, NEED_INVITE - est - 3), max(0, NEED_GAME[strain] - est + 2)
    lens = (0, 0, 0, 0)
    if strain != N:
        fit = max(1, 8 - ctx.shown[ctx.partner].min_len[strain])
        lens = at_least(strain, min(fit, 6))
    return M(LABELS[why], lo, hi, lens, kind=LABEL_KINDS.get(why, CallKind.NATURAL))


REASONS = ("part", "compete", "invite", "game", "slam", "after-bw")


def _main_reason(ctx: Ctx, level: int, strain: int) -> str:
    """The reason ``plan`` most often bids ``level`` in ``strain`` for in this position (how the bid is read):
    the slam after a Blackwood reply, else by level, a bid below game over the opponents' contract competing
    (``plan`` prices such a bid against defending, or bids the law of total tricks)."""
    if _asked_blackwood(ctx):
        return "after-bw"
    if level >= 6:
        return "slam"
    if level >= GAME[strain]:
        return "game"
    if _they_hold(ctx):
        return "compete"
    return "invite" if level == min(GAME[strain] - 1, 3) else "part"


def placement_meanings(ctx: Ctx, call: str) -> list[Meaning]:
    """Every meaning a placement ``call`` can have in this position (for reading it)."""
    if call == "P":
        return [_meaning(ctx, call, "pass", N)]
    if call == "X":
        return [_meaning(ctx, call, "penalty", N)]
    if call == "XX" or not call[0].isdigit():
        return []
    strain, level = strain_of(call), int(call[0])
    first = _main_reason(ctx, level, strain)
    out = [_meaning(ctx, call, why, strain) for why in (first,) + tuple(r for r in REASONS if r != first)]
    if call == "4N" and not _blackwood_used(ctx):
        out.insert(0, _meaning(ctx, call, "blackwood", N))
    return out


def placement(hand: HandInfo, ctx: Ctx) -> Rule:
    """The placement rule this hand chooses (its meaning's claims still have to hold for it to be used)."""
    call, why, strain = plan(hand, ctx)
    return Rule(call, _meaning(ctx, call, why, strain if why != "blackwood" else N))
