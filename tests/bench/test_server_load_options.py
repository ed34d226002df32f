"""The abuse case of ``server_load`` runs the four floods by default from a niced process, and ``--floods`` names only
known ones."""

import inspect

import pytest
from benchmarks import bench_server_load, server_attacks


def test_the_four_floods_are_the_default():
    assert tuple(server_attacks.FLOODS) == ("history", "slow", "robot", "claims")
    defaults = inspect.signature(bench_server_load.bench_abuse).parameters
    assert defaults["floods"].default == tuple(server_attacks.FLOODS)
    assert defaults["flood_nice"].default == bench_server_load.FLOOD_NICENESS > 0


@pytest.mark.parametrize("floods", ["", "history,nope", ",,"])
def test_unknown_or_no_floods_are_refused_before_any_server_starts(floods, capsys):
    with pytest.raises(SystemExit) as exit_:
        bench_server_load.main(["abuse", "--floods", floods])
    assert exit_.value.code == 2 and "--floods" in capsys.readouterr().err
