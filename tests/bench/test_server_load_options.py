"""The abuse case of ``server_load`` runs the four floods by default, and ``--floods`` names only known ones."""

import pytest
from benchmarks import bench_server_load, server_attacks


def test_the_four_floods_are_the_default():
    assert tuple(server_attacks.FLOODS) == ("history", "slow", "robot", "claims")
    assert bench_server_load.bench_abuse.__defaults__[-1] == tuple(server_attacks.FLOODS)


@pytest.mark.parametrize("floods", ["", "history,nope", ",,"])
def test_unknown_or_no_floods_are_refused_before_any_server_starts(floods, capsys):
    with pytest.raises(SystemExit) as exit_:
        bench_server_load.main(["abuse", "--floods", floods])
    assert exit_.value.code == 2 and "--floods" in capsys.readouterr().err
