"""The work behind ``tribridge shuffle ...`` (the parser is in ``cli/shuffle.py``): TV tables, patterns, report."""

from __future__ import annotations

import argparse
from fractions import Fraction
from typing import Any

import numpy as np

from tribridge.cli.common import print_json, progress_bar
from tribridge.dealing import randomness as R
from tribridge.dealing.shuffles import dealing_pattern, deck_values, pattern_to_word
from tribridge.dealing.streams import random_stream
from tribridge.errors import InvalidInput

CLASSIC = ("ordered", "cyclic", "back-and-forth")


def parse_range(text: str, field: str = "shuffles", low: int = 0, high: int = 62) -> list[int]:
    """Parse ``1-10``, ``3,5,7`` or ``7`` into a sorted list of integers in [low, high]."""
    out: set[int] = set()
    try:
        for part in text.replace(" ", "").split(","):
            if not part:
                continue
            if "-" in part:
                a, b = part.split("-", 1)
                start, stop = int(a), int(b)
                if stop < start:
                    raise ValueError
                out.update(range(start, stop + 1))
            else:
                out.add(int(part))
    except ValueError:
        raise InvalidInput(field, f"expected a range like 1-10 or 3,5,7, got {text!r}") from None
    if not out or min(out) < low or max(out) > high:
        raise InvalidInput(field, f"expected values in {low}..{high}, got {text!r}")
    return sorted(out)


def _fraction_text(value: Fraction | None) -> str | None:
    if value is None:
        return None
    text = f"{value.numerator}/{value.denominator}" if value.denominator != 1 else str(value.numerator)
    return text if len(text) <= 80 else None


def run_tv(args: argparse.Namespace) -> int:
    """Print the Bayer–Diaconis table."""
    if args.cards < 1 or args.cards > 2000:
        raise InvalidInput("cards", f"expected 1..2000 cards, got {args.cards}")
    ks = parse_range(args.shuffles)
    table = R.bayer_diaconis_table(args.cards, ks)
    published = R.PUBLISHED_BAYER_DIACONIS_52 if args.cards == 52 else {}
    if args.json:
        out: dict[str, Any] = {"cards": args.cards, "tv": {str(k): float(v) for k, v in table.items()}}
        if published:
            out["published"] = {str(k): published[k] for k in ks if k in published}
        print_json(out)
        return 0
    print(f"Total variation of the order of {args.cards} distinct cards after k riffle shuffles (exact)")
    print(f"{'k':>3}  {'TV':>9}" + ("  published" if published else ""))
    for k, v in table.items():
        line = f"{k:>3}  {float(v):9.6f}"
        if k in published:
            line += f"  {published[k]:.3f}"
        print(line)
    return 0


def _setup(args: argparse.Namespace) -> tuple[np.ndarray, int, int]:
    if args.players < 1 or args.players > 9:
        raise InvalidInput("players", f"expected 1..9 players, got {args.players}")
    if args.hand_size < 1 or args.players * args.hand_size > 104:
        raise InvalidInput("hand-size", f"expected 1 <= players*hand-size <= 104, got {args.hand_size}")
    n = args.players * args.hand_size
    return deck_values(args.deck, n), args.players, args.hand_size


def _default_feature(deck: str) -> str:
    name = deck.strip().lower()
    if name == "suits":
        return "suits"
    if name in ("colors", "colours"):
        return "colors"
    if name == "distinct":
        return "ascent-descent"
    raise InvalidInput("deck", "Monte Carlo TV is available for the distinct, colors and suits decks only")


def tv_curve(
    values: np.ndarray,
    word: np.ndarray,
    players: int,
    hand_size: int,
    ks: list[int],
    deck: str,
    feature: str | None,
    samples: int,
    rng: np.random.Generator,
    exact_only: bool = False,
    progress=None,
) -> dict[str, Any]:
    """TV per number of riffles: exact for n <= 9, else Monte Carlo on a feature."""
    n = len(values)
    if n <= R.MAX_EXACT_CARDS:
        law = R.exact_deal_law(values, word)
        return {"method": "exact", "feature": "hands", "tv": {str(k): float(law.tv(2**k)) for k in ks}}
    if exact_only:
        raise InvalidInput("exact", f"exact TV needs at most {R.MAX_EXACT_CARDS} cards; drop --exact for Monte Carlo")
    feature = feature or _default_feature(deck)
    allowed = {"distinct": R.FEATURES, "suits": ("suits", "colors"), "colors": ("colors",), "colours": ("colors",)}
    if feature not in allowed.get(deck.strip().lower(), ()):
        raise InvalidInput("feature", f"feature {feature!r} is not a function of the hands for deck {deck!r}")
    rows = R.monte_carlo_feature_tv(feature, word, ks, samples, rng, players, hand_size, progress=progress)
    return {
        "method": "monte-carlo",
        "feature": feature,
        "samples": samples,
        "tv": {str(r.shuffles): r.tv for r in rows},
        "stderr": {str(r.shuffles): r.stderr for r in rows},
        "floor": rows[0].floor if rows else None,
    }


