"""Match files: Jellyfish .mat and GNU Backgammon .sgf read, replayed and written (issue 39,
item 1).

The fixtures in tests/data/matches were written by GNU Backgammon 1.07 itself
(``experiments/make_match_fixtures.py`` makes them again): each match is there twice, as
``export match mat`` and ``save match`` wrote it, so the two readers must agree on every
action. Hand-made variants of them test what is refused: each gives one
:class:`MatchFileError` naming the file, the game, the move and the problem.
"""
from __future__ import annotations

import doctest
import json
import random
import re
from pathlib import Path

import numpy as np
import pytest

import fastbg
from fastbg.game import matchfile
from fastbg.game.matchfile import (MatchFileError, format_match, parse_match, read_match,
                                   write_match)

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "matches"
NAMES = ("match5", "match3", "money", "beaver")


def _text(name: str) -> str:
    return (DATA / name).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def matches():
    """Every fixture read once: name.ext -> Match."""
    return {f"{n}.{ext}": read_match(DATA / f"{n}.{ext}") for n in NAMES for ext in ("mat", "sgf")}


def _games(m):
    return [g.key() for g in m.games]


# ------------------------------------------------------------------- gnubg's files

@pytest.mark.parametrize("name", NAMES)
def test_mat_and_sgf_of_the_same_match_agree(matches, name):
    """gnubg wrote each match both ways; replayed, every action and position is the same."""
    a, b = matches[f"{name}.mat"], matches[f"{name}.sgf"]
    assert _games(a) == _games(b)
    assert a.names == b.names and a.match_length == b.match_length


def test_five_point_match(matches):
    """Cube actions, the Crawford game (game 2, at 0-4), a post-Crawford double dropped and
    one taken, a gammon resigned: the scores and results as gnubg wrote them."""
    m = matches["match5.sgf"]
    assert m.match_length == 5 and m.crawford
    assert [g.score for g in m.games] == [(0, 0), (0, 4), (1, 4), (2, 4)]
    assert [g.crawford for g in m.games] == [False, True, False, False]
    assert [(g.winner, g.points, g.ended_by) for g in m.games] == [
        (1, 4, "bearoff"), (0, 1, "bearoff"), (0, 1, "drop"), (0, 4, "resign")]
    assert m.score == (6, 4) and m.winner == 0
    cube = [(a.kind, a.player, a.value) for a in m.games[0].actions if a.kind != "move"]
    assert cube == [("double", 0, 2), ("take", 1, None), ("double", 1, 4), ("take", 0, None)]
    resign = m.games[3].actions[-1]
    assert (resign.kind, resign.player, resign.value) == ("resign", 1, 2)  # a gammon, 2-cube
    # no action of the Crawford game is a double, and its states say Crawford
    assert all(a.state.crawford for a in m.games[1].actions)
    assert all(a.kind == "move" for a in m.games[1].actions)


def test_states_are_from_the_actors_view(matches):
    """The state before each action: the score and cube owner seen by the side acting."""
    m = matches["match5.mat"]
    g = m.games[2]                          # 1-4: player 0 trails, post-Crawford
    for a in g.actions:
        assert a.state.score == ((1, 4) if a.player == 0 else (4, 1))
        assert a.state.match_length == 5 and not a.state.crawford
    double = next(a for a in g.actions if a.kind == "double")
    assert double.player == 0 and double.state.may_double
    drop = g.actions[-1]
    assert drop.kind == "drop" and drop.position.board[1].tolist() == \
        double.position.board[0].tolist()


def test_plays_replay_the_board(matches):
    """Each move's resulting board, turned round, is the next action's position."""
    for m in matches.values():
        for g in m.games:
            prev = None
            for a in g.actions:
                if prev is not None and prev.kind == "move":
                    assert np.array_equal(prev.after[::-1], a.position.board) or \
                        np.array_equal(prev.after, a.position.board)
                prev = a
            first = g.actions[0]
            assert first.kind == "move" and first.position.position_id == "4HPwATDgc/ABMA"
            assert first.dice[0] != first.dice[1]


def test_money_session(matches):
    """Three games, Jacoby (RU[Jacoby] in the .sgf; the .mat does not say), a drop and
    resignations; session totals as scores."""
    m = matches["money.sgf"]
    assert m.is_money and m.jacoby and m.winner is None
    assert [g.score for g in m.games] == [(0, 0), (0, 1), (2, 1)]
    assert [g.ended_by for g in m.games] == ["drop", "resign", "resign"]
    assert all(a.state.jacoby and a.state.score == (0, 0) for g in m.games for a in g.actions)
    assert not matches["money.mat"].jacoby


