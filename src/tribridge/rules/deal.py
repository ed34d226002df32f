"""``DealState``: the one owner of a 3PAB deal's life, from the first call to the score.

Phases: ``auction`` (the three players call clockwise from the dealer; the widow, opposite the
dealer, never calls) -> ``play`` (the widow's hand is moved opposite the declarer and becomes
dummy; the declarer plays dummy's cards) -> ``done`` (thrown in, 13 tricks played, or a claim
agreed). The state is immutable: ``apply`` returns the next state.

Players are known by their *dealing* seats throughout; the hands in the play sit in *play* seats,
and the reseating is done here only (``seats``). A claim (or concession) by any player takes
effect when both other players agree; a dispute withdraws it and play goes on. So the declarer's
claim needs both defenders, and a defender's concession binds the other defender only with that
defender's agreement.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property

from tribridge.cards import Card, Deal, Seat
from tribridge.errors import IllegalAction, InvalidInput
from tribridge.rules.auction import PASS, AuctionOptions, AuctionState, Call, Contract, play_deal, reseat
from tribridge.rules.play import PlayState
from tribridge.rules.scoring import DealScore, ScoringScheme, get_scheme, honours_held, score_deal
from tribridge.rules.view import (
    Action,
    AgreeClaim,
    CallMade,
    CardPlayed,
    Claim,
    DisputeClaim,
    MakeClaim,
    Phase,
    SeatView,
    TrickSeen,
)

__all__ = ["DealState", "options_from", "replay"]


@dataclass(frozen=True)
class DealState:
    """One deal: the hands as dealt, the auction, the play (in play seats) and any pending claim."""

    deal: Deal
    dealer: Seat
    auction: AuctionState
    play: PlayState | None = None
    claim: Claim | None = None

    @classmethod
    def start(cls, deal: Deal, dealer: Seat | int | str, options: AuctionOptions | None = None) -> DealState:
        """The state before the dealer's first call."""
        dealer = Seat.parse(dealer, "dealer")
        return cls(deal, dealer, AuctionState.start(dealer, options or AuctionOptions()))

    @classmethod
    def from_play(cls, play: PlayState) -> DealState:
        """A deal in ``play`` whose auction was just its contract: the declarer dealt and bid it, the others passed.

        With the declarer as dealer the widow already sits opposite, so no hand moves; for card-play
        tests, benchmarks and clients that start from a contract.
        """
        contract = play.contract
        if contract.doubling > 1:
            raise InvalidInput("contract", "a redoubled contract has no two-call auction; start from the calls")
        calls = [Call("bid", contract.level, contract.denom)]
        calls += [Call("double"), PASS, PASS] if contract.doubling else [PASS, PASS]
        state = cls.start(play.deal, contract.declarer)
        for call in calls:
            state = state.apply(call)
        assert state.play is not None
        return replace(state, play=play)

    # --- who sits where ------------------------------------------------------------------------
    @property
    def players(self) -> tuple[Seat, Seat, Seat]:
        """The three players' dealing seats, in calling order from the dealer."""
        return self.auction.bidders

    @property
    def widow(self) -> Seat:
        """The widow's dealing seat (opposite the dealer)."""
        return self.dealer.partner

    @property
    def contract(self) -> Contract | None:
        """The contract once the auction has one."""
        return self.auction.contract

    @cached_property
    def seats(self) -> dict[Seat, Seat]:
        """Each dealing seat's seat now: the identity in the auction, the reseating once there is a contract."""
        contract = self.contract
        if contract is None:
            return {s: s for s in Seat}
        return reseat(self.dealer, contract.declarer)

    def seat_of(self, player: Seat) -> Seat:
        """A player's seat now (its dealing seat during the auction, its play seat afterwards)."""
        seat = self.seats.get(player)  # a Seat or an int 0..3 (equal hash) finds its entry
        return self.seats[Seat(player)] if seat is None else seat

    def player_at(self, seat: Seat) -> Seat | None:
        """The player (dealing seat) now at ``seat``, or None for the widow's (dummy's) seat."""
        return self._players_at.get(seat)

    @cached_property
    def _players_at(self) -> dict[Seat, Seat]:
        """Each seat now held by a player -> that player (the widow's seat is left out)."""
        return {self.seats[player]: player for player in self.players}

    # --- phase and turn (cached: the state is immutable) ---------------------------------------
    @cached_property
    def phase(self) -> Phase:
        """``auction``, ``play`` or ``done``."""
        if not self.auction.is_over:
            return "auction"
        if self.play is None or self.play.is_over:
            return "done"
        return "play"

    def is_terminal(self) -> bool:
        """True once the deal is over (thrown in, played out or claimed)."""
        return self.phase == "done"

    @property
    def to_play(self) -> Seat | None:
        """The play seat whose card is next (dummy's included); None outside the play or during a claim."""
        if self.phase != "play" or self.claim is not None:
            return None
        assert self.play is not None
        return self.play.turn

    @cached_property
    def turn(self) -> Seat | None:
        """The player who must call or play now (the declarer plays for dummy); None when nobody must."""
        phase = self.phase
        if phase == "auction":
            return self.auction.turn
        seat = self.to_play
        if seat is None:
            return None
        assert self.play is not None
        return self.play.declarer if seat == self.play.dummy else self.player_at(seat)

    @property
    def awaiting(self) -> tuple[Seat, ...]:
        """Every player who must act now: the one on turn, or those yet to answer a claim."""
        if self.claim is not None:
            return tuple(p for p in self.players if p != self.claim.player and p not in self.claim.agreed)
        turn = self.turn
        return () if turn is None else (turn,)

    # --- actions -------------------------------------------------------------------------------
    def legal_actions(self, player: Seat | None = None) -> list[Action]:
        """What ``player`` (default: the player on turn) may do now; claims are offered to every player in the play."""
        if player is None:
            player = self.turn
        if player is None or self.phase == "done":
            return []
        player = Seat(player)
        if self.claim is not None:
            return [AgreeClaim(), DisputeClaim()] if player in self.awaiting else []
        actions: list[Action] = list(self.legal_moves(player))
        if self.phase == "play" and player in self.players:
            assert self.play is not None
            actions.extend(MakeClaim(n) for n in range(self.play.tricks_left + 1))
        return actions

    def legal_moves(self, player: Seat | None = None) -> list[Call] | list[Card]:
        """The calls or cards ``player`` (default: the player on turn) may make now: ``legal_actions`` less the claims."""
        turn = self.turn
        if turn is None or (player is not None and Seat(player) != turn):
            return []
        if self.phase == "auction":
            return self.auction.legal_calls()
        assert self.play is not None
        return self.play.legal_cards()

    def apply(self, action: Action | str, player: Seat | None = None) -> DealState:
        """The state after ``player`` (default: the player on turn) takes ``action``; IllegalAction says why not."""
        if player is None:
            player = self.turn if self.claim is None else None
            if player is None:
                raise IllegalAction("player", "say which player acts: nobody is on turn now")
        player = Seat(player)
        if self.phase == "done":
            raise IllegalAction("action", "the deal is over")
        if isinstance(action, str):
            action = self._parse(action)
        if isinstance(action, (AgreeClaim, DisputeClaim)):
            return self._answer_claim(player, isinstance(action, AgreeClaim))
        if isinstance(action, MakeClaim):
            return self._make_claim(player, action.tricks)
        if self.claim is not None:
            raise IllegalAction("action", f"a claim by {self.claim.player.letter} is pending: agree or dispute first")
        if player != self.turn:
            turn = self.turn
            raise IllegalAction("player", f"not {player.letter}'s turn: {turn.letter if turn else 'nobody'} acts next")
        if isinstance(action, Call):
            return self._call(action)
        if isinstance(action, Card):
            if self.phase != "play":
                raise IllegalAction("card", "no card is due during the auction")
            assert self.play is not None
            return replace(self, play=self.play.apply(action))
        raise InvalidInput("action", f"expected a call, a card or a claim action, got {action!r}")

    def _parse(self, text: str) -> Action:
        """A call during the auction, a card during the play."""
        return Call.parse(text, "call") if self.phase == "auction" else Card.parse(text, "card")

    def _call(self, call: Call) -> DealState:
        if self.phase != "auction":
            raise IllegalAction("call", "no call is due: the auction is over")
        auction = self.auction.apply(call)
        contract = auction.contract
        if not auction.is_over or contract is None:
            return replace(self, auction=auction)
        play = PlayState.start(play_deal(self.deal, self.dealer, contract.declarer), contract)
        return replace(self, auction=auction, play=play)

    def _make_claim(self, player: Seat, tricks: int) -> DealState:
        if self.phase != "play":
            raise IllegalAction("claim", "claims are made during the play")
        if self.claim is not None:
            raise IllegalAction("claim", f"a claim by {self.claim.player.letter} is already pending")
        if player not in self.players:
            raise IllegalAction("player", f"{player.letter} is the widow and cannot claim")
        assert self.play is not None
        left = self.play.tricks_left
        if not isinstance(tricks, int) or isinstance(tricks, bool) or not 0 <= tricks <= left:
            raise InvalidInput("tricks", f"expected a whole number of tricks from 0 to {left}, got {tricks!r}")
        return replace(self, claim=Claim(player, tricks, left))

    def _answer_claim(self, player: Seat, agree: bool) -> DealState:
        if self.claim is None:
            raise IllegalAction("claim", "there is no claim to answer")
        if player not in self.awaiting:
            raise IllegalAction("player", f"{player.letter} has no claim to answer")
        if not agree:
            return replace(self, claim=None)
        claim = replace(self.claim, agreed=self.claim.agreed | {player})
        if len(claim.agreed) < 2:
            return replace(self, claim=claim)
        assert self.play is not None
        return replace(self, play=self.play.agreed_claim(self.seat_of(claim.player), claim.tricks), claim=None)

    # --- result --------------------------------------------------------------------------------
    @property
    def declarer_tricks(self) -> int:
        """Tricks won so far by the declarer's side (claimed ones included); 0 when thrown in."""
        return 0 if self.play is None else self.play.declarer_tricks

    def score(self, scheme: ScoringScheme | str = "classic") -> DealScore:
        """The score of the finished deal under ``scheme`` (honours counted when the scheme scores them)."""
        if not self.is_terminal():
            raise IllegalAction("score", f"the deal is not over (phase {self.phase})")
        scheme_obj = get_scheme(scheme)
        contract = self.contract
        if contract is None or self.play is None:
            return score_deal(None, 0, scheme_obj)
        honours = honours_held(self.play.deal, contract) if scheme_obj.honours else None
        return score_deal(contract, self.play.declarer_tricks, scheme_obj, honours)

    def points(self, scheme: ScoringScheme | str = "classic") -> dict[Seat, int]:
        """Each player's points (keyed by dealing seat) for the finished deal; zeros when thrown in."""
        score = self.score(scheme)
        out = {p: 0 for p in self.players}
        contract = self.contract
        if contract is None:
            return out
        declarer = contract.declarer
        lho, rho = self.player_at(declarer.lho), self.player_at(declarer.rho)
        assert lho is not None and rho is not None
        out[declarer] = int(score.declarer)
        out[lho] = int(score.defenders[0])
        out[rho] = int(score.defenders[1])
        return out

    # --- views ---------------------------------------------------------------------------------
    def view(self, player: Seat | int | str, reveal_all: bool = False) -> SeatView:
        """What ``player`` (a dealing seat) may see now; ``reveal_all`` adds every hand (double-dummy bots)."""
        player = Seat.parse(player, "player")
        if player not in self.players:
            raise InvalidInput("player", f"{player.letter} is the widow, not a player")
        calls = tuple(CallMade(self.auction.seat_of_call(i), c) for i, c in enumerate(self.auction.calls))
        base = SeatView(
            player=player,
            seat=self.seat_of(player),
            phase=self.phase,
            dealer=self.dealer,
            hand=self.deal[player],
            auction=self.auction,
            calls=calls,
            held=frozenset(self.deal[player].cards),
            contract=self.contract,
            seats={p: self.seat_of(p) for p in self.players},
            turn=self.turn,
            legal=tuple(self.legal_actions(player)),
            claim=self.claim,
            all_hands=self.deal if reveal_all or self.phase == "done" else None,
        )
        if self.play is None:
            return base
        return self._play_view(base, reveal_all)

    def _play_view(self, base: SeatView, reveal_all: bool) -> SeatView:
        play = self.play
        assert play is not None
        played = self._cards_played()
        tricks = tuple(
            TrickSeen(leader, played[4 * i : 4 * i + 4], winner)
            for i, (leader, _cards, winner) in enumerate(play.tricks)
        )
        exposed = play.dummy_exposed
        claimer_held = None
        if self.claim is not None and self.claim.player != base.player:
            claimer_held = frozenset(play.remaining(self.seat_of(self.claim.player)))
        return replace(
            base,
            held=frozenset(play.remaining(base.seat)),
            dummy=play.deal[play.dummy] if exposed else None,
            dummy_held=frozenset(play.remaining(play.dummy)) if exposed else None,
            played=played,
            tricks=tricks,
            declarer_tricks=play.declarer_tricks,
            defender_tricks=play.defender_tricks,
            to_play=self.to_play,
            claimer_held=claimer_held,
            all_hands=play.deal if reveal_all or self.phase == "done" else None,
        )

    def _cards_played(self) -> tuple[CardPlayed, ...]:
        """Every card played with its play seat and the player who chose it."""
        assert self.play is not None
        out: list[CardPlayed] = []
        declarer, dummy = self.play.declarer, self.play.dummy
        for leader, cards, _winner in self.play.tricks:
            for i, card in enumerate(cards):
                seat = Seat((int(leader) + i) % 4)
                out.append(CardPlayed(seat, self._chooser(seat, declarer, dummy), card))
        for seat, card in self.play.current_trick:
            out.append(CardPlayed(seat, self._chooser(seat, declarer, dummy), card))
        return tuple(out)

    def _chooser(self, seat: Seat, declarer: Seat, dummy: Seat) -> Seat:
        player = declarer if seat == dummy else self.player_at(seat)
        assert player is not None
        return player


