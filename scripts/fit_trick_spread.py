"""Fit the spread of double-dummy tricks around the trick estimator's (``selfplay.contracts.TRICK_SPREAD``).

    .venv/bin/python scripts/fit_trick_spread.py --deals 300 --seed 99

Solves every calling position's contract in every strain of ``--deals`` deals by double dummy (the
widow as dummy), then prints the mean and deviation of the solved tricks minus the estimator's
expected tricks (in all and per strain) and the mean negative log-likelihood of the solved tricks
under the discretised normal of each candidate deviation.
"""

from __future__ import annotations

import argparse
import json

import numpy as np


def fit(deals: int, seed: int, spreads: list[float]) -> dict:
    """The residual statistics and each spread's negative log-likelihood (nats a contract)."""
    from tribridge.dealing.random import deal_batch
    from tribridge.estimators.tricks import estimate_tricks
    from tribridge.selfplay.contracts import POSITION_SEATS, dd_contract_tricks, estimated_trick_distribution

    owners = np.repeat(deal_batch(deals, seed), 15, axis=0)
    dealers = np.repeat(np.arange(deals, dtype=np.int64) % 4, 15)
    positions = np.tile(np.repeat(np.arange(3), 5), deals)
    strains = np.tile(np.arange(5), 3 * deals)
    solved = dd_contract_tricks(owners, dealers, positions, strains).astype(np.int64)

    def masks(seats: np.ndarray) -> np.ndarray:
        held = owners == seats[:, None]
        return (held.reshape(-1, 4, 13) * (np.int64(1) << np.arange(13, dtype=np.int64))).sum(axis=2)

    expected = estimate_tricks(masks(POSITION_SEATS[dealers, positions]), masks((dealers + 2) % 4))
    residual = solved - expected[np.arange(len(strains)), strains].astype(np.float64)
    out: dict = {
        "deals": deals,
        "seed": seed,
        "contracts": int(len(solved)),
        "mean": float(residual.mean()),
        "deviation": float(residual.std()),
        "deviation_by_strain": [float(residual[strains == s].std()) for s in range(5)],
        "nll_by_spread": {},
    }
    rows = np.arange(len(solved))
    for spread in spreads:
        chances = estimated_trick_distribution(owners, dealers, positions, strains, spread)
        out["nll_by_spread"][str(spread)] = float(-np.log(np.maximum(chances[rows, solved], 1e-12)).mean())
    return out


def main() -> None:
    """Parse the arguments, fit, print JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=99)
    parser.add_argument("--spreads", default="0.6,0.8,0.9,1.0,1.1,1.2,1.4")
    args = parser.parse_args()
    spreads = [float(x) for x in args.spreads.split(",")]
    print(json.dumps(fit(args.deals, args.seed, spreads), indent=2))


if __name__ == "__main__":
    main()