def test_beaver_and_a_roll_left_unplayed(matches):
    """bob (commands) doubles, alice (gnubg) beavers (money), bob takes (a .mat writes no
    take: bob's next roll is it), plays, then rolls 33 and resigns before moving."""
    for ext in ("mat", "sgf"):
        m = matches[f"beaver.{ext}"]
        g = m.games[0]
        kinds = [(a.kind, a.player, a.value) for a in g.actions if a.kind != "move"]
        assert kinds == [("double", 1, 2), ("beaver", 0, 4), ("take", 1, None),
                         ("roll", 1, None), ("resign", 1, 1)]
        unplayed = g.actions[-2]
        assert unplayed.dice == (3, 3) and unplayed.play is None
        assert (g.winner, g.points, g.ended_by) == (0, 4, "resign")
        assert m.beaver and not m.jacoby


def test_python_engine_agrees(matches):
    """The pure-Python move generator replays a file to the same match."""
    m = read_match(DATA / "match3.sgf", engine="python")
    assert m.key() == matches["match3.sgf"].key()


def test_public_api():
    assert fastbg.read_match is read_match and fastbg.write_match is write_match
    assert issubclass(fastbg.MatchFileError, ValueError)


# ------------------------------------------------------------------ round trips

@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("ext", ["mat", "sgf"])
def test_round_trip(matches, tmp_path, name, ext):
    """Read, write, read: the same match, in either format."""
    m = matches[f"{name}.{ext}"]
    for out in ("mat", "sgf"):
        path = tmp_path / f"again.{out}"
        write_match(m, path)
        again = read_match(path)
        assert _games(again) == _games(m)
        if out == ext:
            assert again.key() == m.key()
            assert format_match(again, out) == path.read_text()


@pytest.mark.parametrize("name", NAMES)
def test_written_mat_is_gnubgs_layout(matches, name):
    """A .mat read and written again is gnubg's file line for line from 'N point match' on
    (spaces at the ends aside): rows, columns, cube actions, 'Wins' lines."""
    def body(text):
        lines = text.splitlines()
        start = next(k for k, s in enumerate(lines) if "point match" in s)
        return [s.rstrip() for s in lines[start:]]
    assert body(format_match(matches[f"{name}.mat"], "mat")) == body(_text(f"{name}.mat"))


def test_format_from_suffix_and_content(tmp_path, matches):
    path = tmp_path / "noext"
    path.write_text(_text("match3.sgf"))
    assert read_match(path).key() == matches["match3.sgf"].key()
    path.write_text(_text("match3.mat"))
    assert _games(read_match(path)) == _games(matches["match3.mat"])
    with pytest.raises(ValueError, match="suffix"):
        write_match(matches["match3.mat"], tmp_path / "x.zip")
    with pytest.raises(ValueError, match="unknown match file format"):
        write_match(matches["match3.mat"], tmp_path / "x.mat", format="xg")


# ------------------------------------------------------------------- refusals

def _edit(name: str, old: str, new: str, count: int = 1) -> str:
    text = _text(name)
    assert old in text, old
    return text.replace(old, new, count)


def _refused(text: str, fmt: str, *words: str, **where):
    with pytest.raises(MatchFileError) as info:
        parse_match(text, fmt, path=f"x.{fmt}")
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith(f"x.{fmt}")
    for w in words:
        assert w in msg, msg
    for k, v in where.items():
        assert getattr(info.value, k) == v, (k, msg)
    return info.value


def test_illegal_play_named():
    # game 1, row 2: gnubg's 62 was 24/18 13/11; 24/16 is not a 6-2
    text = _edit("match3.mat", "62: 24/18 13/11", "62: 24/16 13/11")
    _refused(text, "mat", "not a legal play of 62", "legal:", game=1, move=2)


def test_move_from_an_empty_point():
    text = _edit("match3.mat", "62: 24/18 13/11", "62: 23/17 13/11")
    _refused(text, "mat", "has none there", game=1, move=2)


def test_sgf_illegal_play_named():
    # the same play in the .sgf: W[62xrmk] is 24/18 13/11
    text = _edit("match3.sgf", "W[62xrmk]", "W[62xpmk]")
    _refused(text, "sgf", "not a legal play", game=1, move=2)


