"""A new table's configuration from the body of ``POST /api/tables``, every field checked.

Deals nobody can predict: a table's deals come from a secret drawn here and never sent. A chosen
deal source — ``"seed"`` (a whole number) or ``"deals"`` (a list of PBN deals, played in turn) — is
for practice and teaching and is accepted only when at most one chair is a person (every other
chair a bot), so nobody can learn another person's cards from it.

An event's table (``event_table_config``) is built by the server, never from a request: it plays the
event's boards, in order, and names its event. ``bot_label`` is how every page names a bot's chair.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from tribridge.cards import Deal
from tribridge.errors import InvalidInput
from tribridge.events.boards import Board
from tribridge.rules.deal import options_from
from tribridge.rules.scoring import scheme_names
from tribridge.server.tables.bots import check_bot_name
from tribridge.server.tables.limits import check_name
from tribridge.server.tables.wire import ChairConfig, DealSource, OptionsJson, TableConfig

__all__ = ["MAX_PBN_DEALS", "bot_label", "bot_name_label", "chosen_deal_source", "event_table_config", "table_config"]

MAX_PBN_DEALS = 200
DEFAULT_OPTIONS = options_from(None)
DEFAULT_CHAIRS: list[ChairConfig] = [{"kind": "human"}, {"kind": "bot", "bot": "pimc"}, {"kind": "bot", "bot": "pimc"}]


def bot_name_label(bot: str) -> str:
    """A bot's name in words, without a chair: ``paper+random bot``."""
    return f"{bot} bot"


def bot_label(chairs: Sequence[Mapping[str, Any]], chair: int) -> str:
    """The name of bot chair ``chair`` among ``chairs`` (a table's chair specs), as the table shows it everywhere:
    ``random bot``, with the chair's number (from 1) when another chair holds the same bot (``random bot 2``)."""
    bot = str(chairs[chair]["bot"])
    shared = any(c != chair and spec["kind"] == "bot" and spec.get("bot") == bot for c, spec in enumerate(chairs))
    return f"{bot_name_label(bot)} {chair + 1}" if shared else bot_name_label(bot)


def _chairs(chairs_in: Any) -> list[ChairConfig]:
    if chairs_in is None:
        chairs_in = DEFAULT_CHAIRS
    if not isinstance(chairs_in, list) or len(chairs_in) != 3:
        raise InvalidInput("chairs", "expected a list of three chairs")
    chairs: list[ChairConfig] = []
    for i, c in enumerate(chairs_in):
        if not isinstance(c, dict) or c.get("kind") not in ("human", "bot"):
            raise InvalidInput(f"chairs[{i}]", 'expected {"kind": "human"} or {"kind": "bot", "bot": NAME}')
        if c["kind"] == "bot":
            chairs.append({"kind": "bot", "bot": check_bot_name(c.get("bot") or "pimc", f"chairs[{i}].bot")})
        elif c.get("name") is not None:
            chairs.append({"kind": "human", "name": check_name(c["name"], f"chairs[{i}].name")})
        else:
            chairs.append({"kind": "human"})
    return chairs


def _options_json(ranking: str, dealer_must_bid: bool) -> OptionsJson:
    """A table's auction options as stored."""
    return {"ranking": "value" if ranking == "value" else "contract", "dealer_must_bid": dealer_must_bid}


def _flag(value: Any, field: str) -> bool:
    """A yes/no field of the request."""
    if not isinstance(value, bool):
        raise InvalidInput(field, f"expected true or false, got {value!r}"[:200])
    return value


def chosen_deal_source(seed: Any, deals: Any) -> DealSource | None:
    """``{"seed": n}`` or ``{"pbn": [...]}`` from the request, or None when neither is given."""
    if seed is not None and deals is not None:
        raise InvalidInput("seed", "give either a seed or a list of deals, not both")
    if seed is not None:
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**63:
            raise InvalidInput("seed", f"expected a whole number 0..2**63-1 or null, got {seed!r}"[:200])
        return {"seed": seed}
    if deals is None:
        return None
    if not isinstance(deals, list) or not 1 <= len(deals) <= MAX_PBN_DEALS:
        raise InvalidInput("deals", f"expected a list of 1 to {MAX_PBN_DEALS} PBN deals")
    out = []
    for i, text in enumerate(deals):
        if not isinstance(text, str) or len(text) > 80:
            raise InvalidInput(f"deals[{i}]", "expected a PBN deal such as 'N:AKQ2.J54.T98.762 ...'")
        try:
            out.append(Deal.from_pbn(text).to_pbn())
        except InvalidInput as exc:
            raise InvalidInput(f"deals[{i}]", exc.detail[:200]) from None
        except ValueError:
            raise InvalidInput(f"deals[{i}]", "not a PBN deal of four 13-card hands") from None
    return {"pbn": out}


def table_config(body: Any) -> tuple[TableConfig, int | None]:
    """(the stored configuration, the chair to take or None) of a new table; ``InvalidInput`` names a bad field."""
    if not isinstance(body, dict):
        raise InvalidInput("body", "expected a JSON object")
    chairs = _chairs(body.get("chairs"))
    scheme = body.get("scheme") or "classic"
    if scheme not in scheme_names():
        raise InvalidInput(
            "scheme", f"unknown scheme {str(scheme)[:40]!r}: expected one of {', '.join(scheme_names())}"
        )
    options = body.get("options")
    if options is not None and not isinstance(options, dict):
        raise InvalidInput("options", "expected an object")
    parsed = options_from(options)
    source = chosen_deal_source(body.get("seed"), body.get("deals"))
    people = sum(1 for c in chairs if c["kind"] == "human")
    if source is not None and people > 1:
        field = "seed" if "seed" in source else "deals"
        raise InvalidInput(
            field,
            "a chosen deal is allowed only at a table whose other chairs are all bots "
            f"(this table has {people} human chairs); leave it out for secret deals",
        )
    if source is None:
        source = {"secret": secrets.token_hex(32)}
    take = body.get("take")
    if take is not None and (
        not isinstance(take, int) or isinstance(take, bool) or not 0 <= take <= 2 or chairs[take]["kind"] != "human"
    ):
        raise InvalidInput("take", "expected the number of a human chair 0..2")
    config: TableConfig = {
        "chairs": chairs,
        "scheme": scheme,
        "deals": source,
        "options": _options_json(parsed.ranking, parsed.dealer_must_bid),
        "next_consent": True,  # the next deal starts once every person at the table asked for it
        "hints": _flag(body.get("hints", True), "hints"),
    }
    return config, take


def event_table_config(
    event_id: str, boards: Sequence[Board], entrant_chairs: Sequence[int], chairs: list[ChairConfig], scheme: str
) -> TableConfig:
    """The configuration of an event's table: exactly ``boards`` in order, table chair 0 in event chair
    ``entrant_chairs[i]`` (0 the dealer, 1 the dealer's left, 2 the dealer's right) on board ``i``.

    The boards stay in the store: a client sees a board's cards only through its chair's view of the deal.
    """
    if len(boards) != len(entrant_chairs) or not boards:
        raise InvalidInput("boards", "expected one entrant's chair per board, and at least one board")
    return {
        "chairs": chairs,
        "scheme": scheme,
        "deals": {
            "boards": [
                {"board": b.number, "dealer": b.dealer.letter, "deal": b.deal.to_pbn(), "dealer_chair": (-c) % 3}
                for b, c in zip(boards, entrant_chairs)
            ]
        },
        "options": _options_json(DEFAULT_OPTIONS.ranking, DEFAULT_OPTIONS.dealer_must_bid),
        "event": {"event_id": event_id},
    }
