"""Bots that bid and play: belief sampling, PIMC card play, bidders, and the registry ``get_bot(name)``.

A *bot* for a chair is a bidder plus a card player. Names (see docs/bots.md):

=========== ======================= ===================
name        bidder                  player
=========== ======================= ===================
random      RandomBidder            RandomPlayer
paper       PaperBidder             PimcPlayer
estimate    EstimateBidder          PimcPlayer
simulation  SimulationBidder        PimcPlayer
pimc        SimulationBidder        PimcPlayer  (the strongest pair; same as ``simulation``)
pimc-model  SimulationBidder        PimcPlayer(belief="model") (layouts weighted by the learned belief model)
learned     LearnedBidder           PimcPlayer  (a policy network trained by self-play, ``bots.learned``)
learned-sim LearnedSimulationBidder PimcPlayer  (the network, averaged with SimulationBidder where unsure)
dd          PaperBidder             DoubleDummyPlayer (sees all cards: a test upper bound)
=========== ======================= ===================

Any pair can also be named ``BIDDER+PLAYER``, e.g. ``paper+dd`` or ``simulation+random``, with
bidders ``random paper estimate simulation learned learned-sim`` and players ``random dd pimc pimc-model``. A plug-in
``pkg.module:factory`` or ``path/to/file.py:factory`` is a bot name once enabled (``bots.plugins``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tribridge.bots import plugins
from tribridge.bots.protocols import Bidder, CardPlayer, RankedBidder, RankedCardPlayer
from tribridge.cards import Card
from tribridge.errors import InvalidInput
from tribridge.rules.auction import Call
from tribridge.rules.view import SeatView

BIDDER_NAMES = ("random", "paper", "estimate", "simulation", "learned", "learned-sim")
PLAYER_NAMES = ("random", "dd", "pimc", "pimc-model")
BOT_PAIRS: dict[str, tuple[str, str]] = {
    "random": ("random", "random"),
    "paper": ("paper", "pimc"),
    "estimate": ("estimate", "pimc"),
    "simulation": ("simulation", "pimc"),
    "pimc": ("simulation", "pimc"),
    "pimc-model": ("simulation", "pimc-model"),
    "dd": ("paper", "dd"),
    "learned": ("learned", "pimc"),
    "learned-sim": ("learned-sim", "pimc"),
}


def get_bidder(name: str, **options: Any) -> Bidder:
    """A bidder by name: random, paper, estimate, simulation, learned, learned-sim."""
    from tribridge.bots import bidding  # imported here: start-up time (bot names without compiling kernels)
    from tribridge.bots.learned import LearnedBidder
    from tribridge.bots.learned_sim import LearnedSimulationBidder

    classes: dict[str, Callable[..., Bidder]] = {
        "random": bidding.RandomBidder,
        "paper": bidding.PaperBidder,
        "estimate": bidding.EstimateBidder,
        "simulation": bidding.SimulationBidder,
        "learned": LearnedBidder,
        "learned-sim": LearnedSimulationBidder,
    }
    key = str(name).strip().lower()
    if key not in classes:
        raise InvalidInput("bidder", f"unknown bidder {name!r}; expected one of {', '.join(BIDDER_NAMES)}")
    return classes[key](**options)


def get_player(name: str, **options: Any) -> CardPlayer:
    """A card player by name: random, dd, pimc, pimc-model (PIMC with the learned belief model)."""
    from tribridge.bots import play  # imported here: start-up time (bot names without compiling kernels)

    classes: dict[str, Callable[..., CardPlayer]] = {
        "random": play.RandomPlayer,
        "dd": play.DoubleDummyPlayer,
        "pimc": play.PimcPlayer,
    }
    key = str(name).strip().lower()
    if key == "pimc-model":
        return play.PimcPlayer(**{"belief": "model", **options})
    if key not in classes:
        raise InvalidInput("player", f"unknown card player {name!r}; expected one of {', '.join(PLAYER_NAMES)}")
    return classes[key](**options)


@dataclass
class Bot:
    """A chair's bot: a ``Bidder`` and a ``CardPlayer`` (``bots.protocols``), both over the player's ``SeatView``."""

    name: str
    bidder: Bidder
    player: CardPlayer

    def bid(self, view: SeatView) -> Call:
        """The bidder's call."""
        return self.bidder.bid(view)

    def play(self, view: SeatView) -> Card:
        """The player's card."""
        return self.player.play(view)


def bot_parts(name: str) -> tuple[str, str]:
    """(bidder name, player name) of a bot name (a registry name or ``BIDDER+PLAYER``; an enabled plug-in: its spec twice)."""
    key = str(name).strip().lower()
    if plugins.is_spec(key):
        return plugins.require_enabled(key), key
    if "+" in key:
        bidder, _, player = key.partition("+")
        if bidder not in BIDDER_NAMES or player not in PLAYER_NAMES:
            raise InvalidInput(
                "bot",
                f"bad bot {name!r}: expected BIDDER+PLAYER with bidders {', '.join(BIDDER_NAMES)}"
                f" and players {', '.join(PLAYER_NAMES)}",
            )
        return bidder, player
    if key not in BOT_PAIRS:
        raise InvalidInput("bot", f"unknown bot {name!r}; expected one of {', '.join(BOT_PAIRS)} or BIDDER+PLAYER")
    return BOT_PAIRS[key]


def get_bot(name: str, bidder_options: dict | None = None, player_options: dict | None = None) -> Bot:
    """The bot for a chair by name (see the module docstring)."""
    if plugins.is_spec(name):
        plugin_bidder, plugin_player = plugins.load_parts(name)
        return Bot(str(name).strip().lower(), plugin_bidder, plugin_player)
    bidder, player = bot_parts(name)
    return Bot(
        str(name).strip().lower(),
        get_bidder(bidder, **(bidder_options or {})),
        get_player(player, **(player_options or {})),
    )


__all__ = [
    "BIDDER_NAMES",
    "BOT_PAIRS",
    "PLAYER_NAMES",
    "Bidder",
    "Bot",
    "CardPlayer",
    "RankedBidder",
    "RankedCardPlayer",
    "bot_parts",
    "get_bidder",
    "get_bot",
    "get_player",
]
