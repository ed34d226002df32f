"""The previous basic natural bidder (kept as the baseline of `benchmarks/bench_bidding4.py`).

How basic it is (also in docs/server.md): no conventions at all (no Stayman, transfers,
Blackwood, cue bids or artificial 2C); one meaning per call from a small table (openings, responses,
overcalls, takeout doubles, raises, no-trump ranges); each seat's hand is summarised as a
high-card-point range and minimum suit lengths read from its calls; the bidder then picks the
partnership's strain (8-card major fit, no-trump when balanced, minor fit, own 6-card suit) and
the level the combined strength supports. The strength it counts is high-card points plus length
points, and, once the partnership has a strain, the fast trick estimator's count of its own
hand's sure tricks is used as a floor. Every call it returns is legal; the same position always
gives the same call.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from tribridge.four.natural4 import Bid4View
from tribridge.four.rules import (
    DOUBLE,
    PASS,
    STRAINS,
    Auction4,
    is_bid,
    same_side,
)

NAME = "natural4-previous"
MAJORS = (3, 2)  # spades, hearts
HCP_FOR_NT_LEVEL = {1: 20, 2: 23, 3: 25, 6: 33, 7: 37}
POINTS_FOR_SUIT_LEVEL = {1: 18, 2: 20, 3: 23, 4: 26, 5: 29, 6: 33, 7: 37}


@dataclass
class Shown:
    """What a seat's calls have shown: an HCP range and minimum suit lengths (suit order C D H S)."""

    min_hcp: int = 0
    max_hcp: int = 37
    min_len: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    balanced: bool = False
    has_bid: bool = False

    def expect_hcp(self) -> int:
        """A point estimate of the seat's HCP from its range."""
        if self.max_hcp >= 37:
            return self.min_hcp + 2 if self.has_bid else min(self.min_hcp + 5, 10)
        return self.min_hcp + min(3, (self.max_hcp - self.min_hcp) // 2)

    def show(self, lo: int, hi: int, suit: int | None = None, length: int = 0, balanced: bool = False) -> None:
        """Narrow the range and raise a suit's minimum length."""
        self.min_hcp = max(self.min_hcp, lo)
        self.max_hcp = max(self.min_hcp, min(self.max_hcp, hi))
        if suit is not None:
            self.min_len[suit] = max(self.min_len[suit], length)
        self.balanced = self.balanced or balanced


def hcp(cards: Sequence[int]) -> int:
    """Milton Work points (A4 K3 Q2 J1)."""
    return sum(max(0, 4 - c % 13) for c in cards)


def lengths(cards: Sequence[int]) -> list[int]:
    """Suit lengths in suit order C D H S."""
    out = [0, 0, 0, 0]
    for c in cards:
        out[c // 13] += 1
    return out


def is_balanced(lens: Sequence[int]) -> bool:
    """4-3-3-3, 4-4-3-2 or 5-3-3-2."""
    return sorted(lens) in ([3, 3, 3, 4], [2, 3, 4, 4], [2, 3, 3, 5])


def sure_tricks(cards: Sequence[int], trump: int | None) -> float:
    """Tricks one hand takes by itself in a strain: top winners, plus length in no-trump or trumps."""
    tricks = 0.0
    lens = lengths(cards)
    for suit in range(4):
        ranks = sorted(c % 13 for c in cards if c // 13 == suit)
        top = 0
        for expected, r in enumerate(ranks):
            if r == expected:
                top += 1
            else:
                break
        long_cards = max(0, lens[suit] - 4) if (trump is None or trump == suit) and top >= 1 else 0
        tricks += min(lens[suit], top + long_cards)
    return tricks


def sample_partner_hands(
    hand: Sequence[int], partner: Shown, rng: np.random.Generator, wanted: int = 16, draws: int = 160
) -> np.ndarray:
    """Up to ``wanted`` hands for partner, ``bool[k, 52]``, drawn from the unseen cards and consistent with what
    partner's calls showed (HCP range, minimum suit lengths, balanced shape)."""
    unseen = np.array(sorted(set(range(52)) - set(int(c) for c in hand)), dtype=np.int64)
    keys = rng.random((draws, unseen.size))
    picks = unseen[np.argpartition(keys, 13, axis=1)[:, :13]]  # [draws, 13]
    hcp_of = np.maximum(0, 4 - picks % 13).sum(axis=1)
    suit_len = np.stack([(picks // 13 == s).sum(axis=1) for s in range(4)], axis=1)
    ok = (hcp_of >= partner.min_hcp) & (hcp_of <= partner.max_hcp)
    ok &= (suit_len >= np.asarray(partner.min_len)).all(axis=1)
    if partner.balanced:
        ok &= (suit_len >= 2).all(axis=1) & ((suit_len == 2).sum(axis=1) <= 1) & (suit_len.max(axis=1) <= 5)
    chosen = picks[ok][:wanted]
    out = np.zeros((len(chosen), 52), dtype=bool)
    out[np.arange(len(chosen))[:, None], chosen] = True
    return out


def _masks_from_rows(rows: np.ndarray) -> np.ndarray:
    """Suit masks ``int64[k, 4]`` (bit r = rank r) from ``bool[k, 52]`` card rows."""
    bits = np.int64(1) << np.arange(13, dtype=np.int64)
    return (rows.reshape(-1, 4, 13).astype(np.int64) * bits).sum(axis=2)


def expected_tricks(hand: Sequence[int], partner: Shown, seed: int) -> np.ndarray | None:
    """The fast trick estimator's mean tricks ``float[5]`` (C D H S NT) for this hand with partner hands
    sampled from what partner showed; None if too few hands fit."""
    from tribridge.estimators.tricks import estimate_tricks

    rng = np.random.default_rng(seed)
    rows = sample_partner_hands(hand, partner, rng)
    if len(rows) < 4:
        return None
    mine = np.zeros((1, 52), dtype=bool)
    mine[0, list(hand)] = True
    my_masks = np.repeat(_masks_from_rows(mine), len(rows), axis=0)
    import numba

    threads = numba.get_num_threads()
    numba.set_num_threads(1)  # a 16-row batch: threads cost more than they give (and the setting is per thread)
    try:
        tricks = estimate_tricks(my_masks, _masks_from_rows(rows))
    finally:
        numba.set_num_threads(threads)
    return np.asarray(tricks, dtype=np.float64).mean(axis=0)


def read_auction(auction: Auction4) -> list[Shown]:
    """Each seat's shown values from the calls made so far (this bidder's own meanings)."""
    shown = [Shown() for _ in range(4)]
    first_bidder: int | None = None
    for i, call in enumerate(auction.calls):
        seat = (auction.dealer + i) % 4
        prior = Auction4(auction.dealer, auction.calls[:i])
        s = shown[seat]
        if call == PASS:
            if first_bidder is None and prior.last_bid is None:
                s.show(0, 12)
            continue
        if call == DOUBLE:
            s.show(12, 37)
            continue
        if not is_bid(call):
            continue
        level, strain = int(call[0]), STRAINS.index(call[1])
        suit = None if strain == 4 else strain
        partner = shown[seat ^ 2]
        if first_bidder is None:
            first_bidder = seat
            if strain == 4:
                lo, hi = {1: (15, 17), 2: (20, 21)}.get(level, (22, 37) if level == 3 else (20, 37))
                s.show(lo, hi, balanced=True)
            elif level == 1:
                s.show(12, 21, suit, 5 if suit in MAJORS else 3)
            elif level == 2:
                s.show(6, 10, suit, 6)
            else:
                s.show(5, 10, suit, 7 if level == 3 else 8)
        elif partner.has_bid and (suit is None or partner.min_len[suit] >= 3 or s.has_bid):
            # a raise, a no-trump bid or a later bid: it places the contract, so it shows the
            # points that this bidder's level table needs beyond partner's expected points
            table = HCP_FOR_NT_LEVEL if suit is None else POINTS_FOR_SUIT_LEVEL
            need_lo = max(v for lv, v in table.items() if lv <= level) if level >= min(table) else 0
            higher = [v for lv, v in table.items() if lv > level]
            need_hi = (min(higher) - 1) if higher else 40
            expected = partner.expect_hcp()
            lo = max(0 if s.has_bid else 6, need_lo - expected - 1)
            hi = max(lo, need_hi - expected)
            if suit is not None:
                s.show(lo, hi, suit, max(3, 8 - partner.min_len[suit]))
            else:
                s.show(lo, hi, balanced=True)
        elif partner.has_bid:  # a new suit in response
            s.show(6 if level == 1 else 10, 37, suit, 4)
        elif not s.has_bid:  # an overcall
            if suit is None:
                s.show(15, 18, balanced=True)
            else:
                s.show(8, 16, suit, 5)
        elif suit is not None:  # a further suit without partner's support
            s.show(s.min_hcp, s.max_hcp, suit, 4)
        s.has_bid = True
    return shown


def _cheapest(auction: Auction4, strain: int) -> int:
    """The lowest level at which ``strain`` can be bid now."""
    last = auction.last_bid
    if last is None:
        return 1
    level, last_strain = int(last[0][0]), STRAINS.index(last[0][1])
    return level if strain > last_strain else level + 1


def _bid(level: int, strain: int) -> str:
    return f"{level}{STRAINS[strain]}"


def _opening(hand: Sequence[int]) -> tuple[str, str]:
    points, lens = hcp(hand), lengths(hand)
    bal = is_balanced(lens)
    if bal and 15 <= points <= 17:
        return "1N", "15-17 HCP, balanced"
    if bal and 20 <= points <= 21:
        return "2N", "20-21 HCP, balanced"
    two_longest = sum(sorted(lens)[-2:])
    if points >= 12 or (points >= 10 and points + two_longest >= 20):
        if lens[3] >= 5 and lens[3] >= lens[2]:
            return "1S", "12+ HCP, 5+ spades"
        if lens[2] >= 5:
            return "1H", "12+ HCP, 5+ hearts"
        if lens[1] > lens[0] or (lens[1] == lens[0] and lens[1] >= 4):
            return "1D", "12+ HCP, 3+ diamonds"
        return "1C", "12+ HCP, 3+ clubs"
    for suit in (3, 2, 1):
        if lens[suit] == 6 and 6 <= points <= 10:
            return _bid(2, suit), f"weak two: 6-10 HCP, 6 {('clubs', 'diamonds', 'hearts', 'spades')[suit]}"
    for suit in (3, 2, 1, 0):
        if lens[suit] >= 7 and 5 <= points <= 10:
            return _bid(3, suit), "preempt: 5-10 HCP, a 7-card suit"
    return PASS, "no opening: fewer than 12 HCP"


def level_for_tricks(tricks: float, strain: int) -> int:
    """The level to aim for with ``tricks`` expected double dummy: a partscore needs the tricks within a
    fifth of a trick, a game within half a trick (its bonus pays for the risk), a slam a clear half trick
    to spare (double-dummy play is optimistic); no-trump stops at 3NT short of a slam, a major at game."""
    level = int(np.floor(tricks + 0.2)) - 6
    game = 3 if strain == 4 else 4 if strain in (2, 3) else 5
    if level < game and tricks + 0.5 >= game + 6:
        level = game  # games pay a bonus: bid them when they are about even money
    if level >= 6 and tricks < level + 6 + 0.5:
        level = 5
    if strain == 4 and level in (4, 5):
        level = 3
    if strain in (2, 3) and level == 5:
        level = 4
    return max(0, min(7, level))


def _target_level(strain: int, points: int) -> int:
    table = HCP_FOR_NT_LEVEL if strain == 4 else POINTS_FOR_SUIT_LEVEL
    level = 0
    for lv, need in table.items():
        if points >= need:
            level = lv
    if strain in (0, 1) and 26 <= points < 29:
        level = min(level, 4)
    return level


def _choose_strain(hand: Sequence[int], partner: Shown) -> tuple[int, int]:
    """(strain, combined trumps) the partnership should play in, from this seat's view."""
    lens = lengths(hand)
    fits = [(lens[s] + partner.min_len[s], s) for s in range(4)]
    for s in MAJORS:
        if lens[s] + partner.min_len[s] >= 8:
            return s, lens[s] + partner.min_len[s]
    if partner.balanced or is_balanced(lens):
        return 4, 0
    best_len, best = max(fits, key=lambda x: (x[0], x[1]))
    if best_len >= 8:
        return best, best_len
    own_len, own = max((lens[s], s) for s in range(4))
    if own_len >= 6:
        return own, own_len + partner.min_len[own]
    return 4, 0


def decide(view: Bid4View) -> tuple[str, str]:
    """The call and a short explanation."""
    auction = view.auction
    hand = view.hand
    shown = read_auction(auction)
    me, partner = view.seat, view.seat ^ 2
    points, lens = hcp(hand), lengths(hand)
    last = auction.last_bid
    if last is None:
        return _opening(hand)
    partner_shown = shown[partner]
    we_bid = shown[me].has_bid or partner_shown.has_bid
    our_contract = same_side(last[1], me)
    if not we_bid:
        # overcall, 1NT overcall, takeout double or pass
        their_suit = STRAINS.index(last[0][1])
        level_now = int(last[0][0])
        partner_doubled = any(
            call == DOUBLE and (auction.dealer + i) % 4 == partner for i, call in enumerate(auction.calls)
        )
        if partner_doubled and auction.calls[-1] == "P" and not auction.is_legal(DOUBLE):
            # answer partner's takeout double in our longest other suit (a pass would leave it in)
            suit = max((s for s in range(4) if s != their_suit), key=lambda s: (lens[s], s))
            lv = _cheapest(auction, suit) + (1 if points >= 9 and _cheapest(auction, suit) <= 2 else 0)
            if lv <= 4:
                return _bid(lv, suit), f"answer to partner's takeout double: {lens[suit]} cards, {points} HCP"
        nt_level = _cheapest(auction, 4)
        if 15 <= points <= 18 and is_balanced(lens) and nt_level <= 2:
            return _bid(nt_level, 4), "15-18 HCP, balanced"
        for suit in (3, 2, 1, 0):
            if suit == their_suit or lens[suit] < 5:
                continue
            lv = _cheapest(auction, suit)
            if (
                (lv == 1 and 8 <= points <= 16)
                or (lv == 2 and 11 <= points <= 16)
                or (lv == 3 and 13 <= points <= 16 and lens[suit] >= 6)
            ):
                return _bid(lv, suit), f"overcall: 8-16 HCP, 5+ {('clubs', 'diamonds', 'hearts', 'spades')[suit]}"
        short = their_suit < 4 and lens[their_suit] <= 2
        if level_now <= 3 and auction.is_legal(DOUBLE) and ((points >= 12 and short) or points >= 17):
            return DOUBLE, "takeout double: 12+ HCP short in their suit, or 17+ HCP"
        return PASS, "nothing to show"
    partner_points = partner_shown.expect_hcp()
    strain, trumps = _choose_strain(hand, partner_shown)
    length_points = sum(max(0, n - 4) for n in lens)
    combined = points + partner_points + (length_points if strain != 4 else 0)
    trump = None if strain == 4 else strain
    floor_level = int(sure_tricks(hand, trump)) - 6
    seed = int.from_bytes(hashlib.sha256(f"{view.seat}|{sorted(hand)}|{auction.calls}".encode()).digest()[:8], "little")
    tricks = expected_tricks(hand, partner_shown, seed)
    if tricks is not None:
        # the estimator's expected tricks decide the level (a level is bid when its tricks are expected
        # within a third of a trick); the point count only breaks in when too few partner hands fit
        estimated = level_for_tricks(float(tricks[strain]), strain)
        target = max(estimated, floor_level)
        if strain == 4:
            # natural no-trump bidding: 25 combined points is game whatever a trick estimate a shade
            # under 8.5 says (slams stay with the estimate)
            target = max(target, min(3, _target_level(4, combined)))
        explanation_tricks = f"; about {tricks[strain]:.1f} tricks expected in {STRAINS[strain]}"
    else:
        target = max(_target_level(strain, combined), floor_level)
        explanation_tricks = ""
    if not shown[me].has_bid and partner_shown.has_bid and target == 0 and points >= 6:
        target = 1 if strain == 4 else 2
    if strain != 4 and not our_contract:
        # compete to the total-tricks level with a fit
        target = max(target, trumps - 6 if trumps >= 8 else 0)
    target = min(target, 7)
    cheapest = _cheapest(auction, strain)
    explanation = (
        f"{points} HCP, partner about {partner_points}{explanation_tricks}; aiming for {target}{STRAINS[strain]}"
    )
    if target >= cheapest and target >= 1:
        level = target
        if not shown[me].has_bid and partner_shown.has_bid and level > 3 and strain != 4 and trumps < 8:
            level = cheapest
        call = _bid(level, strain)
        if auction.is_legal(call):
            if our_contract and last[0] == call:
                return PASS, explanation
            return call, explanation
    if not our_contract and points + partner_points >= 23 and int(last[0][0]) >= 2 and auction.is_legal(DOUBLE):
        return DOUBLE, f"penalty double: about {points + partner_points} HCP together"
    return PASS, explanation


def bid(view: Bid4View) -> str:
    """This bidder's call (canonical: P, X, XX, 1C..7N); always legal."""
    call, _ = decide(view)
    if not view.auction.is_legal(call):
        return PASS
    return call


def candidates(view: Bid4View) -> list[tuple[str, float]]:
    """The chosen call scored 1.0, then pass (if different) at 0.5, then the cheapest bid in each strain at 0.1."""
    chosen = bid(view)
    out = [(chosen, 1.0)]
    if chosen != PASS:
        out.append((PASS, 0.5))
    for strain in range(5):
        level = _cheapest(view.auction, strain)
        if level <= 7:
            call = _bid(level, strain)
            if call != chosen and view.auction.is_legal(call):
                out.append((call, 0.1))
    return out


def explain(view: Bid4View) -> str:
    """The explanation of this bidder's call."""
    call, why = decide(view)
    return why if view.auction.is_legal(call) else "fallback pass"
