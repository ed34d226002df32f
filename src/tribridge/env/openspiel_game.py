"""3PAB as an OpenSpiel Python game, registered as ``python_tribridge`` (needs ``pip install 'tribridge[openspiel]'``).

::

    import pyspiel
    import tribridge.env.openspiel_game  # registers the game
    game = pyspiel.load_game("python_tribridge", {"mode": "bidding"})

Chance deals the cards one by one (chance action = card number, card k of the deal to seat
N E S W in turn); players 0, 1, 2 are the calling positions (dealer, dealer's left, dealer's
right); the actions are ``tribridge.selfplay.actions`` numbers (claims left out); ``returns()`` are
each player's points under ``scheme``. Every rule comes from ``DealState``. Parameters: ``mode``
(``full`` or ``bidding``: the auction only, the contract scored from ``tricks``, ``estimate`` or
``dd``), ``scheme``, ``dealer`` (0..3). The observation tensor is ``selfplay.encoding``'s vector.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pyspiel

from tribridge.cards import Deal, Hand, Seat
from tribridge.errors import InvalidInput
from tribridge.rules.auction import Denom
from tribridge.rules.deal import DealState
from tribridge.rules.scoring import get_scheme, honour_points
from tribridge.rules.view import MakeClaim
from tribridge.selfplay.actions import FIRST_CARD, N_ACTIONS, N_CALLS, action_of, action_to_text, decode
from tribridge.selfplay.batch import MAX_CALLS
from tribridge.selfplay.contracts import check_tricks_source, score_table, settle
from tribridge.selfplay.encoding import BIDDING_SIZE, FULL_SIZE, encode_view

__all__ = ["GAME_NAME", "TribridgeGame", "TribridgeObserver", "TribridgeState"]

GAME_NAME = "python_tribridge"
_DEFAULTS = {"mode": "full", "scheme": "classic", "tricks": "estimate", "dealer": 0}
_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Three-player auction bridge (tribridge)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=3,
    min_num_players=3,
    provides_information_state_string=False,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)


def _utility_bounds(scheme_name: str) -> tuple[float, float]:
    """The least and the most a player can score in one deal under the scheme (honours included)."""
    scheme = get_scheme(scheme_name)
    table = score_table(replace(scheme, honours=False))
    extra = max(honour_points(c, d, scheme) for c in range(6) for d in Denom) if scheme.honours else 0
    return float(min(table.min(), 0)), float(table.max() + extra)


class TribridgeGame(pyspiel.Game):
    """The game; ``params`` as in the module docstring."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        merged = {**_DEFAULTS, **(params or {})}
        self.mode = str(merged["mode"])
        if self.mode not in ("full", "bidding"):
            raise InvalidInput("mode", f"expected full or bidding, got {self.mode!r}")
        self.scheme = str(merged["scheme"])
        self.tricks = check_tricks_source(str(merged["tricks"]))
        self.dealer = Seat.parse(int(merged["dealer"]), "dealer")
        low, high = _utility_bounds(self.scheme)
        bidding = self.mode == "bidding"
        info = pyspiel.GameInfo(
            num_distinct_actions=N_CALLS if bidding else N_ACTIONS,
            max_chance_outcomes=52,
            num_players=3,
            min_utility=low,
            max_utility=high,
            max_game_length=MAX_CALLS + (0 if bidding else 52),
        )
        super().__init__(_GAME_TYPE, info, merged)

    def new_initial_state(self) -> TribridgeState:
        """The state before the first card is dealt."""
        return TribridgeState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> TribridgeObserver:
        """The observer of one player's view (``selfplay.encoding``)."""
        return TribridgeObserver(self.mode == "bidding", params)


