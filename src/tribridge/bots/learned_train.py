"""Training the learned bidder by self-play in ``selfplay.BiddingBatch``: each call's value learned from rollouts.

Each iteration deals ``batch`` fresh auctions; in each, every calling position is played by the
network being trained or, with probability ``reference_share`` (one position per auction always by
the network), by a fixed *reference* bidder computed in numpy on the whole batch (``paper``: the
NT-call bidder ``bots.bidding.PaperBidder``; ``random``: ``RandomBidder``'s law). The auctions are
bid to the end, the network sampling its calls from its policy. Then in each auction one of the
network's calls is picked at random and every call it could have made there is tried: the auction
replayed up to that point, the call made, the rest bid by the same players, the contract scored
with the tricks of the trick estimator (``tricks="estimate"``), double dummy (``"dd"``, slow) or as
its expected points over a normal of deviation ``spread`` around the estimator's tricks (``"spread"``).
The call's value is the deciding position's reward, its score minus the mean of the other two
players' scores (``relative=True``). The network learns each call's expected value from these by
least squares (Adam; from the decisions of the last ``replay`` iterations), and its policy is the
softmax of the values at ``temperature``: approximate
policy iteration, the values measured by rollouts of the policy itself. Trying every call on the
same cards compares them without the luck of the deal. Two policy gradients were tried first and
fell to passing every hand: REINFORCE with a value baseline (one sampled call per auction, within
ten iterations) and the gradient of Σ π(a)·Q(a) over the tried calls (within thirty; once a call is
improbable its gradient vanishes, and bidding pays on few hands).

With ``average`` > 0 the weights written are a moving average of the trained ones (each iteration's
with weight ``1 - average``). The curve measured after every ``eval_every`` iterations: that
network's greedy mean reward (points a deal) against two reference bidders on ``eval_deals`` fixed
deals, the network in each of the three positions in turn, scored with ``spread`` when training
does and with the estimator otherwise; its score minus the others' mean, so 0 means as good as the
reference.

With ``pool`` > 0 (and ``tricks="dd"``) the deals come from a fixed pool of that many deals whose
double-dummy tables are solved before training (``selfplay.pool.DealPool``, through the cache; each
drawn deal's suits renamed at random), and the curve is scored by double dummy too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import numpy as np

from tribridge.bots.learned import POINTS_PER_UNIT, PolicyNetwork, considered_calls
from tribridge.bots.learned_reference import REFERENCES, position_nt_levels, reference_actions
from tribridge.dealing.random import deal_batch
from tribridge.dealing.streams import random_stream, seed_stream
from tribridge.errors import InvalidInput
from tribridge.selfplay import BiddingBatch
from tribridge.selfplay.contracts import TRICK_SPREAD, check_batch_tricks_source, dd_trick_tables
from tribridge.selfplay.pool import DealPool

__all__ = [
    "REFERENCE_MIXES",
    "ROLLOUTS",
    "Adam",
    "IterationStats",
    "SolvedDeals",
    "TrainConfig",
    "TrainResult",
    "call_values",
    "evaluate_against_reference",
    "play_auctions",
    "solve_tables",
    "train_bidder",
    "value_gradients",
]

REFERENCE_MIXES = ("seat", "auction")
"""How ``reference_share`` is drawn: for each seat on its own, or for each auction's two other seats together."""
ROLLOUTS = ("sample", "greedy")
"""How the network bids after the tried call in the rollouts: sampling its policy, or its most valuable call."""
EVAL_SEED = 20_261_204
"""The seed of the fixed evaluation deals (the same for every training run, so curves compare)."""


