"""Benchmark: the research environment's steps per second beside the same games played through ``DealState``.

    .venv/bin/python -m benchmarks env --games 200 --batch 4096 --repeats 5

Random legal games (a pass three times as likely as any other legal action, so auctions end) are
drawn once; each run then replays those very actions. Timed, as medians of repeats:

* ``full``: whole deals through ``tribridge.env.raw_env`` (observation and mask before each
  action, as an agent needs), beside the baselines ``DealState.legal_actions`` + ``apply`` (bare)
  and ``DealState.view`` + ``apply`` (what a bot loop such as ``rules.game.play_to_end`` does);
* ``bidding``: the same in the bidding-only mode (scored with the trick estimator), beside
  ``DealState`` auctions scored by ``selfplay.contracts.settle``;
* ``batch``: ``BiddingBatch`` stepping ``--batch`` auctions at once (observation, mask, step),
  beside the same ``DealState`` auctions; steps are calls, one auction's call each.

``overhead`` is the bare baseline's steps/s over the environment's (the target is at most 2: the
environment's own work, its observation, mask and bookkeeping, at most the rules engine's),
``overhead_vs_views`` the view baseline's (below 1 where the environment, which keeps its
observations up to date without building a view, is faster than a loop that builds one);
``speedup`` the batch's steps/s over the baseline's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable

import numpy as np


def _choose(mask: np.ndarray, rng: np.random.Generator) -> int:
    weights = mask * rng.random(mask.shape)
    weights[0] *= 3
    return int(np.argmax(weights))


def random_games(n: int, mode: str, seed: int) -> list[tuple[object, int, list[int]]]:
    """(deal, dealer, action numbers) of ``n`` random games through ``DealState``."""
    from tribridge.cards import random_deal
    from tribridge.dealing.streams import random_stream
    from tribridge.rules.deal import DealState
    from tribridge.rules.view import MakeClaim
    from tribridge.selfplay.actions import N_ACTIONS, action_of, decode

    rng = np.random.default_rng(seed)
    games = []
    for i in range(n):
        deal, dealer = random_deal(random_stream(seed, i)), i % 4
        state, actions = DealState.start(deal, dealer), []
        while not state.is_terminal() and not (mode == "bidding" and state.phase != "auction"):
            mask = np.zeros(N_ACTIONS)
            for a in state.legal_actions():
                if not isinstance(a, MakeClaim):
                    mask[action_of(a)] = 1  # type: ignore[arg-type]
            actions.append(_choose(mask, rng))
            state = state.apply(decode(actions[-1]))
        games.append((deal, dealer, actions))
    return games


def through_deal_state(games: list, mode: str, views: bool = False) -> int:
    """Replay the games through DealState (legal actions, or with ``views`` the mover's view, then the action)."""
    from tribridge.rules.deal import DealState
    from tribridge.selfplay.actions import decode
    from tribridge.selfplay.contracts import settle

    steps = 0
    for deal, dealer, actions in games:
        state = DealState.start(deal, dealer)
        for a in actions:
            if views:
                state.view(state.turn)  # type: ignore[arg-type]
            else:
                state.legal_actions()
            state = state.apply(decode(a))
        if mode == "bidding":
            settle(state, "estimate").points()
        steps += len(actions)
    return steps


def through_env(games: list, mode: str) -> int:
    """Replay the games through the environment (observation and mask, then the step); the steps taken."""
    from tribridge.env import raw_env

    e = raw_env(mode=mode)
    steps = 0
    for deal, dealer, actions in games:
        e.reset(options={"deal": deal, "dealer": dealer})
        for a in actions:
            e.observe(e.agent_selection)
            e.step(a)
        steps += len(actions)
    return steps


def batch_game(size: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """Random auctions stepped in a batch: owners, dealers, the call rows ``int[steps, size]``, and the games."""
    from tribridge.cards import Deal
    from tribridge.selfplay import BiddingBatch

    batch = BiddingBatch(size)
    batch.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rows = []
    while not batch.done.all():
        mask = batch.legal_mask()
        actions = np.array([_choose(m, rng) if m.any() else 0 for m in mask])
        rows.append(actions)
        batch.step(actions)
    games = [(Deal.from_owners(batch.owners[i]), int(batch.dealers[i]), batch.call_numbers(i)) for i in range(size)]
    return batch.owners.copy(), batch.dealers.copy(), np.array(rows), games


def through_batch(owners: np.ndarray, dealers: np.ndarray, calls: np.ndarray) -> int:
    """Step the recorded auctions in one batch (observation, mask, step); the calls made."""
    from tribridge.selfplay import BiddingBatch

    batch = BiddingBatch(len(owners))
    batch.reset(owners=owners, dealers=dealers)
    steps = 0
    for actions in calls:
        steps += int((~batch.done).sum())
        batch.observation()
        batch.legal_mask()
        batch.step(actions)
    return steps


def _rates(fns: dict[str, Callable[[], int]], repeats: int) -> dict[str, float]:
    """Median steps per second of each function (which returns its steps), the functions taking turns each repeat."""
    rates: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            t = time.perf_counter()
            steps = fn()
            rates[name].append(steps / (time.perf_counter() - t))
    return {name: statistics.median(r) for name, r in rates.items()}


def main() -> None:
    """Run the benchmark and print JSON."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="random games for the single-game rows")
    ap.add_argument("--batch", type=int, default=4096, help="auctions in the batch")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    out: dict[str, object] = {"games": args.games, "batch": args.batch, "repeats": args.repeats}
    for mode in ("full", "bidding"):
        games = random_games(args.games, mode, args.seed)
        through_env(games[:2], mode)  # warm up (the estimator's kernels compile on first use)
        rates = _rates(
            {
                "env": lambda g=games, m=mode: through_env(g, m),
                "bare": lambda g=games, m=mode: through_deal_state(g, m),
                "views": lambda g=games, m=mode: through_deal_state(g, m, views=True),
            },
            args.repeats,
        )
        env_rate, bare_rate, view_rate = rates["env"], rates["bare"], rates["views"]
        out[mode] = {
            "env_steps_per_s": round(env_rate),
            "deal_state_steps_per_s": round(bare_rate),
            "deal_state_with_views_steps_per_s": round(view_rate),
            "overhead": round(bare_rate / env_rate, 3),
            "overhead_vs_views": round(view_rate / env_rate, 3),
        }
    owners, dealers, calls, games = batch_game(args.batch, args.seed)
    rates = _rates(
        {
            "batch": lambda: through_batch(owners, dealers, calls),
            "base": lambda: through_deal_state(games[: args.games], "bidding"),
        },
        args.repeats,
    )
    batch_rate, base_rate = rates["batch"], rates["base"]
    out["batch"] = {
        "batch_steps_per_s": round(batch_rate),
        "deal_state_steps_per_s": round(base_rate),
        "speedup": round(batch_rate / base_rate, 1),
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
