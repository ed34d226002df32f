"""LIN round trips: a played 3PAB deal written by ``record_to_lin`` reads back as the same deal, calls and cards."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import random_game
from tribridge.cards import Seat
from tribridge.rules.lin import history_to_lin, read_lin, record_to_lin

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)


@settings(max_examples=60, deadline=None)
@given(SEEDS)
def test_a_played_deal_reads_back_as_the_same_record(seed):
    record = random_game(seed)
    [board] = read_lin(record_to_lin(record, board=3))
    assert board.record() == record  # deal as dealt, dealer, calls, cards, claim, tricks, score, scheme, options
    assert board.dealt() == (record.deal, record.dealer)
    assert board.deal() == record.play_deal  # md holds the hands in play seats
    assert board.number == "3"


@settings(max_examples=30, deadline=None)
@given(SEEDS, st.data())
def test_explanations_and_names_survive(seed, data):
    record = random_game(seed)
    words = st.text(alphabet="abc 12♠♥♦♣+-", min_size=1, max_size=12).map(str.strip).filter(bool)
    texts = [data.draw(st.none() | words) for _ in record.calls]
    names = {seat: data.draw(st.sampled_from(["Ann", "Bo Li", "Cy"])) for seat in record.auction().bidders}
    [board] = read_lin(record_to_lin(record, 1, names, texts))
    assert board.explanations() == texts
    shown = board.names  # play seats: each player where it sits after the reseating, the widow as dummy
    assert shown[record.seat_map[record.widow]] == "widow"
    for player, name in names.items():
        assert shown[record.seat_map[player]] == name


def test_the_widow_is_dummy_opposite_the_declarer_and_only_passes():
    for seed in range(40):
        record = random_game(seed)
        [board] = read_lin(record_to_lin(record))
        dummy = record.dealer.partner if record.contract is None else record.contract.declarer.partner
        calls = board.four_handed_calls()
        widow_turns = [call for i, (call, _, _) in enumerate(calls) if (int(record.dealer) + i) % 4 == dummy]
        assert widow_turns and all(str(c) == "P" for c in widow_turns)
        assert board.deal()[dummy] == record.deal[record.widow]


def four_handed_auction_is_complete(calls: list[str]) -> bool:
    """The reference: four passes, or a bid (double, redouble) followed by exactly three passes, ends it."""
    if calls == ["P"] * 4:
        return True
    last = max((i for i, c in enumerate(calls) if c != "P"), default=-1)
    return last >= 0 and calls[last + 1 :] == ["P"] * 3


def test_the_written_auction_is_a_finished_four_handed_auction():
    for seed in range(80):
        record = random_game(seed)
        calls = [str(c) for c, _, _ in read_lin(record_to_lin(record))[0].four_handed_calls()]
        assert four_handed_auction_is_complete(calls), (seed, calls)
        for end in range(len(calls) - 1):  # and it does not end before the last call
            assert not four_handed_auction_is_complete(calls[: end + 1]), (seed, calls)


def test_a_table_history_is_one_line_per_deal_with_the_chairs_names():
    records = [random_game(seed) for seed in range(5)]
    history = []
    for number, record in enumerate(records, 1):
        bidders = record.auction().bidders
        history.append(
            {
                "deal_no": number,
                "players": ["Ann", "Bob", "Cy"],
                "chair_seats": [bidders[(number + k) % 3].letter for k in range(3)],
                "record": record.to_json(),
            }
        )
    text = history_to_lin(history)
    boards = read_lin(text, "table.lin")
    assert len(text.splitlines()) == len(boards) == 5
    assert [b.number for b in boards] == ["1", "2", "3", "4", "5"]
    for board, record, entry in zip(boards, records, history):
        assert board.record() == record
        for name, seat in zip(entry["players"], entry["chair_seats"]):
            assert board.names[record.seat_map[Seat.parse(seat)]] == name