@dataclass
class TrainConfig:
    """Everything a training run depends on (the same config gives the same weights)."""

    seed: int = 1
    iterations: int = 100
    batch: int = 1024
    tricks: str = "estimate"
    spread: float = TRICK_SPREAD
    hidden: int = 128
    learning_rate: float = 5e-4
    temperature: float = 0.1
    epochs: int = 2
    minibatch: int = 512
    reward_scale: float = POINTS_PER_UNIT
    value_clip: float = 20.0
    reference: str = "paper"
    reference_share: float = 0.5
    reference_mix: str = "seat"
    eval_deals: int = 1000
    eval_every: int = 1
    average: float = 0.0
    replay: int = 1
    widow_samples: int = 0
    pool: int = 0
    rollouts: str = "sample"

    def check(self) -> TrainConfig:
        """The config, or InvalidInput naming the bad field."""
        check_batch_tricks_source(self.tricks)
        if self.pool < 0 or (self.pool and self.tricks != "dd"):
            raise InvalidInput("pool", f"expected 0, or a number of deals with tricks 'dd', got {self.pool}")
        for name in ("iterations", "batch", "hidden", "epochs", "minibatch", "eval_deals", "eval_every", "replay"):
            if getattr(self, name) < 1:
                raise InvalidInput(name, f"expected a positive number, got {getattr(self, name)}")
        if self.reference not in REFERENCES:
            raise InvalidInput("reference", f"expected one of {', '.join(REFERENCES)}, got {self.reference!r}")
        if self.widow_samples < 0:
            raise InvalidInput("widow_samples", f"expected 0 or more, got {self.widow_samples}")
        if not 0.0 <= self.average < 1.0:
            raise InvalidInput("average", f"expected a decay 0 <= d < 1, got {self.average}")
        if self.reference_mix not in REFERENCE_MIXES:
            raise InvalidInput(
                "reference_mix", f"expected one of {', '.join(REFERENCE_MIXES)}, got {self.reference_mix!r}"
            )
        if self.rollouts not in ROLLOUTS:
            raise InvalidInput("rollouts", f"expected one of {', '.join(ROLLOUTS)}, got {self.rollouts!r}")
        if not 0.0 <= self.reference_share <= 1.0:
            raise InvalidInput("reference_share", f"expected a share 0..1, got {self.reference_share}")
        for name in ("learning_rate", "temperature", "reward_scale", "value_clip", "spread"):
            if not getattr(self, name) > 0:
                raise InvalidInput(name, f"expected a positive number, got {getattr(self, name)}")
        return self


@dataclass
class IterationStats:
    """One iteration's line of the training curves."""

    iteration: int
    seconds: float
    decisions: int
    train_reward: float  # the policy's mean value of the decisions trained on (points)
    entropy: float
    value_loss: float  # the squared error of the calls' values, hundreds of points squared
    reward_vs_reference: float | None = None
    reward_vs_reference_ci95: float | None = None


@dataclass
class TrainResult:
    """The trained network, its curves and what it took."""

    policy: PolicyNetwork
    config: TrainConfig
    start_reward_vs_reference: float
    curves: list[IterationStats] = field(default_factory=list)
    seconds: float = 0.0

    def to_json(self) -> dict:
        """The config, the curves and the time, JSON-ready."""
        return {
            "config": asdict(self.config),
            "seconds": round(self.seconds, 1),
            "start_reward_vs_reference": self.start_reward_vs_reference,
            "curves": [asdict(s) for s in self.curves],
        }


# --- playing the auctions ------------------------------------------------------------------------
@dataclass
class Decisions:
    """The network's calls in a batch of auctions: where each was made and what the network saw."""

    features: np.ndarray  # float32[m, N_FEATURES]
    masks: np.ndarray  # bool[m, N_CALLS]: the considered calls
    rows: np.ndarray  # int64[m]: the auction
    positions: np.ndarray  # int64[m]: the calling position that made the call
    turns: np.ndarray  # int64[m]: the number of calls made before it
    entropy: float


def play_auctions(
    batch: BiddingBatch,
    policy: PolicyNetwork,
    learner: np.ndarray,
    reference: str,
    rng: np.random.Generator,
    greedy: bool = False,
    forced: np.ndarray | None = None,
) -> Decisions | None:
    """Play the batch's auctions to the end: the network where ``learner[i, position]``, else the reference.

    ``forced`` (``int[n, k]``, -1 where free) makes auction ``i``'s call number ``t`` be ``forced[i, t]``;
    the network's free calls are sampled (``greedy``: its most probable call) and returned, None if none.
    """
    levels = position_nt_levels(batch) if reference == "paper" else np.zeros((batch.size, 3), np.int64)
    parts: dict[str, list[np.ndarray]] = {k: [] for k in ("f", "m", "row", "pos", "turn", "ent")}
    everyone = np.arange(batch.size)
    while not batch.done.all():
        actions = reference_actions(batch, reference, levels, rng)
        pinned = np.full(batch.size, -1, np.int64)
        if forced is not None:
            inside = batch.n_calls < forced.shape[1]
            pinned[inside] = forced[everyone[inside], batch.n_calls[inside]]
        free = ~batch.done & (pinned < 0)
        rows = np.flatnonzero(free & learner[everyone, np.maximum(batch.to_act, 0)])
        if len(rows):
            feats = policy.features(batch.observation()[rows])
            mask = considered_calls(batch.legal_mask()[rows])
            probs = policy.probabilities_of(feats, mask)
            if greedy:
                chosen = np.argmax(np.where(mask, probs, -1.0), axis=1)
            else:
                chosen = (probs.cumsum(axis=1) > rng.random((len(rows), 1))).argmax(axis=1)
                chosen = np.where(mask[np.arange(len(rows)), chosen], chosen, np.argmax(probs, axis=1))
            actions[rows] = chosen
            logp = np.where(mask, np.log(np.maximum(probs, 1e-300)), 0.0)
            for key, value in (
                ("f", feats),
                ("m", mask),
                ("row", rows),
                ("pos", batch.to_act[rows]),
                ("turn", batch.n_calls[rows]),
                ("ent", -(probs * logp).sum(axis=1)),
            ):
                parts[key].append(value)
        actions[pinned >= 0] = pinned[pinned >= 0]
        batch.step(actions)
    if not parts["f"]:
        return None
    cat = {k: np.concatenate(v) for k, v in parts.items()}
    return Decisions(cat["f"], cat["m"], cat["row"], cat["pos"], cat["turn"], float(cat["ent"].mean()))


