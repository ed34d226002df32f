"""Benchmark: four-handed bidding quality against double-dummy par (the robot API's /bid bidder).

    nice -n 19 .venv/bin/python -m benchmarks bidding4 --deals 2000          # new vs previous vs "1NT or pass"
    nice -n 19 .venv/bin/python -m benchmarks bidding4 --deals 500 --worst 30  # and list the 30 worst deals
    nice -n 19 .venv/bin/python -m benchmarks bidding4 --deals 2000 --breakdown  # IMPs lost by kind of miss
    nice -n 19 .venv/bin/python -m benchmarks bidding4 --deals 2000 --pass-instead  # what each call gains
    nice -n 19 .venv/bin/python -m benchmarks bidding4 --deals 2000 --partner-known  # the cheat's ceiling
    nice -n 19 .venv/bin/python -m benchmarks bidding4 --deals 200 --seed 23 --search  # natural4-search too
    nice -n 19 .venv/bin/python -m benchmarks bidding4 --deals 2000 --two-over-one  # and both sides on 2/1

All four seats are bid by the same bidder on the same random deals (dealer and vulnerability rotate as on
boards 1-16). The contract reached is scored with its double-dummy tricks (``tribridge.dd``; the tables are
cached on disk, so a rerun only bids) and compared with the double-dummy par score of the deal: IMPs for
North-South of (score - par). The natural4 bidder is compared with the previous bidder
(``benchmarks/baseline_natural4.py``) and with a bidder that opens 1NT on 15-17 balanced and otherwise
passes; the paired per-deal difference comes with a 95 % interval. Target (issue 17): the new bidder beats
the previous one by at least 1 IMP a deal with the interval excluding zero.

Par here is computed from the double-dummy table by backward induction over the 35 bids (each side may
outbid; a contract that fails is doubled, one that makes is not; the dealer's side moves first), and
checked against endplay's own par on the first deals (``par_agreement`` in the output).

With ``--search`` the searching bidder (``four.search``, natural4-search) is bid in all four seats too, and
played in a duplicate match against natural4 on the same deals (``benchmarks/bidding4_search.py``): the
search's IMPs a board with a 95 % interval, its time per call (median, p99) and the biggest swings.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks.bidding4_runs import DealProgress, paired_with, save_per_deal
from tribridge.rules.duplicate import duplicate_score
from tribridge.rules.imps import imps

VUL_CYCLE = ("None", "NS", "EW", "All", "NS", "EW", "All", "None", "EW", "All", "None", "NS", "All", "None", "NS", "EW")
RESULTS = Path(__file__).parent / "results" / "bidding4.json"
DD_CHUNK = 50


def vulnerable(vul: str, seat: int) -> bool:
    """Whether ``seat`` is vulnerable under ``vul``."""
    return vul == "All" or (vul == "NS" and seat % 2 == 0) or (vul == "EW" and seat % 2 == 1)


def par_score(table: np.ndarray, vul: str, dealer: int) -> int:
    """Double-dummy par for North-South from a ``[seat, strain]`` trick table (see the module docstring)."""
    best_tricks = [[max(int(table[s, st]), int(table[s ^ 2, st])) for st in range(5)] for s in (0, 1)]

    def outcome(rank: int, side: int) -> int:
        """The side's score in the contract of this rank (doubled when it fails)."""
        level, strain = rank // 5 + 1, rank % 5
        tricks = best_tricks[side][strain]
        v = vulnerable(vul, side)
        return duplicate_score(level, strain, 0 if tricks >= level + 6 else 1, v, tricks)

    # value[rank][side]: the final score for `side` once `side` holds the contract of this rank, the opponents to act
    value = [[0, 0] for _ in range(35)]
    best_above = [-(10**9), -(10**9)]  # the best value each side can get by bidding above the current rank
    for rank in range(34, -1, -1):
        for side in (0, 1):
            other = 1 - side
            value[rank][side] = (
                min(outcome(rank, side), -best_above[other]) if best_above[other] > -(10**9) else outcome(rank, side)
            )
        for side in (0, 1):
            best_above[side] = max(best_above[side], value[rank][side])
    first = dealer % 2  # the dealer's side bids or passes first; if it passes the other side may bid or pass it out
    first_value = max(best_above[first], -max(0, best_above[1 - first]))
    return int(first_value if first == 0 else -first_value)


