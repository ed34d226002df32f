"""Every bot of the registry has lobby words and explains its calls (a new bidder cannot be left out)."""

from __future__ import annotations

from tribridge.bots import BIDDER_NAMES, BOT_PAIRS, PLAYER_NAMES
from tribridge.rules.auction import AuctionState, Call
from tribridge.server.tables.explain import explain_call
from tribridge.server.tables.words import BIDDER_WORDS, PLAYER_WORDS, bot_descriptions


def test_every_bidder_and_player_has_words() -> None:
    assert set(BIDDER_WORDS) == set(BIDDER_NAMES) and set(PLAYER_WORDS) == set(PLAYER_NAMES)
    descriptions = bot_descriptions()
    assert set(descriptions) == set(BOT_PAIRS) and len(set(descriptions.values())) == len(descriptions)


def test_every_bidder_explains_its_calls_in_its_own_words() -> None:
    calls = [Call.parse(text) for text in ("P", "X", "1N", "3S")]
    texts = {
        bidder: [explain_call(f"{bidder}+random", call, AuctionState.start("N")) for call in calls]
        for bidder in BIDDER_NAMES
    }
    random_words = texts.pop("random")
    for bidder, words in texts.items():
        assert all(w and w != random_words[0] for w in words), bidder


def test_every_bot_leads_with_what_its_call_shows_and_keeps_how_it_chose_second() -> None:
    """Each registry bot's explanation: first what the call shows (measured), then its own words on how it chose."""
    before = AuctionState.from_calls("N", ["P"])
    how = {"random": "A random legal call", "paper": "No-Trump call rule", "pimc": "scored best", "dd": "No-Trump"}
    for bot in BOT_PAIRS:
        call = Call.parse("P")
        lines = explain_call(bot, call, before).split("\n")
        assert len(lines) == 2, (bot, lines)
        assert lines[0].startswith(("Shows ", "No hand ")), (bot, lines[0])
        assert how.get(bot, "") in lines[1] and lines[1] not in lines[0], (bot, lines)
