"""Our LIN read by endplay's LIN reader (an independent implementation): the same deal, calls, contract and cards."""

from __future__ import annotations

from endplay.parsers import lin as endplay_lin
from endplay.types import Player

from conftest import DENOM, PENALTY, endplay_call, random_game, seat_of
from tribridge.cards import Seat
from tribridge.rules.lin import record_to_lin


def test_endplay_reads_the_same_deal_calls_contract_and_play():
    records = [random_game(seed) for seed in range(60)]
    text = "".join(record_to_lin(r, board=i + 1) for i, r in enumerate(records))
    boards = endplay_lin.loads(text)
    assert len(boards) == len(records)
    claims = 0
    for number, (board, record) in enumerate(zip(boards, records), 1):
        assert board.board_num == number
        assert seat_of(board.dealer) == record.dealer
        for player in Player:  # the hands in play seats, the widow's as dummy opposite the declarer
            assert board.deal[player].to_pbn() == record.play_deal[seat_of(player)].to_pbn()
        dummy = record.dealer.partner if record.contract is None else record.contract.declarer.partner
        theirs = [(Seat((int(record.dealer) + i) % 4), endplay_call(b)) for i, b in enumerate(board.auction)]
        assert [c for seat, c in theirs if seat != dummy] == [str(c) for c in record.calls]
        assert all(c == "P" for seat, c in theirs if seat == dummy)
        assert [(DENOM[c.suit.name], c.rank.abbr) for c in board.play] == [(str(c)[0], str(c)[1]) for c in record.play]
        if record.contract is None:
            assert board.contract is None or board.contract.is_passout()
            continue
        contract, ours = board.contract, record.contract
        assert seat_of(contract.declarer) == ours.declarer
        assert (contract.level, DENOM[contract.denom.name]) == (ours.level, ours.denom.letter)
        assert PENALTY[contract.penalty] == ("P", "X", "XX")[ours.doubling]
        if record.claimed is not None:  # mc: endplay takes the result from it (from a played-out deal it
            # counts the tricks of whoever leads each trick as if North always led, so that is not compared)
            assert contract.result == record.declarer_tricks - ours.tricks_needed
            claims += 1
    assert claims > 5
