"""Position ID and XGID codecs, Position validation (DESIGN section 2)."""
import numpy as np
import pytest
from hypothesis import given, settings

from fastbg import Position
from fastbg.formats import decode_position_id, decode_xgid, encode_position_id, encode_xgid

from strategies import boards

START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def test_start_position_id():
    p = Position.start()
    assert p.to_position_id() == "4HPwATDgc/ABMA"
    assert Position.parse("4HPwATDgc/ABMA") == p
    assert p.pip_counts == (167, 167)


def test_asymmetric_position_id_puts_the_player_on_roll_second():
    # DESIGN section 2: the player on roll has 2 on its 3-point, 5 on 6, 2 on 8,
    # 3 on 13 and one each on 16, 20 and 24.
    b = decode_position_id("4HPMwQCMz+AIIQ")
    expected = {3: 2, 6: 5, 8: 2, 13: 3, 16: 1, 20: 1, 24: 1}
    assert {i + 1: int(n) for i, n in enumerate(b[0]) if n} == expected
    assert int(b[0].sum()) == 15 and int(b[1].sum()) == 15
    assert encode_position_id(b) == "4HPMwQCMz+AIIQ"


def test_start_xgid():
    assert Position.start().to_xgid() == START_XGID
    assert Position.parse(START_XGID) == Position.start()
    # Without the prefix, and with the other side on roll (symmetric start).
    assert Position.parse(START_XGID[5:].replace(":1:00", ":-1:00")) == Position.start()


def test_xgid_turn_selects_the_player_on_roll():
    b = decode_position_id("4HPMwQCMz+AIIQ")
    x = encode_xgid(b)
    assert np.array_equal(decode_xgid(x).board, b)
    # The same diagram with O on roll: row 0 is then the other side.
    flipped = x.replace(":0:0:1:", ":0:0:-1:")
    assert np.array_equal(decode_xgid(flipped).board, b[::-1])


@settings(max_examples=300, deadline=None)
@given(boards())
def test_position_id_round_trip(board):
    pid = encode_position_id(board)
    assert len(pid) == 14
    assert np.array_equal(decode_position_id(pid), board)


@settings(max_examples=300, deadline=None)
@given(boards())
def test_xgid_round_trip(board):
    assert np.array_equal(decode_xgid(encode_xgid(board)).board, board)
    assert Position.parse(encode_xgid(board)) == Position(board)


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("4HPwATDgc/ABM", "13 characters"),
        ("4HPwATDgc/ABMAA", "15 characters"),
        ("4HPwATDgc/AB-A", "not a base64 character"),
        ("//////////////", r"the opponent has 80 checkers \(more than 15\)"),
        # 15 for the opponent, 16 for the player on roll: the key runs out at the last
        # separator, because of the 16th checker, which the message used to leave unsaid
        ("4HPwATDB5+ADYA", r"the player on roll has 16 checkers \(more than 15\)"),
        ("wefgA2DA5+ADYA", r"the opponent has 16 checkers \(more than 15\)"),
        ("XGID=-b----E-C---eE---c-e----B", "25 characters"),
        ("XGID=-b----E-C---eE---c-e----Z-:0:0:1:00:0:0:0:0:10", "not a checker count"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:2:00:0:0:0:0:10", "turn"),
        ("XGID=-b----E-C---eE---c-e----P-:0:0:1:00:0:0:0:0:10", "not a checker count"),
        ("XGID=-b----E-C---eE---c-e---BB-:0:0:1:00:0:0:0:0:10", "17 checkers"),
        ("XGID=Ab----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "X checkers on O's bar"),
        ("hello", "expected 'start'"),
    ],
)
def test_bad_ids_are_rejected_with_a_reason(text, fragment):
    with pytest.raises(ValueError, match=fragment):
        Position.parse(text)


def test_bad_boards_are_rejected_with_a_reason():
    b = np.array(Position.start().board)
    b16 = b.copy()
    b16[0, 0] += 1
    with pytest.raises(ValueError, match="16 checkers"):
        Position(b16)
    both = b.copy()
    both[0, 5] -= 1
    both[0, 0] = 1  # my ace point is the opponent's 24-point, which it holds
    with pytest.raises(ValueError, match="held by both sides"):
        Position(both)
    neg = b.copy()
    neg[1, 3] = -1
    with pytest.raises(ValueError, match="negative"):
        Position(neg)
    with pytest.raises(ValueError, match="shape"):
        Position(np.zeros((2, 24), dtype=np.int8))


def test_an_empty_board_is_refused_and_a_finished_game_is_a_position():
    # Position.parse took a board with no checker at all (new-user trial); a game ends when
    # the first side has borne off all 15, so both sides cannot have: no game reaches it
    empty = np.zeros((2, 25), dtype=np.int8)
    for text in (empty, "AAAAAAAAAAAAAA", "XGID=--------------------------:0:0:1:00:0:0:0:0:10",
                  "AAAAAAAAAAAAAA:cAkAAAAAAAAA"):
        with pytest.raises(ValueError, match="the board is empty: both sides have borne off "
                                             "all their checkers, which no game can reach"):
            Position.parse(text)
    # one side with every checker off is a finished game: a position, which the functions
    # that play or value positions refuse as over
    over = empty.copy()
    over[1, 5] = 2
    assert Position(over).game_over and Position(over[::-1]).game_over


