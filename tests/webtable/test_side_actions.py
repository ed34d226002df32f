"""Table talk, watcher permissions and the score sheet's per-deal bonuses, at the table level (no server)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.cards import Seat
from tribridge.errors import InvalidInput
from tribridge.rules.auction import Contract, Denom
from tribridge.rules.scoring import get_scheme, score_deal
from tribridge.server.tables.table import Table, score_sheet
from tribridge.server.tables.wire import parse_action

PEOPLE = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]


def new_table() -> Table:
    """A begun table of two people and a bot on a chosen seed."""
    table = Table("t", {"chairs": PEOPLE, "scheme": "classic", "deals": {"seed": 5}, "next_consent": True})
    table.begin()
    return table


def act(table: Table, chair: int | None, action: dict) -> None:
    """Read, check and install one action, as the manager does."""
    table.install(table.prepare(chair, parse_action(action)))


def test_talk_and_sharing_leave_the_game_alone_and_replay():
    """Messages and permissions change neither the deal nor the version; replaying the log restores them."""
    table = new_table()
    log = [
        (0, {"type": "say", "text": "  good   luck  "}),
        (1, {"type": "say", "text": "y" * 300}),
        (1, {"type": "watchers", "allow": True}),
        (0, {"type": "call", "call": "1C"}),
        (1, {"type": "watchers", "allow": False}),
    ]
    for chair, action in log:
        act(table, chair, action)
    assert table.talk.messages == [(0, "good luck"), (1, "y" * 200)]
    assert table.talk.shown_to_watchers == set()
    assert table.version == 1 and len(table.current().auction.calls) == 1  # only the call counts
    replayed = new_table()
    for chair, action in log:
        act(replayed, chair, action)
    assert replayed.talk.messages == table.talk.messages and replayed.version == table.version
    for chair, action in (
        (2, {"type": "say", "text": "hi"}),
        (0, {"type": "say", "text": "a\x07"}),
        (0, {"type": "say", "text": "   "}),
        (0, {"type": "watchers", "allow": "yes"}),
    ):
        with pytest.raises(InvalidInput):
            table.prepare(chair, parse_action(action))


def history_entry(deal_no: int, declarer: int, level: int, denom: int, doubling: int, tricks: int) -> dict:
    """A finished deal's record as the score sheet reads it (chairs 0..2, the others defending)."""
    contract = Contract(level, Denom(denom), doubling, Seat.N)
    score = score_deal(contract, tricks, "classic")
    defenders = [c for c in range(3) if c != declarer]
    per_chair = [score.declarer if c == declarer else score.each_defender for c in range(3)]
    return {
        "deal_no": deal_no,
        "contract": str(contract),
        "declarer_chair": declarer,
        "defender_chairs": defenders,
        "declarer_tricks": tricks,
        "scores": {"per_chair": per_chair},
        "record": {"score": score.to_json()},
    }


deals = st.lists(
    st.tuples(st.integers(0, 2), st.integers(1, 7), st.integers(0, 4), st.integers(0, 2), st.integers(0, 13)),
    min_size=1,
    max_size=12,
)


@settings(max_examples=60, deadline=None)
@given(deals)
def test_each_deals_change_is_its_points_plus_the_bonuses_it_won(played):
    """A deal's change of total = its points plus the game and rubber bonuses it won; the changes add to the totals."""
    table = new_table()
    table.history = [history_entry(i + 1, *deal) for i, deal in enumerate(played)]
    sheet = score_sheet(table)
    scheme = get_scheme("classic")
    for entry in sheet["deals"]:
        bonus = [sum(b["points"] for b in entry["bonuses"] if b["chair"] == c) for c in range(3)]
        assert entry["change"] == [p + b for p, b in zip(entry["per_chair"], bonus)]
        assert all(b["points"] in (scheme.game_bonus, scheme.rubber_bonus) for b in entry["bonuses"])
    assert [sum(e["change"][c] for e in sheet["deals"]) for c in range(3)] == sheet["totals"]