def call_values(
    batch: BiddingBatch,
    decisions: Decisions,
    picked: np.ndarray,
    policy: PolicyNetwork,
    learner: np.ndarray,
    config: TrainConfig,
    rng: np.random.Generator,
) -> np.ndarray:
    """``float64[k, N_CALLS]``: for each picked decision, every considered call's reward (0 where not considered).

    Each considered call is tried in its own copy of the auction: the calls before it replayed, the
    call made, the rest bid by the same players (the network sampling its calls), the contract scored;
    the value is the deciding position's reward.
    """
    masks = decisions.masks[picked]
    which, calls = np.nonzero(masks)  # one rollout per (picked decision, considered call)
    rows = decisions.rows[picked][which]
    turns = decisions.turns[picked][which]
    forced = np.full((len(rows), int(turns.max()) + 1), -1, np.int64)
    prefix = batch.calls[rows, : forced.shape[1]].astype(np.int64)
    before = np.arange(forced.shape[1])[None, :] < turns[:, None]
    forced[before] = prefix[before]
    forced[np.arange(len(rows)), turns] = calls
    rollouts = BiddingBatch(len(rows), tricks=config.tricks, relative=True, spread=config.spread)
    tables = None if batch.dd_tables is None else batch.dd_tables[rows]
    rollouts.reset(owners=batch.owners[rows], dealers=batch.dealers[rows], dd_tables=tables)
    greedy = config.rollouts == "greedy"
    play_auctions(rollouts, policy, learner[rows], config.reference, rng, greedy=greedy, forced=forced)
    values = np.zeros(masks.shape)
    values[which, calls] = rollouts.rewards[np.arange(len(rows)), decisions.positions[picked][which]]
    return values


def evaluate_against_reference(
    policy: PolicyNetwork,
    owners: np.ndarray,
    dealers: np.ndarray,
    reference: str,
    tricks: str = "estimate",
    spread: float = TRICK_SPREAD,
    dd_tables: np.ndarray | None = None,
) -> tuple[float, float]:
    """(mean, 95 % half-width) of the greedy network's reward a deal against two reference bidders.

    Each deal is bid three times, the network in calling position 0, 1 and 2; a deal's reward is
    the mean of the three. ``dd_tables`` (with ``tricks="dd"``): the deals' ``dd_trick_tables``.
    """
    n = len(owners)
    batch = BiddingBatch(3 * n, tricks=tricks, relative=True, spread=spread)
    tables = None if dd_tables is None else np.tile(dd_tables, (3, 1, 1))
    batch.reset(owners=np.tile(owners, (3, 1)), dealers=np.tile(dealers, 3), dd_tables=tables)
    learner = np.zeros((3 * n, 3), dtype=bool)
    learner[np.arange(3 * n), np.repeat(np.arange(3), n)] = True
    play_auctions(batch, policy, learner, reference, random_stream(EVAL_SEED, 1), greedy=True)
    per_deal = batch.rewards[np.arange(3 * n), np.repeat(np.arange(3), n)].reshape(3, n).mean(axis=0)
    half = 1.96 * per_deal.std(ddof=1) / np.sqrt(n) if n > 1 else float("nan")
    return float(per_deal.mean()), float(half)