def replay(
    deal: Deal,
    dealer: Seat | int | str,
    calls: list[Call | str] | tuple[Call | str, ...],
    cards: list[Card | str] | tuple[Card | str, ...] = (),
    options: AuctionOptions | None = None,
    claim: tuple[Seat, int] | None = None,
) -> DealState:
    """The state after ``calls`` and ``cards`` (and an agreed claim by a play seat), every action checked."""
    state = DealState.start(deal, dealer, options)
    for i, call in enumerate(calls):
        try:
            state = state.apply(Call.parse(call, f"calls[{i}]") if isinstance(call, str) else call)
        except IllegalAction as exc:
            raise IllegalAction(f"calls[{i}]", exc.detail) from None
    for i, card in enumerate(cards):
        try:
            state = state.apply(Card.parse(card, f"cards[{i}]") if isinstance(card, str) else card)
        except IllegalAction as exc:
            raise IllegalAction(f"cards[{i}]", exc.detail) from None
    if claim is not None:
        if state.play is None or state.phase != "play":
            raise IllegalAction("claim", "a claim needs a deal in play")
        seat, tricks = claim
        if not 0 <= int(tricks) <= state.play.tricks_left:
            raise InvalidInput("claim.tricks", f"expected 0..{state.play.tricks_left}, got {tricks}")
        state = replace(state, play=state.play.agreed_claim(Seat(seat), int(tricks)))
    return state


def options_from(data: Mapping[str, object] | None) -> AuctionOptions:
    """Auction options from a JSON-like mapping (``ranking``, ``dealer_must_bid``), types checked."""
    data = data or {}
    ranking = data.get("ranking", "contract")
    must_bid = data.get("dealer_must_bid", False)
    if not isinstance(must_bid, bool):
        raise InvalidInput("options.dealer_must_bid", f"expected true or false, got {must_bid!r}")
    if ranking not in ("contract", "value"):
        raise InvalidInput("options.ranking", f"expected 'contract' or 'value', got {ranking!r}")
    return AuctionOptions(ranking=ranking, dealer_must_bid=must_bid)  # type: ignore[arg-type]
