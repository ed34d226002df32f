"""A tiny self-play training loop in the bidding-only batch: a linear softmax bidder trained by REINFORCE.

    python docs/examples/train_bidder.py --iterations 30

Every player is the same policy; rewards are relative (a player's score minus the others' mean).
Before and after training, the policy (sampling its calls) bids at position 0 against two uniformly
random bidders; before training it is one of them.
"""

import argparse

import numpy as np

from tribridge.selfplay import BiddingBatch
from tribridge.selfplay.encoding import BIDDING_SIZE


def choose(weights, obs, mask, rng):
    """A legal call sampled from a linear softmax policy, and the policy's probabilities."""
    logits = np.where(mask, obs @ weights, -np.inf)
    probs = np.exp(logits - logits.max(axis=1, keepdims=True))
    probs /= probs.sum(axis=1, keepdims=True)
    return (probs.cumsum(axis=1) > rng.random((len(obs), 1))).argmax(axis=1), probs


def play(batch, policies, rng, seed):
    """One batch of auctions, ``policies[position]`` calling for each position; the steps taken."""
    batch.reset(seed=seed)
    steps = []
    while not batch.done.all():
        obs, mask, to_act = batch.observation(), batch.legal_mask(), batch.to_act
        actions = np.zeros(batch.size, dtype=np.int64)
        for position, policy in enumerate(policies):
            rows = np.flatnonzero(to_act == position)
            actions[rows], probs = policy(obs[rows], mask[rows])
            steps.append((rows, position, obs[rows], actions[rows], probs))
        batch.step(actions)
    return steps


def main():
    """Train, then print the mean relative score at position 0 against random bidders before and after."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--batch", type=int, default=2048)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    weights = np.zeros((BIDDING_SIZE, 38))
    batch = BiddingBatch(args.batch, relative=True)
    uniform = lambda obs, mask: choose(np.zeros_like(weights), obs, mask, rng)  # noqa: E731
    learned = lambda obs, mask: choose(weights, obs, mask, rng)  # noqa: E731  (weights change in place)

    def evaluate(seed):
        play(batch, [learned, uniform, uniform], rng, seed)
        return batch.rewards[:, 0].mean()

    print(f"before: {evaluate(10_000):+.1f} points a deal against random bidders")
    for iteration in range(args.iterations):
        steps = play(batch, [learned] * 3, rng, iteration)
        grad = np.zeros_like(weights)
        for rows, position, obs, actions, probs in steps:
            advantage = batch.rewards[rows, position] / 100.0
            probs[np.arange(len(rows)), actions] -= 1.0  # minus the gradient of log p(action)
            grad -= obs.T @ (probs * advantage[:, None])
        weights += 0.05 * grad / args.batch
    print(f"after {args.iterations} iterations: {evaluate(10_000):+.1f} points a deal against random bidders")


if __name__ == "__main__":
    main()
