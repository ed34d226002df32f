"""PBN in and out: round trips of the 3PAB record, tournament files, and endplay's PBN reader/writer as the reference."""

import numpy as np
import pytest
from endplay.parsers import pbn as endplay_pbn
from endplay.types import Board as EpBoard
from endplay.types import Card as EpCard
from endplay.types import Contract as EpContract
from endplay.types import Deal as EpDeal
from endplay.types import Denom as EpDenom
from endplay.types import Penalty as EpPenalty
from endplay.types import Player as EpPlayer
from endplay.types import Vul as EpVul
from hypothesis import given, settings
from hypothesis import strategies as st

from tribridge.cards import Deal, Seat, random_deal
from tribridge.errors import InvalidInput
from tribridge.rules.auction import AuctionOptions, Contract, Denom, opening_leader
from tribridge.rules.game import DealRecord, play_random_deal
from tribridge.rules.pbn import read_boards
from tribridge.rules.pbn_write import deal_board_pbn
from tribridge.rules.play import PlayState
from tribridge.rules.scoring import score_deal

EP_DENOM = {
    Denom.C: EpDenom.clubs,
    Denom.D: EpDenom.diamonds,
    Denom.H: EpDenom.hearts,
    Denom.S: EpDenom.spades,
    Denom.NT: EpDenom.nt,
}
EP_PENALTY = {0: EpPenalty.passed, 1: EpPenalty.doubled, 2: EpPenalty.redoubled}
EP_VUL = {"None": EpVul.none, "NS": EpVul.ns, "EW": EpVul.ew, "All": EpVul.both}


def random_record(seed: int, dealer: int, scheme: str, ranking: str, must_bid: bool) -> DealRecord:
    return play_random_deal(seed, scheme, "NESW"[dealer], AuctionOptions(ranking, must_bid))


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    dealer=st.integers(0, 3),
    scheme=st.sampled_from(["classic", "tribridge"]),
    ranking=st.sampled_from(["contract", "value"]),
    must_bid=st.booleans(),
    board=st.none() | st.integers(1, 99),
)
def test_record_round_trips_through_pbn(seed, dealer, scheme, ranking, must_bid, board):
    record = random_record(seed, dealer, scheme, ranking, must_bid)
    text = record.to_pbn(board=board)
    assert DealRecord.from_pbn(text) == record
    parsed = read_boards(text)[0]
    assert parsed.dealt() == (record.deal, record.dealer)  # the dealt layout, reseating undone
    assert parsed.number == (None if board is None else str(board))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cut=st.integers(1, 51))
def test_claimed_record_round_trips(seed, cut):
    """A record ended by a concession (always accepted) keeps the claimant and the tricks."""
    full = play_random_deal(seed)
    if full.contract is None:
        return
    data = full.to_json()
    state = PlayState(full.play_deal, full.contract, full.play[:cut])
    conceder = opening_leader(full.contract.declarer)
    claimed = state.apply_claim(conceder, 0)
    data.update(
        play=data["play"][:cut],
        claimed={"seat": conceder.letter, "tricks": 0},
        declarer_tricks=claimed.declarer_tricks,
        score=score_deal(full.contract, claimed.declarer_tricks, full.scheme).to_json(),
    )
    record = DealRecord.from_json(data)
    text = record.to_pbn()
    assert '[Claim "' in text
    assert DealRecord.from_pbn(text) == record


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_endplay_reads_our_record(seed):
    """endplay's PBN reader finds our deal (play seats), dealer, contract, result and the card order."""
    record = play_random_deal(seed)
    board = endplay_pbn.loads(record.to_pbn(board=3))[0]
    assert board.deal.to_pbn() == record.play_deal.to_pbn()
    assert board.dealer == EpPlayer.find(record.dealer.letter)
    assert board.board_num == 3
    if record.contract is None:
        return
    c = record.contract
    assert (board.contract.level, board.contract.denom, board.contract.declarer, board.contract.penalty) == (
        c.level,
        EP_DENOM[c.denom],
        EpPlayer.find(c.declarer.letter),
        EP_PENALTY[c.doubling],
    )
    assert board.contract.level + 6 + board.contract.result == record.declarer_tricks
    assert [str(card)[-1] + str(card)[0] for card in board.play] == [_symbol_card(str(card)) for card in record.play]


