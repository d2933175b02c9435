"""Agreement with GNU Backgammon's move lists (``../shared/golden/gnubg_moves.jsonl``).

Every line holds a position (Position ID, player on roll), a roll, and every legal
play as the Position ID of the resulting position with the turn passed. For
every line, the engine's plays, swapped (opponent on roll) and encoded, must be
exactly that set.

Three lines (``v0VEBCICAAAAAA`` 2-1, ``VxkAQEAAAAAAAA`` 5-3 and 6-3) pin down how
dice are counted when the last checker goes off: it could go off with one die,
or with both by another route that hits on the way; only the route that plays
both dice is legal (engine contract, :mod:`fastbg.reference`).
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from fastbg.formats import decode_position_id, encode_position_id

GOLDEN = Path(__file__).resolve().parents[1].parent / "shared" / "golden" / "gnubg_moves.jsonl"


@pytest.fixture(scope="module")
def golden():
    if not GOLDEN.exists():
        pytest.fail(f"golden data missing: {GOLDEN} (shared/ must sit beside the project)")
    with GOLDEN.open() as fh:
        lines = [json.loads(line) for line in fh if line.strip()]
    assert len(lines) == 6300
    return lines


def _engine_play_ids(engine, rec) -> set:
    """Position IDs of the engine's plays with the turn passed (rows swapped)."""
    start = decode_position_id(rec["position_id"])
    plays = engine.legal_plays(start, *rec["dice"])
    return {encode_position_id(p[::-1]) for p in plays}


def test_every_golden_line(engine, golden):
    mismatches = []
    for rec in golden:
        got, expected = _engine_play_ids(engine, rec), set(rec["plays"])
        if got != expected:
            mismatches.append(
                f"{rec['position_id']} {rec['dice']}: missing {sorted(expected - got)}, "
                f"unexpected {sorted(got - expected)}"
            )
    assert not mismatches, (
        f"{engine.name} engine disagrees with GNU Backgammon on {len(mismatches)} of "
        f"{len(golden)} lines:\n" + "\n".join(mismatches[:10])
    )


def test_golden_data_format(golden):
    # The data's own promises (README): sorted, distinct IDs; d1 >= d2; a notation
    # for every play; every ID decodes to a valid board.
    for rec in golden:
        assert rec["plays"] == sorted(set(rec["plays"]))
        d1, d2 = rec["dice"]
        assert 6 >= d1 >= d2 >= 1
        assert set(rec["moves"]) == set(rec["plays"])
        decode_position_id(rec["position_id"])


@pytest.mark.parametrize("part", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_gnubgs_notation_of_every_play_with_a_repeated_hit_is_read_back(golden, part):
    # GNU Backgammon writes a hit by several checkers on one point once, as "13/7*(2)": the
    # mark applies to the first checker, which hits; the next land on the point it took.
    # find_play must read every such notation (gnubg's and fastbg's own) as that play.
    # Every 5th record in the quick tier (part 0), the others slow (part 1).
    from fastbg.game.plays import find_play

    checked, wrong = 0, []
    for rec in (golden[::5] if part == 0 else [r for k, r in enumerate(golden) if k % 5]):
        dice = "".join(map(str, rec["dice"]))
        for pid, move in rec["moves"].items():
            if "*(" not in move:
                continue
            checked += 1
            got = find_play(rec["position_id"], dice, move, engine="python")
            if encode_position_id(got.board[::-1]) != pid:
                wrong.append(f"{rec['position_id']} {dice} {move!r}")
            if find_play(rec["position_id"], dice, got.move, engine="python").move != got.move:
                wrong.append(f"{rec['position_id']} {dice} fastbg's {got.move!r}")
    assert checked > (20 if part == 0 else 80) and not wrong, (checked, wrong[:5])
