"""Published figures that our studies are compared with, each with its source.

NT call: "3 Players Auction Bridge — Statistical Algorithmic Strategies", Tables 3 and 4. Capture
estimator: S. Sarkar, "Winning Before You Play" (arXiv:2609.29615), Tables I, II and IV (as summarised,
the full text being unavailable).
"""

from __future__ import annotations

from typing import Any

# NT call paper, Table 3: "Yes" counts per 100,000 random 13-card hands, three runs per level.
NT_HANDS_PER_RUN = 100_000
NT_TABLE3_YES: dict[int, tuple[int, int, int]] = {1: (5955, 5992, 5849), 2: (3228, 3174, 3186), 3: (875, 844, 850)}
# NT call paper, Table 4: single hand vs the same test on the partnership's 26 cards, per 100,000.
NT_TABLE4_YES: dict[int, tuple[int, int]] = {1: (6005, 79991), 2: (3259, 73633), 3: (814, 63276)}

# Capture paper, Table II: 1,000,000 deals of 26 cards to two partners per run, three runs (percent of deals).
CAPTURE_DEALS_PER_RUN = 1_000_000
CAPTURE_RUNS = 3
CAPTURE_TABLE2_PCT = {"qualified": 27.90, "fail_b": 57.57, "fail_a": round(100 - 27.90 - 57.57, 2)}
# Capture paper, Table I (qualifying deals only) and its discussion.
CAPTURE_TABLE1 = {
    "t_8_to_11_pct_of_qualified_min": 93.0,  # "over 93 %"
    "t_9_or_10_pct_of_qualified": 65.6,
    "t_9_or_10_pct_of_all": 18.3,
    "t_le_6_pct_of_qualified_max": 0.19,  # "below 0.19 %"
    "t_gt_13_count": 0,
}

# Capture paper, Table IV: three runs of 10,000,000 deals.
PUBLISHED_TABLE_IV: dict[str, Any] = {
    "deals_per_run": 10_000_000,
    "made_pct": [65.86, 66.00, 66.03],
    "both_eligible_made_pct": [93.42, 93.50, 93.75],
    "both_eligible_min_count": 10_000,
    "losses_widow_not_qualified_min_pct": 99.8,
    "net_points_new_scheme_range": [819_000, 833_000],
    "net_points_old_scheme_range": [152_000, 155_000],
}
