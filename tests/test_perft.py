"""perft: leaves of the game tree over all 21 rolls per ply, in both engines.

perft(b, 0) = 1; a finished game is one leaf; perft(b, d) sums, over the 21
distinct rolls (not weighted) and the distinct plays of each, perft(play with the
turn passed, d - 1); a roll with no legal play has one child, b with the turn
passed. The counts must agree between the two engines (they use different move
generators) and with counts computed here from ``legal_plays``.
"""
from __future__ import annotations

import json

import numpy as np
import pytest

from fastbg.cli import main
from fastbg.engine import get_engine
from fastbg.game.position import START_BOARD

from conftest import cython_unavailable_reason
from scenario import board

ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]


def swap(b):
    return np.ascontiguousarray(b[::-1])


def children(engine, b):
    """The children of b over the 21 rolls, turn passed (no play: b itself)."""
    out = []
    for d1, d2 in ROLLS:
        plays = engine.legal_plays(b, d1, d2)
        out.extend([swap(p) for p in plays] if len(plays) else [swap(b)])
    return out


def finished(b) -> bool:
    return b[0].sum() == 0 or b[1].sum() == 0


# One checker on the bar facing a 3-point board (mover's numbering: the
# opponent's home board is the mover's 19..24).
BAR = board({"bar": 1, 13: 5, 8: 4, 6: 5}, {19: 3, 20: 2, 21: 2, 12: 5, 17: 3})
# On the bar with a blot to hit on entry and one back checker of its own.
BAR_MIXED = board({"bar": 1, 13: 5, 8: 3, 6: 5, 24: 1},
                  {19: 3, 20: 2, 22: 1, 12: 5, 17: 4})
# Two on the bar against a closed board: every roll dances.
CLOSED = board({"bar": 2, 13: 5, 8: 3, 6: 5},
               {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 12: 3})
# Bear-offs where games finish within two plies.
BEAROFF = board({1: 3, 2: 1}, {24: 2, 22: 1})
BEAROFF_CONTACT = board({1: 2, 3: 2, 5: 1, 20: 1}, {4: 1, 24: 2, 22: 1})
POSITIONS = {
    "start": START_BOARD,
    "bar": BAR,
    "bar_mixed": BAR_MIXED,
    "closed": CLOSED,
    "bearoff": BEAROFF,
    "bearoff_contact": BEAROFF_CONTACT,
}


def test_positions_are_valid():
    from fastbg.reference.board import validate_board

    for b in POSITIONS.values():
        validate_board(b)


@pytest.mark.parametrize("name", POSITIONS)
def test_engines_agree_depths_0_to_2(name):
    reason = cython_unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    b = POSITIONS[name]
    for depth in (0, 1, 2):
        py = get_engine("python").perft(b, depth)
        cy = get_engine("cython").perft(b, depth)
        assert py == cy, f"{name} depth {depth}: python {py}, cython {cy}"


def test_depth_1_from_start_is_the_sum_of_distinct_plays(engine):
    expected = sum(len(engine.legal_plays(START_BOARD, d1, d2)) for d1, d2 in ROLLS)
    assert engine.perft(START_BOARD, 0) == 1
    assert engine.perft(START_BOARD, 1) == expected == 447


@pytest.mark.parametrize("name", ["bar", "bar_mixed", "bearoff_contact"])
def test_depth_2_is_the_sum_over_children(engine, name):
    b = POSITIONS[name]
    kids = children(engine, b)
    # perft(child, 1) computed from legal_plays: one leaf per play or dance,
    # one leaf for a finished game.
    expected = sum(
        1 if finished(k) else sum(max(1, len(engine.legal_plays(k, d1, d2))) for d1, d2 in ROLLS)
        for k in kids
    )
    assert engine.perft(b, 1) == len(kids)
    assert engine.perft(b, 2) == expected


def test_start_depth_2_known_count(engine):
    if engine.name == "python":
        pytest.skip("the same count is checked against the Python engine above")
    assert engine.perft(START_BOARD, 2) == 202_782


def test_closed_board_every_roll_dances(engine):
    # No entry: one child per roll, the unchanged position with the turn passed.
    assert all(len(engine.legal_plays(CLOSED, d1, d2)) == 0 for d1, d2 in ROLLS)
    assert engine.perft(CLOSED, 1) == 21
    assert engine.perft(CLOSED, 2) == 21 * engine.perft(swap(CLOSED), 1)


def test_finished_game_is_one_leaf(engine):
    done = board({}, {24: 2, 22: 1})     # the mover has borne off every checker
    for depth in (0, 1, 3):
        assert engine.perft(done, depth) == 1
        assert engine.perft(swap(done), depth) == 1
    # Three checkers on the ace point against 15 on the opponent's 6-point: the 6
    # doubles finish the game at once (one leaf each at any depth); the 15 other
    # rolls leave one checker, the opponent replies (no reply can finish), and
    # then each of the 21 rolls bears the last checker off.
    three = board({1: 3}, {19: 15})
    after = swap(board({1: 1}, {19: 15}))
    replies = sum(max(1, len(engine.legal_plays(after, d1, d2))) for d1, d2 in ROLLS)
    assert engine.perft(three, 1) == 21
    assert engine.perft(three, 2) == 6 + 15 * replies
    assert engine.perft(three, 3) == 6 + 15 * replies * 21


@pytest.mark.parametrize("depth", [-1, 17, 1.5, True])
def test_bad_depth(engine, depth):
    with pytest.raises(ValueError):
        engine.perft(START_BOARD, depth)


def test_cli_perft(capsys):
    assert main(["perft", "start", "2", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["position_id"] == "4HPwATDgc/ABMA" and out["engine"] == "cython"
    assert [r["leaves"] for r in out["depths"]] == [447, 202_782]
    assert main(["perft", "start", "1", "--engine", "python"]) == 0
    text = capsys.readouterr().out
    assert "447" in text and "leaves/s" in text
    with pytest.raises(SystemExit) as exc:
        main(["perft", "start", "99"])
    assert exc.value.code == 2


@pytest.mark.parametrize("position", [
    "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10",
    "4HPwATDgc/ABMA:cIkFAAAAAAAE",          # a GNU ID pair, 3-1 rolled
])
def test_cli_perft_refuses_a_position_with_the_dice_rolled(capsys, position):
    # it counted all 21 rolls, silently dropping the XGID's 3-1 (new-user trial); the
    # rule of eval and cube, which also take a position before the roll (docs/cli.md)
    assert main(["perft", position, "1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("fastbg perft: error: POSITION has the dice rolled (3-1): "), err
    # before the roll, the same XGID is counted
    assert main(["perft", "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "1",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["depths"][-1]["leaves"] == 447