def test_roll_without_move_that_had_plays():
    text = _edit("match3.mat", "62: 24/18 13/11", "62:")
    _refused(text, "mat", "(no play)", "not a legal play", move=2)


def test_opening_double_refused():
    text = _edit("match3.mat", "53: 8/3 6/3", "33: 8/5 6/3 13/10 6/3")
    _refused(text, "mat", "opening roll is 33", move=1)


def test_wrong_score_refused():
    text = _edit("match5.mat", " gnubg : 1                      root : 4",
                 " gnubg : 2                      root : 4")
    _refused(text, "mat", "given as 2-4", "make it 1-4", game=3)


def test_wrong_points_refused():
    text = _edit("match5.mat", "Wins 1 point", "Wins 2 points")
    _refused(text, "mat", "said to win 2 points", "gives 1", game=2)


def test_double_in_the_crawford_game_refused():
    # game 2 of match5 is the Crawford game: put a double in its first rows
    text = _text("match5.mat")
    head, crawford = text.split(" Game 2\n", 1)
    lines = crawford.splitlines()
    row = next(k for k, s in enumerate(lines) if s.startswith("  2)"))
    lines[row] = "  2)  Doubles => 2                Takes"
    _refused(head + " Game 2\n" + "\n".join(lines), "mat", "Crawford game", game=2, move=2)


def test_double_out_of_turn_and_answers_refused():
    text = _edit("match5.mat", " 11) 41:                          Doubles => 4\n 12)  Takes",
                 " 11) 41:                          Doubles => 4\n 12)  Doubles => 8")
    _refused(text, "mat", "move 12", game=1)
    text = _edit("match3.sgf", ";B[double]\n;W[take]", ";B[take]")
    _refused(text, "sgf", "has not doubled", game=1)
    text = _edit("match3.sgf", ";B[double]\n;W[take]", ";W[double]\n;B[take]")
    _refused(text, "sgf", "turn to roll", game=1)


def test_owner_cannot_be_doubled_by_the_other_side():
    # match3: bob (B) doubled, alice took and owns the cube; let bob redouble instead
    text = _edit("match3.sgf", ";W[double]\n;B[take]", ";B[42]\n;B[double]")
    _refused(text, "sgf", game=1)


def test_game_after_the_match_refused():
    text = _text("match3.mat") + " Game 2\n gnubg : 4                      root : 0\n" \
        "  1) 31: 8/5 6/5\n"
    _refused(text, "mat", "after the match was won", game=2)


def test_unfinished_last_game_kept_but_not_in_the_middle():
    text = _text("match3.mat")
    cut = text[: text.index(" 30) ")]
    m = parse_match(cut, "mat")
    assert m.games[0].winner is None and m.winner is None and "not finished" in m.summary()
    text5 = _text("match5.mat")
    a, b = text5.split(" Game 2\n", 1)
    a = a[: a.index(" 20) ")]
    _refused(a + " Game 2\n" + b, "mat", "no end", game=1)


def test_beaver_in_a_match_refused():
    text = _edit("match3.sgf", ";B[double]\n;W[take]", ";B[double]\n;W[double]\n;B[take]")
    _refused(text, "sgf", "beavers in match play", game=1)


def test_jacoby_inferred_from_a_gammon_scored_single():
    """A .mat does not state the Jacoby rule: a money gammon with the cube unturned scored
    1 point means it was on."""
    mat = _text("match5.mat")
    head, rest = mat.split(" Game 2\n", 1)
    crawford_game = rest.split(" Game 3\n", 1)[0]
    # game 2 of match5 (the Crawford game) is a single win: as a money game it stays 1
    money = " 0 point match\n\n Game 1\n gnubg : 0                      root : 0\n" + \
        crawford_game.split("\n", 1)[1]
    m = parse_match(money, "mat")
    assert m.games[0].points == 1 and not m.jacoby


SGF_GO = "(;FF[4]GM[1]SZ[19];B[pd];W[dd])"