def run_deal(args: argparse.Namespace) -> int:
    """First-order constant and TV per riffles for one dealing pattern."""
    values, players, hand_size = _setup(args)
    word = dealing_pattern(args.pattern, players, hand_size)
    if args.samples < 100:
        raise InvalidInput("samples", f"expected at least 100 samples, got {args.samples}")
    rng = random_stream(args.seed)
    constant = R.first_order_constant(values, word, hand_size, rng=rng)
    if args.exact and constant.exact is None:
        raise InvalidInput("exact", "no exact method fits this deck and pattern; drop --exact for Monte Carlo")
    out: dict[str, Any] = {
        "players": players,
        "hand_size": hand_size,
        "deck": args.deck,
        "pattern": pattern_to_word(word),
        "first_order_constant": constant.value,
        "first_order_method": constant.method,
        "first_order_exact": _fraction_text(constant.exact),
        "first_order_stderr": constant.stderr,
        "riffles_to_tv_0.1_first_order": R.shuffles_for_tv(constant.value, 0.1),
    }
    ks = parse_range(args.shuffles) if args.shuffles else []
    curves: dict[str, dict[str, Any]] = {}
    if ks:
        names = [args.pattern] + ([c for c in CLASSIC if c != args.pattern] if args.plot else [])
        n_mc = 0 if len(values) <= R.MAX_EXACT_CARDS else len(names) * len(ks) * args.samples
        with progress_bar("shuffling", n_mc or None, enabled=not args.json and n_mc > 0) as bar:
            for name in names:
                w = dealing_pattern(name, players, hand_size)
                curves[name] = tv_curve(
                    values,
                    w,
                    players,
                    hand_size,
                    ks,
                    args.deck,
                    args.feature,
                    args.samples,
                    rng,
                    args.exact,
                    progress=bar,
                )
        out.update(curves[args.pattern])
    if args.plot:
        if not ks:
            raise InvalidInput("plot", "--plot needs --shuffles")
        constants = {
            name: R.first_order_constant(values, dealing_pattern(name, players, hand_size), hand_size, rng=rng).value
            for name in curves
        }
        _plot_curves(args.plot, curves, constants, f"{players} hands of {hand_size}, deck {args.deck}")
        out["plot"] = args.plot
    if args.json:
        print_json(out)
        return 0
    print(f"{players} hands of {hand_size}, deck {args.deck}, pattern {out['pattern']}")
    exact_text = f" = {out['first_order_exact']}" if out["first_order_exact"] else ""
    err = f" ± {constant.stderr:.2g}" if constant.stderr else ""
    print(f"first_order_constant (lim a*TV, {constant.method}): {constant.value:.6g}{err}{exact_text}")
    print(f"riffles for first-order TV 0.1: {out['riffles_to_tv_0.1_first_order']:.2f}")
    if ks:
        cur = curves[args.pattern]
        label = "exact TV of the hands" if cur["method"] == "exact" else f"Monte Carlo TV of feature {cur['feature']}"
        print(f"{label} (first order: constant/2^k):")
        for k in ks:
            line = f"  k={k:>2}  TV {cur['tv'][str(k)]:.4f}"
            if cur["method"] != "exact":
                line += f" ± {cur['stderr'][str(k)]:.4f}"
            line += f"   first order {constant.value / 2**k:.4f}"
            print(line)
        if cur["method"] != "exact":
            print(f"  noise floor of the estimate (uniform law, same samples): {cur['floor']:.4f}")
    if args.plot:
        print(f"plot written to {args.plot}")
    return 0


