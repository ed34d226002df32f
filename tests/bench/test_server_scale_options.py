"""``server_scale``: its options are checked before any server starts, repeated runs report the median one, and a
short run with table affinity gives every process the same number of tables, all its actions its own."""

import json

import pytest
from benchmarks import bench_server_scale, scale_results


@pytest.mark.parametrize(
    ("argv", "field"),
    [
        (["--quota-period-ms", "0.5"], "--quota-period-ms"),
        (["--cpu-quota", "0.05", "--quota-period-ms", "10"], "--cpu-quota"),  # 0.5 ms: under the kernel's 1 ms
        (["--repeats", "0"], "--repeats"),
        (["--tables-per-process", "0"], "--tables-per-process"),
    ],
)
def test_bad_options_are_refused_before_any_server_starts(argv, field, capsys):
    with pytest.raises(SystemExit) as exit_:
        bench_server_scale.main([*argv, "--no-sqlite"])
    assert exit_.value.code == 2 and field in capsys.readouterr().err


def test_the_median_run_is_reported_with_every_run_beside_it():
    runs = [{"actions_per_s": rate, "counts": rate > 10} for rate in (12.0, 9.0, 30.0)]
    chosen = scale_results.median_run(runs)
    assert chosen["actions_per_s"] == 12.0
    assert [run["actions_per_s"] for run in chosen["runs"]] == [12.0, 9.0, 30.0]
    assert [run["counts"] for run in chosen["runs"]] == [True, False, True]


@pytest.mark.slow
def test_with_affinity_each_process_serves_its_own_share_of_tables(capsys):
    argv = ["--processes", "2", "--affinity", "on", "--tables-per-process", "2", "--seconds", "2", "--no-sqlite"]
    assert bench_server_scale.main([*argv, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)["postgres_2_processes_affinity"]
    assert result["tables"] == 4
    assert min(result["actions_per_process"]) > 0
    assert result["push_cross_process_p50_ms"] is None  # every push came from the process that took the action


def test_beside_ratios_pair_each_run_with_the_process_run_beside_it():
    runs = [
        {
            "actions_per_s": 300.0,
            "server_cpu_ms_per_action": 1.5,
            "beside": {"actions_per_s": 150.0, "server_cpu_ms_per_action": 1.2},
        },
        {
            "actions_per_s": 200.0,
            "server_cpu_ms_per_action": 2.0,
            "beside": {"actions_per_s": 125.0, "server_cpu_ms_per_action": 1.6},
        },
        {
            "actions_per_s": 330.0,
            "server_cpu_ms_per_action": 1.2,
            "beside": {"actions_per_s": 150.0, "server_cpu_ms_per_action": 1.2},
        },
    ]
    assert scale_results.beside_ratios(runs, "2_vs_1_spread") == {
        "actions_per_s_2_vs_1_spread_beside": 2.0,  # of 2.0, 1.6, 2.2
        "cpu_per_action_2_vs_1_spread_beside": 1.25,  # of 1.25, 1.25, 1.0
    }
    assert scale_results.beside_ratios([*runs, {"actions_per_s": 1.0, "beside": None}], "x") == {}


def test_the_baseline_beside_needs_a_database_of_its_own(capsys):
    with pytest.raises(SystemExit) as exit_:
        bench_server_scale.main(["--baseline-beside", "--db-url", "postgresql://nobody@localhost/x", "--no-sqlite"])
    assert exit_.value.code == 2 and "--baseline-beside" in capsys.readouterr().err


@pytest.mark.slow
def test_one_process_is_driven_beside_each_set_up_at_the_same_time(capsys, monkeypatch):
    monkeypatch.setattr(bench_server_scale, "BESIDE_START_S", 4.0)
    argv = ["--processes", "1,2", "--affinity", "off", "--tables-per-process", "2", "--seconds", "2", "--no-sqlite"]
    assert bench_server_scale.main([*argv, "--baseline-beside", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    run = result["postgres_2_processes"]
    assert run["started_late_s"] == 0 and run["tables"] == 4
    assert run["runs"][0]["beside"]["actions_per_s"] > 0
    assert "beside" not in result["postgres_1_process"] or result["postgres_1_process"]["beside"] is None
    beside = result["ratios"]["actions_per_s_2_vs_1_spread_beside"]
    assert beside == round(run["actions_per_s"] / run["runs"][0]["beside"]["actions_per_s"], 3)


def test_beside_ratios_need_no_one_process_set_up_of_their_own():
    run = {
        "actions_per_s": 330.0,
        "server_cpu_ms_per_action": 1.5,
        "beside": {"actions_per_s": 200.0, "server_cpu_ms_per_action": 1.25},
    }
    results = {"postgres_2_processes": {"runs": [run]}}
    assert scale_results.ratios(results, [2]) == {
        "actions_per_s_2_vs_1_spread_beside": 1.65,
        "cpu_per_action_2_vs_1_spread_beside": 1.2,
    }