# --- the update ------------------------------------------------------------------------------------
def value_gradients(
    policy: PolicyNetwork, features: np.ndarray, masks: np.ndarray, targets: np.ndarray
) -> tuple[list[np.ndarray], float]:
    """(gradients in ``PolicyNetwork.array_names`` order, loss) of the squared error of the calls' values.

    The loss is the mean over the decisions of Σ_a ½(q(a) − Q(a))² over the considered calls ``masks``,
    q the network's value, Q the ``targets`` (``float[m, N_CALLS]``, hundreds of points).
    """
    m = len(features)
    h1, h2 = policy.hidden_layers(features)
    error = np.where(masks, (h2 @ policy.W3 + policy.b3) - targets, 0.0)
    d_out = (error / m).astype(features.dtype)
    d_h2 = (d_out @ policy.W3.T) * (h2 > 0)
    d_h1 = (d_h2 @ policy.W2.T) * (h1 > 0)
    grads = [features.T @ d_h1, d_h1.sum(axis=0), h1.T @ d_h2, d_h2.sum(axis=0), h2.T @ d_out, d_out.sum(axis=0)]
    return grads, float(0.5 * (error**2).sum() / m)


class Adam:
    """The Adam optimiser over a ``PolicyNetwork``'s arrays (updated in place), with global-norm clipping."""

    def __init__(self, policy: PolicyNetwork, learning_rate: float, max_norm: float = 1.0) -> None:
        self.policy, self.learning_rate, self.max_norm = policy, learning_rate, max_norm
        self.m = [np.zeros_like(a) for a in policy.arrays()]
        self.v = [np.zeros_like(a) for a in policy.arrays()]
        self.t = 0

    def step(self, grads: list[np.ndarray]) -> None:
        """One update with ``grads`` (in ``PolicyNetwork.array_names`` order)."""
        norm = float(np.sqrt(sum(float((g.astype(np.float64) ** 2).sum()) for g in grads)))
        scale = min(1.0, self.max_norm / norm) if norm > 0 else 1.0
        self.t += 1
        b1, b2, eps = 0.9, 0.999, 1e-8
        for i, (array, g) in enumerate(zip(self.policy.arrays(), grads)):
            g = g * scale
            self.m[i] = b1 * self.m[i] + (1 - b1) * g
            self.v[i] = b2 * self.v[i] + (1 - b2) * g * g
            m_hat = self.m[i] / (1 - b1**self.t)
            v_hat = self.v[i] / (1 - b2**self.t)
            array -= (self.learning_rate * m_hat / (np.sqrt(v_hat) + eps)).astype(array.dtype)


def _update(
    policy: PolicyNetwork, adam: Adam, features: np.ndarray, masks: np.ndarray, values: np.ndarray, config: TrainConfig
) -> float:
    """Adam steps over minibatches of the decisions for ``epochs`` passes; the last pass's mean loss."""
    targets = np.clip(values / config.reward_scale, -config.value_clip, config.value_clip).astype(np.float32)
    rng = random_stream(config.seed, 2, adam.t)
    losses: list[float] = []
    for _ in range(config.epochs):
        losses = []
        order = rng.permutation(len(features))
        for start in range(0, len(order), config.minibatch):
            idx = order[start : start + config.minibatch]
            grads, loss = value_gradients(policy, features[idx], masks[idx], targets[idx])
            adam.step(grads)
            losses.append(loss)
    return float(np.mean(losses))


def _one_decision_per_auction(decisions: Decisions, rng: np.random.Generator) -> np.ndarray:
    """Indices into ``decisions``: one of the network's calls in each auction, drawn uniformly."""
    order = np.lexsort((rng.random(len(decisions.rows)), decisions.rows))
    first = np.ones(len(order), dtype=bool)
    first[1:] = decisions.rows[order][1:] != decisions.rows[order][:-1]
    return order[first]


def _learner_seats(config: TrainConfig, rng: np.random.Generator) -> np.ndarray:
    """``bool[batch, 3]``: the calling positions the network plays (position ``i % 3`` always; see ``reference_mix``)."""
    if config.reference_mix == "seat":
        learner = rng.random((config.batch, 3)) >= config.reference_share
    else:
        learner = np.repeat(rng.random((config.batch, 1)) >= config.reference_share, 3, axis=1)
    learner[np.arange(config.batch), np.arange(config.batch) % 3] = True
    return learner


@dataclass
class SolvedDeals:
    """The double-dummy tables a run with a deal pool needs: the pool's, and the curve's deals'."""

    pool: DealPool
    eval_tables: np.ndarray  # uint8[eval_deals, 3, 5]


def _eval_deals(config: TrainConfig) -> tuple[np.ndarray, np.ndarray]:
    """The curve's fixed deals (owners, dealers)."""
    return deal_batch(config.eval_deals, EVAL_SEED), np.arange(config.eval_deals, dtype=np.int64) % 4