@pytest.mark.parametrize("text, fmt, words", [
    ("", None, ["not a match file"]),
    ("hello world\n", None, ["not a match file"]),
    (SGF_GO, "sgf", ["GM[1] is not backgammon", "Go"]),
    ("(;FF[4]GM[6](;W[31hefe]))", "sgf", ["variation"]),
    ("(;FF[4]GM[6];W[31hefe]", "sgf", ["ends inside a game tree"]),
    ("(;FF[4]GM[6];W[31he", "sgf", ["ends inside the value"]),
    ("(;FF[4]GM[6]AB[a];W[31hefe])", "sgf", ["set-up position"]),
    ("(;FF[4]GM[6];W[31hefe];B[99aa])", "sgf", ["not a move"]),
    ("(;FF[4]GM[6]RE[W+X];W[31hefe])", "sgf", ["RE[W+X]"]),
    (" 3 point match\n", "mat", ["no game"]),
    (" 3 point match\n\n Game 2\n", "mat", ["'Game 2' where game 1"]),
    (" 3 point match\n\n Game 1\n", "mat", ["ends after a 'Game' line"]),
    (" 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5 xyz\n", "mat", ["'xyz'"]),
    (" 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5  51: 13/8 6/5  42: 8/4\n",
     "mat", ["more than two entries"]),
    (" 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/9\n", "mat", ["not forward"]),
    (" 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 71: 8/1\n", "mat", ["not a roll"]),
    (" 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5\n  3) 62: 24/18 13/11\n",
     "mat", ["row 3 where row 2 was expected"]),
    ("(;GM[6]MI[game:0];W[31hefe])(;GM[6]MI[game:2];W[31hefe])", "sgf",
     ["MI[game:2] where game 1"]),
    (" 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5\n  2)  Doubles => 2\n",
     "mat", ["a doubles, but it is b's turn"]),
])
def test_foreign_and_broken_files(text, fmt, words):
    with pytest.raises(MatchFileError) as info:
        parse_match(text, fmt, path="f")
    msg = str(info.value)
    assert "\n" not in msg
    for w in words:
        assert w in msg, msg


def test_unreadable_paths(tmp_path):
    with pytest.raises(MatchFileError, match="cannot read the file"):
        read_match(tmp_path / "missing.mat")
    with pytest.raises(MatchFileError, match="cannot read the file"):
        read_match(tmp_path)
    if Path("/dev/zero").exists():       # endless: refused before a byte is read
        with pytest.raises(MatchFileError, match="not a regular file"):
            read_match("/dev/zero")
    huge = tmp_path / "huge.mat"
    with open(huge, "wb") as fh:
        fh.truncate(matchfile.MAX_MATCH_FILE_BYTES + 1)
    with pytest.raises(MatchFileError, match="too large for a match file"):
        read_match(huge)
    with pytest.raises(MatchFileError, match="a file name is a str or a path"):
        read_match(None)
    binary = tmp_path / "x.mat"
    binary.write_bytes(b"\x00\x01\x02 3 point match")
    with pytest.raises(MatchFileError, match="binary"):
        read_match(binary)
    latin = tmp_path / "latin.mat"
    latin.write_bytes(_text("match3.mat").replace("root", "J\u00f6rg").encode("latin-1"))
    assert read_match(latin).names[1] == "J\u00f6rg"


# ------------------------------------------------------------------------ fuzzing

def _mutate(text: str, rng: random.Random) -> str:
    """One seeded damage: a cut, a deleted, inserted or changed character, a line dropped,
    duplicated or swapped."""
    k = rng.randrange(7)
    if not text:
        return "x"
    i = rng.randrange(len(text))
    alphabet = "0123456789/*:;()[]\\ \n abcxyzWB=>-+" + "\u00e9\x00"
    if k == 0:
        return text[:i]
    if k == 1:
        return text[:i] + text[i + 1:]
    if k == 2:
        return text[:i] + rng.choice(alphabet) + text[i:]
    if k == 3:
        return text[:i] + rng.choice(alphabet) + text[i + 1:]
    lines = text.split("\n")
    j = rng.randrange(len(lines))
    if k == 4:
        del lines[j]
    elif k == 5:
        lines.insert(j, lines[j])
    else:
        m = rng.randrange(len(lines))
        lines[j], lines[m] = lines[m], lines[j]
    return "\n".join(lines)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_fuzzed_files_give_one_line_errors(seed):
    """Seeded mutations of gnubg's files: each is read or refused with MatchFileError, one
    line, never another exception."""
    rng = random.Random(seed)
    sources = [(_text("beaver.mat"), "mat"), (_text("beaver.sgf"), "sgf"),
               (_text("match3.mat")[:1400], "mat"), (_text("match3.sgf")[:1500] + ")", "sgf")]
    refused = 0
    for _ in range(60):
        text, fmt = rng.choice(sources)
        for _ in range(rng.randint(1, 3)):
            text = _mutate(text, rng)
        try:
            parse_match(text, rng.choice([fmt, None]), path="fuzz")
        except MatchFileError as exc:
            assert "\n" not in str(exc) and str(exc).startswith("fuzz")
            refused += 1
    assert refused > 10


