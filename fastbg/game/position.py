"""Positions: a validated board with its IDs, pip counts and a diagram."""
from __future__ import annotations

import numpy as np

from ..formats.positionid import decode_position_id, encode_position_id, validate_board
from ..engine import get_engine
from ..formats.xgid import decode_xgid, encode_xgid
from ..spec.board import START_BOARD
from .matchstate import decode_gnubg_id

__all__ = ["EMPTY_BOARD", "GAME_OVER", "Position", "START_BOARD"]

#: The error of every command and function asked to play or value a finished game.
GAME_OVER = "the game is over in this position: a side has borne off all 15 checkers"

#: The error of a board with no checker at all: a finished game is a position (one side
#: has borne off all 15, the other has not), but both sides cannot have finished.
EMPTY_BOARD = ("the board is empty: both sides have borne off all their checkers, which no "
               "game can reach")

#: The error of a board whose checkers are all on the bars or borne off (no game over): the
#: side that moved last either entered or moved a checker, which lands on a point, or bore
#: off its last one, which ends the game; so it danced, and a side dances only against
#: points its opponent holds.
NO_POINTS_HELD = ("no checker of either side is on a point (all are on the bar or borne off), "
                  "which no game can reach: the side that moved last would have a checker on "
                  "a point or have borne off all 15")


def _board():
    """The board rules of the pure-Python engine: a position needs no compiled core."""
    return get_engine("python").board

class Position:
    """A backgammon position with the player on roll about to roll.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Row 0 the player on roll, row 1 the opponent, each counted from its own
        side: index ``i`` is the side's point ``i + 1``, index 24 its bar.
        Checkers not on the board are off.

    Raises
    ------
    ValueError
        If the board is not valid: wrong shape, negative counts, more than 15
        checkers a side, or a point held by both sides; or if it is empty (no checker
        of either side: a game ends when the first side has borne off all 15), or if
        no checker of either side is on a point in a game not over (all on the bars or
        borne off: the side that moved last danced, which needs points held against it). A
        finished game, one side with no checker left, is a position (:attr:`game_over`).

    Examples
    --------
    >>> Position.parse("start").to_position_id()
    '4HPwATDgc/ABMA'
    """

    __slots__ = ("_board",)

    def __init__(self, board):
        if isinstance(board, str):
            raise ValueError(
                f"Position() takes a (2, 25) board; use Position.parse({board!r}) for "
                "'start', a Position ID, a PositionID:MatchID pair or an XGID"
            )
        b = validate_board(board)
        if not b.any():
            raise ValueError(EMPTY_BOARD)
        if b[0].any() and b[1].any() and not b[:, :24].any():
            raise ValueError(NO_POINTS_HELD)
        b.setflags(write=False)
        self._board = b

    # ------------------------------------------------------------ constructors
    @classmethod
    def start(cls) -> "Position":
        """The standard starting position."""
        return cls(START_BOARD)

    @classmethod
    def from_position_id(cls, pid: str) -> "Position":
        """Position of a GNU Backgammon Position ID (see :mod:`fastbg.formats.positionid`)."""
        return cls(decode_position_id(pid))

    @classmethod
    def from_xgid(cls, xgid: str) -> "Position":
        """Position of an XGID's board part; the player on roll by its turn field."""
        return cls(decode_xgid(xgid).board)

    @classmethod
    def parse(cls, text) -> "Position":
        """Position from ``"start"``, a Position ID, a GNU Backgammon
        ``PositionID:MatchID`` pair, an XGID, or a board array.

        Parameters
        ----------
        text : str or Position or array_like
            ``"start"`` (any case), a 14-character GNU Backgammon Position ID,
            a ``PositionID:MatchID`` pair as GNU Backgammon writes it (both IDs
            are checked, the board is kept), an XGID (with or without
            ``XGID=``), a :class:`Position`, or a ``(2, 25)`` board.

        Returns
        -------
        Position
            The board only: cube, score and dice of a pair or an XGID are read by
            :func:`fastbg.game.parse.parse_game`.

        Raises
        ------
        ValueError
            If the text is none of these, naming what is wrong with it.
        """
        if isinstance(text, Position):
            return text
        if not isinstance(text, str):
            if text is None or np.ndim(text) == 0:     # None, a number, bytes...
                raise ValueError(f"bad position {text!r}: expected a string ('start', a "
                                 "Position ID, a PositionID:MatchID pair or an XGID), a "
                                 "Position or a (2, 25) board")
            return cls(text)
        s = text.strip()
        if s.lower() == "start":
            return cls.start()
        if s.upper().startswith("XGID="):
            return cls.from_xgid(s)
        if ":" in s:
            if len(s.split(":", 1)[0].strip()) == 14:  # GNU Backgammon's PositionID:MatchID
                return cls(decode_gnubg_id(s)[0])
            return cls.from_xgid(s)
        if len(s) == 14:
            return cls.from_position_id(s)
        raise ValueError(
            f"bad position {text!r}: expected 'start', a 14-character GNU Backgammon "
            f"Position ID, a PositionID:MatchID pair or an XGID ({len(s):,} characters given)"
        )

    # ------------------------------------------------------------- conversions
    @property
    def board(self) -> np.ndarray:
        """Read-only ``int8`` array of shape ``(2, 25)`` (row 0 on roll)."""
        return self._board

    def to_position_id(self) -> str:
        """GNU Backgammon Position ID (14 characters)."""
        return encode_position_id(self._board)

    @property
    def position_id(self) -> str:
        """GNU Backgammon Position ID (14 characters), read-only: the same as
        :meth:`to_position_id`, under the name :attr:`fastbg.game.plays.Play.position_id`
        and a ranked play's ``position_id`` use.

        Examples
        --------
        >>> Position.parse("start").position_id
        '4HPwATDgc/ABMA'
        """
        return encode_position_id(self._board)

    def to_xgid(self) -> str:
        """XGID with the player on roll as X, centred cube, money play, to roll."""
        return encode_xgid(self._board)

    def swapped(self) -> "Position":
        """The same checkers with the other side on roll."""
        return Position(self._board[::-1])

    # --------------------------------------------------------------- measures
    @property
    def pip_counts(self) -> tuple[int, int]:
        """Pip counts ``(player on roll, opponent)``; a checker on the bar counts 25."""
        return _board().pip_counts(self._board)

    @property
    def checkers_off(self) -> tuple[int, int]:
        """Checkers borne off ``(player on roll, opponent)``."""
        return _board().checkers_off(self._board)

    @property
    def is_race(self) -> bool:
        """True when no contact is left: every checker of each side is past all
        checkers of the other."""
        return _board().is_race(self._board)

    @property
    def game_over(self) -> bool:
        """True when a side has borne off all its checkers."""
        return 15 in self.checkers_off

    @property
    def no_side_can_move(self) -> bool:
        """True when neither side can ever move: both have checkers on the bar against a
        closed home board (:func:`fastbg.reference.board.no_side_can_move`); a game from
        here would never end."""
        return _board().no_side_can_move(self._board)

    def check_playable(self) -> None:
        """Refuse a position no game can be played from, before any game is played: the
        check every function that plays games from a given position makes first
        (rollouts cubeless and cubeful, cube decisions, plays rollouts), with
        :func:`fastbg.reference.board.check_start` in the engines' game loops.

        Raises
        ------
        ValueError
            If the game is over (:attr:`game_over`) or neither side can ever move
            (:attr:`no_side_can_move`).
        """
        if self.game_over:
            raise ValueError(GAME_OVER)
        _board().check_start(self._board)

    # ----------------------------------------------------------------- dunder
    def __eq__(self, other) -> bool:
        return isinstance(other, Position) and bool(np.array_equal(self._board, other._board))

    def __hash__(self) -> int:
        return hash(self._board.tobytes())

    def __repr__(self) -> str:
        return f"Position.from_position_id({self.to_position_id()!r})"

    def __str__(self) -> str:
        return diagram(self)


