"""Our PBN and LIN of random played deals, with and without reseating, read by endplay's readers.

endplay is an independent reader: it must find every call in the seat of the player who made it
(play seats, the widow passing in the dummy's seat), one frame of seats for the deal, the auction,
the declarer and the play, and cards that, replayed by the rules of trick play, win the tricks
the record says.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from endplay.parsers import lin as endplay_lin
from endplay.parsers import pbn as endplay_pbn
from endplay.types import Board, Player

from conftest import DENOM, endplay_call, random_game, seat_of
from tribridge.cards import Seat
from tribridge.rules.game import DealRecord
from tribridge.rules.lin import record_to_lin
from tribridge.rules.pbn import read_boards

RECORDS = [random_game(seed) for seed in range(80)]


def _callers(record: DealRecord) -> list[Seat]:
    """The play seat of the player who made each call (the players call in turn from the dealer, skipping the widow)."""
    order = (record.dealer, record.dealer.lho, record.dealer.rho)
    return [record.seat_map[order[i % 3]] for i in range(len(record.calls))]


def _tricks(board: Board) -> list[tuple[Seat, Seat]]:
    """Each trick's leader and winner from endplay's cards: highest trump, else highest of the suit led."""
    trump = DENOM[board.contract.denom.name]
    leader, out = seat_of(board.contract.declarer).lho, []
    cards = [(DENOM[c.suit.name], "23456789TJQKA".index(c.rank.abbr)) for c in board.play]
    for start in range(0, len(cards) - len(cards) % 4, 4):
        trick = cards[start : start + 4]
        led = trick[0][0]
        best = max(range(4), key=lambda k: (trick[k][0] == trump, trick[k][0] == led, trick[k][1]))
        winner = Seat((int(leader) + best) % 4)
        out.append((leader, winner))
        leader = winner
    return out


def _check(board: Board, record: DealRecord) -> None:
    """The deal, every call in its seat, the contract and the tricks as the record has them."""
    assert seat_of(board.dealer) == record.dealer
    for player in Player:
        assert board.deal[player].to_pbn() == record.play_deal[seat_of(player)].to_pbn()
    dummy = record.seat_map[record.widow]
    theirs = [(Seat((int(record.dealer) + i) % 4), endplay_call(b)) for i, b in enumerate(board.auction)]
    assert [(s, c) for s, c in theirs if s != dummy] == list(zip(_callers(record), map(str, record.calls)))
    assert all(c == "P" for s, c in theirs if s == dummy)
    assert theirs[-3:] == [(s, "P") for s, _ in theirs[-3:]]  # a four-handed auction that is over
    if record.contract is None:
        assert len(theirs) == 4 and (board.contract is None or board.contract.is_passout())
        return
    assert seat_of(board.contract.declarer) == record.contract.declarer
    state = record.play_state()
    assert state is not None
    assert _tricks(board) == [(leader, winner) for leader, _cards, winner in state.tricks]
    if record.claimed is None:
        assert sum(w in (record.contract.declarer, dummy) for _, w in _tricks(board)) == record.declarer_tricks


def test_the_sample_has_reseated_passed_out_and_claimed_deals():
    reseated = [r for r in RECORDS if r.contract is not None and r.seat_map[r.widow] != r.widow]
    assert len(reseated) > 10 and any(r.contract is None for r in RECORDS)
    assert any(r.claimed is not None for r in reseated)


@pytest.mark.parametrize("reseated", [True, False])
def test_endplay_reads_our_pbn_in_one_frame_of_seats(reseated):
    records = [r for r in RECORDS if (r.contract is not None and r.seat_map[r.widow] != r.widow) == reseated]
    text = "\n".join(r.to_pbn(board=i + 1) for i, r in enumerate(records))
    boards = endplay_pbn.loads(text)
    assert len(boards) == len(records)
    for board, record in zip(boards, records):
        _check(board, record)
        if record.contract is not None:
            assert board.contract.level + 6 + board.contract.result == record.declarer_tricks


@pytest.mark.parametrize("reseated", [True, False])
def test_endplay_reads_our_lin_in_one_frame_of_seats(reseated):
    records = [r for r in RECORDS if (r.contract is not None and r.seat_map[r.widow] != r.widow) == reseated]
    boards = endplay_lin.loads("".join(record_to_lin(r, board=i + 1) for i, r in enumerate(records)))
    assert len(boards) == len(records)
    for board, record in zip(boards, records):
        _check(board, record)


def test_we_read_back_what_we_write():
    for record in RECORDS:
        assert DealRecord.from_pbn(record.to_pbn()) == record


def test_we_read_the_older_form():
    """Records written before the widow's turns were passes (``-`` in the widow's dealt column, calls in dealt seats)."""
    text = (Path(__file__).parent / "old_form.pbn").read_text()
    boards = read_boards(text, "old_form.pbn")
    assert len(boards) == 12 and all("-" in [t for t, _ in b.sections["Auction"]] for b in boards)
    for board in boards:
        assert DealRecord.from_pbn(board) == random_game(int(board.number or ""))