def test_a_board_with_every_checker_on_the_bars_is_refused():
    # a new-user trial found all 30 checkers on the bar accepted: the side that moved last
    # entered or moved a checker (it lands on a point) or danced, which needs points held
    # against it, so no game reaches a board with no checker on a point and both sides in play
    bars = np.zeros((2, 25), dtype=np.int8)
    bars[:, 24] = 15
    some_off = bars.copy()
    some_off[0, 24] = 3                      # 12 borne off, 3 on the bar
    for board in (bars, some_off, some_off[::-1]):
        with pytest.raises(ValueError, match="no checker of either side is on a point"):
            Position(board)
    with pytest.raises(ValueError, match="no game can reach"):
        Position.parse(encode_position_id(bars))
    # one checker on a point makes it a position a game can reach (a blitz)
    blitz = bars.copy()
    blitz[1, 24], blitz[1, 0] = 14, 1
    assert not Position(blitz).game_over
    # and a side with all 15 borne off is a finished game, whatever the other side has
    over = np.zeros((2, 25), dtype=np.int8)
    over[1, 24] = 15
    assert Position(over).game_over


def test_position_is_immutable_and_hashable():
    p = Position.start()
    with pytest.raises(ValueError):
        p.board[0, 0] = 1
    assert len({p, Position.parse("start")}) == 1
    assert p.swapped() == p


def test_position_has_a_read_only_position_id_like_a_play():
    # Play and RankedPlay have .position_id; Position had only .to_position_id() (new-user
    # trial: Position.parse(...).position_id raised AttributeError)
    pos = Position.parse("XGID=---BBBBBA----B--a-a-Bbcce-:0:0:1:00:0:0:3:0:10")
    assert pos.position_id == pos.to_position_id() == "391IAABs24IBAw"
    assert Position.parse("start").position_id == "4HPwATDgc/ABMA"
    assert Position.parse(pos.position_id) == pos
    with pytest.raises(AttributeError):
        pos.position_id = "4HPwATDgc/ABMA"


def test_diagram_shows_ids_and_pips():
    text = str(Position.parse("4HPMwQCMz+AIIQ"))
    assert "4HPMwQCMz+AIIQ" in text and "XGID=" in text and "pips" in text


@pytest.mark.parametrize("pair", ["bdtVAABttysAAA:cAngACAAIAAA", "4HPwATDgc/ABMA:QYkqASAAIAAA",
                                  " 4HPwATDgc/ABMA : QYkqASAAIAAA "])
def test_parse_reads_the_board_of_a_gnubg_pair(pair):
    from fastbg.game import parse_game

    pos = Position.parse(pair)
    assert pos == Position.from_position_id(pair.split(":")[0].strip())
    assert pos == parse_game(pair)[0]


def test_parse_checks_both_ids_of_a_gnubg_pair():
    with pytest.raises(ValueError, match="Match ID"):
        Position.parse("4HPwATDgc/ABMA:QYkqASAAIAA")
    with pytest.raises(ValueError, match="not a base64 character"):
        Position.parse("4HPwATDgc/AB-A:QYkqASAAIAAA")


@pytest.mark.parametrize("pid, where, canonical", [
    # the 4 bits of the 14th character after the 80-bit key (the start, last 'A' -> 'B')
    ("4HPwATDgc/ABMB", "padding bits", "4HPwATDgc/ABMA"),
    ("4HPwATDgc/ABMP", "padding bits", "4HPwATDgc/ABMA"),
    # the start with bit 79 set after the last point's separator
    ("4HPwATDgc/ABgA", "key bits after the last point", "4HPwATDgc/ABAA"),
])
def test_non_canonical_position_id_is_refused_naming_the_canonical_one(pid, where, canonical):
    with pytest.raises(ValueError, match=f"not canonical, its {where}.* are not zero; the "
                                         f"canonical ID of this position is '{canonical}'"):
        decode_position_id(pid)
    with pytest.raises(ValueError, match="not canonical"):
        Position.parse(pid)
    with pytest.raises(ValueError, match="not canonical"):
        Position.parse(pid + ":QYkqASAAIAAA")
    assert encode_position_id(decode_position_id(canonical)) == canonical


@pytest.mark.parametrize("pid", ["AAAAAAAAAAAAgA", "AAAAAAAAAAAA/w"])
def test_a_non_canonical_id_of_an_empty_board_suggests_no_id(pid):
    # its canonical ID would be a finished game, refused too: no ID is suggested
    with pytest.raises(ValueError, match="not canonical, its key bits after the last "
                                         "point's separator are not zero, and its key gives "
                                         "the player on roll and the opponent no checkers"):
        decode_position_id(pid)


@pytest.mark.parametrize("count", [1, 2, 9, 11])
def test_xgid_with_the_wrong_number_of_fields_is_refused(count):
    fields = START_XGID[5:].split(":")
    text = "XGID=" + ":".join((fields + ["10"])[:count])
    message = f"it has {count} fields?, expected 10 \\(board:cube:"
    with pytest.raises(ValueError, match=message):
        decode_xgid(text)
    with pytest.raises(ValueError, match=message):
        Position.parse(text)
    assert decode_xgid(START_XGID).match_length == 0  # ten fields: read


def test_centred_cube_above_one_is_read_as_written():
    # The raw fields: cube field 1 (a 2-cube) with cube position 0 (centred).
    f = decode_xgid(START_XGID.replace(":0:0:1:", ":1:0:1:"))
    assert (f.cube_log2, f.cube_owner) == (1, 0)


@pytest.mark.parametrize("value", [None, 5, 3.5, b"4HPwATDgc/ABMA"])
def test_parse_names_what_it_takes_for_a_value_of_the_wrong_kind(value):
    # it said "a board has shape (2, 25), got ()": true, but not what was wrong
    with pytest.raises(ValueError, match=r"expected a string \('start', a Position ID"):
        Position.parse(value)
