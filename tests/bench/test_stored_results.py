"""Stored benchmark results reproduce: a few rows of every file in ``benchmarks/results/``, replayed.

Each replayed file is played again, one row at a time, through the code its own command runs (the
benchmark module's per-deal function, or the match runner a match log came from), with the options
that command was given, and compared exactly with what is stored. The rows are chosen by a fixed
rule: the cheapest by the times the file stores (or, where it stores none, by the times of a file
of the same deals), and for the plain declarer rows the middle one too, so the whole test stays
near half a minute on one core. A file that cannot be
replayed cheaply is listed in ``NOT_REPLAYED`` with the reason; a new result file that is neither
replayed nor listed fails ``test_every_result_file_is_replayed_or_listed``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from benchmarks.bench_belief import paired_deal, player_spec
from benchmarks.bench_bidding4 import bid_board, bidding_policies, contract_shown
from benchmarks.bench_bots import declarer_deal
from benchmarks.bidding4_search import SearchPolicy

from tribridge.bots.play import FIRST_TRICK_LAYOUTS, OVERSAMPLE
from tribridge.cards import Deal
from tribridge.dealing.random import deal_batch
from tribridge.sim.match import GameResult, run_match
from tribridge.sim.match_log import game_to_json, read_log

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
LAYOUTS = 32  # every stored PIMC run used the default 32 layouts
# The capped player of "Speed of the early tricks" (docs/bots.md). Its 0.8 s budget makes a slow card depend
# on the machine's speed, so a file with this column is replayed on the row whose slowest capped card was
# fastest when stored (0.02 s as declarer, 0.10 s in defence): the budget binds there on no machine
# less than eight times slower.
CAPPED = "pimc-model,early_layouts=10-12-20,time_budget=0.8"

NOT_REPLAYED = {
    "belief_defence_simulation.json": "bid by SimulationBidder before it learnt not to run from doubles "
    "(doubled_from): 77 of its 424 contracts differ from today's bidder's on the same deals, which are "
    "belief_defence_simulation_doubled_from.json (replayed)",
    "pimc_declarer_3nt_caps_12_16.json": "a summary of 200 deals with no per-deal rows: replaying it is the "
    "whole run (about 5 minutes on two cores)",
    "pimc_defence_caps_12_16.json": "a summary of 200 deals (176 played) with no per-deal rows: replaying "
    "it is the whole run (about 6 minutes on two cores)",
    "env.json": "speeds (steps a second) of the environment beside DealState: timings, which no replay can "
    "compare exactly (python -m benchmarks env)",
    "learned_paper.json": "a summary of a 2,000-deal match (learned+dd against paper+dd) with no per-deal rows: "
    "replaying it is the whole match (about 6 minutes on two cores)",
    "learned_simulation.json": "a summary of a 2,000-deal match (learned+dd against simulation+dd) with no "
    "per-deal rows: replaying it is the whole match (about 45 minutes)",
    "learned_reference_simulation_vs_paper.json": "a summary of a 2,000-deal match (simulation+dd against "
    "paper+dd) with no per-deal rows (about 12 minutes)",
    "learned_time_per_call.json": "the learned bidder's and SimulationBidder's seconds per call: timings, which no "
    "replay can compare exactly (python -m benchmarks learned --against '' --timing-deals 20)",
    "learned_tables_pool.json": "bidders' margins against PaperBidder on 8,000 deals scored from double-dummy "
    "tables, summaries only: SimulationBidder's calls alone take 4 minutes and the tables, where not cached, 20 "
    "(tests/bench/test_learned_tables.py checks the benchmark's bidding against the training's batched curve)",
    "learned_sim_paper.json": "a summary of a 2,000-deal match (learned-sim+dd against paper+dd) and of "
    "SimulationBidder's against paper+dd on the same deals (--paired), no per-deal rows: replaying it is the whole "
    "run (about 3 minutes with the double-dummy plays cached, far more without)",
    "learned_sim_simulation.json": "a summary of a 2,000-deal match (learned-sim+dd against simulation+dd) with no "
    "per-deal rows: replaying it is the whole match (about 5 minutes with the plays cached)",
    "learned_sim_tables_pool.json": "bidders' margins against PaperBidder on 8,000 deals scored from double-dummy "
    "tables, summaries only, as learned_tables_pool.json",
    "learned_sim_tables_2027.json": "bidders' margins against PaperBidder on 4,000 deals of seed 2027 scored from "
    "double-dummy tables, summaries only: the tables take 20 minutes to solve on two cores",
    "learned_training_curves.json": "the curves of the 10-minute training run of the shipped weights "
    "(tests/bots/test_learned.py checks that the same settings give the same weights on a small run)",
    "server_scale.json": "actions a second and latencies of servers on SQLite and PostgreSQL: timings of a "
    "loaded machine (python -m benchmarks server_scale)",
    "server_scale_quota_010.json": "the same at 0.1 of a core per process, with commit notices in groups: timings "
    "(python -m benchmarks server_scale --cpu-quota 0.1)",
    "server_scale_quota_010_tables32.json": "the same with 32 tables a process, balanced, 10 ms quota periods, the "
    "solver processes at the least weight, three repeats: timings (python -m benchmarks server_scale --cpu-quota 0.1 "
    "--tables-per-process 32 --repeats 3)",
    "server_scale_quota_025_tables32.json": "the same at a quarter of a core, each server and its solver processes on "
    "one CPU, one deal played and the solver processes started before the measurement; no set-up counts: timings "
    "(python -m benchmarks server_scale --cpu-quota 0.25 --tables-per-process 32 --repeats 3)",
    "server_scale_quota_025_tables16.json": "the same at 16 tables a process, with the actions' appends sent from the "
    "event loop; every affinity set-up counts: timings (python -m benchmarks server_scale --cpu-quota 0.25 "
    "--tables-per-process 16 --repeats 3)",
    "server_scale_quota_025_tables16_reads_on_loop.json": "the same, 2 processes only, with the log's catch-up reads "
    "sent from the event loop too: timings (python -m benchmarks server_scale --cpu-quota 0.25 --processes 2 "
    "--tables-per-process 16 --repeats 3)",
    "server_scale_quota_025_tables16_loop_run1.json": "the same, 1, 2 and 4 processes, with the appends and the "
    "catch-up reads sent from the event loop and no store call at a finished deal of people, five repeats: timings "
    "(python -m benchmarks server_scale --cpu-quota 0.25 --tables-per-process 16 --repeats 5)",
    "server_scale_quota_025_tables16_loop_run2.json": "the same run again, with the speed probe: timings (python -m "
    "benchmarks server_scale --cpu-quota 0.25 --tables-per-process 16 --repeats 5)",
    "server_scale_quota_025_tables16_loop_run3.json": "the same run a third time, with the speed probe: timings "
    "(python -m benchmarks server_scale --cpu-quota 0.25 --tables-per-process 16 --repeats 5)",
    "server_scale_quota_025_tables16_beside.json": "the same with the actions carried in their commit notices, and "
    "one process driven beside every multi-process set-up at the same time, its ratios paired with it: timings "
    "(python -m benchmarks server_scale --cpu-quota 0.25 --tables-per-process 16 --repeats 5 --baseline-beside)",
    "server_scale_quota_025_tables16_spread_quiet.json": "the same, 2 processes with the sockets spread only, on a "
    "machine quiet when it started: timings (python -m benchmarks server_scale --cpu-quota 0.25 --processes 2 "
    "--affinity off --tables-per-process 16 --repeats 5 --no-sqlite --baseline-beside)",
    "server_scale_quota.json": "actions a second and CPU per action of servers under CPU quotas, with and without "
    "table affinity: timings (python -m benchmarks server_scale --cpu-quota)",
    "robot_latency.json": "robot API latencies idle, beside CPU-bound processes and beside busy tables: timings "
    "(python -m benchmarks robot_latency)",
    "accounts.json": "CPU per login and page-load times idle and while clients guess passwords: timings of a loaded "
    "machine (python -m benchmarks accounts)",
}


def stored_rows(name: str) -> list[dict]:
    """The rows of a stored JSON result file."""
    return json.loads((RESULTS / name).read_text(encoding="utf-8"))


def stored_cost(row: dict) -> tuple[float, float]:
    """How slow a row was when stored: (its slowest capped card, else 0; its ``seconds`` or summed card times)."""
    slowest = max(row.get("capped_card_s", [0.0]))
    if "seconds" in row:
        return slowest, float(row["seconds"])
    return slowest, sum(sum(times) for key, times in row.items() if key.endswith("_card_s"))


def cheapest_deals(rows: list[dict], count: int, timed_by: str | None = None) -> list[int]:
    """The ``count`` cheapest deals of ``rows`` (by ``stored_cost``; of ``timed_by``'s rows of the same deals if given)."""
    cost = {r["deal"]: stored_cost(r) for r in (stored_rows(timed_by) if timed_by else rows)}
    return sorted((r["deal"] for r in rows), key=lambda deal: (cost[deal], deal))[:count]


# --------------------------------------------------------------------------------------------
# python -m benchmarks declarer (benchmarks/bench_bots.py)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DeclarerRun:
    """``python -m benchmarks declarer --no-random`` with these play checks (seed 2024, 32 layouts).

    ``middle``: the middle row is replayed too (the cheapest deals have few real decisions, so they
    rarely show a change in the player).
    """

    check_plays: int = 0
    middle: bool = False


DECLARER_RUNS = {
    "declarer_3nt_plain.json": DeclarerRun(middle=True),
    "declarer_3nt_check2_oversample3.json": DeclarerRun(check_plays=2),
}


def replay_declarer(name: str) -> tuple[list[dict], list[dict]]:
    """(stored, replayed) rows of a bench_bots declarer file, without the times."""
    run = DECLARER_RUNS[name]
    listed = stored_rows(name)
    rows = {r["deal"]: r for r in listed}
    deals = cheapest_deals(listed, 1) + ([listed[len(listed) // 2]["deal"]] if run.middle else [])
    stored, replayed = [], []
    for deal in deals:
        row = declarer_deal(2024, deal, LAYOUTS, FIRST_TRICK_LAYOUTS, False, run.check_plays, OVERSAMPLE)
        stored.append({k: rows[deal][k] for k in ("deal", "dd", "pimc")})
        replayed.append({k: row[k] for k in ("deal", "dd", "pimc")})
    return stored, replayed


# --------------------------------------------------------------------------------------------
# python -m benchmarks belief defence|declarer (benchmarks/bench_belief.py)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairedRun:
    """A bench_belief run: mode, auction, seed, and the player spec behind each stored column."""

    mode: str
    auction: str
    seed: int
    players: dict[str, str] = field(default_factory=dict)
    timed_by: str | None = None  # a file of the same deals whose times choose the rows (this one has none)


BELIEF_RUNS = {
    "belief_declarer_3nt.json": PairedRun(
        "declarer", "none", 2024, {"old": "pimc", "new": "pimc-model"}, timed_by="declarer_3nt_plain.json"
    ),
    "belief_declarer_3nt_capped.json": PairedRun(
        "declarer", "none", 2024, {"old": "pimc", "new": "pimc-model", "capped": CAPPED}
    ),
    "belief_declarer_3nt_model_checks.json": PairedRun(
        "declarer", "none", 2024, {"model_checks": "pimc-model,check_plays=2"}
    ),
    "belief_defence_seed31.json": PairedRun("defence", "simulation", 31, {"old": "pimc", "new": "pimc-model"}),
    "belief_defence_simulation_doubled_from.json": PairedRun(
        "defence", "simulation", 21, {"old": "pimc", "new": "pimc-model", "capped": CAPPED}
    ),
}


def replay_paired(name: str) -> tuple[dict, dict]:
    """(stored, replayed) row of a bench_belief file's cheapest deal: contract, dd and every player's tricks."""
    run = BELIEF_RUNS[name]
    rows = {r["deal"]: r for r in stored_rows(name)}
    (deal,) = cheapest_deals(list(rows.values()), 1, run.timed_by)
    columns = list(run.players)
    replayed: dict = {"deal": deal}
    for pair in (columns[i : i + 2] for i in range(0, len(columns), 2)):  # paired_deal plays two at a time
        specs = {"old": player_spec(run.players[pair[0]]) if len(pair) == 2 else None}
        specs["new"] = player_spec(run.players[pair[-1]])
        row = paired_deal(run.seed, deal, run.mode, run.auction, {"layouts": LAYOUTS}, specs)
        assert row is not None, f"deal {deal} was passed out"
        replayed.update(contract=row["contract"], dd=row["dd"])
        replayed.update({column: row[slot] for column, slot in zip(pair, ("old", "new")[2 - len(pair) :])})
    stored = {k: rows[deal][k] for k in ("deal", "contract", "dd", *columns)}
    return stored, replayed


# --------------------------------------------------------------------------------------------
# python -m benchmarks bidding4 (benchmarks/bench_bidding4.py)
# --------------------------------------------------------------------------------------------

BIDDING4_FILES = [f"bidding4{suffix}.json" for suffix in ("", "_seed18", "_seed19", "_seed20", "_seed21")]
# natural4-search's runs (replayed without a time budget, which reproduces the replayed deals' contracts; the
# second searching only plausible calls, the seed 41 one only competitive positions, the seed 43 one also scoring
# its side's rollouts doubled from one down, the seeds 47, 53 and 59 ones keeping the layouts natural4 would have
# bid the auction with) and natural4 with both sides on 2/1
BIDDING4_FILES += [
    "bidding4_search_seed29.json",
    "bidding4_search_plausible_seed37.json",
    "bidding4_search_seed41.json",
    "bidding4_search_double_ours_seed43.json",
    "bidding4_search_replay8_seed47.json",
    "bidding4_search_replay8_seed53.json",
    "bidding4_search_replay8_seed59.json",
    "bidding4_2over1_seed31.json",
]


def replay_bidding4(name: str) -> tuple[dict, dict]:
    """(stored, replayed) first contracts of deals 0 and 10 (the first and the middle one listed) by every bidder."""
    result = json.loads((RESULTS / name).read_text(encoding="utf-8"))
    listed = result["first_contracts"]
    owners = deal_batch(result["deals"], result["seed"])
    search = None
    if "natural4-search" in listed:
        search = SearchPolicy(**{**result["search_all_seats"]["config"], "budget": 1e9})
    two_over_one = "natural4_2over1" in listed
    policies = bidding_policies("natural4_partner_known" in listed, search, two_over_one)
    picks = (0, len(listed["natural4"]) // 2)
    stored = {bidder: [contracts[j] for j in picks] for bidder, contracts in listed.items()}
    replayed = {
        bidder: [contract_shown(bid_board(policies[bidder], Deal.from_owners(owners[j]), j)) for j in picks]
        for bidder in listed
    }
    return stored, replayed


# --------------------------------------------------------------------------------------------
# tribridge match --log FILE.jsonl (tribridge.sim.match)
# --------------------------------------------------------------------------------------------

# A played deal is six games of PIMC play (25-50 s); a deal all six games pass out is only bid, so the
# first two such deals of each log are replayed. The log played before doubled_from shares today's
# bidder on them: doubled_from changes a bid only once another bidder has doubled.
MATCH_LOGS = ["match_pimc_model_vs_pimc_seed2026.jsonl", "match_pimc_model_vs_pimc_seed2026_before_doubled_from.jsonl"]


def play_alone(header: dict, logged: dict[int, list[GameResult]], index: int) -> list[GameResult]:
    """Deal ``index`` of a logged match played again by run_match, every other logged deal given as done."""
    games: list[GameResult] = []
    run_match(
        header["bots"],
        index + 1,
        header["seed"],
        header["scheme"],
        options=header["options"] or None,
        done={i: g for i, g in logged.items() if i != index},
        on_deal=lambda _index, played: games.extend(played),
    )
    return games


def replay_match_log(name: str) -> tuple[list, list]:
    """(stored, replayed) games of the log's first two passed-out deals, each played alone."""
    path = RESULTS / name
    header = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    logged = read_log(path, header)
    passed_out = [i for i in sorted(logged) if all(game.contract is None for game in logged[i])][:2]
    stored = [[game_to_json(g) for g in logged[i]] for i in passed_out]
    replayed = [[game_to_json(g) for g in play_alone(header, logged, i)] for i in passed_out]
    return stored, replayed


REPLAYS: dict[str, Callable[[str], tuple]] = {
    **{name: replay_declarer for name in DECLARER_RUNS},
    **{name: replay_paired for name in BELIEF_RUNS},
    **{name: replay_bidding4 for name in BIDDING4_FILES},
    **{name: replay_match_log for name in MATCH_LOGS},
}


def test_every_result_file_is_replayed_or_listed():
    present = {path.name for path in RESULTS.iterdir() if path.is_file()}
    assert not set(REPLAYS) & set(NOT_REPLAYED)
    assert present == set(REPLAYS) | set(NOT_REPLAYED)


@pytest.mark.parametrize("name", sorted(REPLAYS))
def test_stored_rows_replay_exactly(name):
    stored, replayed = REPLAYS[name](name)
    assert replayed == stored