def solve_tables(config: TrainConfig, on_progress: Callable[[int], None] | None = None) -> SolvedDeals:
    """The pool's and the curve's deals' double-dummy tables, 15 cells a deal (cached); ``on_progress`` counts cells."""
    pool = DealPool.solve(config.check().pool, on_progress=on_progress)
    owners, dealers = _eval_deals(config)
    return SolvedDeals(pool, dd_trick_tables(owners, dealers, on_progress=on_progress))


def train_bidder(
    config: TrainConfig,
    policy: PolicyNetwork | None = None,
    on_iteration: Callable[[IterationStats], None] | None = None,
    solved: SolvedDeals | None = None,
) -> TrainResult:
    """Train (or, given ``policy``, go on training a copy of) the network; see the module docstring.

    With a deal pool, ``solved`` gives its tables (else they are solved here: ``solve_tables``).
    """
    config.check()
    if config.pool and solved is None:
        solved = solve_tables(config)
    if solved is not None and (len(solved.pool.owners), len(solved.eval_tables)) != (config.pool, config.eval_deals):
        raise InvalidInput(
            "solved", f"tables of another pool or curve than pool={config.pool} and eval_deals={config.eval_deals}"
        )
    if policy is None:
        policy = PolicyNetwork.initial(
            config.hidden, seed=config.seed, temperature=config.temperature, widow_samples=config.widow_samples
        )
    else:
        policy = policy.copy(temperature=config.temperature)
    rng = random_stream(config.seed, 0)
    eval_owners, eval_dealers = _eval_deals(config)
    t0 = time.perf_counter()
    curve_tricks = "dd" if solved else "spread" if config.tricks == "spread" else "estimate"
    eval_tables = solved.eval_tables if solved else None
    averaged = policy.copy() if config.average > 0 else policy

    def evaluate() -> tuple[float, float]:
        return evaluate_against_reference(
            averaged, eval_owners, eval_dealers, config.reference, curve_tricks, config.spread, eval_tables
        )

    start, _ = evaluate()
    result = TrainResult(policy, config, start)
    adam = Adam(policy, config.learning_rate)
    batch = BiddingBatch(config.batch, tricks=config.tricks, relative=True, spread=config.spread)
    memory: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for it in range(config.iterations):
        if solved:
            owners, dealers, tables = solved.pool.draw(config.batch, random_stream(config.seed, 3, it))
            batch.reset(owners=owners, dealers=dealers, dd_tables=tables)
        else:
            batch.reset(owners=deal_batch(config.batch, seed_stream(config.seed, 1, it)))
        learner = _learner_seats(config, rng)
        decisions = play_auctions(batch, policy, learner, config.reference, rng)
        assert decisions is not None  # the network calls at least once in every auction
        picked = _one_decision_per_auction(decisions, rng)
        values = call_values(batch, decisions, picked, policy, learner, config, rng)
        feats, masks = decisions.features[picked], decisions.masks[picked]
        mean_value = float((policy.probabilities_of(feats, masks) * values).sum(axis=1).mean())
        memory = [*memory, (feats, masks, values)][-config.replay :]
        kept = [np.concatenate(part) for part in zip(*memory)]
        loss = _update(policy, adam, kept[0], kept[1], kept[2], config)
        if averaged is not policy:
            for mean_array, array in zip(averaged.arrays(), policy.arrays()):
                mean_array *= config.average
                mean_array += (1.0 - config.average) * array
        stats = IterationStats(it + 1, 0.0, len(picked), mean_value, decisions.entropy, loss)
        if (it + 1) % config.eval_every == 0 or it + 1 == config.iterations:
            mean, half = evaluate()
            stats.reward_vs_reference, stats.reward_vs_reference_ci95 = mean, half
        stats.seconds = round(time.perf_counter() - t0, 2)
        result.curves.append(stats)
        if on_iteration:
            on_iteration(stats)
    result.seconds = time.perf_counter() - t0
    result.policy = policy = averaged
    policy.info = {
        "seed": str(config.seed),
        "iterations": str(config.iterations),
        "batch": str(config.batch),
        "tricks": config.tricks,
        "reference": config.reference,
        "reference_share": str(config.reference_share),
        "reference_mix": config.reference_mix,
        "average": str(config.average),
        "replay": str(config.replay),
        "widow_samples": str(config.widow_samples),
        "pool": str(config.pool),
        "rollouts": config.rollouts,
        "reward_scale": str(config.reward_scale),
        "seconds": f"{result.seconds:.0f}",
    }
    return result