def _symbol_card(text: str) -> str:
    """``SA`` -> ``A♠``, as endplay prints a card (suit symbol first, reversed here to compare)."""
    return text[1] + {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[text[0]]


def _random_played(rng: np.random.Generator) -> tuple[Deal, Contract, list]:
    """A random deal, contract and legal play of random length (our rules choose the cards)."""
    deal = random_deal(rng)
    contract = Contract(
        int(rng.integers(1, 8)), Denom(int(rng.integers(0, 5))), int(rng.integers(0, 3)), Seat(int(rng.integers(0, 4)))
    )
    state = PlayState.start(deal, contract)
    for _ in range(int(rng.integers(0, 53))):
        legal = state.legal_cards()
        state = state.apply(legal[int(rng.integers(len(legal)))])
    return deal, contract, list(state.played)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), boards=st.integers(1, 4))
def test_we_read_endplays_files(seed, boards):
    """Boards written by endplay (tournament files) read back: deal, dealer, vulnerability, contract, play."""
    rng = np.random.default_rng(seed)
    written = []
    for number in range(1, boards + 1):
        deal, contract, play = _random_played(rng)
        dealer, vul = Seat(int(rng.integers(0, 4))), ["None", "NS", "EW", "All"][int(rng.integers(0, 4))]
        ep_contract = EpContract(
            level=contract.level,
            denom=EP_DENOM[contract.denom],
            declarer=EpPlayer.find(contract.declarer.letter),
            penalty=EP_PENALTY[contract.doubling],
            result=0,
        )
        written.append((deal, dealer, vul, contract, play))
        board = EpBoard(
            deal=EpDeal(deal.to_pbn()),
            dealer=EpPlayer.find(dealer.letter),
            vul=EP_VUL[vul],
            board_num=number,
            contract=ep_contract,
            play=[EpCard(str(c)) for c in play],
        )
        written[-1] = (deal, dealer, vul, contract, play, board)
    text = endplay_pbn.dumps([w[-1] for w in written])
    ours = read_boards(text)
    assert len(ours) == boards
    for number, (board, (deal, dealer, vul, contract, play, _)) in enumerate(zip(ours, written), 1):
        assert board.number == str(number)
        assert board.dealt() == (deal, dealer)
        assert board.vulnerable == vul
        assert board.contract() == contract
        assert board.play() == play


def test_endplay_reads_our_unplayed_boards():
    rng = np.random.default_rng(5)
    deals = [(random_deal(rng), Seat(i % 4)) for i in range(4)]
    text = "\n".join(deal_board_pbn(deal, dealer, i + 1) for i, (deal, dealer) in enumerate(deals))
    theirs = endplay_pbn.loads(text)
    assert [(b.deal.to_pbn(), b.dealer.abbr, b.board_num) for b in theirs] == [
        (deal.to_pbn(), dealer.letter, i + 1) for i, (deal, dealer) in enumerate(deals)
    ]
    assert [b.dealt() for b in read_boards(text)] == deals


TOURNAMENT = """% PBN 2.1
% EXPORT
;a line comment before the first game
[Event "Club night"]
[Board "1"]
[Dealer "E"]
[Vulnerable "NS"]
[Deal "E:AK2.QJ3.T98.7654 QJT9.A54.KQ2.A32 876.K876.A76.KQJ 543.T92.J543.T98"]
[Declarer "S"]
[Contract "3NT"]
[Result "9"]
[Auction "E"]
Pass 1NT =1= Pass 3NT $1
Pass Pass Pass
[Note "1:15-17"]
{a comment
spanning two lines}

[Event "#"]
[Board "2"]
[Dealer "S"]
[Vulnerable "Both"]
[Deal "N:AK2.QJ3.T98.7654 - 876.K876.A76.KQJ 543.T92.J543.T98"]

[Board "3"]
[Dealer "W"]
[Deal "W:QJT9.A54.KQ2.A32 AK2.QJ3.T98.7654 543.T92.J543.T98 876.K876.A76.KQJ"]
"""