def bid_auction(policy: Callable, deal, dealer: int, vul: str, calls: tuple[str, ...] = ()):
    """All four seats bid by ``policy(seat, auction, hand, vul) -> call`` (after ``calls``, if given); the final
    auction."""
    from tribridge.four.rules import Auction4

    auction = Auction4(dealer, calls)
    while not auction.is_over:
        seat = auction.turn
        auction = auction.apply(policy(seat, auction, tuple(deal[seat].cards), vul))
        if len(auction.calls) > 60:
            raise RuntimeError("auction did not end")
    return auction


def new_policy(seat, auction, hand, vul):
    """The natural4 bidder."""
    from tribridge.four import natural4

    return natural4.bid(natural4.Bid4View(seat, auction.dealer, vul, hand, auction))


def two_over_one_policy(seat, auction, hand, vul):
    """The natural4 bidder with both sides playing 2/1 game forcing."""
    from tribridge.four import natural4

    both = (natural4.TWO_OVER_ONE, natural4.TWO_OVER_ONE)
    return natural4.bid(natural4.Bid4View(seat, auction.dealer, vul, hand, auction, both))


def old_policy(seat, auction, hand, vul):
    """The previous bidder (``benchmarks/baseline_natural4.py``)."""
    from benchmarks import baseline_natural4 as old

    return old.bid(old.Bid4View(seat, auction.dealer, vul, hand, auction))


class PartnerKnownPolicy:
    """natural4 with partner's real hand in place of the partner hands its pricing draws (a cheat, not a
    bidder: what knowing partner's hand exactly would give these methods). Set ``hands`` for each deal."""

    def __init__(self) -> None:
        self.hands: list[np.ndarray] = []

    def __call__(self, seat, auction, hand, vul):
        from tribridge.four.natural4 import tricks

        real = self.hands[seat ^ 2]
        drawn = tricks.sample_partner_hands
        tricks.sample_partner_hands = lambda _hand, _shown, _rng, wanted=16, *_, **__: np.repeat(  # noqa: E731
            real[None, :], wanted, axis=0
        )
        try:
            return new_policy(seat, auction, hand, vul)
        finally:
            tricks.sample_partner_hands = drawn


def one_nt_policy(seat, auction, hand, vul):
    """Open 1NT with 15-17 balanced when nobody has bid; otherwise pass."""
    from tribridge.four.natural4.core import HandInfo

    h = HandInfo.of(hand)
    if auction.last_bid is None and h.balanced and 15 <= h.hcp <= 17:
        return "1N"
    return "P"


def board(index: int) -> tuple[int, str]:
    """Deal ``index``'s dealer and vulnerability (as on boards 1-16)."""
    return index % 4, VUL_CYCLE[index % 16]


def bidding_policies(
    partner_known: bool, search: Callable | None = None, two_over_one: bool = False
) -> dict[str, Callable]:
    """The bidders compared, by the name the results use; the partner-known cheat, the search and natural4 with
    both sides on 2/1 when asked for."""
    policies: dict[str, Callable] = {"natural4": new_policy, "previous": old_policy, "1nt_or_pass": one_nt_policy}
    if two_over_one:
        policies["natural4_2over1"] = two_over_one_policy
    if partner_known:
        policies["natural4_partner_known"] = PartnerKnownPolicy()
    if search is not None:
        policies["natural4-search"] = search
    return policies


def bid_board(policy: Callable, deal, index: int):
    """Deal ``index`` bid by ``policy`` in all four seats (the cheat is first shown the real hands); the auction."""
    if isinstance(policy, PartnerKnownPolicy):
        policy.hands = [np.array(sorted(deal[seat].cards), dtype=np.int64) for seat in range(4)]
    dealer, vul = board(index)
    return bid_auction(policy, deal, dealer, vul)


