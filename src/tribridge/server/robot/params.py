"""Parsing and checking of the robot API's query parameters (encodings in docs/server.md) into positions.

Every bad input raises ``InvalidInput`` with a precise message; the HTTP layer turns it into
400 ``{"error": ...}``. Nothing here chooses a call or a card.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

from tribridge.cards import SEAT_CHARS, Card, Seat, parse_hand_cards
from tribridge.errors import InvalidInput
from tribridge.four.rules import Auction4, Contract4, PlayTrace, parse_ctx, trace_play

VUL_ALIASES = {
    "": "None",
    "NONE": "None",
    "-": "None",
    "LOVE": "None",
    "O": "None",
    "NS": "NS",
    "N-S": "NS",
    "EW": "EW",
    "E-W": "EW",
    "ALL": "All",
    "BOTH": "All",
    "B": "All",
}
# Parameters some clients send that the server ignores (docs/server.md); unknown ones are ignored too.
IGNORED_PARAMS = ("board", "matchtype", "tournament", "meanings", "partnerMeanings", "user", "dealno", "details")
# Bidding systems a client may name for each side (answered, never refused: an unknown one gets ours and a note).
SYSTEM_PARAMS = ("ourSystem", "theirSystem")


def _get(params: Mapping[str, str], name: str, required: bool = True) -> str | None:
    value = params.get(name)
    if value is None and required:
        raise InvalidInput(name, "missing (it must be present, even if empty)" if name == "ctx" else "missing")
    return value


def parse_seat(text: str | None, name: str = "seat") -> int:
    """A robot-API seat N/E/S/W (any case); missing or anything else is an error."""
    if text is None:
        raise InvalidInput(name, "missing: expected N, E, S or W")
    t = text.strip().upper()
    if len(t) == 1 and t in SEAT_CHARS:
        return SEAT_CHARS.index(t)
    if t in ("NORTH", "EAST", "SOUTH", "WEST"):
        return int(Seat.parse(t, name))
    raise InvalidInput(name, f"bad seat {text!r}: expected N, E, S or W")


def parse_vul(text: str | None) -> str:
    """Vulnerability: None, NS, EW, All (also -, Both, B, empty, BEN's @v/@V; any case); missing means None."""
    if text is None:
        return "None"
    if "@" in text:  # BEN's page form: '@v' = N-S vulnerable, '@V' = E-W (case matters)
        return {(False, False): "None", (True, False): "NS", (False, True): "EW", (True, True): "All"}[
            ("@v" in text, "@V" in text)
        ]
    t = text.strip().upper()
    if t in VUL_ALIASES:
        return VUL_ALIASES[t]
    raise InvalidInput("vul", f"bad vulnerability {text!r}: expected None, NS, EW or All (also -, Both, B, empty)")


def parse_hand(text: str | None, name: str = "hand") -> list[int]:
    """A 13-card PBN hand ``S.H.D.C`` (``_`` for ``.``, ``10`` for ``T``, any case)."""
    if text is None:
        raise InvalidInput(name, "missing: expected a PBN hand like AKQ2.J54.T98.762")
    return parse_hand_cards(text, name, 13)


def parse_played(text: str, name: str = "played") -> list[int]:
    """Cards played so far: 2-character suit-then-rank tokens without separators (``SJSQ``); ``10`` for ``T``."""
    t = "".join(text.split()).upper().replace("10", "T")
    for sep in ",-.;":
        t = t.replace(sep, "")
    if len(t) % 2:
        raise InvalidInput(name, f"malformed {text!r}: expected 2-character cards like SJSQSKSA")
    cards = []
    for i in range(0, len(t), 2):
        token = t[i : i + 2]
        if token[0] not in "CDHS" or token[1] not in "AKQJT98765432":
            raise InvalidInput(
                name, f"malformed card {token!r} at position {i // 2 + 1} of {text!r}: expected suit then rank, like SA"
            )
        cards.append(Card.parse(token, name).index)
    if len(cards) > 52:
        raise InvalidInput(name, f"{len(cards)} cards played: at most 52")
    return cards


@dataclass
class BidPosition:
    """A four-handed bidding decision: the seat on turn, its hand, the auction so far."""

    seat: int
    dealer: int
    vul: str
    hand: list[int]
    auction: Auction4
    model: str | None

    def key(self) -> str:
        """Canonical text of the position as the seat on turn sees it (for seeding)."""
        return f"bid|{self.seat}|{self.dealer}|{self.vul}|{sorted(self.hand)}|{','.join(self.auction.calls)}"


@dataclass
class PlayPosition:
    """A card-play decision in play seats: who asks, whose card is due, the visible hands, the play so far."""

    seat: int  # the seat asking (declarer when dummy is on turn)
    to_play: int  # the seat whose card is due (dummy or the asker)
    dealer: int
    vul: str
    hand: list[int]
    dummy: list[int] | None
    contract: Contract4
    auction_calls: tuple[str, ...]
    played: list[int]
    trace: PlayTrace
    model: str | None

    def key(self) -> str:
        """Canonical text of the position as the seat on turn sees it (for seeding)."""
        dummy = sorted(self.dummy) if self.dummy is not None and self.played else None
        return (
            f"play|{self.seat}|{self.dealer}|{self.vul}|{sorted(self.hand)}|{dummy}|"
            f"{','.join(self.auction_calls)}|{self.played}"
        )


def position_seed(key: str) -> int:
    """A 63-bit seed from a position's canonical text (same request, same answer)."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little") >> 1


def parse_model(params: Mapping[str, str], models: list[str]) -> str | None:
    """The optional ``model`` parameter; must be one of ``models`` when given and non-empty."""
    model = params.get("model")
    if model is None or model.strip() == "":
        return None
    if model not in models:
        raise InvalidInput("model", f"unknown model {model!r}: expected one of {', '.join(models)}")
    return model


def parse_bid_request(params: Mapping[str, str], models: list[str]) -> BidPosition:
    """Check a ``/bid`` request: seat on turn, a legal unfinished auction, a 13-card hand."""
    seat = parse_seat(params.get("seat"), "seat")
    dealer = parse_seat(params.get("dealer"), "dealer")
    vul = parse_vul(params.get("vul"))
    hand = parse_hand(params.get("hand"), "hand")
    ctx = _get(params, "ctx")
    model = parse_model(params, models)
    auction = Auction4.from_calls(dealer, parse_ctx(ctx or ""), "ctx")
    if auction.is_over:
        raise InvalidInput("ctx", "the auction is already over: no call is due")
    if auction.turn != seat:
        raise InvalidInput("seat", f"{SEAT_CHARS[seat]} is not on turn: {SEAT_CHARS[auction.turn]} calls next")  # type: ignore[index]
    return BidPosition(seat, dealer, vul, hand, auction, model)


def finished_contract(auction: Auction4) -> Contract4:
    """The contract of a finished auction; errors for an unfinished or passed-out one."""
    if not auction.is_over:
        raise InvalidInput("ctx", "the auction is not over: no card can be played yet")
    if auction.passed_out:
        raise InvalidInput("ctx", "the auction was passed out: there is no play")
    return auction.contract  # type: ignore[return-value]


def check_play_position(
    seat: int,
    hand: list[int],
    dummy: list[int] | None,
    contract: Contract4,
    played: list[int],
    lead: bool,
) -> tuple[int, PlayTrace]:
    """Validate a card request in play seats; returns (seat whose card is due, trace of the play)."""
    name = SEAT_CHARS
    if seat == contract.dummy:
        raise InvalidInput(
            "seat", f"{name[seat]} is dummy: ask as declarer {name[contract.declarer]} with dummy's hand in 'dummy'"
        )
    if dummy is not None:
        shared = sorted(set(hand) & set(dummy))
        if shared:
            raise InvalidInput("dummy", f"hand and dummy share {', '.join(str(Card(c)) for c in shared)}")
    known: dict[int, list[int]] = {seat: hand}
    if dummy is not None:
        known[contract.dummy] = dummy
    trace = trace_play(contract, played, known, "played")
    if trace.turn is None:
        raise InvalidInput("played", "all 52 cards are played: no card is due")
    if lead and trace.turn != seat:
        raise InvalidInput("seat", f"{name[seat]} is not the opening leader: {name[contract.leader]} leads")
    due = trace.turn
    if due == contract.dummy:
        if seat != contract.declarer:
            raise InvalidInput("seat", f"dummy {name[due]} is on turn: ask as declarer {name[contract.declarer]}")
        if dummy is None:
            raise InvalidInput("dummy", "missing: dummy is on turn, so dummy's hand is needed")
    elif due != seat:
        raise InvalidInput("seat", f"{name[seat]} is not on turn: {name[due]} plays next")
    return due, trace


def parse_dummy_and_played(params: Mapping[str, str], lead: bool) -> tuple[list[int] | None, list[int]]:
    """The optional ``dummy`` hand and the ``played`` cards of a /lead (none allowed) or /play (required) request."""
    dummy_text = params.get("dummy")
    dummy = parse_hand(dummy_text, "dummy") if dummy_text not in (None, "") else None
    played_text = params.get("played")
    if lead:
        if played_text not in (None, ""):
            raise InvalidInput("played", "/lead is for the opening lead: no card may be played yet (use /play)")
        return dummy, []
    if played_text is None:
        raise InvalidInput("played", "missing: /play needs the cards played so far (empty before the opening lead)")
    return dummy, parse_played(played_text)


def parse_card_request(params: Mapping[str, str], models: list[str], lead: bool) -> PlayPosition:
    """Check a ``/lead`` (``lead=True``) or ``/play`` request against the robot API (docs/server.md)."""
    seat = parse_seat(params.get("seat"), "seat")
    dealer = parse_seat(params.get("dealer"), "dealer")
    vul = parse_vul(params.get("vul"))
    hand = parse_hand(params.get("hand"), "hand")
    ctx = _get(params, "ctx")
    model = parse_model(params, models)
    dummy, played = parse_dummy_and_played(params, lead)
    auction = Auction4.from_calls(dealer, parse_ctx(ctx or ""), "ctx")
    contract = finished_contract(auction)
    due, trace = check_play_position(seat, hand, dummy, contract, played, lead)
    return PlayPosition(seat, due, dealer, vul, hand, dummy, contract, auction.calls, played, trace, model)
