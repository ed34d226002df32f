"""Plug-in strategies: loading, the protocol checks, enabling, and the documented match command."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from tribridge.bots import bot_parts, get_bot, plugins
from tribridge.cards import random_deal
from tribridge.cli.main import main
from tribridge.dealing.streams import random_stream
from tribridge.env import env
from tribridge.errors import InvalidInput
from tribridge.rules.deal import DealState
from tribridge.rules.game import bid_to_end

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "greedy_bot.py"


@pytest.fixture(autouse=True)
def no_plugins():
    """Every test starts and ends with no plug-in enabled."""
    plugins.disable_all()
    yield
    plugins.disable_all()


def _write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "my_strategy.py"
    path.write_text(textwrap.dedent(body))
    return path


PAIR = """
    from tribridge.rules.auction import PASS

    class Passer:
        def bid(self, view):
            return PASS

    class FirstCard:
        def play(self, view):
            return view.legal_cards()[0]

    def make():
        return Passer(), FirstCard()

    def broken():
        return Passer()
"""


def test_a_spec_is_refused_until_enabled(tmp_path: Path) -> None:
    """A client naming a module never loads it: only enable() makes a spec a bot name."""
    spec = f"{_write(tmp_path, PAIR)}:make"
    with pytest.raises(InvalidInput, match="not enabled"):
        get_bot(spec)
    with pytest.raises(InvalidInput, match="not enabled"):
        bot_parts("os:system")
    plugins.enable(spec)
    bot = get_bot(spec)
    start = DealState.start(random_deal(random_stream(1, 0)), 0)
    state = bid_to_end(start, {p: bot.bid for p in start.players})
    assert [str(c) for c in state.auction.calls] == ["P", "P", "P"]
    assert bot_parts(spec.upper()) == (spec.lower(), spec.lower())


def test_a_pair_missing_a_part_is_refused_clearly(tmp_path: Path) -> None:
    """A factory whose object cannot play is refused, naming the protocol it fails."""
    spec = f"{_write(tmp_path, PAIR)}:broken"
    plugins.enable(spec)
    with pytest.raises(InvalidInput, match="CardPlayer"):
        get_bot(spec)


def test_bad_specs(tmp_path: Path) -> None:
    """Missing files, modules and factories are refused naming the plug-in."""
    for spec, message in (
        (f"{tmp_path}/none.py:make", "no such file"),
        ("no_such_module_xyz:make", "cannot import"),
        (f"{_write(tmp_path, PAIR)}:absent", "no callable"),
        ("tribridge.cards", "expected pkg.module:factory"),
    ):
        with pytest.raises(InvalidInput, match=message):
            plugins.enable(spec)


def test_module_specs_and_a_failing_factory() -> None:
    """A dotted module spec loads; a factory that fails when called is reported as the plug-in's failure."""
    spec = "tribridge.bots:get_bot"  # needs a bot name, so calling it with none fails
    plugins.enable(spec)
    assert spec.lower() in plugins.enabled()
    with pytest.raises(InvalidInput, match="the factory failed: TypeError"):
        get_bot(spec)


def test_match_workers_know_the_enabled_plugins(tmp_path: Path, capsys) -> None:
    """Worker processes of a match load the plug-ins the command line enabled."""
    spec = f"{EXAMPLE}:make"
    code = main(["match", "--bots", f"{spec},random,random", "--deals", "2", "--workers", "2", "--quiet", "--json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["games"] == 12


def test_environment_opponent_can_be_a_plugin() -> None:
    """The environment's opponents accept an enabled plug-in name."""
    plugins.enable(f"{EXAMPLE}:make")
    e = env(opponents={"player_1": f"{EXAMPLE}:make", "player_2": "random"})
    e.reset(seed=4)
    for _agent in e.agent_iter():
        obs, _reward, terminated, truncated, _info = e.last()
        e.step(None if terminated or truncated else int(obs["action_mask"].argmax()))
    assert e.unwrapped.state.is_terminal()


def test_documented_match_with_the_example_file(tmp_path: Path, monkeypatch, capsys) -> None:
    """``tribridge match`` with the example strategy file, copied outside the package, plays and reports it."""
    outside = tmp_path / "mine" / "greedy_bot.py"
    outside.parent.mkdir()
    shutil.copy(EXAMPLE, outside)
    monkeypatch.chdir(tmp_path)
    code = main(["match", "--bots", "mine/greedy_bot.py:make,random,random", "--deals", "3", "--quiet", "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["bots"] == ["mine/greedy_bot.py:make", "random", "random"]
    assert result["deals"] == 3 and result["games"] == 18
    assert len(result["summary"]) == 3


def test_server_accepts_only_what_the_operator_enabled(capsys) -> None:
    """A table's bot name may be a plug-in only after enable(); serve --plugin refuses a spec that cannot load."""
    from tribridge.server.tables.bots import check_bot_name

    spec = f"{EXAMPLE}:make"
    with pytest.raises(InvalidInput, match="not enabled"):
        check_bot_name(spec, "chairs[1].bot")
    assert main(["serve", "--port", "0", "--plugin", "no_such_module_xyz:make"]) == 2
    assert "cannot import" in capsys.readouterr().err
    plugins.enable(spec)
    assert check_bot_name(spec, "chairs[1].bot") == spec.lower()