def contract_shown(auction) -> str:
    """The final contract and its declarer as the results list it (``3NTN``; ``None`` when passed out)."""
    return str(auction.contract) + ("" if auction.contract is None else "NESW"[auction.contract.declarer])


def ns_score(auction, table: np.ndarray, vul: str) -> int:
    """North-South's score of the auction's contract with double-dummy tricks."""
    c = auction.contract
    if c is None:
        return 0
    tricks = int(table[c.declarer, c.strain])
    score = duplicate_score(c.level, c.strain, c.doubling, vulnerable(vul, c.declarer), tricks)
    return score if c.declarer % 2 == 0 else -score


def endplay_par(deal, vul: str, dealer: int) -> int:
    """endplay's par score for North-South (the reference the benchmark's own par is checked against)."""
    from endplay.dds import par
    from endplay.types import Player, Vul

    from tribridge.dd import to_endplay

    ep_vul = {"None": Vul.none, "NS": Vul.ns, "EW": Vul.ew, "All": Vul.both}[vul]
    return int(par(to_endplay(deal), ep_vul, Player.find("NESW"[dealer])).score)


def interval(values: np.ndarray) -> tuple[float, float, float]:
    """(mean, low, high) of a 95 % normal interval for the mean."""
    mean = float(values.mean())
    half = 1.96 * float(values.std(ddof=1)) / math.sqrt(len(values))
    return mean, mean - half, mean + half


GAME_LEVEL = (5, 5, 4, 4, 3)  # the lowest game level in C D H S NT


def loss_kind(auction, table: np.ndarray, score: int, par: int) -> str:
    """What kind of miss a final contract (North-South scoring ``score``) is against par: ``at par``, ``passed
    out``, ``wrong side`` (the side that does not own par declares), else the contract's size (partscore, game,
    slam), whether it made, and whether it scored above or below par for its side."""
    c = auction.contract
    if score == par:
        return "at par"
    if c is None:
        return "passed out"
    side_sign = 1 if c.declarer % 2 == 0 else -1
    size = "slam" if c.level >= 6 else "game" if c.level >= GAME_LEVEL[c.strain] else "partscore"
    made = "made" if table[c.declarer, c.strain] >= c.level + 6 else "down"
    if par != 0 and (par > 0) != (side_sign > 0):
        return f"wrong side, {size} {made}"
    return f"{size} {made}, {'above' if score * side_sign > par * side_sign else 'below'} par"


def print_breakdown(kinds: dict[str, list[str]], per_deal: dict[str, np.ndarray], skip: int) -> None:
    """Print (stderr) each kind of miss: deals and IMPs lost a deal, for natural4 and the previous bidder (and
    the searching bidder when it ran)."""
    names = ("natural4", "natural4-search" if "natural4-search" in per_deal else "previous")
    n = len(per_deal["natural4"]) - skip
    table: dict[str, dict[str, list[float]]] = {}
    for name in names:
        for kind, loss in zip(kinds[name][skip:], np.abs(per_deal[name][skip:])):
            row = table.setdefault(kind, {k: [0, 0.0] for k in names})
            row[name][0] += 1
            row[name][1] += float(loss)
    print(f"{'kind of miss':34s}" + "".join(f" {k + ' deals':>20s} {'IMPs/deal':>9s}" for k in names), file=sys.stderr)
    for kind, row in sorted(table.items(), key=lambda kv: -kv[1]["natural4"][1]):
        a, b = row[names[0]], row[names[1]]
        print(f"{kind:34s} {a[0]:20d} {a[1] / n:9.3f} {b[0]:20d} {b[1] / n:9.3f}", file=sys.stderr)


