"""Features of a seat's view for the belief model: per hidden hand, per unseen card, and per pair.

The belief model (:mod:`tribridge.bots.belief_model`) scores "card ``c`` lies in hidden hand
``s``" as ``hand[s] @ W @ card[c] + pair[s, c] @ V @ rank[c]`` plus ``log(needs[s])`` (the
uniform prior). Everything here is read from a player's ``SeatView`` in the play (from the
auction's end on); seats are *play* seats (dummy opposite the declarer).

- ``hand[s]`` (:data:`HAND_FEATURES`): the hand's role (declarer, dummy, the declarer's left or
  right opponent) and what its player said in the auction: how many bids, the highest level and
  its strain, passes, doubles, whether it opened, the level at which it first passed over a bid.
  The widow (dummy) never calls.
- ``card[c]`` (:data:`CARD_FEATURES`): the card's rank (A K Q J T one-hot and rank/12) and
  whether it is a trump.
- ``pair[s, c]`` (:data:`PAIR_FEATURES`): the hand's calls in the card's suit, the other
  players' calls in it, and the play: cards of the suit the hand has played, led, discarded,
  played touching ``c``, and "ducked": followed below the winning card when ``c`` would have won.
- ``rank[c]``: ``[1, honour, rank/12]``, so each pair feature gets a slope by rank.

``allowed[c, s]`` is certain knowledge: ``c`` is unseen, ``s`` is hidden, still needs cards, and
has not shown out of ``c``'s suit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tribridge.bots.position import CardPosition
from tribridge.cards import Seat
from tribridge.errors import InvalidInput
from tribridge.rules.view import SeatView

__all__ = [
    "CARD_FEATURES",
    "HAND_FEATURES",
    "PAIR_FEATURES",
    "RANK_FEATURES",
    "ViewFeatures",
    "view_features",
    "view_position",
]

HAND_FEATURES: tuple[str, ...] = (
    "const",
    "declarer",
    "dummy",
    "lho",
    "rho",
    "bids",
    "top_level",
    "top_club",
    "top_diamond",
    "top_heart",
    "top_spade",
    "top_nt",
    "never_bid",
    "doubled",
    "redoubled",
    "opened",
    "first_call_pass",
    "first_pass_over_level",
    "declarer_x_level",
    "declarer_x_nt",
    "declarer_x_doubled",
    "defender_x_level",
    "played_share",
)
CARD_FEATURES: tuple[str, ...] = ("const", "ace", "king", "queen", "jack", "ten", "rank", "trump")
PAIR_FEATURES: tuple[str, ...] = (
    "bids_in_suit",
    "top_bid_in_suit",
    "others_bid_suit",
    "played_in_suit",
    "led_suit",
    "discarded_suit",
    "played_next_above",
    "played_next_below",
    "ducked",
    "led_above",
)
RANK_FEATURES: tuple[str, ...] = ("const", "honour", "rank")


@dataclass
class ViewFeatures:
    """The model's inputs for one view (see the module docstring); seats are play seats."""

    hand: np.ndarray  # float[4, len(HAND_FEATURES)]
    card: np.ndarray  # float[52, len(CARD_FEATURES)]
    pair: np.ndarray  # float[4, 52, len(PAIR_FEATURES)]
    rank: np.ndarray  # float[52, len(RANK_FEATURES)]
    allowed: np.ndarray  # bool[52, 4]
    needs: np.ndarray  # int[4]: unseen cards each seat still holds
    position: CardPosition


def view_position(view: SeatView) -> CardPosition:
    """The CardPosition of a view in the play (own hand, dummy once exposed, cards played); no auction facts."""
    contract = view.contract
    if contract is None or view.phase == "auction":
        raise InvalidInput("view", "the belief model reads views from the auction's end on (a contract is needed)")
    hands = {int(view.seat): tuple(sorted(view.hand.cards))}
    if view.dummy is not None:
        hands[int(contract.declarer) ^ 2] = tuple(sorted(view.dummy.cards))
    trump = contract.trump
    played = tuple(c.index for c in view.played_cards)
    return CardPosition(int(contract.declarer), trump, tuple(sorted(hands.items())), played)


