"""Matches and money sessions read from (and written to) match files.

A :class:`Match` is what a match file holds, replayed on a board: its games, each a list of
:class:`Action` (a roll and its play, a double, a beaver, a take, a drop, a resignation),
each with the position, the match state (cube, score, Crawford, Jacoby) and the dice before
it, from the view of the side acting. :func:`read_match` reads Jellyfish ``.mat``
(:mod:`fastbg.formats.matfile`) and GNU Backgammon ``.sgf`` (:mod:`fastbg.formats.sgf`)
files; :func:`write_match` writes both.

Replaying checks everything the files state against the rules (DESIGN section 3): every
play is one of the move generator's legal plays for the roll (compared by the position it
leads to); a roll given without a move has no legal play (except a last roll left unplayed
when the game was resigned); the opening roll is not a double; the turns alternate; a
double is allowed (:attr:`MatchState.may_double`: not in the Crawford game, not by the
side that does not own the cube, not with a dead cube) and is answered; the points each
game is said to win agree with how it ended, and the scores before each game with the
games before it. The first thing that does not gives one :class:`MatchFileError` naming
the file, the game, the move and the problem; nothing is skipped.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._version import __version__
from ..engine import get_engine
from ..formats.matchrecord import MatchFileError, RawAction, RawGame, RawMatch
from ..formats.matfile import format_mat, parse_mat
from ..formats.notation import format_play
from ..formats.sgf import format_sgf, parse_sgf
from ..spec.board import START_BOARD
from .matchstate import DEFAULT_MAX_CUBE, MatchState
from .position import Position

__all__ = ["Action", "Game", "Match", "MatchFileError", "ACTION_KINDS", "FORMATS",
           "read_match", "parse_match", "write_match", "format_match"]

#: The kinds of :class:`Action`.
ACTION_KINDS = ("move", "double", "beaver", "take", "drop", "resign", "roll")

#: Match file formats: name -> file suffixes.
FORMATS = {"mat": (".mat",), "sgf": (".sgf",)}

#: How a game ended (:attr:`Game.ended_by`).
ENDINGS = ("bearoff", "drop", "resign")

_LEVELS = {1: "single game", 2: "gammon", 3: "backgammon"}


@dataclass(frozen=True, eq=False)
class Action:
    """One thing a side did, with everything known before it.

    Attributes
    ----------
    kind : str
        ``"move"`` (a roll and its play, possibly no play), ``"double"``, ``"beaver"`` (the
        taker redoubles at once, money play), ``"take"``, ``"drop"``, ``"resign"``
        (accepted; files record no other), or ``"roll"`` (a roll left unplayed because the
        game was then resigned).
    player : int
        0 or 1 (:attr:`Match.names`).
    position : Position
        Before the action, row 0 the side acting (for ``take``/``drop``, the side
        answering; the doubler is row 1).
    state : MatchState
        Cube, score and rules before the action, from the acting side's view (a ``take``
        sees the double not yet taken).
    dice : tuple of (int, int) or None
        The roll of a ``move`` or ``roll``.
    moves : tuple of (int, int, bool)
        A ``move``'s checker moves as the file wrote them, ``(from, to, hit)`` in the
        mover's numbering (25 the bar, 0 off), ``hit`` as it happened on the board.
    play : str or None
        A ``move``'s play in GNU Backgammon notation (``"24/18 13/11"``, ``"(no play)"``).
    after : numpy.ndarray of int8, shape (2, 25), or None
        A ``move``'s resulting board, row 0 still the mover (as :attr:`Play.board`).
    value : int or None
        The cube offered (``double``, ``beaver``), the level resigned (``resign``: 1 single,
        2 gammon, 3 backgammon).
    """

    kind: str
    player: int
    position: Position
    state: MatchState
    dice: tuple | None = None
    moves: tuple = ()
    play: str | None = None
    after: np.ndarray | None = None
    value: int | None = None

    @property
    def position_id(self) -> str:
        """The Position ID of :attr:`position`."""
        return self.position.position_id

    def key(self) -> tuple:
        """What the action is, in plain values (for comparing matches)."""
        after = None if self.after is None else self.after.tobytes()
        return (self.kind, self.player, self.dice, self.value, after,
                self.position.board.tobytes())


@dataclass(frozen=True, eq=False)
class Game:
    """One game of a match or a session.

    Attributes
    ----------
    number : int
        From 1.
    score : tuple of (int, int)
        Points of players 0 and 1 before the game (money: the session's totals).
    crawford : bool
        The Crawford game.
    actions : tuple of Action
    winner : int or None
        None when the file ends before the game does.
    points : int
        Points won (0 when unfinished): the cube times 1, 2 or 3, not capped at the match
        length (as the files write them).
    ended_by : str or None
        One of :data:`ENDINGS`.
    """

    number: int
    score: tuple
    crawford: bool
    actions: tuple
    winner: int | None = None
    points: int = 0
    ended_by: str | None = None

    @property
    def plays(self) -> int:
        """Checker-play decisions: rolls with at least one legal play (played)."""
        return sum(1 for a in self.actions if a.kind == "move" and a.play != "(no play)")

    @property
    def cube_actions(self) -> int:
        """Doubles, beavers, takes and drops."""
        return sum(1 for a in self.actions if a.kind in ("double", "beaver", "take", "drop"))

    def key(self) -> tuple:
        """The game in plain values (for comparing matches)."""
        return (self.number, tuple(self.score), self.crawford, self.winner, self.points,
                self.ended_by, tuple(a.key() for a in self.actions))


@dataclass(frozen=True, eq=False)
class Match:
    """A match or a money session, as replayed from a file.

    Attributes
    ----------
    names : tuple of (str, str)
        Players 0 and 1: the left and right column of a ``.mat``, White and Black of an
        ``.sgf``.
    match_length : int
        0 for a money session.
    games : tuple of Game
    crawford : bool
        The Crawford rule (matches; True unless the file says otherwise).
    jacoby : bool
        The Jacoby rule (money play): as the file states it, or inferred from a game that
        scored a gammon, or the ``jacoby`` argument of :func:`read_match`; False otherwise.
    beaver : bool
        Beavers allowed (money play): as the file states it, or True when a beaver was
        played.
    max_cube : int
        The cube limit (1024 unless the file says).
    tags : dict
        Other header facts of the file (event, date, ...), kept for writing it again.
    """

    names: tuple
    match_length: int
    games: tuple
    crawford: bool = True
    jacoby: bool = False
    beaver: bool = False
    max_cube: int = DEFAULT_MAX_CUBE
    tags: dict = field(default_factory=dict)

    @property
    def is_money(self) -> bool:
        """A money session (``match_length == 0``)."""
        return self.match_length == 0

    @property
    def score(self) -> tuple:
        """Points of players 0 and 1 after the last game finished."""
        s = [0, 0]
        for g in self.games:
            s = list(g.score)
            if g.winner is not None:
                s[g.winner] += g.points
        return tuple(s)

    @property
    def winner(self) -> int | None:
        """The match's winner, None for money play or a match not finished."""
        if self.is_money:
            return None
        s = self.score
        for p in (0, 1):
            if s[p] >= self.match_length:
                return p
        return None

    def summary(self) -> str:
        """One paragraph: kind, players, score, games, decisions."""
        kind = "money session" if self.is_money else f"{self.match_length}-point match"
        s = self.score
        plays = sum(g.plays for g in self.games)
        cube = sum(g.cube_actions for g in self.games)
        won = ""
        if self.winner is not None:
            won = f", won by {self.names[self.winner]}"
        elif not self.is_money:
            won = ", not finished"
        return (f"{kind}: {self.names[0]} {s[0]}, {self.names[1]} {s[1]}{won}; "
                f"{len(self.games)} game{'s' if len(self.games) != 1 else ''}, "
                f"{plays} checker plays, {cube} cube actions")

    def key(self) -> tuple:
        """The match in plain values: equal keys, equal matches (tags aside)."""
        return (tuple(self.names), self.match_length, self.crawford, self.jacoby,
                self.beaver, self.max_cube, tuple(g.key() for g in self.games))


# --------------------------------------------------------------------------- replay

class _JacobyScored(Exception):
    """A gammon scored single with the cube unturned in money play, the Jacoby rule not
    stated: replay again with it."""


def _view(board: np.ndarray, p: int) -> np.ndarray:
    return board if p == 0 else board[::-1]


def _gammon_level(mover_after: np.ndarray) -> int:
    """1, 2 or 3: the result of a game the mover (row 0) has just won by bearing off."""
    loser = mover_after[1]
    if loser.sum() < 15:
        return 1
    if loser[24] or loser[18:24].any():   # on the bar or in the winner's home board
        return 3
    return 2


class _Replay:
    """Replays a RawMatch on the board, checking every fact against the rules."""

    def __init__(self, raw: RawMatch, path, engine: str, jacoby: bool, beaver):
        self.raw, self.path, self.jacoby = raw, path, jacoby
        self.beaver = beaver
        self.engine = get_engine(engine)
        self.crawford_rule = True if raw.crawford is None else raw.crawford
        self.max_cube = raw.max_cube or DEFAULT_MAX_CUBE
        self.name = raw.names

    # ------------------------------------------------------------------ helpers
    def state(self, p: int) -> MatchState:
        owner = ("centred" if self.owner is None else "player" if self.owner == p
                 else "opponent")
        length = self.raw.match_length
        score = (0, 0) if not length else (self.score[p], self.score[1 - p])
        return MatchState(cube=self.cube, cube_owner=owner, match_length=length,
                          score=score, crawford=self.crawford, jacoby=self.jacoby,
                          beaver=bool(self.beaver), max_cube=self.max_cube)

    def act(self, kind, p, **kw) -> Action:
        a = Action(kind, p, Position(_view(self.board, p).copy()), self.state(p), **kw)
        self.actions.append(a)
        return a

    def play(self, p: int, dice, moves):
        """Resolve a roll's written moves to one legal play: (after board, moves, play)."""
        pos = np.ascontiguousarray(_view(self.board, p), dtype=np.int8)
        legal = self.engine.legal_plays(pos, dice[0], dice[1])
        if not len(legal):
            if moves:
                raise MatchFileError(f"{self.name[p]} moves with {dice[0]}{dice[1]}, but the "
                                     "roll has no legal play")
            return pos.copy(), (), "(no play)"
        keys = {np.asarray(b, dtype=np.int8).tobytes(): b for b in legal}
        b = pos.astype(np.int16)
        done = []
        for frm, to, marked in moves:
            src = 24 if frm == 25 else frm - 1
            if frm == 0 or b[0, src] <= 0:
                where = "the bar" if frm == 25 else f"point {frm}"
                raise MatchFileError(f"{self.name[p]} moves a checker from {where} with "
                                     f"{dice[0]}{dice[1]}, but has none there")
            b[0, src] -= 1
            hit = False
            if to != 0:
                b[0, to - 1] += 1
                opp = 24 - to
                if b[1, opp] >= 2:
                    raise MatchFileError(f"{self.name[p]} moves a checker to point {to} with "
                                         f"{dice[0]}{dice[1]}, but {self.name[1 - p]} holds "
                                         "it")
                if b[1, opp] == 1:
                    b[1, opp], b[1, 24], hit = 0, b[1, 24] + 1, True
            done.append((frm, to, hit))
        text = format_play(done) if done else "(no play)"
        after = b.astype(np.int8)
        if after.tobytes() in keys:
            return after, tuple(done), text
        # a move written through an intermediate point that hit there (24/14 for 24/18*/14):
        # the legal plays that leave the mover's checkers where the file says
        same = [np.asarray(x, dtype=np.int8) for x in legal
                if np.array_equal(np.asarray(x)[0], after[0])]
        if len(same) > 1:
            marks = sum(m for _, _, m in moves)
            same = [x for x in same if int(x[1, 24]) - int(pos[1, 24]) == marks] or same
        if len(same) == 1:
            return same[0], tuple(done), text
        names = [format_play(mv) for _, mv in
                 get_engine("python").movegen.legal_plays_with_moves(pos, *dice)]
        shown = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
        raise MatchFileError(f"{self.name[p]}'s {text} is not a legal play of "
                             f"{dice[0]}{dice[1]} here (legal: {shown})")

    # --------------------------------------------------------------- the match
    def run(self) -> Match:
        raw, length = self.raw, self.raw.match_length
        self.score = [0, 0]
        crawford_done = False
        games = []
        for gi, rg in enumerate(raw.games, start=1):
            try:
                if length and max(self.score) >= length:
                    raise MatchFileError(f"a game after the match was won ({self.score[0]}-"
                                         f"{self.score[1]} in a {length}-point match)",
                                         line=rg.line)
                if rg.score is not None and tuple(rg.score) != tuple(self.score):
                    raise MatchFileError(
                        f"the score before the game is given as {rg.score[0]}-{rg.score[1]}, "
                        f"but the games before it make it {self.score[0]}-{self.score[1]}",
                        line=rg.line)
                self.crawford = bool(length > 1 and self.crawford_rule and not crawford_done
                                     and length - 1 in self.score)
                if rg.crawford is not None and rg.crawford != self.crawford:
                    raise MatchFileError(
                        "the file marks this game as the Crawford game, but at "
                        f"{self.score[0]}-{self.score[1]} it is not" if rg.crawford else
                        "by the score this is the Crawford game, but the file does not "
                        "mark it", line=rg.line)
                games.append(self.game(gi, rg))
            except MatchFileError as exc:
                raise exc.located(path=self.path, game=gi) from None
            except ValueError as exc:       # an impossible state or board
                raise MatchFileError(str(exc), path=self.path, game=gi) from None
            g = games[-1]
            crawford_done = crawford_done or self.crawford
            if g.winner is None and gi != len(raw.games):
                raise MatchFileError("the game has no end (no win, drop or resignation), "
                                     "but another game follows", path=self.path, game=gi)
            if g.winner is not None:
                self.score[g.winner] += g.points
        beaver = bool(self.beaver) or any(a.kind == "beaver" for g in games for a in g.actions)
        return Match(names=tuple(raw.names), match_length=length, games=tuple(games),
                     crawford=bool(length) and self.crawford_rule, jacoby=self.jacoby,
                     beaver=beaver,
                     max_cube=self.max_cube, tags=dict(raw.tags))

    def game(self, number: int, rg: RawGame) -> Game:
        self.board = START_BOARD.astype(np.int8).copy()
        self.cube, self.owner = 1, None
        self.actions = []
        turn = None
        pending = None            # (doubler, new cube value)
        ended = None              # (how, winner, points)
        entries = list(rg.actions)
        for k, ra in enumerate(entries):
            try:
                p = ra.player
                other = self.name[1 - p]
                if ended is not None and ra.kind != "win":
                    raise MatchFileError(f"{self.name[p]} acts after the game ended "
                                         f"({ended[0]} by {self.name[ended[1]]})")
                if ra.kind == "double" and pending is not None and pending[0] != p:
                    ra = RawAction(p, "beaver", value=ra.value, move_number=ra.move_number,
                                   line=ra.line)
                if ra.kind == "roll":
                    if pending is not None:
                        if pending[2] and p == 1 - pending[0] and p == turn:
                            # a .mat writes no take after a beaver: the doubler's roll is it
                            self.act("take", p)
                            self.cube, self.owner, pending = pending[1], p, None
                        else:
                            raise MatchFileError(f"{self.name[p]} rolls before the double "
                                                 "was answered")
                    if turn is None:
                        if ra.dice[0] == ra.dice[1]:
                            raise MatchFileError(f"the opening roll is {ra.dice[0]}"
                                                 f"{ra.dice[1]}, a double: each side rolls "
                                                 "one die and ties are rolled again")
                        turn = p
                    elif p != turn:
                        raise MatchFileError(f"{self.name[p]} rolls, but it is {other}'s turn")
                    rest = entries[k + 1:]
                    last = all(r.kind == "win" for r in rest) and (
                        rest or (rg.result is not None and rg.result[2]))
                    if ra.moves is None or (not ra.moves and last and len(self.engine.legal_plays(
                            np.ascontiguousarray(_view(self.board, p)), *ra.dice))):
                        if not last:
                            raise MatchFileError(f"{self.name[p]}'s roll {ra.dice[0]}"
                                                 f"{ra.dice[1]} is left unplayed, but the game "
                                                 "goes on")
                        self.act("roll", p, dice=tuple(ra.dice))
                        continue
                    after, done, text = self.play(p, ra.dice, ra.moves)
                    after = np.array(after, dtype=np.int8)
                    after.setflags(write=False)     # (an Action is frozen, its board too)
                    self.act("move", p, dice=tuple(ra.dice), moves=done, play=text,
                             after=after)
                    self.board = _view(after, p).copy()
                    if (after[0].sum()) == 0:
                        level = _gammon_level(after)
                        if self.jacoby and self.cube == 1 and level > 1 and \
                                not self.raw.match_length:
                            level = 1
                        ended = ("bearoff", p, level * self.cube)
                    turn = 1 - p
                elif ra.kind == "double":
                    if pending is not None:
                        raise MatchFileError(f"{self.name[p]} doubles again before the "
                                             "double was answered")
                    if turn is None:
                        raise MatchFileError(f"{self.name[p]} doubles before the opening roll")
                    if p != turn:
                        raise MatchFileError(f"{self.name[p]} doubles, but it is {other}'s "
                                             "turn to roll")
                    st = self.state(p)
                    if not st.may_double:
                        raise MatchFileError(f"{self.name[p]} doubles, but may not: "
                                             f"{st.why_not_double}")
                    self._check_value(ra, self.cube * 2, "double")
                    self.act("double", p, value=self.cube * 2)
                    pending = (p, self.cube * 2, False)
                elif ra.kind == "beaver":
                    if pending is None or pending[0] == p or pending[2]:
                        raise MatchFileError(f"{self.name[p]} beavers, but {other} has not "
                                             "just doubled")
                    if self.raw.match_length:
                        raise MatchFileError(f"{self.name[p]} beavers in match play: "
                                             "beavers are for money play")
                    if self.beaver is False:
                        raise MatchFileError(f"{self.name[p]} beavers, but the file says "
                                             "beavers are not allowed")
                    self._check_value(ra, pending[1] * 2, "beaver")
                    # the taker owns the doubled cube as it redoubles
                    self.act("beaver", p, value=pending[1] * 2)
                    self.cube, self.owner = pending[1], p
                    pending = (p, pending[1] * 2, True)
                elif ra.kind in ("take", "drop"):
                    if pending is None or pending[0] == p:
                        raise MatchFileError(f"{self.name[p]} {ra.kind}s, but {other} has "
                                             "not doubled")
                    self.act(ra.kind, p)
                    if ra.kind == "take":
                        self.cube, self.owner = pending[1], p
                        pending = None
                    else:
                        ended = ("drop", pending[0], pending[1] // 2)
                elif ra.kind == "win":
                    ended = self._win(ended, p, ra.value, pending)
                else:
                    raise MatchFileError(f"unexpected entry {ra.kind!r}")
            except MatchFileError as exc:
                raise exc.located(move=ra.move_number, line=ra.line) from None
        if rg.result is not None:
            w, points, resigned = rg.result
            if ended is not None and resigned:
                raise MatchFileError(f"the result says {self.name[w]} won by resignation, but "
                                     f"the game ended by a {ended[0]}", line=rg.line)
            try:
                ended = self._win(ended, w, points, pending)
            except MatchFileError as exc:
                raise exc.located(line=rg.line) from None
        if ended is None:
            return Game(number, tuple(self.score), self.crawford,
                        tuple(self.actions))
        how, winner, points = ended
        return Game(number, tuple(self.score), self.crawford, tuple(self.actions),
                    winner, points, how)

    def _check_value(self, ra, expected, what):
        if ra.value is not None and ra.value != expected:
            raise MatchFileError(f"{self.name[ra.player]}'s {what} makes the cube "
                                 f"{ra.value}, but the cube is {expected // 2}: it becomes "
                                 f"{expected}")

    def _win(self, ended, p, points, pending):
        """The game's end, given that the file says ``p`` won ``points``."""
        if ended is None:                          # a resignation
            if pending is not None:
                raise MatchFileError(f"{self.name[p]} wins {points} while a double is not "
                                     "answered")
            level, rest = divmod(points, self.cube)
            if rest or level not in _LEVELS:
                raise MatchFileError(f"{self.name[p]} wins {points} points with the cube at "
                                     f"{self.cube}: a resignation is worth 1, 2 or 3 times "
                                     "the cube")
            self.act("resign", 1 - p, value=level)
            return ("resign", p, points)
        how, winner, won = ended
        if winner != p:
            raise MatchFileError(f"{self.name[p]} is said to win, but {self.name[winner]} "
                                 f"won ({how})")
        if points != won:
            if (how == "bearoff" and not self.raw.match_length and self.cube == 1
                    and points == 1 and won > 1 and self.raw.jacoby is None
                    and not self.jacoby):
                raise _JacobyScored
            raise MatchFileError(f"{self.name[p]} is said to win {points} point"
                                 f"{'s' if points != 1 else ''}, but the game gives {won} "
                                 f"({how}, cube {self.cube})")
        return ended


# ---------------------------------------------------------------- reading, writing

def _sniff(text: str, path) -> str:
    head = text.lstrip("\ufeff \t\r\n")
    if head.startswith("("):
        return "sgf"
    if "point match" in text[:4000].lower():
        return "mat"
    raise MatchFileError("not a match file: neither a Jellyfish .mat (no 'N point match' "
                         "line) nor an SGF file (no '(;')", path=path)


def _format_of(path, format) -> str | None:
    if format is not None:
        if format not in FORMATS:
            raise ValueError(f"unknown match file format {format!r}: one of "
                             f"{', '.join(FORMATS)}")
        return format
    suffix = Path(str(path)).suffix.lower()
    for name, suffixes in FORMATS.items():
        if suffix in suffixes:
            return name
    return None


def parse_match(text: str, format: str | None = None, *, path=None, jacoby=None,
                beaver=None, engine: str = "cython") -> Match:
    """Read a match from the text of a match file.

    Parameters
    ----------
    text : str
        The file's text.
    format : {"mat", "sgf"}, optional
        Found from the text when not given (an SGF starts with ``(``; a ``.mat`` has an
        ``N point match`` line).
    path : str, optional
        For error messages.
    jacoby, beaver : bool, optional
        The money-play rules when the file does not state them (a ``.mat`` never does,
        GNU Backgammon's ``.sgf`` does not for beavers).
    engine : {"cython", "python"}
        The move generator that checks the plays.

    Returns
    -------
    Match

    Raises
    ------
    MatchFileError
        For anything the file gets wrong, naming the file, game, move and problem.
    """
    if not isinstance(text, str):
        raise TypeError(f"parse_match takes the file's text (str), got {type(text).__name__}")
    fmt = format if format is not None else _sniff(text, path)
    if fmt not in FORMATS:
        raise ValueError(f"unknown match file format {fmt!r}: one of {', '.join(FORMATS)}")
    raw = parse_mat(text, path) if fmt == "mat" else parse_sgf(text, path)
    if raw.match_length and raw.match_length > 32767:
        raise MatchFileError(f"match length {raw.match_length}: at most 32767", path=path)
    stated = raw.jacoby if raw.jacoby is not None else jacoby
    if raw.match_length:
        stated = False
    beavers = raw.beaver if raw.beaver is not None else beaver
    try:
        return _Replay(raw, path, engine, bool(stated), beavers).run()
    except _JacobyScored:
        return _Replay(raw, path, engine, True, beavers).run()


#: The largest match file read_match reads (a long money session is well under 1 MiB).
MAX_MATCH_FILE_BYTES = 16 * 2**20


def read_match(path, format: str | None = None, *, jacoby=None, beaver=None,
               engine: str = "cython") -> Match:
    """Read a match or money session from a Jellyfish ``.mat`` or GNU Backgammon ``.sgf``
    file, checking every play and cube action against the rules.

    Parameters
    ----------
    path : str or os.PathLike
    format : {"mat", "sgf"}, optional
        By the suffix (``.mat``, ``.sgf``), else from the content (a ``.txt`` export of
        a match is read when it is a ``.mat``).
    jacoby, beaver : bool, optional
        Money-play rules the file does not state (see :func:`parse_match`).
    engine : {"cython", "python"}
        The move generator that checks the plays.

    Returns
    -------
    Match

    Raises
    ------
    MatchFileError
        One line naming the file, the game, the move and the problem: a file that cannot
        be read, is not a match file, or states something the rules do not allow (an
        illegal play, a double out of turn or in the Crawford game, a wrong score...).

    Examples
    --------
    >>> m = read_match("tests/data/matches/match5.mat")     # doctest: +SKIP
    >>> m.summary()                                          # doctest: +SKIP
    '5-point match: gnubg 5, root 4, won by gnubg; 4 games, ...'
    """
    if not isinstance(path, (str, os.PathLike)):
        raise MatchFileError(f"a file name is a str or a path, not {type(path).__name__}")
    try:
        p = Path(path)
        if p.exists() and not p.is_file():
            raise MatchFileError("cannot read the file: not a regular file (a directory, a device "
                                 "or a pipe)", path=path)
        with open(p, "rb") as fh:       # at most MAX_MATCH_FILE_BYTES, and one byte to tell
            data = fh.read(MAX_MATCH_FILE_BYTES + 1)
    except OSError as exc:
        raise MatchFileError(f"cannot read the file: {exc.strerror or exc}", path=path) from None
    if len(data) > MAX_MATCH_FILE_BYTES:
        raise MatchFileError(f"larger than {MAX_MATCH_FILE_BYTES // 2**20} MiB, too large for a "
                             "match file", path=path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")       # old .mat files; every byte is a character
    if "\x00" in text:
        raise MatchFileError("a binary file, not a match file (a .mat or .sgf is text)",
                             path=path)
    return parse_match(text, _format_of(path, format), path=os.fspath(path), jacoby=jacoby,
                       beaver=beaver, engine=engine)


def _to_raw(match: Match, fmt: str) -> RawMatch:
    raw = RawMatch(match_length=match.match_length, names=tuple(match.names),
                   tags=dict(match.tags), max_cube=None if match.max_cube == DEFAULT_MAX_CUBE
                   else match.max_cube)
    if match.match_length:
        raw.crawford = match.crawford
    else:
        raw.jacoby, raw.beaver = match.jacoby, match.beaver
    for g in match.games:
        rg = RawGame(score=tuple(g.score), crawford=g.crawford if match.match_length else None)
        previous = None
        for a in g.actions:
            if a.kind == "move":
                rg.actions.append(RawAction(a.player, "roll", a.dice, list(a.moves)))
            elif a.kind == "roll":
                rg.actions.append(RawAction(a.player, "roll", a.dice,
                                            [] if fmt == "mat" else None))
            elif a.kind == "take" and previous == "beaver" and fmt == "mat":
                pass          # a .mat writes no take after a beaver (GNU Backgammon's way)
            elif a.kind in ("double", "beaver", "take", "drop"):
                rg.actions.append(RawAction(a.player, a.kind, value=a.value))
            previous = a.kind
        if g.winner is not None:
            if fmt == "mat":
                rg.actions.append(RawAction(g.winner, "win", value=g.points))
            rg.result = (g.winner, g.points, g.ended_by == "resign")
        raw.games.append(rg)
    return raw


def format_match(match: Match, format: str) -> str:
    """The text of a match file.

    Parameters
    ----------
    match : Match
    format : {"mat", "sgf"}

    Returns
    -------
    str
    """
    if format not in FORMATS:
        raise ValueError(f"unknown match file format {format!r}: one of {', '.join(FORMATS)}")
    raw = _to_raw(match, format)
    if format == "mat":
        return format_mat(raw)
    return format_sgf(raw, application=f"fastbg:{__version__}")


def write_match(match: Match, path, format: str | None = None) -> None:
    """Write a match as a Jellyfish ``.mat`` or GNU Backgammon ``.sgf`` file.

    Parameters
    ----------
    match : Match
    path : str or os.PathLike
    format : {"mat", "sgf"}, optional
        By the suffix when not given.

    Raises
    ------
    ValueError
        An unknown format, or a suffix that names none.
    OSError
        When the file cannot be written.

    Notes
    -----
    Resignations are written as the formats write them: a ``.mat`` states only the points
    won, an ``.sgf`` a result ``RE[W+2R]``. Reading the file again gives an equal match
    (:meth:`Match.key`).
    """
    fmt = _format_of(path, format)
    if fmt is None:
        raise ValueError(f"cannot tell the format of {os.fspath(path)!r} from its suffix: "
                         "give format='mat' or 'sgf'")
    Path(path).write_text(format_match(match, fmt), encoding="utf-8")