def print_pass_instead(deals, boards, pars, tables, skip: int) -> None:
    """Print (stderr), for each kind of call natural4 made (its explanation's label), the IMPs a deal it gained
    against passing instead: the same auction with that one call a pass and the rest bid by natural4."""
    from tribridge.four import natural4

    labels: list[str] = []

    def labelled_policy(seat, auction, hand, vul):
        """natural4's call, its label noted."""
        decision = natural4.decide_call(natural4.Bid4View(seat, auction.dealer, vul, hand, auction))
        labels.append(decision.meaning.label)
        return decision.call

    def loss(auction, j: int) -> int:
        return abs(imps(ns_score(auction, tables[j], boards[j][1]) - int(pars[j])))

    gains: dict[str, list[int]] = {}
    for j in range(skip, len(deals)):
        dealer, vul = boards[j]
        labels.clear()
        auction = bid_auction(labelled_policy, deals[j], dealer, vul)
        made, made_labels = loss(auction, j), list(labels)
        for i, call in enumerate(auction.calls):
            if call != "P":
                instead = bid_auction(new_policy, deals[j], dealer, vul, (*auction.calls[:i], "P"))
                gains.setdefault(made_labels[i], []).append(loss(instead, j) - made)
    n = len(deals) - skip
    print(
        f"{'call (label)':60s} {'calls':>6s} {'call better':>11s} {'pass better':>11s} {'IMPs/deal':>9s}",
        file=sys.stderr,
    )
    for label, g in sorted(gains.items(), key=lambda kv: sum(kv[1])):
        better, worse = sum(x > 0 for x in g), sum(x < 0 for x in g)
        print(f"{label[:60]:60s} {len(g):6d} {better:11d} {worse:11d} {sum(g) / n:+9.3f}", file=sys.stderr)


def print_worst(n, skip, deals, boards, pars, tables, imps_ns, auctions) -> None:
    """List (on stderr) the ``n`` deals from ``skip`` on where natural4 is furthest from par: the board, par,
    the IMPs, the contract and auction, the hands and the double-dummy table (by seat, strains C D H S NT)."""
    order = sorted(range(skip, len(deals)), key=lambda j: (-abs(imps_ns[j]), j))[:n]
    for j in order:
        dealer, vul = boards[j]
        hands = " ".join(f"{'NESW'[s]}:{deals[j][s].to_pbn()}" for s in range(4))
        print(
            f"deal {j} dealer {'NESW'[dealer]} vul {vul} par {int(pars[j])} imps {int(imps_ns[j])} | "
            f"{auctions[j]} | {hands} | dd {tables[j].tolist()}",
            file=sys.stderr,
        )


def search_policy(args: argparse.Namespace):
    """The searching bidder's benchmark policy with the command line's settings (its defaults otherwise)."""
    from benchmarks.bidding4_search import SearchPolicy
    from tribridge.four import search

    return SearchPolicy(
        args.search_layouts or search.LAYOUTS,
        search.MARGIN if args.search_margin is None else args.search_margin,
        search.DOMINANCE if args.search_dominance is None else args.search_dominance,
        search.SECONDS if args.search_seconds is None else args.search_seconds,
        args.search_plausible,
        search.COMPETITIVE_ONLY if args.search_competitive is None else args.search_competitive,
        search.MIN_IMPS if args.search_min_imps is None else args.search_min_imps,
        search.DOUBLE_WHEN_DOWN if args.search_double_when_down is None else args.search_double_when_down,
        search.DOUBLE_OURS_ONLY if args.search_double_ours_only is None else args.search_double_ours_only,
        search.REPLAY if args.search_replay is None else args.search_replay,
    )


def add_search_results(out: dict, search, deals, tables, boards, loss: dict[str, np.ndarray], skip: int) -> None:
    """The searching bidder's figures: against natural4 on par loss, the duplicate match, time, swings."""
    from benchmarks import bidding4_search as bs

    mean, lo, hi = interval(loss["natural4-search"] - loss["natural4"])
    out["search_minus_natural4_par_loss"] = {"mean": round(mean, 3), "ci95": [round(lo, 3), round(hi, 3)]}
    out["search_all_seats"] = search.summary()
    match = bs.duplicate_match(
        search,
        new_policy,
        deals,
        tables,
        boards,
        bid_auction,
        ns_score,
        contract_shown,
        DealProgress("match", len(deals)),
    )
    mean, lo, hi = interval(match.imps[skip:])
    out["match_search_vs_natural4_imps_per_board"] = {"mean": round(mean, 3), "ci95": [round(lo, 3), round(hi, 3)]}
    out["search_all_calls"] = search.summary()
    out["swings"] = bs.swings(match, skip, deals)


