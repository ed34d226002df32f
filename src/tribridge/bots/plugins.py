"""Plug-in strategies: a bot named by ``pkg.module:factory`` or ``path/to/file.py:factory``, once enabled.

The factory is called with no arguments and returns a bot: an object with ``bidder`` and
``player`` (a ``Bot``), an object with both ``bid`` and ``play``, or a pair ``(bidder, player)``;
each part is checked against ``bots.protocols`` (``Bidder.bid(view) -> Call``,
``CardPlayer.play(view) -> Card``). A spec is a bot name only after ``enable(spec)``: the CLI
enables what its user names, the server only what its operator names with ``--plugin``, never a
client's. Enabled specs are also written to the environment variable ``TRIBRIDGE_PLUGINS``, so
worker processes started afterwards (match workers, the solver pool) know them too. Specs are
matched without regard to case, like every bot name.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from tribridge.bots.protocols import Bidder, CardPlayer
from tribridge.cards import Card
from tribridge.errors import InvalidInput
from tribridge.rules.auction import Call
from tribridge.rules.view import SeatView

__all__ = [
    "ENV_VAR",
    "PluginBidder",
    "PluginPlayer",
    "disable_all",
    "enable",
    "enabled",
    "is_spec",
    "load_parts",
    "require_enabled",
]

ENV_VAR = "TRIBRIDGE_PLUGINS"
_SEPARATOR = "\n"
_FACTORIES: dict[str, Callable[[], object]] = {}


def is_spec(name: object) -> bool:
    """Whether a bot name is a plug-in spec (``module:factory`` or ``file.py:factory``)."""
    return isinstance(name, str) and ":" in name


def _key(spec: str) -> str:
    return spec.strip().lower()


def enable(spec: str) -> str:
    """Load the factory of ``spec`` (checking it) and accept ``spec`` as a bot name from now on; the spec's key."""
    if not is_spec(spec):
        raise InvalidInput("plugin", f"expected pkg.module:factory or path/to/file.py:factory, got {spec!r}")
    key = _key(spec)
    _FACTORIES[key] = _load_factory(spec.strip())
    listed = [s for s in os.environ.get(ENV_VAR, "").split(_SEPARATOR) if s and _key(s) != key]
    os.environ[ENV_VAR] = _SEPARATOR.join([*listed, spec.strip()])
    return key


def enable_named(names: Iterable[str]) -> None:
    """Enable every plug-in spec among bot names a user gave (on a command line, to the environment)."""
    for name in names:
        if is_spec(name):
            enable(name)


def enabled() -> tuple[str, ...]:
    """The keys of the enabled specs (lower-cased)."""
    _enable_from_environment()
    return tuple(_FACTORIES)


def disable_all() -> None:
    """Forget every enabled spec (tests)."""
    _FACTORIES.clear()
    os.environ.pop(ENV_VAR, None)


def require_enabled(spec: str) -> str:
    """The key of ``spec``, or InvalidInput when it is not enabled."""
    _enable_from_environment()
    key = _key(spec)
    if key not in _FACTORIES:
        raise InvalidInput(
            "bot", f"plug-in {spec!r} is not enabled (name it on the command line; a server needs --plugin SPEC)"
        )
    return key


def load_parts(spec: str) -> tuple[Bidder, CardPlayer]:
    """A fresh ``(bidder, player)`` from the factory of an enabled ``spec``, each checked against its protocol."""
    try:
        made = _FACTORIES[require_enabled(spec)]()
    except InvalidInput:
        raise
    except Exception as exc:
        raise InvalidInput("bot", f"plug-in {spec!r}: the factory failed: {type(exc).__name__}: {exc}") from None
    if isinstance(made, tuple) and len(made) == 2:
        bidder, player = made
    elif hasattr(made, "bidder") and hasattr(made, "player"):
        bidder, player = made.bidder, made.player  # type: ignore[attr-defined]
    else:
        bidder = player = made
    if not isinstance(bidder, Bidder):
        raise InvalidInput("bot", f"plug-in {spec!r}: {type(bidder).__name__} has no bid(view) -> Call (a Bidder)")
    if not isinstance(player, CardPlayer):
        raise InvalidInput("bot", f"plug-in {spec!r}: {type(player).__name__} has no play(view) -> Card (a CardPlayer)")
    return PluginBidder(bidder), PluginPlayer(player)


class _Forwarding:
    """Forwards every attribute (``sees_all``, ``candidates``, ``cache_key``...) to the plug-in's own object."""

    def __init__(self, inner: object) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)


class PluginBidder(_Forwarding):
    """A plug-in's bidder, callable like the built-in ones (the match runner calls its policies)."""

    def bid(self, view: SeatView) -> Call:
        """The plug-in's call."""
        return self.inner.bid(view)  # type: ignore[attr-defined]

    __call__ = bid


class PluginPlayer(_Forwarding):
    """A plug-in's card player, callable like the built-in ones."""

    def play(self, view: SeatView) -> Card:
        """The plug-in's card."""
        return self.inner.play(view)  # type: ignore[attr-defined]

    __call__ = play


def _enable_from_environment() -> None:
    """Enable the specs a parent process enabled (``TRIBRIDGE_PLUGINS``) and this one has not loaded yet."""
    for spec in os.environ.get(ENV_VAR, "").split(_SEPARATOR):
        if spec and _key(spec) not in _FACTORIES:
            _FACTORIES[_key(spec)] = _load_factory(spec)


def _load_factory(spec: str) -> Callable[[], object]:
    """The callable named by ``spec``: a module (dotted name or ``.py`` file) and an attribute."""
    where, _, attribute = spec.rpartition(":")
    if not where or not attribute.isidentifier():
        raise InvalidInput("plugin", f"expected pkg.module:factory or path/to/file.py:factory, got {spec!r}")
    module = _load_file(where) if where.endswith(".py") else _import(where)
    factory = getattr(module, attribute, None)
    if not callable(factory):
        raise InvalidInput("plugin", f"{where} has no callable {attribute!r}")
    return factory


def _import(name: str) -> object:
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        raise InvalidInput("plugin", f"cannot import {name!r}: {exc}") from None


def _load_file(path_text: str) -> object:
    path = Path(path_text).expanduser().resolve()
    if not path.is_file():
        raise InvalidInput("plugin", f"no such file {path_text!r}")
    name = f"tribridge_plugin_{abs(hash(str(path))):x}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise InvalidInput("plugin", f"cannot load {path_text!r} as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise InvalidInput("plugin", f"{path_text}: {type(exc).__name__}: {exc}") from None
    return module
