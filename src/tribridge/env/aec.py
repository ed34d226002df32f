"""The PettingZoo AEC environment of one 3PAB deal, every rule, legal action and score from ``DealState``.

Agents ``player_0``, ``player_1``, ``player_2`` are the three players in calling order: the
dealer, the dealer's left, the dealer's right (the widow is no agent; as declarer a player also
plays dummy's cards, so it is selected for dummy's turns too). Players given a bot in
``opponents`` are no agents: their bots act inside ``step``. Actions are ``selfplay.actions``
numbers (claims are left out: every deal is played to the last card); observations are
``{"observation": selfplay.encoding's vector, "action_mask": int8 legal actions}``. The rewards come
when the deal ends: each player's points under ``scheme`` (``rules.scoring``), or with
``relative=True`` its points minus the mean of the other two players'.

``mode="bidding"`` stops at the end of the auction and scores the contract from its tricks
(``tricks="estimate"``: the trick estimator; ``"dd"``: double dummy); the action space is then
the calls only and the observation the bidding block (``selfplay.encoding.BIDDING_SIZE``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from tribridge.bots import Bot, get_bot, plugins
from tribridge.cards import Card, Deal, Seat, random_deal
from tribridge.dealing.streams import random_stream, seed_sequence
from tribridge.errors import IllegalAction, InvalidInput
from tribridge.rules.auction import AuctionOptions, Call
from tribridge.rules.deal import DealState
from tribridge.rules.game import checked_call, checked_card
from tribridge.rules.scoring import get_scheme
from tribridge.selfplay.actions import N_ACTIONS, N_CALLS, action_mask, decode
from tribridge.selfplay.contracts import check_tricks_source, settle
from tribridge.selfplay.encoding import BIDDING_SIZE, FULL_SIZE, IncrementalEncoder

__all__ = ["AGENTS", "MODES", "env", "raw_env"]

AGENTS = ("player_0", "player_1", "player_2")
MODES = ("full", "bidding")


def env(illegal_reward: float = -1000.0, **kwargs: Any) -> AECEnv:
    """The environment with PettingZoo's classic wrappers (an illegal action ends the deal with ``illegal_reward``)."""
    wrapped: AECEnv = raw_env(**kwargs)
    wrapped = wrappers.TerminateIllegalWrapper(wrapped, illegal_reward=illegal_reward)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's name for the unwrapped class
    """One 3PAB deal as an AEC game; see the module docstring."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "name": "tribridge_v0", "is_parallelizable": False}

    def __init__(
        self,
        mode: str = "full",
        scheme: str = "classic",
        tricks: str = "estimate",
        relative: bool = False,
        opponents: Mapping[str, str] | None = None,
        dealer: Seat | int | str | None = None,
        options: AuctionOptions | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        if mode not in MODES:
            raise InvalidInput("mode", f"expected one of {', '.join(MODES)}, got {mode!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidInput("render_mode", f"expected ansi or human, got {render_mode!r}")
        self.mode = mode
        self.scheme = get_scheme(scheme)
        self.tricks = check_tricks_source(tricks)
        self.relative = bool(relative)
        self.fixed_dealer = None if dealer is None else Seat.parse(dealer, "dealer")
        self.auction_options = options or AuctionOptions()
        self.render_mode = render_mode
        self.bots: dict[str, Bot] = _opponent_bots(opponents or {})
        self.possible_agents = [a for a in AGENTS if a not in self.bots]
        if not self.possible_agents:
            raise InvalidInput("opponents", "every player is a bot: leave at least one agent")
        n_actions, size = (N_CALLS, BIDDING_SIZE) if mode == "bidding" else (N_ACTIONS, FULL_SIZE)
        self._n_actions = n_actions
        self._action_space = spaces.Discrete(n_actions)
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (n_actions,), dtype=np.int8),
            }
        )
        self._root = seed_sequence(None)
        self._deal_number = 0
        self.state: DealState | None = None
        self._encoders: dict[str, IncrementalEncoder] = {}

    # --- spaces --------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space:
        """The observation space (the same for every agent)."""
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        """The action space (the same for every agent)."""
        return self._action_space

    # --- the deal ------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new deal: deal k after ``reset(seed=s)`` is ``random_deal(random_stream(s, k))``; ``options`` may give ``deal``/``dealer``."""
        if seed is not None:
            self._root = seed_sequence(seed)
            self._deal_number = 0
        options = options or {}
        number = self._deal_number
        self._deal_number += 1
        deal = options.get("deal")
        if deal is None:
            deal = random_deal(random_stream(self._root, number))
        elif isinstance(deal, str):
            deal = Deal.from_pbn(deal, "options.deal")
        elif not isinstance(deal, Deal):
            raise InvalidInput("options.deal", f"expected a Deal or a PBN deal, got {type(deal).__name__}")
        dealer = options.get("dealer", self.fixed_dealer)
        dealer = Seat(number % 4) if dealer is None else Seat.parse(dealer, "options.dealer")
        self.state = DealState.start(deal, dealer, self.auction_options)
        bidding_only = self.mode == "bidding"
        self._encoders = {
            a: IncrementalEncoder(self.state, self.state.players[AGENTS.index(a)], bidding_only)
            for a in self.possible_agents
        }
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.scores: dict[str, int] = {a: 0 for a in AGENTS}
        self._advance()

    def step(self, action: int | None) -> None:
        """The selected agent takes ``action`` (an action number); bots then act until an agent must."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._live_state()
        if action is None or not 0 <= int(action) < self._n_actions:
            raise IllegalAction("action", f"{action!r} is not an action number 0..{self._n_actions - 1}")
        try:
            self.state = state.apply(decode(int(action)), self._seat(agent))  # the rules refuse an illegal action
        except IllegalAction as exc:
            raise IllegalAction("action", f"{action} is not legal for {agent} now: {exc.detail}") from None
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._advance()
        self._accumulate_rewards()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's observation (its ``SeatView``'s vector, kept up to date without building the view) and mask."""
        state = self._live_state()
        encoder = self._encoders[agent]
        moves = [] if self._over(state) else state.legal_moves(encoder.player)
        return {"observation": encoder.encode(state), "action_mask": action_mask(moves, self._n_actions)}

    def render(self) -> str | None:
        """The deal as text: dealer, auction, contract, tricks, and the scores when over."""
        if self.state is None:
            return None
        state = self.state
        text = f"dealer {state.dealer.letter}; calls {' '.join(str(c) for c in state.auction.calls) or '-'}"
        if state.contract is not None:
            text += f"; contract {state.contract} by {state.contract.declarer.letter}, tricks {state.declarer_tricks}"
        if all(self.terminations.get(a, False) for a in self.possible_agents):
            text += "; scores " + ", ".join(f"{a} {s}" for a, s in self.scores.items())
        if self.render_mode == "human":
            print(text)
        return text

    def close(self) -> None:
        """Nothing to release."""

    # --- inside --------------------------------------------------------------------------------
    def _live_state(self) -> DealState:
        if self.state is None:
            raise InvalidInput("reset", "call reset() before using the environment")
        return self.state

    def _seat(self, agent: str) -> Seat:
        return self._live_state().players[AGENTS.index(agent)]

    def _over(self, state: DealState) -> bool:
        return state.is_terminal() or (self.mode == "bidding" and state.phase != "auction")

    def _advance(self) -> None:
        """Let the bots act, then select the agent on turn, or end the deal and hand out the rewards."""
        state = self._live_state()
        while not self._over(state):
            agent = AGENTS[state.players.index(state.turn)]  # type: ignore[arg-type]
            if agent not in self.bots:
                self.state, self.agent_selection = state, agent
                return
            state = state.apply(_bot_action(self.bots[agent], state))
        self.state = state if state.is_terminal() else settle(state, self.tricks)
        points = self.state.points(self.scheme)
        self.scores = {AGENTS[i]: int(points[p]) for i, p in enumerate(self.state.players)}
        values = np.array([self.scores[a] for a in AGENTS], dtype=np.float64)
        if self.relative:
            values = values - (values.sum() - values) / 2.0
        for agent in self.agents:
            self.rewards[agent] = float(values[AGENTS.index(agent)])
            self.terminations[agent] = True
            self.infos[agent] = {"scores": dict(self.scores), "contract": str(self.state.contract or "passed out")}
        if self.agent_selection not in self.agents:
            self.agent_selection = self.agents[0]


def _opponent_bots(opponents: Mapping[str, str]) -> dict[str, Bot]:
    """The bots named for players (``{"player_1": "paper"}``), any bot name ``get_bot`` knows or a plug-in spec."""
    plugins.enable_named(opponents.values())
    out: dict[str, Bot] = {}
    for agent, name in opponents.items():
        if agent not in AGENTS:
            raise InvalidInput("opponents", f"expected players among {', '.join(AGENTS)}, got {agent!r}")
        out[agent] = get_bot(name)
    return out


def _bot_action(bot: Bot, state: DealState) -> Call | Card:
    """The bot's call or card for the player on turn (given the view its player may see), checked by the rules."""
    player = state.turn
    assert player is not None
    if state.phase == "auction":
        return checked_call(bot.bid, state, player)
    return checked_card(bot.player if callable(bot.player) else bot.player.play, state, player)