def test_the_docs_example_runs(tmp_path, monkeypatch):
    """docs/matches.md's example prints what it shows (run where tests/ is, writing into a
    temporary directory)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    text = (ROOT / "docs" / "matches.md").read_text()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if ">>>" in b]
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, "matches.md",
                                                 "matches.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


# ------------------------------------------------------------- hand-made edge cases

_HEAD = " 0 point match\n\n Game 1\n a : 0                          b : 0\n"


def test_a_move_through_a_hit_written_as_one_move():
    """b's 24/14 with 64 cannot go through its 18 (a's 7-point, made), so it goes through
    its 20 and hits a's blot there: the file need not show the intermediate hit."""
    rows = ("  1) 61: 13/7 8/7                 21: 13/11 6/5\n"
            "  2) 31: 6/5 13/10                64: {move}\n")
    for move in ("24/14", "24/20*/14", "24/20* 20/14"):
        m = parse_match(_HEAD + rows.format(move=move), "mat")
        last = m.games[0].actions[-1]
        assert last.after[1, 24] == 1          # a's checker on the bar
    _refused(_HEAD + rows.format(move="24/18/14"), "mat", "to point 18", "a holds it")


def test_words_and_repeat_counts_in_mat_moves():
    """'bar', 'off' and '(2)' read as gnubg's 25, 0 and repeated moves."""
    rows = ("  1) 61: 13/7 8/7                 21: 13/11 6/5\n"
            "  2) 33: {}   64: 13/7 13/9\n")
    a = parse_match(_HEAD + rows.format("8/5(2) 6/3(2)"), "mat")
    b = parse_match(_HEAD + rows.format("8/5 8/5 6/3 6/3"), "mat")
    assert a.key() == b.key()
    seed = next(s for s in range(50) if "25/" in _random_game_mat(s, False)[0]
                and "/0" in _random_game_mat(s, False)[0])
    rows, winner, level = _random_game_mat(seed, False)
    pad = "      " if winner == 0 else " " * 34
    end = f"{pad}Wins {level} point{'s' if level > 1 else ''}\n"
    numbers = parse_match(_HEAD + rows + end, "mat")
    words = parse_match(_HEAD + rows.replace("25/", "bar/").replace("/0", "/off") + end, "mat")
    assert numbers.key() == words.key()


def test_crawford_off_in_a_header():
    """A header tag turns the Crawford rule off: a double at 4-0 in a 5-point match is then
    allowed in the next game."""
    mat = _text("match5.mat")
    head, rest = mat.split(" Game 2\n", 1)
    game2 = " Game 2\n" + rest.split(" Game 3\n", 1)[0]
    lines = game2.splitlines()
    row = next(k for k, s in enumerate(lines) if s.startswith("  2)"))
    lines[row] = "  2)  Doubles => 2                Drops"
    lines = lines[: row + 1] + ["      Wins 1 point", ""]
    text = head + "\n".join(lines)
    _refused(text, "mat", "Crawford game", game=2)
    m = parse_match('; [Crawford "Off"]\n' + text, "mat")
    assert not m.crawford and not m.games[1].crawford and m.games[1].ended_by == "drop"


def _random_game_mat(seed: int, gammon: bool):
    """A random game to the end (pure-Python moves with their notation), as .mat rows, and
    the winner and level; None when it did not end in a gammon and one was wanted."""
    rng = random.Random(seed)
    gen = fastbg.get_engine("python").movegen
    board = np.array(fastbg.Position.start().board)
    rows, cells = [], []
    d1, d2 = rng.sample(range(1, 7), 2)
    player = rng.randrange(2)
    if player == 1:
        cells.append("")
    while True:
        plays = gen.legal_plays_with_moves(board, d1, d2)
        after, moves = rng.choice(plays) if plays else (board.copy(), ())
        cells.append(f"{d1}{d2}: " + " ".join(f"{f}/{t}{'*' if h else ''}" for f, t, h in moves))
        if after[0].sum() == 0:
            loser = after[1]
            level = 1 if loser.sum() < 15 else 3 if loser[24] or loser[18:24].any() else 2
            break
        board = np.array(after[::-1])
        player = 1 - player
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
    if gammon and level == 1:
        return None
    for k in range(0, len(cells), 2):
        left, right = cells[k], (cells[k + 1] if k + 1 < len(cells) else None)
        rows.append(f"{k // 2 + 1:3d}) {left:<27} {right or ''}".rstrip())
    return "\n".join(rows) + "\n", player, level