def _stack(n: int, symbol: str, height: int) -> list[str]:
    """Column of one point: up to ``height`` symbols, the last one a count if more."""
    cells = [symbol if i < n else " " for i in range(height)]
    if n > height:
        cells[height - 1] = str(n)
    return cells


def diagram(pos: Position, height: int = 5, *, state=None, dice=None) -> str:
    """ASCII diagram of a position, the player on roll (X) at the bottom.

    Points are numbered from X's side: 13..24 along the top, 12..1 along the
    bottom, X's home board bottom right. A point with more than ``height``
    checkers shows the count in its last cell (``A`` = 10 ... ``F`` = 15).

    Parameters
    ----------
    pos : Position
    height : int
        Checkers shown per point.
    state : MatchState, optional
        Cube, score and rules: with it the diagram ends with the GNU Backgammon
        Match ID and the full XGID of the position in this state (and ``dice``),
        without it with the XGID of a money game with a centred cube, to roll.
    dice : (int, int), optional
        The roll, if the player on roll has rolled (only with ``state``).
    """
    b = pos.board
    x_row, o_row = b[0], b[1]

    def cell(p: int) -> tuple[int, str]:
        if x_row[p - 1]:
            return int(x_row[p - 1]), "X"
        return int(o_row[24 - p]), "O"

    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))
    lines = [f" O (opponent)   pips {pos.pip_counts[1]:>3}   off {pos.checkers_off[1]}"]
    lines.append(" +" + "".join(f"{p:>3}" for p in top[:6]) + " |BAR|" + "".join(f"{p:>3}" for p in top[6:]) + " +")
    cols = [_stack(*cell(p), height) for p in top]
    o_bar = _stack(int(o_row[24]), "O", height)
    for r in range(height):
        left = "".join(f"{cols[i][r]:>3}" for i in range(6))
        right = "".join(f"{cols[i][r]:>3}" for i in range(6, 12))
        lines.append(f" |{left} |{o_bar[r]:^3}|{right} |")
    lines.append(" |" + " " * 18 + " |   |" + " " * 18 + " |")
    cols = [_stack(*cell(p), height) for p in bottom]
    x_bar = _stack(int(x_row[24]), "X", height)
    for r in reversed(range(height)):
        left = "".join(f"{cols[i][r]:>3}" for i in range(6))
        right = "".join(f"{cols[i][r]:>3}" for i in range(6, 12))
        lines.append(f" |{left} |{x_bar[r]:^3}|{right} |")
    lines.append(" +" + "".join(f"{p:>3}" for p in bottom[:6]) + " |BAR|" + "".join(f"{p:>3}" for p in bottom[6:]) + " +")
    lines.append(f" X (on roll)     pips {pos.pip_counts[0]:>3}   off {pos.checkers_off[0]}")
    lines.append(f" Position ID: {pos.to_position_id()}")
    if state is None:
        lines.append(f" XGID: {pos.to_xgid()}")
    else:
        lines.append(f" Match ID: {state.to_match_id(dice)}")
        lines.append(f" XGID: {state.to_xgid(pos, dice)}")
    return "\n".join(lines)