def _auction_by_player(view: SeatView) -> dict[int, dict]:
    """Per dealing seat: its bids (level, denom), passes, doubles, first call and first pass over a bid."""
    out: dict[int, dict] = {}
    level = 0
    first_bid_by = None
    for made in view.calls:
        p = int(made.player)
        rec = out.setdefault(p, {"bids": [], "passes": 0, "doubles": 0, "redoubles": 0, "first": None, "pass_over": 0})
        call = made.call
        if rec["first"] is None:
            rec["first"] = call.kind
        if call.is_bid:
            rec["bids"].append((call.level, int(call.denom)))  # type: ignore[arg-type]
            level = call.level
            if first_bid_by is None:
                first_bid_by = p
        elif call.kind == "pass":
            rec["passes"] += 1
            if level and not rec["pass_over"]:
                rec["pass_over"] = level
        elif call.kind == "double":
            rec["doubles"] += 1
        else:
            rec["redoubles"] += 1
    for p, rec in out.items():
        rec["opened"] = p == first_bid_by
    return out


def _hand_rows(view: SeatView, position: CardPosition, auction: dict[int, dict]) -> np.ndarray:
    """float[4, len(HAND_FEATURES)]."""
    contract = view.contract
    assert contract is not None
    declarer = int(contract.declarer)
    played_by = np.zeros(4)
    for seat, _ in position.trace:
        played_by[seat] += 1
    rows = np.zeros((4, len(HAND_FEATURES)))
    for s in range(4):
        player = view.player_at(Seat(s)) if s != declarer ^ 2 else None
        rec = auction.get(int(player)) if player is not None else None
        f = dict.fromkeys(HAND_FEATURES, 0.0)
        f["const"] = 1.0
        f["declarer"] = float(s == declarer)
        f["dummy"] = float(s == declarer ^ 2)
        f["lho"] = float(s == (declarer + 1) % 4)
        f["rho"] = float(s == (declarer + 3) % 4)
        if rec is not None:
            bids = rec["bids"]
            f["bids"] = min(len(bids), 3) / 3.0
            if bids:
                top_level, top_denom = max(bids)
                f["top_level"] = top_level / 7.0
                f[("top_club", "top_diamond", "top_heart", "top_spade", "top_nt")[top_denom]] = 1.0
            f["never_bid"] = float(not bids)
            f["doubled"] = float(rec["doubles"] > 0)
            f["redoubled"] = float(rec["redoubles"] > 0)
            f["opened"] = float(rec["opened"])
            f["first_call_pass"] = float(rec["first"] == "pass")
            f["first_pass_over_level"] = rec["pass_over"] / 7.0
        level = contract.level / 7.0
        f["declarer_x_level"] = level * f["declarer"]
        f["declarer_x_nt"] = float(contract.trump is None) * f["declarer"]
        f["declarer_x_doubled"] = float(contract.doubling > 0) * f["declarer"]
        f["defender_x_level"] = level * (f["lho"] + f["rho"])
        f["played_share"] = played_by[s] / 13.0
        rows[s] = [f[name] for name in HAND_FEATURES]
    return rows


def _card_rows(trump: int | None) -> tuple[np.ndarray, np.ndarray]:
    """(card float[52, len(CARD_FEATURES)], rank float[52, len(RANK_FEATURES)])."""
    cards = np.arange(52)
    rank = 12 - cards % 13  # 12 = ace .. 0 = two (card index 0 is the ace of clubs)
    card = np.zeros((52, len(CARD_FEATURES)))
    card[:, 0] = 1.0
    for i in range(5):
        card[:, 1 + i] = rank == 12 - i
    card[:, 6] = rank / 12.0
    if trump is not None:
        card[:, 7] = cards // 13 == trump
    ranks = np.stack([np.ones(52), (rank >= 9).astype(float), rank / 12.0], axis=1)
    return card, ranks


