"""Board pictures (`fastbg show --svg/--png`): files written, the cube and score drawn, and a
clear error without matplotlib or for a file that cannot be written."""
from __future__ import annotations

import sys

import pytest

from fastbg.cli import main
from fastbg.game.position import Position

XGID = "XGID=-b----E-C---eE---c-e----B-:1:1:1:52:2:4:0:7:10"   # 7-point match, cube 2, 5-2


def test_without_matplotlib_the_error_says_what_to_install(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    assert main(["show", "start", "--svg", str(tmp_path / "b.svg")]) == 2
    err = capsys.readouterr().err
    assert "pip install 'fastbg[plot]'" in err and "Traceback" not in err
    assert not (tmp_path / "b.svg").exists()


def test_svg_and_png_of_a_match_position(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    svg, png = tmp_path / "b.svg", tmp_path / "b.png"
    assert main(["show", XGID, "--svg", str(svg), "--png", str(png)]) == 0
    out = capsys.readouterr().out
    assert f"board drawn into {svg}" in out and f"board drawn into {png}" in out
    text = svg.read_text()
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_picture_holds_what_a_player_reads(tmp_path):
    pytest.importorskip("matplotlib")
    from fastbg.game import MatchState
    from fastbg.game.parse import parse_game
    from fastbg.game.picture import board_figure
    pos, state, dice = parse_game(XGID)
    fig = board_figure(pos, state=state, dice=dice)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "2" in texts and "5" in texts                       # the cube and the dice
    assert any("7-point match, X 2 - O 4" in t for t in texts)
    assert any(f"pips {pos.pip_counts[0]}" in t for t in texts)
    assert {str(p) for p in range(1, 25)} <= set(texts)         # every point numbered
    # a point of more than five checkers shows its count; a centred cube shows 64
    from exact import board_from
    crowded = Position(board_from({6: 15}, {6: 15}))
    fig = board_figure(crowded, state=MatchState())
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "15" in texts and "64" in texts


def test_bad_picture_files_are_one_line_errors(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert main(["show", "start", "--svg", str(tmp_path / "no" / "dir" / "b.svg")]) == 2
    err = capsys.readouterr().err
    assert "cannot write the picture" in err and err.count("\n") == 1
    from fastbg.game.picture import save_board
    with pytest.raises(ValueError, match="SVG or PNG"):
        save_board(Position.start(), tmp_path / "b.gif")


def test_a_file_name_must_match_its_format(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    for argv, why in ((["--png", str(tmp_path / "b.jpg")], "a PNG picture's file name ends in .png"),
                      (["--svg", str(tmp_path / "b.png")], "an SVG picture's file name ends in "
                                                           ".svg"),
                      (["--png", str(tmp_path / "b")], "ends in .png"),
                      (["--svg", ""], "needs a file name")):
        assert main(["show", "start", *argv]) == 2, argv
        err = capsys.readouterr().err
        assert why in err and err.count("\n") == 1
    assert not list(tmp_path.iterdir())
