"""Legal plays of a position for a roll, with their notation."""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..engine import get_engine
from ..formats.dice import parse_dice
from ..formats.notation import format_play, parse_play
from .position import GAME_OVER, Position

__all__ = ["Play", "legal_plays", "find_play"]


@dataclass(frozen=True)
class Play:
    """One legal play: a distinct resulting position.

    Attributes
    ----------
    move : str
        GNU Backgammon-style notation from the mover's side (``"24/18 13/11"``).
        Several move sequences can give the same position; one is shown.
    board : numpy.ndarray of int8, shape (2, 25)
        The position after the play, still from the mover's side (row 0 = mover).
    """

    move: str
    board: np.ndarray

    @property
    def position(self) -> Position:
        """The resulting position with the turn passed (the opponent on roll)."""
        return Position(self.board[::-1])

    @property
    def position_id(self) -> str:
        """Position ID of the resulting position with the turn passed, as GNU
        Backgammon shows it after the move."""
        return self.position.to_position_id()


def legal_plays(position, dice, engine: str = "cython") -> list[Play]:
    """Every legal play of the player on roll for a roll.

    Parameters
    ----------
    position : Position, str or array_like
        See :meth:`Position.parse`.
    dice : str or tuple of int
        See :func:`fastbg.formats.dice.parse_dice`.
    engine : {"cython", "python"}
        Engine that generates the plays. The notation of each play is found by
        the pure-Python reference generator, which records move sequences.

    Returns
    -------
    list of Play
        Distinct resulting positions in canonical order (lexicographic over the
        resulting ``(2, 25)`` board). Empty when there is no legal play.

    Raises
    ------
    ValueError
        For a bad position or dice, or a position where the game is over.
    """
    pos = Position.parse(position)
    if pos.game_over:
        raise ValueError(GAME_OVER)
    d1, d2 = parse_dice(dice)
    boards = get_engine(engine).legal_plays(np.ascontiguousarray(pos.board), d1, d2)
    # the notation from the pure-Python engine, the one that tracks the moves of a play
    with_moves = get_engine("python").movegen.legal_plays_with_moves(pos.board, d1, d2)
    notation = {b.tobytes(): format_play(mv) for b, mv in with_moves}
    out = []
    for b in boards:
        b = np.array(b, dtype=np.int8)
        b.setflags(write=False)
        out.append(Play(move=notation.get(b.tobytes(), "?"), board=b))
    return out


def find_play(position, dice, move: str, engine: str = "cython") -> Play:
    """The legal play a notation describes, compared by the position it leads to.

    Parameters
    ----------
    position : Position, str or array_like
    dice : str or tuple of int
    move : str
        GNU Backgammon-style notation (:func:`fastbg.formats.notation.parse_play`): the
        moves in any order, hit marks optional (but a marked hit must hit).
    engine : {"cython", "python"}

    Returns
    -------
    Play

    Raises
    ------
    ValueError
        If the notation cannot be read, has a repeat count ``(n)`` larger than the roll
        allows, moves a checker the mover does not have, or does not give a legal play
        for the roll (the message lists the legal plays when few).
    """
    pos = Position.parse(position)
    plays = legal_plays(pos, dice, engine)
    legs = parse_play(move, hits=True)
    d1, d2 = parse_dice(dice)
    most = 4 if d1 == d2 else 2       # each leg of a path takes at least one die
    counts = [n for n in re.findall(r"\((\d+)\)", move) if int(n) > most]
    if counts:
        raise ValueError(f"play {move!r} has the repeat count ({counts[0]}), more than a "
                         f"{d1}-{d2} allows: it moves at most {most} checkers")
    b = np.array(pos.board, dtype=np.int16)
    hit_on = set()        # points hit earlier in this play: "13/7*(2)" marks both checkers
    for frm, to, marked in legs:
        i = frm - 1 if frm != 0 else None
        src = 24 if frm == 25 else i
        if b[0, src] <= 0:
            where, had = "the bar" if frm == 25 else frm, int(pos.board[0, src])
            if had:           # it had some there: the play takes more, e.g. "24/18(3)"
                raise ValueError(f"play {move!r} moves more checkers from {where} than the "
                                 f"player on roll has there ({had})"
                                 + ("; check the repeat count (n)" if "(" in move else ""))
            raise ValueError(f"play {move!r} moves a checker from {where}, "
                             "where the player on roll has none")
        b[0, src] -= 1
        if to != 0:
            b[0, to - 1] += 1
            opp = 24 - to             # the same point in the opponent's numbering, 0-based
            if b[1, opp] == 1:        # a hit: the blot goes to the bar
                b[1, opp] = 0
                b[1, 24] += 1
                hit_on.add(to)
            elif marked and to not in hit_on:
                raise ValueError(f"play {move!r} marks a hit on {to}, but there is no blot "
                                 "of the opponent there to hit")
    for p in plays:
        if np.array_equal(p.board, b):
            return p
    names = ", ".join(p.move for p in plays[:12]) + (" ..." if len(plays) > 12 else "")
    raise ValueError(f"{move!r} is not a legal play of {d1}-{d2} here"
                     + (f"; legal plays: {names}" if plays else ": the roll has no legal play"))