def _plot_curves(path: str, curves: dict[str, dict[str, Any]], constants: dict[str, float], title: str) -> None:
    # imported here: matplotlib is in the optional 'sim' extra
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for i, (name, cur) in enumerate(curves.items()):
        ks = [int(k) for k in cur["tv"]]
        tv = [cur["tv"][str(k)] for k in ks]
        colour = f"C{i}"
        if cur["method"] == "exact":
            ax.plot(ks, tv, "o-", color=colour, label=f"{name} (exact)")
        else:
            ax.errorbar(
                ks,
                tv,
                yerr=[2 * cur["stderr"][str(k)] for k in ks],
                fmt="o-",
                color=colour,
                label=f"{name} (MC, {cur['feature']})",
            )
        if constants.get(name, 0) > 0:
            grid = np.linspace(min(ks), max(ks), 100)
            ax.plot(grid, np.minimum(1, constants[name] / 2**grid), "--", color=colour, alpha=0.6)
    floors = [c["floor"] for c in curves.values() if c.get("floor")]
    if floors:
        ax.axhline(max(floors), color="grey", lw=0.8, ls=":", label="Monte Carlo noise floor")
    ax.set_yscale("log")
    ax.set_xlabel("riffle shuffles k")
    ax.set_ylabel("total variation")
    ax.set_title(title + " (dashed: first order C/2^k)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run_best(args: argparse.Namespace) -> int:
    """Search for the best dealing pattern under the first-order criterion."""
    values, players, hand_size = _setup(args)
    rng = random_stream(args.seed)
    classic: dict[str, dict[str, Any]] = {}
    for name, w in R.classic_patterns(players, hand_size).items():
        constant = R.first_order_constant(values, w, hand_size, rng=rng)
        classic[name] = {
            "pattern": pattern_to_word(w),
            "first_order_constant": constant.value,
            "method": constant.method,
            "exact": _fraction_text(constant.exact),
            "stderr": constant.stderr,
        }
    n = len(values)
    import math

    count = math.factorial(n) // (math.factorial(hand_size) ** players * math.factorial(players))
    method = args.method
    if method == "auto":
        method = "exhaustive" if count <= 300_000 else "local"
    results = []
    if method == "exhaustive":
        for s in R.exhaustive_best_patterns(values, players, hand_size, top=args.top):
            results.append(
                {
                    "pattern": pattern_to_word(s.pattern),
                    "first_order_constant": float(s.exact) if s.exact is not None else s.value,
                    "exact": _fraction_text(s.exact),
                    "method": "enumerate",
                    "stderr": 0.0,
                }
            )
    else:
        with progress_bar("local search", None, enabled=not args.json):
            found = R.local_search_pattern(
                values, players, hand_size, rng, samples=args.samples, sweeps=args.sweeps, restarts=args.restarts
            )
        fresh = R.first_order_constant(values, found.pattern, hand_size, rng=random_stream(args.seed + 1))
        results.append(
            {
                "pattern": pattern_to_word(found.pattern),
                "first_order_constant": fresh.value,
                "exact": _fraction_text(fresh.exact),
                "method": fresh.method,
                "stderr": fresh.stderr,
                "search_sample_value": found.value,
            }
        )
    out = {
        "players": players,
        "hand_size": hand_size,
        "deck": args.deck,
        "search": method,
        "patterns_up_to_relabelling": count,
        "best": results,
        "classic": classic,
    }
    if args.json:
        print_json(out)
        return 0
    print(f"{players} hands of {hand_size}, deck {args.deck}: {count} patterns up to relabelling; search {method}")
    print("classic patterns (first-order constant lim a*TV):")
    for name, row in classic.items():
        err = f" ± {row['stderr']:.2g}" if row["stderr"] else ""
        print(f"  {name:15s} {row['pattern']}  {row['first_order_constant']:.6g}{err} ({row['method']})")
    print("best found:")
    for r in results:
        err = f" ± {r['stderr']:.2g}" if r["stderr"] else ""
        exact = f" = {r['exact']}" if r["exact"] else ""
        print(f"  {r['pattern']}  {r['first_order_constant']:.6g}{err}{exact} ({r['method']})")
    return 0


def run_report(args: argparse.Namespace) -> int:
    """Print the reproduction's shuffling tables (and draw the figure)."""
    from tribridge.sim.shuffling_report import draw_shuffling_figure, format_shuffling_report, shuffling_report

    with progress_bar("shuffling report", None, enabled=not args.json):
        report = shuffling_report(scale=args.scale, seed=args.seed)
    if args.plot:
        draw_shuffling_figure(report, args.plot)
    if args.json:
        print_json(report.to_json())
    else:
        print(format_shuffling_report(report))
        if args.plot:
            print(f"figure written to {args.plot}")
    return 0