def search_deviations(calls, per_deal: dict[str, np.ndarray], boards, skip: int) -> dict[str, object]:
    """The search's extra par loss bidding all four seats, by whether the side that deviated first gained."""
    from benchmarks import bidding4_search as bs

    dealers = [dealer for dealer, _ in boards]
    return bs.deviation_split(
        calls["natural4"], calls["natural4-search"], dealers, per_deal["natural4"], per_deal["natural4-search"], skip
    )


def main() -> None:
    """Run the benchmark, print JSON, and save it under benchmarks/results/."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--par-check", type=int, default=20, help="deals whose par is checked against endplay's")
    ap.add_argument("--dd-only", action="store_true", help="only solve (and cache) the double-dummy tables")
    ap.add_argument("--skip", type=int, default=0, help="score only the deals from this index on (a held-out part)")
    ap.add_argument("--worst", type=int, default=0, help="also list the N deals natural4 loses most on (stderr)")
    ap.add_argument("--breakdown", action="store_true", help="also list the IMPs lost by kind of miss (stderr)")
    ap.add_argument(
        "--pass-instead", action="store_true", help="also list what each kind of natural4 call gains over a pass"
    )
    ap.add_argument(
        "--partner-known",
        action="store_true",
        help="also bid natural4 with partner's real hand given to its pricing (a cheat: the ceiling of its methods)",
    )
    ap.add_argument("--search", action="store_true", help="also bid natural4-search and match it against natural4")
    ap.add_argument("--two-over-one", action="store_true", help="also bid natural4 with both sides on 2/1")
    ap.add_argument("--search-layouts", type=int, default=None, help="layouts per searched call (default: its own)")
    ap.add_argument("--search-margin", type=float, default=None, help="standard errors to beat natural4's call by")
    ap.add_argument("--search-dominance", type=float, default=None, help="prior a candidate needs to be searched")
    ap.add_argument("--search-seconds", type=float, default=None, help="time budget of a searched call")
    ap.add_argument(
        "--search-plausible", action="store_true", help="search only calls whose reading the hand nearly fits"
    )
    ap.add_argument(
        "--search-competitive",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="search only positions where both sides have bid (default: the search's own setting)",
    )
    ap.add_argument("--search-min-imps", type=float, default=None, help="IMPs a layout to beat natural4's call by")
    ap.add_argument(
        "--search-double-when-down",
        type=int,
        default=None,
        help="score a rollout's contract doubled when it goes this many down or more (0: never; default: its own)",
    )
    ap.add_argument(
        "--search-double-ours-only",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="with --search-double-when-down, double only the searching side's contracts (default: its own)",
    )
    ap.add_argument(
        "--search-replay",
        type=int,
        default=None,
        help="draw this many layouts per layout searched and keep those natural4 would have bid the auction with "
        "(1: off; default: its own)",
    )
    ap.add_argument("--results", type=Path, default=RESULTS, help="where the JSON result is saved")
    ap.add_argument("--per-deal", type=Path, default=None, help="also save each bidder's loss on each deal here")
    ap.add_argument(
        "--pair-with", type=Path, default=None, help="pair each bidder with an earlier --per-deal file of these deals"
    )
    args = ap.parse_args()

    from tribridge.cards import Deal
    from tribridge.dd import dd_tables_array
    from tribridge.dealing.random import deal_batch

    owners = deal_batch(args.deals, args.seed)
    deals = [Deal.from_owners(o) for o in owners]
    boards = [board(j) for j in range(args.deals)]
    t0 = time.perf_counter()
    tables = np.concatenate(
        [  # in chunks, so an interrupted run keeps what it solved in the on-disk cache
            dd_tables_array(owners[i : i + DD_CHUNK], cache=True, workers=args.workers)
            for i in range(0, args.deals, DD_CHUNK)
        ]
    )
    dd_seconds = time.perf_counter() - t0
    if args.dd_only:
        print(json.dumps({"deals": args.deals, "dd_seconds": round(dd_seconds, 1)}))
        return
    pars = np.array([par_score(tables[j], vul, dealer) for j, (dealer, vul) in enumerate(boards)])
    checked = min(args.par_check, args.deals)
    agree = sum(endplay_par(deals[j], boards[j][1], boards[j][0]) == pars[j] for j in range(checked))

    search = search_policy(args) if args.search else None
    policies = bidding_policies(args.partner_known, search, args.two_over_one)
    per_deal: dict[str, np.ndarray] = {}
    seconds: dict[str, float] = {}
    contracts: dict[str, list[str]] = {}
    kinds: dict[str, list[str]] = {}
    auctions: list[str] = []
    calls: dict[str, list[tuple[str, ...]]] = {}
    for name, policy in policies.items():
        t0 = time.perf_counter()
        got, shown, kinds[name] = [], [], []
        progress = DealProgress(name, len(deals))
        for j, deal in enumerate(deals):
            auction = bid_board(policy, deal, j)
            score = ns_score(auction, tables[j], boards[j][1])
            got.append(imps(score - int(pars[j])))
            kinds[name].append(loss_kind(auction, tables[j], score, int(pars[j])))
            shown.append(contract_shown(auction))
            calls.setdefault(name, []).append(tuple(auction.calls))
            if name == "natural4":
                auctions.append(f"{shown[-1]}: {' '.join(auction.calls)}")
            progress(j + 1)
        seconds[name] = time.perf_counter() - t0
        per_deal[name] = np.array(got, dtype=np.float64)
        contracts[name] = shown[:20]
    if args.breakdown:
        print_breakdown(kinds, per_deal, args.skip)
    if args.pass_instead:
        print_pass_instead(deals, boards, pars, tables, args.skip)
    if args.worst:
        print_worst(args.worst, args.skip, deals, boards, pars, tables, per_deal["natural4"], auctions)
    # IMPs against par are North-South's; a bidder is as good as its absolute loss to par for both sides
    loss = {k: -np.abs(v[args.skip :]) for k, v in per_deal.items()}
    out = {
        "deals": args.deals,
        "scored_from": args.skip,
        "seed": args.seed,
        "dd_seconds": round(dd_seconds, 1),
        "par_agreement": f"{agree}/{checked}",
        "imps_lost_to_par_per_deal": {k: round(float(-v.mean()), 3) for k, v in loss.items()},
        "bid_seconds": {k: round(v, 1) for k, v in seconds.items()},
    }
    if "natural4_2over1" in loss:
        mean, lo, hi = interval(loss["natural4_2over1"] - loss["natural4"])
        out["2over1_minus_sayc"] = {"mean": round(mean, 3), "ci95": [round(lo, 3), round(hi, 3)]}
    for base in [b for b in ("previous", "1nt_or_pass", "natural4_partner_known") if b in loss]:
        mean, lo, hi = interval(loss["natural4"] - loss[base])
        out[f"natural4_minus_{base}"] = {"mean": round(mean, 3), "ci95": [round(lo, 3), round(hi, 3)]}
    if search is not None:
        add_search_results(out, search, deals, tables, boards, loss, args.skip)
        out["search_deviations"] = search_deviations(calls, per_deal, boards, args.skip)
    lost = {k: -v for k, v in loss.items()}  # (positive: IMPs lost)
    if args.per_deal is not None:
        save_per_deal(args.per_deal, args.seed, args.deals, args.skip, lost)
    if args.pair_with is not None:
        out["paired_with_earlier_run"] = paired_with(args.pair_with, args.seed, args.deals, args.skip, lost)
    out["first_contracts"] = contracts
    print(json.dumps(out, indent=1))
    args.results.parent.mkdir(exist_ok=True)
    args.results.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
