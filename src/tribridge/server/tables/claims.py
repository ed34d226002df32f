"""Is a pending claim sound from the claimer's side of the table? How a bot answers a claim.

A bot agrees to a claim only when it holds on every layout the claimer could face: the cards the
claimer has not seen (for a declarer, the defenders' unplayed cards; for a defender, the declarer's
and the other defender's) are dealt every way consistent with what the claimer saw (its own hand,
dummy once the opening lead is made, every card played and the suits each seat has shown out of),
each layout is solved double dummy, and the claim must make on all of them. When there are at most
``MAX_LAYOUTS`` such layouts all of them are solved; otherwise ``MAX_LAYOUTS`` are drawn uniformly
(``bots.belief.sample_layouts``), with a seed taken from what the claimer saw. So the answer is a
function of the claimer's view alone: a dispute tells the claimer nothing it could not work out,
and the same claim in the same position always gets the same answer.
"""

from __future__ import annotations

import hashlib
import itertools
import math

import numpy as np

from tribridge.bots.belief import Knowledge, build_knowledge, sample_layouts
from tribridge.cards import Deal
from tribridge.dd import Priority, position_after, solve_positions, solving_at
from tribridge.errors import InvalidInput
from tribridge.rules.deal import DealState
from tribridge.rules.play import PlayState

__all__ = ["MAX_LAYOUTS", "claim_holds_everywhere", "claimer_knowledge", "claimer_layouts", "played_by_seat"]

MAX_LAYOUTS = 48  # layouts solved per claim answer (all of them when there are no more)


def played_by_seat(play: PlayState) -> list[tuple[int, int]]:
    """Every card played so far with the play seat that played it, in order."""
    out: list[tuple[int, int]] = []
    for leader, cards, _winner in play.tricks:
        out += [((int(leader) + k) % 4, card.index) for k, card in enumerate(cards)]
    out += [(int(seat), card.index) for seat, card in play.current_trick]
    return out


def claimer_knowledge(state: DealState) -> Knowledge:
    """What the claimer of the pending claim has seen, in play seats (its hand, dummy after the lead, the play)."""
    claim, play = state.claim, state.play
    if claim is None or play is None:
        raise InvalidInput("claim", "there is no pending claim")
    seat = state.seat_of(claim.player)
    known = {int(seat): play.deal[seat].cards}
    if play.dummy_exposed:
        known[int(play.dummy)] = play.deal[play.dummy].cards
    voids = {int(s): suits for s, suits in play.voids_shown.items()}
    return build_knowledge(known, played_by_seat(play), voids)


def _enumerate(knowledge: Knowledge) -> np.ndarray | None:
    """Every layout consistent with ``knowledge`` when two seats hide cards and there are few layouts; else None."""
    needs = knowledge.needs()
    hidden = [s for s in range(4) if needs[s] > 0]
    unseen = knowledge.unseen()
    if len(hidden) != 2 or math.comb(len(unseen), needs[hidden[0]]) > MAX_LAYOUTS:
        return None
    first, second = hidden
    base = np.array(knowledge.known_owner, dtype=np.int16)
    rows = []
    for chosen in itertools.combinations(unseen, needs[first]):
        rest = [c for c in unseen if c not in chosen]
        if any(c // 13 in knowledge.voids[first] for c in chosen):
            continue
        if any(c // 13 in knowledge.voids[second] for c in rest):
            continue
        row = base.copy()
        row[list(chosen)] = first
        row[rest] = second
        rows.append(row)
    return np.array(rows, dtype=np.uint8).reshape(-1, 52)


def claimer_layouts(knowledge: Knowledge, seed_extra: bytes = b"") -> np.ndarray:
    """The layouts the claimer could face (``uint8[k, 52]`` owners in play seats): all of them, or a fixed sample."""
    every = _enumerate(knowledge)
    if every is not None:
        return every
    digest = hashlib.sha256(knowledge.key() + seed_extra).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "big"))
    return sample_layouts(knowledge, MAX_LAYOUTS, rng).layouts


def claim_holds_everywhere(state: DealState, priority: Priority = Priority.INTERACTIVE) -> bool:
    """Whether the pending claim makes, double dummy, on every layout the claimer could face (see the module doc)."""
    claim, play = state.claim, state.play
    if claim is None or play is None or play.turn is None:
        raise InvalidInput("claim", "there is no pending claim")
    knowledge = claimer_knowledge(state)
    layouts = claimer_layouts(knowledge, f"{claim.player.letter}{claim.tricks}".encode())
    trump = None if play.trump is None else int(play.trump)
    played = list(play.played)
    leader = int(play.declarer.lho)
    positions = [position_after(Deal.from_owners(owners), trump, leader, played) for owners in layouts]
    with solving_at(priority):
        solutions = solve_positions(positions, best_only=True)
    claimer_seat = state.seat_of(claim.player)
    same_side = (int(claimer_seat) - int(play.turn)) % 2 == 0
    for solution in solutions:
        best_for_turn = max(solution.values())
        claimer_best = best_for_turn if same_side else play.tricks_left - best_for_turn
        if claimer_best < claim.tricks:
            return False
    return True
