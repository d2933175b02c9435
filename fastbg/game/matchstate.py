"""The state of a game beyond the board: cube, match score and rule options.

fastbg's boards are perspective-relative (DESIGN section 2): row 0 is the player on roll.
:class:`MatchState` follows the same rule: ``"player"`` in ``cube_owner`` and ``score[0]``
are the player on roll's, ``"opponent"`` and ``score[1]`` the other side's. After a turn
passes, :meth:`MatchState.swapped` gives the state from the other side.

Text formats (raw fields in :mod:`fastbg.formats`; with the state, the encoders in
:mod:`fastbg.game.ids` and the decoders at the end of this module):

- GNU Backgammon's ``PositionID:MatchID`` pair. The Match ID format is described in the GNU
  Backgammon manual, "A technical description of the Match ID".
- eXtreme Gammon's XGID (eXtreme Gammon's documentation of the XGID).

:func:`fastbg.game.parse.parse_game` reads any of them (or ``"start"``, or a bare Position ID) into a
``(Position, MatchState, dice)`` triple.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, replace

import numpy as np

from ..formats.matchid import MAX_15_BITS, MAX_CUBE_LOG2, unpack_match_id
from ..formats.positionid import decode_position_id
from ..formats.xgid import decode_xgid
from .ids import _CUBE_ACTIONS, MatchID, XGIDGame, encode_gnubg_id, encode_match_id, game_to_xgid
from ..spec.board import START_BOARD
from .outcomes import CUBE_OWNERS

__all__ = ["MatchState", "DEFAULT_MAX_CUBE", "an", "decode_match_id", "decode_gnubg_id",
           "xgid_to_game"]

#: The cube limit of an XGID that does not say otherwise (its last field, ``10``, is
#: log2 of 1024), used also for GNU Backgammon IDs, which carry no limit.
DEFAULT_MAX_CUBE = 1024

_SWAP_OWNER = {"centred": "centred", "player": "opponent", "opponent": "player"}


def _whole(name: str, value) -> int:
    """``value`` as an int; bools and non-integers are rejected (no coercion)."""
    if isinstance(value, bool):
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise ValueError(f"{name} must be a whole number, got {value!r}") from None


def an(n: int) -> str:
    """The number with its indefinite article, as it is read aloud: ``"a 4"``, ``"an 8"``.

    "an" before numbers read with a vowel first: eight, eleven, eighteen, eighty...,
    eight hundred..., eight/eleven/eighteen thousand... (the leading group of three
    digits decides: it starts with 8, or is 11 or 18).
    """
    digits = str(abs(int(n)))
    lead = digits[: len(digits) % 3 or 3]
    return f"{'an' if lead[0] == '8' or lead in ('11', '18') else 'a'} {n}"


def _flag(name: str, value) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"{name} must be True or False, got {value!r}")


def _power_of_two(value: int) -> bool:
    return value >= 1 and value & (value - 1) == 0


@dataclass(frozen=True)
class MatchState:
    """Cube, score and rule options of a game, from the view of the player on roll.

    Parameters
    ----------
    cube : int
        Cube value, a power of two >= 1 (in points per game).
    cube_owner : str
        One of :data:`fastbg.cube.CUBE_OWNERS`: ``"centred"``, ``"player"`` (the player
        on roll) or ``"opponent"``. A 1-cube is always centred, as in GNU Backgammon. A
        centred cube above 1 (automatic doubles) is allowed in money play only: either
        side may double it, and the Jacoby rule applies while it stays centred.
    match_length : int
        Points needed to win the match; 0 for money play.
    score : tuple of (int, int)
        Points won so far ``(player on roll, opponent)``; ``(0, 0)`` in money play.
    crawford : bool
        This game is the Crawford game: the first game after one side reached
        ``match_length - 1``. No doubling in it. A 1-point match has none (both sides
        start 1-away, and its cube is dead anyway).
    jacoby : bool
        Jacoby rule (money play only): gammons and backgammons count single while the cube
        is unturned.
    beaver : bool
        Beavers allowed (money play only).
    holland : bool
        Holland rule (match play only): in a post-Crawford game the trailer may not double
        until each side has played two rolls (:attr:`may_double` applies it with
        ``rolls_played``).
    rolls_played : int, optional
        Rolls (plays of either side, the opening roll's included) already made in this
        game, for the Holland rule: only with ``holland`` in a post-Crawford game
        (``ValueError`` otherwise). ``None`` (default): unknown, taken as "both sides have
        played two", so the rule no longer restricts the cube.
    max_cube : int
        Largest cube value allowed, a power of two >= ``cube`` (eXtreme Gammon's "max cube";
        default 1024, XG's usual ``10`` = log2 1024). GNU Backgammon has no limit and its
        Match ID carries none: decoding one gives ``max(1024, cube)``.

    Raises
    ------
    ValueError
        Naming the problem: a cube that is not a power of two >= 1 or is above
        ``max_cube``; an unknown owner; an owned 1-cube; a centred cube above 1 in match
        play; a negative match length; negative scores, scores at or past the match
        length, or non-zero scores in money play; a Crawford flag when not exactly one
        side is 1-away, or in a 1-point match; a turned cube in the Crawford game; Jacoby
        or beavers in match play; Holland in money play.

    Examples
    --------
    >>> s = MatchState(cube=2, cube_owner="opponent", match_length=7, score=(3, 4))
    >>> s.away, s.may_double
    ((4, 3), False)
    >>> s.swapped().may_double
    True
    """

    cube: int = 1
    cube_owner: str = "centred"
    match_length: int = 0
    score: tuple = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beaver: bool = False
    holland: bool = False
    max_cube: int = DEFAULT_MAX_CUBE
    rolls_played: int | None = None

    def __post_init__(self):
        put = object.__setattr__
        if self.rolls_played is not None:
            n = _whole("rolls_played", self.rolls_played)
            if n < 0:
                raise ValueError(f"the rolls played ({n}) cannot be negative")
            put(self, "rolls_played", n)
        cube = _whole("cube", self.cube)
        if not _power_of_two(cube):
            raise ValueError(f"cube {cube} is not a power of two >= 1 (1, 2, 4, 8, ...)")
        max_cube = _whole("max_cube", self.max_cube)
        if not _power_of_two(max_cube):
            raise ValueError(f"max_cube {max_cube} is not a power of two >= 1")
        if cube > max_cube:
            raise ValueError(f"cube {cube} is above max_cube {max_cube}")
        if self.cube_owner not in CUBE_OWNERS:
            raise ValueError(
                f"unknown cube owner {self.cube_owner!r}: one of {', '.join(CUBE_OWNERS)}"
            )
        if cube == 1 and self.cube_owner != "centred":
            raise ValueError(
                f"a 1-cube is centred (owner {self.cube_owner!r} given): nobody owns an "
                "unturned cube"
            )
        length = _whole("match_length", self.match_length)
        if length < 0:
            raise ValueError(f"match_length {length} is negative (0 is money play)")
        try:
            score = tuple(self.score)
        except TypeError:
            raise ValueError(f"score must be a pair (player, opponent), got {self.score!r}") from None
        if len(score) != 2:
            raise ValueError(f"score must be a pair (player, opponent), got {self.score!r}")
        score = (_whole("score[0]", score[0]), _whole("score[1]", score[1]))
        flags = {k: _flag(k, getattr(self, k)) for k in ("crawford", "jacoby", "beaver", "holland")}
        put(self, "cube", cube)
        put(self, "max_cube", max_cube)
        put(self, "match_length", length)
        put(self, "score", score)
        for k, v in flags.items():
            put(self, k, v)

        if min(score) < 0:
            raise ValueError(f"negative score {score}")
        if length == 0:
            if score != (0, 0):
                raise ValueError(
                    f"money play (match_length 0) has no score, got {score}; give a "
                    "match_length for match play"
                )
            if flags["crawford"]:
                raise ValueError("the Crawford rule is for matches, not money play (a match length of 0)")
            if flags["holland"]:
                raise ValueError("the Holland rule is for matches, not money play (a match length of 0)")
            if self.rolls_played is not None:
                raise ValueError("the rolls played count for the Holland rule, which is for "
                                 "matches, not money play")
            return
        if max(score) >= length:
            raise ValueError(
                f"score {score} in {an(length)}-point match: a side with {max(score)} points "
                "has already won it (scores are below the match length)"
            )
        if flags["jacoby"]:
            raise ValueError("the Jacoby rule is for money play, not a match")
        if flags["beaver"]:
            raise ValueError("beavers are for money play, not a match")
        if flags["crawford"]:
            if length == 1:
                raise ValueError(
                    "a Crawford game in a 1-point match: a 1-point match has no Crawford game "
                    "(the Crawford game is the one after a side first reaches 1-away, and "
                    "here both sides start 1-away); its one game is played with a dead "
                    "cube, as any win takes the match"
                )
            one_away = [s == length - 1 for s in score]
            if sum(one_away) != 1:
                why = (
                    "both sides are 1-away, so the Crawford game has been played"
                    if all(one_away)
                    else "neither side is 1-away"
                )
                raise ValueError(
                    f"no Crawford game at {score[0]}-{score[1]} in {an(length)}-point match: {why}"
                )
            if cube != 1:
                raise ValueError(f"cube {cube} in the Crawford game: nobody may double in it")
        if self.rolls_played is not None:
            if not flags["holland"]:
                raise ValueError("the rolls played count for the Holland rule only: it is not "
                                 "on")
            if not self.post_crawford:
                raise ValueError(
                    f"the rolls played count for the Holland rule, which applies in "
                    f"post-Crawford games only; {score[0]}-{score[1]} in "
                    f"{an(length)}-point match is "
                    + ("the Crawford game" if flags["crawford"] else "not post-Crawford"))
        if cube != 1 and self.cube_owner == "centred":
            raise ValueError(
                f"a centred {cube}-cube in {an(length)}-point match: a cube above 1 stays "
                "centred only after automatic doubles, which are for money play; in a match "
                "a turned cube is owned by the side that took it (cube_owner 'player' or "
                "'opponent')"
            )

    # ---------------------------------------------------------------- constructors
    @classmethod
    def money(cls, cube: int = 1, cube_owner: str = "centred", *, jacoby: bool = False,
              beaver: bool = False, max_cube: int = DEFAULT_MAX_CUBE) -> "MatchState":
        """A money-play state (``match_length`` 0)."""
        return cls(cube=cube, cube_owner=cube_owner, jacoby=jacoby, beaver=beaver,
                   max_cube=max_cube)

    @classmethod
    def match(cls, length: int, score=(0, 0), cube: int = 1, cube_owner: str = "centred", *,
              crawford: bool = False, holland: bool = False,
              max_cube: int = DEFAULT_MAX_CUBE) -> "MatchState":
        """A match-play state: ``length`` points, ``score`` = (player on roll, opponent)."""
        return cls(cube=cube, cube_owner=cube_owner, match_length=length, score=score,
                   crawford=crawford, holland=holland, max_cube=max_cube)

    # ------------------------------------------------------------------ properties
    @property
    def is_money(self) -> bool:
        """True for money play (``match_length == 0``)."""
        return self.match_length == 0

    @property
    def away(self):
        """Points each side still needs, ``(player, opponent)``; ``None`` in money play."""
        if self.is_money:
            return None
        return (self.match_length - self.score[0], self.match_length - self.score[1])

    @property
    def post_crawford(self) -> bool:
        """A side is 1-away and this is not the Crawford game (so the Crawford game has
        been played; in a 1-point match there is none). False in money play."""
        return (not self.is_money and not self.crawford
                and self.match_length - 1 in self.score)

    def for_position(self, board=None, opening: bool = False) -> "MatchState":
        """This state with an unknown ``rolls_played`` taken as 0 at the start of a game:
        ``opening`` (the game begins with the opening roll) or ``board`` the starting
        position; otherwise itself (an unknown count means "both sides have played two").
        """
        if self.rolls_played is None and self.holland and self.post_crawford and (opening or (
                board is not None and np.array_equal(board, START_BOARD))):
            return replace(self, rolls_played=0)
        return self

    @property
    def holland_wait(self) -> int:
        """Rolls still to be played in this game before the Holland rule allows a double:
        ``4 - rolls_played`` (at least 0) in a post-Crawford game with the rule on and
        ``rolls_played`` known, else 0."""
        if not (self.holland and self.post_crawford) or self.rolls_played is None:
            return 0
        return max(0, 4 - self.rolls_played)

    @property
    def holland_blocks(self) -> bool:
        """The Holland rule forbids a double now (:attr:`holland_wait` > 0)."""
        return self.holland_wait > 0

    @property
    def may_double(self) -> bool:
        """Whether the player on roll may offer the cube now, before rolling.

        Follows GNU Backgammon's rule (its cube analysis offers a double exactly then):
        not in the Crawford game; the cube centred or the player's; and in match play
        only while the player needs more points than the cube is worth -- with
        ``away[0] <= cube`` any win already takes the match, so the cube is dead for the
        player. fastbg adds eXtreme Gammon's limit: the cube must be below
        ``max_cube``; and with the Holland rule, in a post-Crawford game, not before both
        sides have played two rolls (:attr:`holland_blocks`).
        """
        if self.crawford or self.cube_owner == "opponent" or self.cube >= self.max_cube \
                or self.holland_blocks:
            return False
        return self.is_money or self.match_length - self.score[0] > self.cube

    @property
    def why_not_double(self) -> str | None:
        """Why the player on roll may not double (see :attr:`may_double`), in words;
        ``None`` when it may."""
        if self.crawford:
            return "no doubling in the Crawford game"
        if self.cube_owner == "opponent":
            return "the opponent owns the cube"
        if self.cube >= self.max_cube:
            return f"the cube is at its limit, {self.max_cube} (the largest allowed)"
        if not self.is_money and self.match_length - self.score[0] <= self.cube:
            return (f"the cube is dead for the player on roll: "
                    f"{self.match_length - self.score[0]}-away with {an(self.cube)}-cube, "
                    "a single win already takes the match")
        if self.holland_blocks:
            return (f"the Holland rule: no double in a post-Crawford game before both sides "
                    f"have played two rolls ({self.rolls_played} played)")
        return None

    # ----------------------------------------------------------------- conversions
    def swapped(self) -> "MatchState":
        """The same state from the opponent's view (owner and score exchanged)."""
        return replace(self, cube_owner=_SWAP_OWNER[self.cube_owner],
                       score=(self.score[1], self.score[0]))

    def to_xgid(self, position, dice=None, *, turn: int = 1, cube_action=None) -> str:
        """XGID of a position in this state.

        Parameters
        ----------
        position : Position or array_like, shape (2, 25)
            Row 0 the player on roll.
        dice : None or (int, int) or str
            The roll, or ``None`` before rolling.
        turn : {1, -1}
            1 writes the player on roll as XG's bottom player X, -1 as the top player O.
        cube_action : {None, "D", "B", "R"}
            A pending double, beaver or raccoon (see :func:`fastbg.game.ids.game_to_xgid`).

        Returns
        -------
        str
            ``"XGID=..."`` with all ten fields.
        """
        return game_to_xgid(getattr(position, "board", position), self, dice, turn=turn, cube_action=cube_action)

    def to_match_id(self, dice=None, **fields) -> str:
        """GNU Backgammon Match ID of this state (see
        :func:`fastbg.game.ids.encode_match_id` for ``fields``: ``player``,
        ``double_offered``, ``resign``, ``turn``, ``game_state``)."""
        return encode_match_id(self, dice, **fields)

    def to_gnubg_id(self, position, dice=None, **fields) -> str:
        """GNU Backgammon ``PositionID:MatchID`` of a position in this state (``fields``
        as :meth:`to_match_id`)."""
        return encode_gnubg_id(getattr(position, "board", position), self, dice, **fields)


# ----------------------------------------------------------------- reading the IDs


def decode_match_id(mid: str) -> MatchID:
    """Read a GNU Backgammon Match ID.

    Parameters
    ----------
    mid : str
        12 base64 characters (surrounding white space is ignored).

    Returns
    -------
    MatchID
        ``state`` from the view of the player on roll (bit 6). Money play: the scores
        (session totals) are dropped, ``jacoby`` is True unless bit 66 is set, and
        ``max_cube`` is ``max(1024, cube)``; match play ignores bit 66. Bits 67-71 are
        ignored, as GNU Backgammon does.

    Raises
    ------
    ValueError
        Naming the problem: wrong length or alphabet; cube owner field 2; a die of 7 or
        only one die; a finished game; a Crawford flag in money play; an impossible
        state (see :class:`MatchState`, :class:`MatchID`).
    """
    f = unpack_match_id(mid)

    def bad(why):
        return ValueError(f"bad Match ID {mid!r}: {why}")

    length = f["match_length"]
    p = f["player"]
    money = length == 0
    d1, d2 = f["die1"], f["die2"]
    cube = 1 << f["cube_log2"]
    owner = {3: "centred", p: "player", 1 - p: "opponent"}[f["owner"]]
    scores = (f["score0"], f["score1"])
    try:
        state = MatchState(
            cube=cube, cube_owner=owner, match_length=length,
            score=(0, 0) if money else (scores[p], scores[1 - p]),
            crawford=bool(f["crawford"]), jacoby=money and not f["no_jacoby"],
            max_cube=max(DEFAULT_MAX_CUBE, cube),
        )
        return MatchID(state, None if d1 == 0 else (d1, d2), p, f["turn"],
                       bool(f["double_offered"]), f["resign"], f["game_state"])
    except ValueError as exc:
        raise bad(str(exc)) from None


def decode_gnubg_id(text: str):
    """Read GNU Backgammon's ``PositionID:MatchID``.

    Parameters
    ----------
    text : str
        A Position ID and a Match ID joined by ``:`` (white space around either is
        ignored).

    Returns
    -------
    board : numpy.ndarray of int8, shape (2, 25)
        Row 0 the player on roll; GNU Backgammon keeps its board from the view of the
        Match ID's player on roll, so no re-orientation is needed.
    match : MatchID

    Raises
    ------
    ValueError
        If there are not two parts or either ID is bad.
    """
    if not isinstance(text, str):
        raise ValueError(f"a GNU Backgammon ID is a string, got {type(text).__name__}")
    parts = text.strip().split(":")
    if len(parts) != 2:
        raise ValueError(f"bad GNU Backgammon ID {text!r}: expected PositionID:MatchID")
    return decode_position_id(parts[0]), decode_match_id(parts[1])




def xgid_to_game(xgid: str) -> XGIDGame:
    """Read an XGID into a board, a :class:`MatchState` and the dice.

    Parameters
    ----------
    xgid : str
        With or without ``XGID=``; all ten fields (see :func:`decode_xgid`).

    Returns
    -------
    XGIDGame
        Board and state from the view of the player on roll (by the ``turn`` field, which
        names the doubler when a cube action is pending). Money play: the score fields
        (session totals) are dropped.

    Raises
    ------
    ValueError
        Naming the field: a bad board or the wrong number of fields (see
        :func:`decode_xgid`); a cube or max cube field outside 0..15, or the cube above
        the max cube; a cube position other than 1, 0, -1; an owned 1-cube; a centred
        cube above 1 in match play; a negative score or match length, or a match length
        above 32767 (the Match ID's 15 bits); a score at or past
        the match length; the 8th field not 0/1 in match play or 0..3 in money play; a
        Crawford flag where it cannot be (in a 1-point match there is no Crawford game);
        a turned cube in the Crawford game; a cube action that cannot be (see
        :class:`XGIDGame`).

    Notes
    -----
    **A centred cube above 1.** The cube field (log2 of the cube) and the cube position
    are separate, so an XGID can write a 2-cube (or larger) that nobody owns, e.g.
    ``XGID=-b----E-C---eE---c-e----B-:1:0:1:00:0:0:0:0:10``. Such a cube comes only from
    automatic doubles (an opening roll of a double turns the cube, which stays in the
    middle), a money-play option in eXtreme Gammon and GNU Backgammon alike. fastbg
    reads it in money play: the state is ``cube=2, cube_owner="centred"``; either side
    may double it, equities are per unit of that cube, and the Jacoby rule still
    counts gammons single, as nobody has doubled. In match play, where there are no
    automatic doubles and a turned cube always belongs to the side that took it, it is
    refused (see :class:`~fastbg.game.matchstate.MatchState`).
    """
    f = decode_xgid(xgid)

    def bad(why):
        return ValueError(f"bad XGID {xgid!r}: {why}")

    for name, value in (("cube", f.cube_log2), ("max cube", f.max_cube)):
        if not 0 <= value <= MAX_CUBE_LOG2:
            raise bad(f"{name} field is {value}; it is log2 of the cube, 0..{MAX_CUBE_LOG2}")
    if f.cube_owner not in (-1, 0, 1):
        raise bad(f"cube position is {f.cube_owner}; 1 (X, bottom), 0 (centred) or "
                  "-1 (O, top) expected")
    if f.match_length < 0:
        raise bad(f"match length is {f.match_length}; 0 (money) or more")
    if f.match_length > MAX_15_BITS:
        # (every position is also written as a GNU ID pair, whose Match ID holds the length
        # in 15 bits: `fastbg show` said it without naming the XGID)
        raise bad(f"match length {f.match_length} does not fit the Match ID's 15 bits (at "
                  f"most {MAX_15_BITS})")
    if min(f.score_x, f.score_o) < 0:
        raise bad(f"negative score ({f.score_x}, {f.score_o})")
    money = f.match_length == 0
    allowed = range(4) if money else range(2)
    if f.crawford_jacoby not in allowed:
        what = ("Jacoby (1) + beaver (2), 0..3, in money play" if money
                else "the Crawford flag, 0 or 1, in match play")
        raise bad(f"8th field is {f.crawford_jacoby}; it is {what}")
    if f.cube_owner == 0:
        owner = "centred"
    else:
        owner = "player" if f.cube_owner == f.turn else "opponent"
    score = (f.score_x, f.score_o) if f.turn == 1 else (f.score_o, f.score_x)
    if f.dice in _CUBE_ACTIONS:
        dice, action = None, f.dice
    else:
        dice, action = (None if f.dice == "00" else (int(f.dice[0]), int(f.dice[1]))), None
    try:
        state = MatchState(
            cube=1 << f.cube_log2, cube_owner=owner, match_length=f.match_length,
            score=(0, 0) if money else score,
            crawford=not money and f.crawford_jacoby == 1,
            jacoby=money and bool(f.crawford_jacoby & 1),
            beaver=money and bool(f.crawford_jacoby & 2),
            max_cube=1 << f.max_cube,
        )
        return XGIDGame(f.board, state, dice, f.turn, action)
    except ValueError as exc:
        raise bad(str(exc)) from None
