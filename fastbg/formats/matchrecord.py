"""What a match file says, before any rule is checked: the records the readers of
:mod:`~fastbg.formats.matfile` and :mod:`~fastbg.formats.sgf` give and the writers take.

These are the file's own facts (who rolled what and moved which checkers, who doubled,
took, dropped, won how many points), in plain values; :mod:`fastbg.game.matchfile` replays
them on a board, checks every play against the move generator and builds the
:class:`~fastbg.game.matchfile.Match`. Both layers raise :class:`MatchFileError`, one
exception naming the file, the game, the move and the problem.

Players are ``0`` and ``1``: the first and second name of the file (the left and right
column of a ``.mat``, White and Black of an ``.sgf``). Points are numbered from the
mover's side: 1..24, 25 the bar, 0 off.
"""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["MatchFileError", "RawAction", "RawGame", "RawMatch", "RAW_KINDS"]

#: What an entry of a file can be: a roll (with the moves played, or none), a double, a
#: beaver or a raccoon (a redouble by the taker, money play), a take, a drop, a game won
#: (``value``: the points; the side is the winner), a resignation (``value``: 1 single,
#: 2 gammon, 3 backgammon).
RAW_KINDS = ("roll", "double", "beaver", "take", "drop", "win", "resign")


class MatchFileError(ValueError):
    """A match file that cannot be read (or a match that cannot be written), in one line.

    Parameters
    ----------
    problem : str
        What is wrong, in words.
    path : str, optional
        The file.
    game : int, optional
        The game, numbered from 1 in the order of the file.
    move : int, optional
        The move within the game: a ``.mat`` file's numbered row, an ``.sgf`` file's node
        (counted from 1 after the game's first node).
    line : int, optional
        The line of the file, when known.

    Notes
    -----
    A subclass of ``ValueError``, so that code catching bad input as ``ValueError`` also
    catches it. ``str(exc)`` is the whole message: ``"m.mat, game 2, move 14 (line 40):
    '24/18 13/11' is not a legal play of 6-2 here"``.
    """

    def __init__(self, problem: str, *, path=None, game=None, move=None, line=None):
        self.problem, self.path, self.game, self.move, self.line = problem, path, game, move, line
        super().__init__(self._message())

    def _message(self) -> str:
        where = [str(self.path)] if self.path is not None else []
        if self.game is not None:
            where.append(f"game {self.game}")
        if self.move is not None:
            where.append(f"move {self.move}")
        text = ", ".join(where)
        if self.line is not None:
            text += f" (line {self.line})" if text else f"line {self.line}"
        return f"{text}: {self.problem}" if text else self.problem

    def located(self, **where) -> "MatchFileError":
        """The same problem with the location filled in where it was missing."""
        keep = {k: getattr(self, k) for k in ("path", "game", "move", "line")}
        for k, v in where.items():
            if keep.get(k) is None:
                keep[k] = v
        return MatchFileError(self.problem, **keep)


@dataclass
class RawAction:
    """One entry of a file: what one side did.

    Attributes
    ----------
    player : int
        0 or 1.
    kind : str
        One of :data:`RAW_KINDS`.
    dice : tuple of (int, int) or None
        The roll (``kind == "roll"``).
    moves : list of (int, int, bool) or None
        For a roll: the checker moves as written, ``(from, to, hit_marked)`` in the mover's
        numbering (a ``.mat`` may join several dice in one move: ``24/14``); empty when the
        file shows the roll without a move; ``None`` when the file says the roll was left
        unplayed (an ``.sgf`` setup node with the dice, before a resignation).
    value : int or None
        The cube offered (``double``, ``beaver``), the points won (``win``), the level
        resigned (``resign``).
    move_number, line : int or None
        Where the entry is in the file (for error messages).
    """

    player: int
    kind: str
    dice: tuple | None = None
    moves: list | None = None
    value: int | None = None
    move_number: int | None = None
    line: int | None = None


@dataclass
class RawGame:
    """One game of a file.

    Attributes
    ----------
    actions : list of RawAction
        In the order played.
    score : tuple of (int, int) or None
        The score before the game (money: the session's totals) as the file states it.
    crawford : bool or None
        The file marks this game as the Crawford game (True) or not (False); None when it
        does not say.
    result : tuple of (int, int, bool or None) or None
        ``(winner, points, resigned)`` as the file states it (an ``.sgf``'s ``RE``);
        ``None`` when it does not (a ``.mat`` states the win as an action).
    line : int or None
        Where the game starts in the file.
    """

    actions: list = field(default_factory=list)
    score: tuple | None = None
    crawford: bool | None = None
    result: tuple | None = None
    line: int | None = None


@dataclass
class RawMatch:
    """What a file says about a match or a money session.

    Attributes
    ----------
    match_length : int
        Points to win; 0 for a money session.
    names : tuple of (str, str)
        Players 0 and 1.
    games : list of RawGame
    crawford, jacoby, beaver : bool or None
        The rules as the file states them; None when it does not say.
    max_cube : int or None
        The cube limit the file states, if any.
    tags : dict of str to str
        Other facts of the header kept for writing the file again (event, date, ...).
    """

    match_length: int = 0
    names: tuple = ("player 0", "player 1")
    games: list = field(default_factory=list)
    crawford: bool | None = None
    jacoby: bool | None = None
    beaver: bool | None = None
    max_cube: int | None = None
    tags: dict = field(default_factory=dict)