def _auction_pairs(view: SeatView, auction: dict[int, dict], pair: np.ndarray) -> None:
    """Fill the auction columns of ``pair`` (float[4, 52, P]) in place."""
    contract = view.contract
    assert contract is not None
    bid_suits = {p: [d for _, d in rec["bids"] if d < 4] for p, rec in auction.items()}
    for s in range(4):
        player = view.player_at(Seat(s)) if s != int(contract.declarer) ^ 2 else None
        mine = bid_suits.get(int(player), []) if player is not None else []
        others = {d for p, ds in bid_suits.items() if player is None or p != int(player) for d in ds}
        top = (
            max(auction[int(player)]["bids"])
            if player is not None and auction.get(int(player), {}).get("bids")
            else None
        )
        for suit in range(4):
            cols = slice(suit * 13, suit * 13 + 13)
            pair[s, cols, 0] = min(mine.count(suit), 2) / 2.0
            pair[s, cols, 1] = float(top is not None and top[1] == suit)
            pair[s, cols, 2] = float(suit in others)


def _play_pairs(position: CardPosition, pair: np.ndarray) -> None:
    """Fill the play columns of ``pair`` (float[4, 52, P]) in place."""
    trace = position.trace
    trump = position.trump
    declarer_side = {int(position.declarer), int(position.declarer) ^ 2}
    for start in range(0, len(trace), 4):
        trick = trace[start : start + 4]
        led_suit = trick[0][1] // 13
        lead_seat, lead_card = trick[0]
        pair[lead_seat, led_suit * 13 : led_suit * 13 + 13, 4] += 1.0
        # led a card above c in c's suit (top of a sequence, or from an honour)
        pair[lead_seat, lead_card + 1 : led_suit * 13 + 13, 9] = 1.0
        winner_seat, winner_card = lead_seat, lead_card
        for i, (seat, card) in enumerate(trick):
            suit = card // 13
            pair[seat, suit * 13 : suit * 13 + 13, 3] += 1.0
            # a lower index is a higher rank: the card just below ``card`` is ``card + 1``
            if card % 13 < 12:
                pair[seat, card + 1, 6] = 1.0  # it played the card just above c
            if card % 13 > 0:
                pair[seat, card - 1, 7] = 1.0  # it played the card just below c
            if i == 0:
                continue
            if suit != led_suit:
                pair[seat, suit * 13 : suit * 13 + 13, 5] += 1.0
            elif winner_card // 13 == led_suit and card > winner_card:
                opponents_win = (winner_seat in declarer_side) != (seat in declarer_side)
                if opponents_win:
                    # followed below the winning card: every unseen c above the winner would have won
                    pair[seat, led_suit * 13 : winner_card, 8] = 1.0
            if _beats(card, winner_card, led_suit, trump):
                winner_seat, winner_card = seat, card
    pair[:, :, 3] = np.minimum(pair[:, :, 3], 4.0) / 4.0
    pair[:, :, 4] = np.minimum(pair[:, :, 4], 2.0) / 2.0
    pair[:, :, 5] = np.minimum(pair[:, :, 5], 2.0) / 2.0


def _beats(card: int, best: int, led_suit: int, trump: int | None) -> bool:
    """Whether ``card`` beats the trick's best card so far (index order: lower index = higher rank)."""
    if card // 13 == best // 13:
        return card < best
    return trump is not None and card // 13 == trump


def view_features(view: SeatView) -> ViewFeatures:
    """The belief model's inputs for a player's view in the play (see the module docstring)."""
    position = view_position(view)
    knowledge = position.knowledge()
    owner = np.array(knowledge.known_owner)
    needs = np.array(knowledge.needs())
    allowed = np.zeros((52, 4), dtype=bool)
    unseen = owner < 0
    for s in range(4):
        if needs[s] > 0:
            ok = unseen.copy()
            for suit in knowledge.voids[s]:
                ok[suit * 13 : suit * 13 + 13] = False
            allowed[:, s] = ok
    auction = _auction_by_player(view)
    card, rank = _card_rows(position.trump)
    pair = np.zeros((4, 52, len(PAIR_FEATURES)))
    _auction_pairs(view, auction, pair)
    _play_pairs(position, pair)
    return ViewFeatures(_hand_rows(view, position, auction), card, pair, rank, allowed, needs, position)
