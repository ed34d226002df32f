"""Undo by consent at the table level: the deal is replayed without the undone action, against a plain replay."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.errors import IllegalAction
from tribridge.rules.view import AgreeClaim, DisputeClaim, MakeClaim
from tribridge.server.tables.table import Table
from tribridge.server.tables.undo import MAX_UNDO_ASKS

PEOPLE = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]


def new_table(chairs=PEOPLE, seed: int = 3) -> Table:
    """A begun table (chairs 0 and 1 people) on a chosen seed, next deal by consent as new tables are."""
    table = Table("t", {"chairs": chairs, "scheme": "classic", "deals": {"seed": seed}, "next_consent": True})
    table.begin()
    return table


def act(table: Table, chair: int | None, action: dict) -> None:
    """Check and install one action, as the manager does."""
    table.install(table.prepare(chair, action))


def some_action(table: Table, pick: int) -> tuple[int, dict]:
    """The chair on turn and one of its legal calls or cards (never a claim), chosen by ``pick``."""
    state = table.current()
    chair = table.chair_of_player(state.turn)
    assert chair is not None
    legal = [a for a in state.legal_actions(state.turn) if not isinstance(a, MakeClaim | AgreeClaim | DisputeClaim)]
    choice = legal[pick % len(legal)]
    key = "call" if state.phase == "auction" else "card"
    return chair, {"type": "call" if key == "call" else "play", key: str(choice)}


def reference_state(table: Table, actions: list[tuple[int, dict]]):
    """The state after ``actions`` from the deal's start, applied one by one through the rules (the reference)."""
    state = table.start_deal(table.deal_no)
    for chair, action in actions:
        state = state.apply(action.get("call") or action["card"], table.player_of(chair))
    return state


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 60), min_size=1, max_size=30), st.integers(0, 2**20))
def test_an_agreed_undo_equals_the_deal_without_that_action(picks, seed):
    """After k actions, the last actor's undo (agreed by the other person) leaves the state of the first k-1."""
    table = new_table(seed=seed)
    done: list[tuple[int, dict]] = []
    for pick in picks:
        if table.current().phase != "auction" and table.current().phase != "play":
            break
        chair, action = some_action(table, pick)
        act(table, chair, action)
        done.append((chair, action))
    last_chair = done[-1][0]
    if table.current().phase == "done" or table.is_bot(last_chair):
        with pytest.raises(IllegalAction):
            act(table, 0 if last_chair != 0 else 1, {"type": "undo"})
        return
    opening_lead = done[-1][1]["type"] == "play" and all(a["type"] == "call" for _, a in done[:-1])
    if opening_lead:  # the lead showed the widow: it stays
        with pytest.raises(IllegalAction, match="opening lead"):
            act(table, last_chair, {"type": "undo"})
        return
    act(table, last_chair, {"type": "undo"})
    assert table.undo_request is not None and table.version > 0
    act(table, 1 - last_chair, {"type": "undo_agree"})
    assert table.current() == reference_state(table, done[:-1])
    assert table.undone[-1] == {"chair": last_chair, "action": done[-1][1], "at": len(done) - 1}


def test_a_refused_or_overtaken_undo_changes_nothing_and_replays():
    """A refusal keeps the call; an undo agreed in a log replays to the same table (the log holds the undo)."""
    table = new_table()
    log = [(0, {"type": "call", "call": "1C"}), (0, {"type": "undo"}), (1, {"type": "undo_refuse"})]
    for chair, action in log:
        act(table, chair, action)
    assert len(table.current().auction.calls) == 1 and table.undo_request is None
    with pytest.raises(IllegalAction):
        act(table, 1, {"type": "undo"})  # chair 1 made no call yet
    with pytest.raises(IllegalAction, match="refused"):
        act(table, 0, {"type": "undo"})  # a refused request is not asked again at once
    agreed = [(0, {"type": "call", "call": "1C"}), (0, {"type": "undo"}), (1, {"type": "undo_agree"})]
    agreed.append((0, {"type": "call", "call": "1D"}))
    table = new_table()
    for chair, action in agreed:
        act(table, chair, action)
    replayed = new_table()
    for chair, action in agreed:
        act(replayed, chair, action)
    assert replayed.current() == table.current() and replayed.version == table.version
    assert [str(c) for c in table.current().auction.calls] == ["1D"]


def test_undo_requests_are_limited_per_player_in_a_deal():
    """A player asks at most MAX_UNDO_ASKS undos in a deal, agreed or not; the next deal starts the count again."""
    table = new_table()
    for call in ("1C", "1D", "1H"):
        act(table, 0, {"type": "call", "call": call})
        act(table, 0, {"type": "undo"})
        act(table, 1, {"type": "undo_agree"})
    act(table, 0, {"type": "call", "call": "1S"})
    with pytest.raises(IllegalAction, match=f"at most {MAX_UNDO_ASKS}"):
        act(table, 0, {"type": "undo"})
    assert MAX_UNDO_ASKS == 3


def test_alone_with_bots_the_undo_is_at_once_and_next_deal_needs_everyone():
    """With only bots as the others, an undo happens when asked; Next deal waits for every person."""
    table = new_table([{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}])
    act(table, 0, {"type": "call", "call": "2S"})
    act(table, 0, {"type": "undo"})
    assert len(table.current().auction.calls) == 0 and table.undone[0]["action"]["call"] == "2S"
    two = new_table()
    for _ in range(3):
        state = two.current()
        act(two, two.chair_of_player(state.turn), {"type": "call", "call": "P"})
    assert two.current().phase == "done"
    act(two, 0, {"type": "next"})
    assert two.deal_no == 1 and two.next_ready == {0}
    with pytest.raises(IllegalAction):
        act(two, 0, {"type": "next"})
    act(two, 1, {"type": "next"})
    assert two.deal_no == 2 and two.next_ready == frozenset()
