"""Reading LIN: BBO's four-handed boards, several boards and lines, errors naming the line; the commands read LIN."""

from __future__ import annotations

import json

import pytest

from conftest import random_game
from tribridge.cards import Deal, Seat
from tribridge.cli.main import main
from tribridge.errors import InvalidInput
from tribridge.rules.lin import read_lin, record_to_lin
from tribridge.rules.records import file_format, read_hand_records

# Board 4 of a club night, as BBO writes it: hands from South (ranks in any order), the fourth left out.
DEAL = Deal.from_pbn("W:QJT9.A54.KQ2.A32 AK2.QJ3.T98.7654 543.T92.J543.T98 876.K876.A76.KQJ")
CLUB = (
    "vg|Club night,,P,4,5,,,,|\npn|Ann,Bob,Cy,Di|pg||\n"
    "qx|o4|pn|Ann,Bob,Cy,Di|st||md|2S678HK678DA67CJKQ,SQJT9HA54DKQ2CA32,SAK2HQJ3DT98C4567,|rh||ah|Board 4|"
    "sv|b|mb|1N|an|15-17|mb|p|mb|3N|mb|p|mb|p|mb|p|pg||pc|S8|\n"
    "pc|SQ|pc|S2|pc|S3|pg||\n"
    "qx|o5|md|3S5432H2DA2CKQJT98,,,|\n"
)


def test_a_four_handed_bbo_board_is_taken_as_dealt():
    first, second = read_lin(CLUB, "club.lin")  # the vg/pn header before the first board is not a board
    assert first.dealt() == (DEAL, Seat.W) and first.dealer() == Seat.W
    assert (first.number, first.vulnerable, first.is_3pab, first.line) == ("4", "All", False, 3)
    assert [str(c) for c, _, _ in first.four_handed_calls()] == ["1N", "P", "3N", "P", "P", "P"]
    assert first.four_handed_calls()[0][2] == "15-17"
    assert first.names == {Seat.S: "Ann", Seat.W: "Bob", Seat.N: "Cy", Seat.E: "Di"}
    assert second.number == "5" and second.line == 5
    with pytest.raises(InvalidInput, match="club.lin:5: md: three hands are needed"):
        second.deal()
    with pytest.raises(InvalidInput, match="club.lin:3: not a tribridge 3PAB record"):
        first.record()


@pytest.mark.parametrize(
    "text,where,message",
    [
        ("md|3S2|\n  xyz|1|", "x.lin:2", "two-letter LIN key"),
        ("pn|a,b,c,d|\nmd|3S2", "x.lin:2", "never closed"),
        ("pn|a|st||\n\nmd", "x.lin:3", "no |value|"),
    ],
)
def test_malformed_text_names_the_line(text, where, message):
    with pytest.raises(InvalidInput, match=f"{where}: .*{message}"):
        read_lin(text, "x.lin")


def test_bad_hands_name_the_line():
    [board] = read_lin("qx|o1|\nmd|3SAKQJT98765432H,SA,,|", "x.lin")
    with pytest.raises(InvalidInput, match="x.lin:2"):
        board.deal()
    [board] = read_lin("md|3SAX,,,|", "x.lin")
    with pytest.raises(InvalidInput, match="x.lin:1: md: bad character 'X'"):
        board.deal()


def played(seed_from: int, want) -> object:
    """The first random game from ``seed_from`` on that ``want`` accepts."""
    return next(r for r in map(random_game, range(seed_from, seed_from + 200)) if want(r))


def test_a_record_whose_widow_bids_or_whose_card_is_illegal_names_the_line():
    record = played(0, lambda r: r.contract is not None and r.claimed is None)
    text = record_to_lin(record).replace("|mb|", "\n|mb|")  # one call per line
    dummy = record.seat_map[record.widow]
    pairs = text.split("\n")
    widow_line = next(
        n for n in range(2, len(pairs) + 1) if (int(record.dealer) + n - 2) % 4 == dummy
    )  # line n holds the (n-1)th call
    pairs[widow_line - 1] = pairs[widow_line - 1].replace("|mb|p", "|mb|7N", 1)
    with pytest.raises(InvalidInput, match=f"r.lin:{widow_line}: mb .*the widow .*only passes"):
        read_lin("\n".join(pairs), "r.lin")[0].record()
    cards = record_to_lin(record).replace("|pc|", "\n|pc|").split("\n")
    cards[1], cards[5] = cards[5], cards[1]  # the opening lead swapped with the second trick's lead
    with pytest.raises(InvalidInput, match=r"r.lin:\d+: "):
        read_lin("\n".join(cards), "r.lin")[0].record()


def test_a_claim_that_does_not_add_up_is_refused():
    record = played(0, lambda r: r.claimed is not None)
    text = record_to_lin(record).replace(f"mc|{record.declarer_tricks}|", f"mc|{record.declarer_tricks + 14}|")
    with pytest.raises(InvalidInput, match="mc: the claim gives"):
        read_lin(text, "c.lin")[0].record()
    note = f"; claim {record.claimed[0].letter} {record.claimed[1]}"
    text = text.replace(note, "").replace("|mc|", "\n|mc|")  # the declarer's claim from mc alone, on line 2
    with pytest.raises(InvalidInput, match="c.lin:2: the claim's tricks: expected 0.."):
        read_lin(text, "c.lin")[0].record()


def test_the_format_is_chosen_by_content_then_extension():
    assert file_format("qx|o1|md|3S..", "deals.pbn") == "lin"
    assert file_format('\ufeff[Event "x"]', "deals.lin") == "pbn"
    assert file_format("\n", "deals.lin") == "lin" and file_format("", "deals") == "pbn"
    assert [b.number for b in read_hand_records(CLUB, "<stdin>")] == ["4", "5"]


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_analyze_and_match_read_a_lin_file_as_they_read_the_pbn_one(tmp_path, capsys):
    records = [played(7, lambda r: r.contract is not None), played(30, lambda r: r.contract is None)]
    lin, pbn = tmp_path / "t.lin", tmp_path / "t.pbn"
    lin.write_text("".join(record_to_lin(r, i + 1) for i, r in enumerate(records)), encoding="utf-8")
    pbn.write_text("\n".join(r.to_pbn(board=i + 1) for i, r in enumerate(records)), encoding="utf-8")
    outputs = {}
    for path in (lin, pbn):
        code, out, err = run(capsys, "analyze", "--file", str(path), "--json", "--no-cache", "--quiet")
        assert code == 0 and err == ""
        outputs[path.suffix] = [json.loads(line) for line in out.splitlines()]
    assert outputs[".lin"] == outputs[".pbn"] and [r["board"] for r in outputs[".lin"]] == ["1", "2"]
    matches = {}
    for path in (lin, pbn):
        code, out, _ = run(capsys, "match", "--bots", "random,random,random", "--deals-file", str(path), "--json")
        assert code == 0
        matches[path.suffix] = json.loads(out)
        assert matches[path.suffix].pop("deals_file") == str(path)
    assert matches[".lin"] == matches[".pbn"]


def test_an_unreadable_lin_file_exits_2_with_the_line(tmp_path, capsys):
    path = tmp_path / "broken.lin"
    path.write_text("qx|o1|md|3S2\n", encoding="utf-8")
    code, out, err = run(capsys, "analyze", "--file", str(path))
    assert code == 2 and out == "" and "broken.lin:1" in err
