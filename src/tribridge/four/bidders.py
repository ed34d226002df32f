"""The four-handed bidders by name, for the robot API's ``bidder`` choice and the CLI's ``bid4``.

``natural4`` (the rule system, the default) and ``natural4-search`` (its candidate calls weighed by
simulation, ``four.search``). Each returns a ``natural4.Decision``: the call, what it shows, the alternatives.
"""

from __future__ import annotations

from collections.abc import Callable

from tribridge.errors import InvalidInput
from tribridge.four import natural4, search
from tribridge.four.natural4 import Bid4View, Decision

__all__ = ["BIDDERS", "DEFAULT_BIDDER", "bidder_named", "decide_with"]

BIDDERS: dict[str, Callable[[Bid4View], Decision]] = {
    natural4.NAME: natural4.decide_call,
    search.NAME: search.decide_call,
}
DEFAULT_BIDDER = natural4.NAME


def bidder_named(name: str | None, field: str = "bidder") -> str:
    """The bidder's name (the default when ``name`` is empty); InvalidInput naming ``field`` for an unknown one."""
    if name is None or not name.strip():
        return DEFAULT_BIDDER
    key = name.strip().lower()
    if key not in BIDDERS:
        raise InvalidInput(field, f"unknown bidder {name!r}: expected one of {', '.join(BIDDERS)}")
    return key


def decide_with(name: str, view: Bid4View) -> Decision:
    """The named bidder's decision for the seat on turn."""
    return BIDDERS[bidder_named(name)](view)