class TribridgeState(pyspiel.State):
    """A deal being dealt (chance), then a ``DealState``."""

    def __init__(self, game: TribridgeGame) -> None:
        super().__init__(game)
        self.mode, self.scheme, self.tricks, self.dealer = game.mode, game.scheme, game.tricks, game.dealer
        self.dealt: list[int] = []
        self.deal_state: DealState | None = None

    def current_player(self) -> int:
        """The player to act, CHANCE while dealing, TERMINAL at the end."""
        if self.deal_state is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self._over():
            return int(pyspiel.PlayerId.TERMINAL)
        assert self.deal_state.turn is not None
        return self.deal_state.players.index(self.deal_state.turn)

    def _over(self) -> bool:
        state = self.deal_state
        return state is not None and (state.is_terminal() or (self.mode == "bidding" and state.phase != "auction"))

    def _legal_actions(self, player: int) -> list[int]:
        """The legal action numbers of ``player``, ascending (claims left out)."""
        state = self.deal_state
        if state is None or self._over() or player != self.current_player():
            return []
        return sorted(action_of(a) for a in state.legal_actions() if not isinstance(a, MakeClaim))  # type: ignore[arg-type]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The cards not dealt yet, equally likely."""
        rest = sorted(set(range(52)) - set(self.dealt))
        return [(c, 1.0 / len(rest)) for c in rest]

    def _apply_action(self, action: int) -> None:
        if self.deal_state is None:
            self.dealt.append(int(action))
            if len(self.dealt) == 52:
                hands = tuple(Hand.from_cards(self.dealt[s::4]) for s in range(4))
                self.deal_state = DealState.start(Deal(hands), self.dealer)  # type: ignore[arg-type]
            return
        state = self.deal_state.apply(decode(int(action)))
        if self.mode == "bidding" and state.phase != "auction":
            state = settle(state, self.tricks)
        self.deal_state = state

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"Deal:{action_to_text(FIRST_CARD + int(action))}"
        return action_to_text(int(action))

    def is_terminal(self) -> bool:
        """True once the deal is over (in the bidding mode: once the auction is)."""
        return self._over()

    def returns(self) -> list[float]:
        """Each player's points at the end, zeros before."""
        if not self._over():
            return [0.0, 0.0, 0.0]
        assert self.deal_state is not None
        points = self.deal_state.points(self.scheme)
        return [float(points[p]) for p in self.deal_state.players]

    def __str__(self) -> str:
        if self.deal_state is None:
            return f"dealing: {len(self.dealt)} cards dealt"
        state = self.deal_state
        text = f"{state.deal.to_pbn()} dealer {state.dealer.letter}; calls {' '.join(map(str, state.auction.calls))}"
        if state.contract is not None:
            text += f"; {state.contract} by {state.contract.declarer.letter}, tricks {state.declarer_tricks}"
        return text


class TribridgeObserver:
    """OpenSpiel's PyObserver over ``selfplay.encoding``: ``tensor`` and ``dict`` (block name -> view)."""

    def __init__(self, bidding_only: bool, params: Any = None) -> None:
        if params:
            raise InvalidInput("params", f"the observer takes no parameters, got {params!r}")
        self.bidding_only = bidding_only
        self.tensor = np.zeros(BIDDING_SIZE if bidding_only else FULL_SIZE, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: TribridgeState, player: int) -> None:
        """The tensor of ``player``'s view (zeros while dealing)."""
        self.tensor.fill(0.0)
        if state.deal_state is not None:
            view = state.deal_state.view(state.deal_state.players[player])
            self.tensor[:] = encode_view(view, bidding_only=self.bidding_only)

    def string_from(self, state: TribridgeState, player: int) -> str:
        """The player's hand and the auction as text."""
        if state.deal_state is None:
            return f"dealing ({len(state.dealt)} cards)"
        view = state.deal_state.view(state.deal_state.players[player])
        calls = " ".join(str(c.call) for c in view.calls)
        return f"player {player} hand {Hand(view.held).to_pbn()} calls {calls or '-'} phase {view.phase}"


pyspiel.register_game(_GAME_TYPE, TribridgeGame)
