"""Plain words for the lobby: what each bot of the registry does, what each scoring scheme scores.

A bot is a bidder plus a card player (``tribridge.bots.BOT_PAIRS``); its description is built from
the two parts' descriptions here, so every registry name (and any ``BIDDER+PLAYER`` pair) has one.
A scheme's description is written from its numbers (``rules.scoring.get_scheme``).
"""

from __future__ import annotations

from tribridge.bots import BOT_PAIRS, bot_parts
from tribridge.rules.scoring import get_scheme, scheme_names

__all__ = ["BIDDER_WORDS", "PLAYER_WORDS", "bot_description", "bot_descriptions", "scheme_descriptions"]

BIDDER_WORDS = {
    "random": "passes half the time, else makes a random legal call",
    "paper": "bids no-trumps by the seed paper's No-Trump call rule on its own hand (top cards and suit lengths), "
    "else passes",
    "estimate": "bids the strain where a trained trick estimate of its hand plus a guessed widow scores best",
    "simulation": "tries each call over sampled layouts of the hidden cards and keeps the best-scoring one",
    "learned": "calls with a small network trained by self-play: the call it values highest for its hand and the "
    "auction",
    "learned-sim": "calls with a small network trained by self-play, and where its two best calls are close, "
    "averages the network's values with those of a simulation over sampled layouts",
}
PLAYER_WORDS = {
    "random": "plays random legal cards (instant; for trying the table out)",
    "pimc": "plays by simulation: each card solved double dummy over sampled layouts (PIMC)",
    "pimc-model": "plays PIMC with layouts drawn from a learned belief model of the hidden hands",
    "dd": "plays double dummy, seeing every card (it cheats: a yardstick)",
}
STRONGEST = "pimc"  # the registry's strongest pair: the lobby says so


def bot_description(name: str) -> str:
    """One sentence on what bot ``name`` (a registry name or ``BIDDER+PLAYER``) bids and plays."""
    bidder, player = bot_parts(name)
    words = BIDDER_WORDS[bidder]
    text = f"{words[0].upper()}{words[1:]}; {PLAYER_WORDS[player]}."
    return f"The strongest pair, a few seconds a card. {text}" if name == STRONGEST else text


def bot_descriptions() -> dict[str, str]:
    """Every registry bot's description."""
    return {name: bot_description(name) for name in BOT_PAIRS}


def scheme_descriptions() -> dict[str, str]:
    """Every scoring scheme's description in words, from its numbers."""
    out = {}
    for name in scheme_names():
        s = get_scheme(name)
        values = ", ".join(f"{suit} {v}" for suit, v in zip("♣♦♥♠", s.trick_values)) + f", NT {s.trick_values[4]}"
        over = (
            "overtricks score as tricks"
            if s.overtrick_values == s.trick_values
            else "overtricks "
            + ", ".join(f"{suit} {v}" for suit, v in zip("♣♦♥♠", s.overtrick_values))
            + f", NT {s.overtrick_values[4]} (above the line)"
        )
        out[name] = (
            f"{s.description}. Each trick over six: {values}; {over}. Game at {s.game_points} trick points "
            f"(bonus {s.game_bonus}); rubber: first to {s.games_to_win} games (bonus {s.rubber_bonus}). "
            f"Down: {s.undertrick_each_defender} a trick to each defender. Slams: {s.small_slam_bonus} small, "
            f"{s.grand_slam_bonus} grand; doubling bonus (doubled and made: the insult) {s.double_bonus} + "
            f"{s.double_bonus_per_overtrick} an overtrick, twice that redoubled."
        )
    return out