def _a_gammon():
    for seed in range(100):
        got = _random_game_mat(seed, gammon=True)
        if got is not None:
            return got
    raise AssertionError("no gammon in 100 random games")


def test_jacoby_inferred_from_a_gammon_scored_single_in_money():
    """A .mat does not state the Jacoby rule: a money gammon with the cube unturned scored
    1 point says it was on, 2 points that it was off; a header tag decides."""
    rows, winner, level = _a_gammon()
    pad = "      " if winner == 0 else " " * 34
    single = _HEAD + rows + f"{pad}Wins 1 point\n"
    full = _HEAD + rows + f"{pad}Wins {level} points\n"
    assert parse_match(single, "mat").jacoby
    assert not parse_match(full, "mat").jacoby
    _refused('; [Jacoby "Off"]\n' + single, "mat", f"gives {level}")
    m = parse_match(full, "mat")
    assert m.games[0].points == level and m.games[0].ended_by == "bearoff"


@pytest.mark.parametrize("seed", range(6))
def test_random_games_round_trip(tmp_path, seed):
    """Random games (hits, entering from the bar, bearing off, gammons) written in .mat rows
    read, write and read again to the same games in both formats."""
    rows, winner, level = _random_game_mat(seed, gammon=False)
    pad = "      " if winner == 0 else " " * 34
    m = parse_match(" 1 point match\n\n Game 1\n a : 0                          b : 0\n" + rows
                    + f"{pad}Wins {level} point{'s' if level > 1 else ''}\n", "mat")
    assert m.winner == winner and m.games[0].points == level
    for fmt in ("mat", "sgf"):
        again = parse_match(format_match(m, fmt), fmt)
        assert again.key() == m.key()


def test_unplayed_roll_in_the_middle_refused():
    text = _edit("beaver.sgf", ";B[31qtst]", ";PL[B]DI[31]")
    _refused(text, "sgf", "left unplayed, but the game goes on")


def test_beaver_dropped():
    """The doubler drops the beaver: the beaver's taker wins the cube before the beaver."""
    text = _edit("beaver.mat", "  2)  Beavers => 4               31: 8/5 6/5 \n"
                 "  3) 64: 21/15 15/11             33: \n      Wins 4 points",
                 "  2)  Beavers => 4                Drops\n      Wins 2 points")
    m = parse_match(text, "mat")
    g = m.games[0]
    assert [a.kind for a in g.actions][-3:] == ["double", "beaver", "drop"]
    assert (g.winner, g.points, g.ended_by) == (0, 2, "drop")


# -------------------------------------------------------------------- the command

def test_cli_match_summary_and_errors(capsys, tmp_path):
    """`fastbg match FILE...`: a summary line a file (and a game with --games); a refused
    file is one error line, the others still read, status 2."""
    from fastbg.cli import main

    good = str(DATA / "match5.sgf")
    assert main(["match", good, "--games"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{good}: 5-point match: gnubg 6, root 4, won by gnubg; 4 games, " \
        "131 checker plays, 8 cube actions"
    assert out[2] == "  game 2: 0-4 (Crawford), gnubg wins 1 point (bearoff); 48 checker " \
        "plays, 0 cube actions"
    bad = tmp_path / "bad.mat"
    bad.write_text(_edit("match3.mat", "62: 24/18 13/11", "62: 24/16 13/11"))
    assert main(["match", str(bad), good, str(tmp_path / "none.sgf")]) == 2
    cap = capsys.readouterr()
    errors = cap.err.splitlines()
    assert len(errors) == 2 and all(e.startswith("fastbg match: error: ") for e in errors)
    assert "game 1, move 2 (line 8)" in errors[0] and "cannot read" in errors[1]
    assert cap.out.startswith(good)
    assert main(["match", good, str(bad), "--json"]) == 2
    data = json.loads(capsys.readouterr().out)
    assert data[0]["winner"] == "gnubg" and data[0]["games"][1]["crawford"]
    assert "not a legal play" in data[1]["error"]