def test_tournament_file_boards():
    boards = read_boards(TOURNAMENT, "club.pbn")
    assert [b.number for b in boards] == ["1", "2", "3"]
    assert [b.dealer() for b in boards] == [Seat.E, Seat.S, Seat.W]
    assert boards[1].tags["Event"] == "Club night"  # "#" repeats the previous game's value
    assert boards[0].vulnerable == "NS" and boards[1].vulnerable == "All" and boards[2].vulnerable == "None"
    first = boards[0].deal()
    assert first[Seat.E].to_pbn() == "AK2.QJ3.T98.7654" and first[Seat.S].to_pbn() == "QJT9.A54.KQ2.A32"
    assert boards[1].deal()[Seat.E].to_pbn() == "QJT9.A54.KQ2.A32"  # the unknown hand filled in
    assert boards[2].deal()[Seat.N].to_pbn() == "AK2.QJ3.T98.7654"
    assert boards[0].contract() == Contract(3, Denom.NT, 0, Seat.S)
    assert any("spanning two lines" in text for text, _ in boards[0].comments)


def test_a_four_handed_auction_is_not_a_3pab_record():
    with pytest.raises(InvalidInput, match=r"club\.pbn:13.*widow"):
        DealRecord.from_pbn(read_boards(TOURNAMENT, "club.pbn")[0])
    with pytest.raises(InvalidInput, match="Auction"):
        DealRecord.from_pbn(read_boards(TOURNAMENT)[2])


@pytest.mark.parametrize(
    "text, line, words",
    [
        ('[Board "1"]\n[Deal "N:AKQ"]\n', 2, "4 hands"),
        ('[Board "1"]\n[Deal "N:- - - -"]\n', 2, "one hand may be unknown"),
        ('[Board "1"]\n[Dealer "N"\n', 2, "malformed tag"),
        ('[Board "1"]\n{ never closed\n\n', 2, "never closed"),
        ("1C 1D\n", 1, "outside a game"),
        (
            '[Board "1"]\n[Dealer "Q"]\n[Deal "N:AK2.QJ3.T98.7654 QJT9.A54.KQ2.A32 876.K876.A76.KQJ 543.T92.J543.T98"]\n',
            2,
            "seat",
        ),
        ('[Board "1"]\n[Vulnerable "Maybe"]\n', 2, "None, NS, EW or All"),
    ],
)
def test_errors_name_the_line(text, line, words):
    with pytest.raises(InvalidInput, match=words) as info:
        for board in read_boards(text, "f.pbn"):
            board.vulnerable  # noqa: B018
            board.dealt()
    assert info.value.field == f"f.pbn:{line}"


def test_an_illegal_card_names_its_line():
    record = play_random_deal(7)
    text = record.to_pbn()
    lines = text.splitlines()
    play_at = lines.index(next(x for x in lines if x.startswith("[Play"))) + 1
    first, second = lines[play_at].split(), lines[play_at + 1].split()
    lines[play_at + 1] = " ".join([first[0]] + second[1:])  # replay the first trick's lead
    with pytest.raises(InvalidInput) as info:
        DealRecord.from_pbn("\n".join(lines))
    assert info.value.field == f"pbn:{play_at + 2}"


def test_one_record_at_a_time():
    texts = play_random_deal(1).to_pbn() + "\n" + play_random_deal(2).to_pbn()
    with pytest.raises(InvalidInput, match="one game, got 2"):
        DealRecord.from_pbn(texts)
    assert [DealRecord.from_pbn(b) for b in read_boards(texts)] == [play_random_deal(1), play_random_deal(2)]


def test_what_real_files_contain():
    """A byte-order mark, CRLF line ends, two tags on a line, lower-case seats, '10' for the ten, data tables."""
    text = (
        '\ufeff[Board "7"] [Dealer "s"]\r\n'
        '[Deal "s:QJ109.A54.KQ2.A32 543.T92.J543.T98 AK2.QJ3.T98.7654 876.K876.A76.KQJ"]\r\n'
        '[OptimumResultTable "Declarer;Denomination\\2R;Result\\2R"]\r\n'
        "N NT 9\r\nS NT 9\r\n"
    )
    (board,) = read_boards(text)
    assert board.number == "7" and board.dealer() == Seat.S
    assert board.deal()[Seat.S].to_pbn() == "QJT9.A54.KQ2.A32"
    assert board.tags["OptimumResultTable"].startswith("Declarer")
