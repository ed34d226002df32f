"""The speed probe times its fixed piece of work while a run lasts, and the scale benchmark's ratios use it."""

import time

import pytest
from benchmarks.scale_results import in_probes, ratios, setup_name
from benchmarks.speed_probe import SpeedProbe, probe_work


def test_the_probe_times_pieces_of_work_while_the_block_runs_and_stops_after_it():
    with SpeedProbe(every=0.02) as probe:
        time.sleep(0.5)
    timed = len(probe.samples_ms)
    assert timed >= 5 and probe.median_ms is not None and probe.median_ms > 0
    time.sleep(0.1)
    assert len(probe.samples_ms) == timed, "the probe's thread ended with the block"


def test_a_probe_with_no_piece_timed_has_no_median_and_a_bad_interval_is_refused():
    assert SpeedProbe().median_ms is None
    with pytest.raises(ValueError, match="every"):
        SpeedProbe(every=0)


def test_the_piece_of_work_is_fixed():
    assert probe_work(300) == probe_work(300) > 0


def run(actions_per_s: float, cpu_ms: float, probe_ms: float | None) -> dict:
    return {"actions_per_s": actions_per_s, "server_cpu_ms_per_action": cpu_ms, "probe_ms": probe_ms}


def test_cpu_per_action_at_probe_speed_divides_each_run_by_its_own_probe():
    one = {"runs": [run(100, 1.0, 5.0), run(50, 2.0, 10.0), run(90, 1.1, 5.0)]}
    two = {"runs": [run(190, 1.2, 6.0), run(150, 1.3, 5.0), run(100, 2.2, 10.0)]}
    results = {setup_name(1, False): one, setup_name(2, True): two}
    found = ratios(results, [1, 2])
    # plain: 1.2, 0.65, 2.0 -> 1.2; in probe pieces: 1.0, 1.3, 1.0 -> 1.0
    assert found["cpu_per_action_2_vs_1_affinity"] == 1.2
    assert found["cpu_per_action_at_probe_speed_2_vs_1_affinity"] == 1.0
    assert in_probes(run(1, 2.0, 4.0)) == 0.5


def test_runs_without_a_probe_give_no_ratio_at_probe_speed():
    one = {"runs": [run(100, 1.0, None)]}
    two = {"runs": [run(190, 1.05, None)]}
    found = ratios({setup_name(1, False): one, setup_name(2, False): two}, [1, 2])
    assert "cpu_per_action_at_probe_speed_2_vs_1_spread" not in found
    assert found["actions_per_s_2_vs_1_spread"] == 1.9
