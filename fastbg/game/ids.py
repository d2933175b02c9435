"""A game's state in GNU Backgammon's Match ID and eXtreme Gammon's XGID: the encoders.

The raw fields of the texts are read and written by :mod:`fastbg.formats`; here they
meet a :class:`~fastbg.game.matchstate.MatchState` (cube, score, rules), a board and the
dice, and are checked against each other: :class:`MatchID` and :class:`XGIDGame` hold
a state as the two formats do, :func:`encode_match_id`, :func:`encode_gnubg_id` and
:func:`game_to_xgid` write it. The decoders, which build a ``MatchState``, are in
:mod:`fastbg.game.matchstate` beside the class (it calls the encoders here for its
``to_xgid``, ``to_match_id`` and ``to_gnubg_id``); a state here is anything with
``MatchState``'s attributes (:class:`~fastbg.game.statelike.MatchStateLike`), so that this
module needs nothing of :mod:`fastbg.game.matchstate`.

Players and perspective (fastbg's conventions)
    A :class:`~fastbg.game.matchstate.MatchState` is relative to the player on roll.
    GNU Backgammon numbers the players 0 and 1 and keeps its board from the view
    of the player on roll (bit 6), which is why the Position ID stores the side
    not on roll first: a ``PositionID:MatchID`` pair decodes straight into
    fastbg's board and state. The absolute numbers matter only for the cube owner
    and score fields; ``player`` says which number the player on roll has,
    default 1. GNU Backgammon's player 1 is XG's bottom player X (upper case,
    ``turn`` 1, first score) and player 0 is XG's top player O, and by default
    fastbg writes the player on roll as GNU's player 1 and as XG's X, so both IDs
    show the player on roll at the bottom. While a double is pending, the player
    on roll is the doubler: GNU's bit 6 and XG's ``turn`` name the doubler, GNU's
    bit 11 the side that must answer. Money-play scores in either format are
    session totals, which do not affect play: they are read and dropped.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..formats.dice import check_dice
from ..formats.matchid import GAME_STATES, MAX_15_BITS, MAX_CUBE_LOG2, pack_match_id
from ..formats.positionid import encode_position_id, validate_board
from ..formats.xgid import encode_xgid
from .statelike import MatchStateLike

__all__ = ["MatchID", "XGIDGame", "encode_match_id", "encode_gnubg_id", "game_to_xgid"]


def _check_state(state) -> None:
    if not isinstance(state, MatchStateLike):
        raise ValueError(f"state must be a MatchState, got {type(state).__name__}")


_CUBE_ACTIONS = ("D", "B", "R")


def _high_first(dice):
    """Dice written larger first, as GNU Backgammon and eXtreme Gammon write them."""
    return None if dice is None else (max(dice), min(dice))


def _log2(value: int) -> int:
    return value.bit_length() - 1


def _check_offer(state, dice, offer: str | None) -> None:
    """A pending cube action must come before the roll and be one the doubler may make."""
    if offer is None:
        return
    if dice is not None:
        raise ValueError(f"a cube action ({offer}) is pending but dice {dice} are rolled: "
                         "doubling comes before the roll")
    # A beaver or raccoon answers a double of the player on roll (the XGID's turn names
    # the doubler), so it is held to the double's own rule first.
    if not state.may_double:
        head = ("a double is offered but" if offer == "double" else
                f"a {offer} answers a double, but")
        raise ValueError(f"{head} the player on roll may not double ({state.why_not_double})")
    if offer in ("beaver", "raccoon") and not (state.is_money and state.beaver):
        raise ValueError(f"a {offer} needs money play with beavers allowed")


@dataclass(frozen=True)
class MatchID:
    """The contents of a GNU Backgammon Match ID.

    Parameters
    ----------
    state : MatchState
        Cube, score and rules from the view of the player on roll (GNU's "dice owner",
        bit 6). The Match ID cannot hold ``beaver``, ``holland`` or ``max_cube``: they
        are not written (decoding gives False, False and ``max(1024, cube)``).
    dice : None or (int, int)
        The roll, or ``None`` before it.
    player : {0, 1}
        GNU Backgammon's number of the player on roll (default 1, its bottom player).
    turn : {0, 1} or None
        GNU's number of the player to act now; ``None`` means ``player``, or the other
        player while a double or resignation is pending.
    double_offered : bool
        The player on roll has doubled; the cube in ``state`` is the cube before it.
    resign : {0, 1, 2, 3}
        Resignation offered: none, single game, gammon, backgammon.
    game_state : {0, 1}
        GNU's game state: 0 no game started (positions set up by hand), 1 playing.
        Finished games (2, 3, 4) have no player on roll and are rejected.

    Raises
    ------
    ValueError
        If a field is out of range or the fields contradict each other (a double offered
        with dice rolled, by a player who may not double, together with a resignation;
        ``turn`` not matching the pending decision).
    """

    state: MatchStateLike
    dice: tuple | None = None
    player: int = 1
    turn: int | None = None
    double_offered: bool = False
    resign: int = 0
    game_state: int = 1

    def __post_init__(self):
        put = object.__setattr__
        _check_state(self.state)
        if self.state.cube > 1 << MAX_CUBE_LOG2:
            raise ValueError(f"cube {self.state.cube} is above the Match ID's largest, "
                             f"{1 << MAX_CUBE_LOG2}")
        if self.state.match_length > MAX_15_BITS:
            raise ValueError(f"match length {self.state.match_length} does not fit the "
                             f"Match ID's 15 bits (at most {MAX_15_BITS})")
        put(self, "dice", check_dice(self.dice))
        if self.player not in (0, 1) or isinstance(self.player, bool):
            raise ValueError(f"player must be GNU Backgammon's 0 or 1, got {self.player!r}")
        put(self, "player", int(self.player))
        if not isinstance(self.double_offered, bool):
            raise ValueError(f"double_offered must be True or False, got {self.double_offered!r}")
        if self.resign not in (0, 1, 2, 3) or isinstance(self.resign, bool):
            raise ValueError(f"resign must be 0 (none), 1 (single), 2 (gammon) or "
                             f"3 (backgammon), got {self.resign!r}")
        if self.game_state not in (0, 1) or isinstance(self.game_state, bool):
            name = GAME_STATES.get(self.game_state)
            why = f" ({name}: the game is finished)" if name else ""
            raise ValueError(f"game state {self.game_state!r}{why}: 0 (no game started) or "
                             "1 (playing) expected")
        if self.double_offered and self.resign:
            raise ValueError("a double and a resignation are both offered")
        pending = self.double_offered or self.resign != 0
        other = 1 - self.player
        if self.turn is None:
            put(self, "turn", other if pending else self.player)
        elif self.turn not in (0, 1) or isinstance(self.turn, bool):
            raise ValueError(f"turn must be GNU Backgammon's 0 or 1, got {self.turn!r}")
        elif self.double_offered and self.turn != other:
            raise ValueError(f"a double is offered by player {self.player} but the turn "
                             f"(who must answer) is player {self.turn}, not {other}")
        elif not pending and self.turn != self.player:
            raise ValueError(f"player {self.player} is on roll but the turn is player "
                             f"{self.turn}, with no double or resignation pending")
        put(self, "turn", int(self.turn))
        _check_offer(self.state, self.dice, "double" if self.double_offered else None)

    @property
    def text(self) -> str:
        """The 12-character Match ID."""
        s = self.state
        if s.cube_owner == "centred":
            owner = 3
        else:
            owner = self.player if s.cube_owner == "player" else 1 - self.player
        scores = [0, 0]
        if not s.is_money:
            scores[self.player], scores[1 - self.player] = s.score
        d1, d2 = _high_first(self.dice) or (0, 0)
        values = {
            "cube_log2": _log2(s.cube), "owner": owner, "player": self.player,
            "crawford": int(s.crawford), "game_state": self.game_state, "turn": self.turn,
            "double_offered": int(self.double_offered), "resign": self.resign,
            "die1": d1, "die2": d2, "match_length": s.match_length,
            "score0": scores[0], "score1": scores[1],
            # GNU Backgammon 1.x sets bit 66 unless the Jacoby rule is in use, so always in
            # match play (its `new match 7` writes ...AAE whatever its Jacoby option)
            "no_jacoby": int(not (s.is_money and s.jacoby)),
        }
        return pack_match_id(values)


def encode_match_id(state: MatchStateLike, dice=None, *, player: int = 1, turn=None,
                    double_offered: bool = False, resign: int = 0,
                    game_state: int = 1) -> str:
    """GNU Backgammon Match ID of a game state.

    Parameters
    ----------
    state : MatchState
        From the view of the player on roll.
    dice : None or (int, int) or str
        The roll (written larger die first, as GNU Backgammon does), or ``None``.
    player, turn, double_offered, resign, game_state
        As :class:`MatchID`.

    Returns
    -------
    str
        12 base64 characters (GNU Backgammon manual, "A technical description of the
        Match ID"). Bit 66 is set unless the Jacoby rule is in use, so always in match
        play, as GNU Backgammon 1.x writes it (its ``new match 7`` gives ``...AAE``).

    Raises
    ------
    ValueError
        See :class:`MatchID`.

    Examples
    --------
    >>> s = MatchState(cube=2, cube_owner="opponent", match_length=9, score=(4, 2))
    >>> encode_match_id(s, (5, 2), player=1)
    'QYkqASAAIAAE'
    """
    return MatchID(state, dice, player, turn, double_offered, resign, game_state).text


def encode_gnubg_id(board, state: MatchStateLike, dice=None, **fields) -> str:
    """GNU Backgammon's ``PositionID:MatchID`` of a position and its game state.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Row 0 the player on roll.
    state : MatchState
        From the view of the player on roll.
    dice : None or (int, int) or str
        The roll, or ``None``.
    **fields
        ``player``, ``turn``, ``double_offered``, ``resign``, ``game_state`` as
        :class:`MatchID`.

    Returns
    -------
    str
        ``"<14-character Position ID>:<12-character Match ID>"``.

    Raises
    ------
    ValueError
        If the board or the state is not valid.
    """
    return f"{encode_position_id(board)}:{encode_match_id(state, dice, **fields)}"



# ------------------------------------------------------------------ XGID with game state


@dataclass(frozen=True, eq=False)
class XGIDGame:
    """A position and its game state as an XGID holds them.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Row 0 the player on roll.
    state : MatchState
        From the view of the player on roll.
    dice : None or (int, int)
        The roll, or ``None``.
    turn : {1, -1}
        Which of XG's players is on roll: 1 the bottom player X, -1 the top player O.
    cube_action : {None, "D", "B", "R"}
        XG's pending cube action: the player on roll has doubled (``D``), the opponent
        beavered (``B``), the doubler raccooned (``R``); the cube in ``state`` is the cube
        as the XGID writes it. Each needs a player on roll who may double
        (:attr:`MatchState.may_double`: a beaver or raccoon answers its double); ``B`` and
        ``R`` also need money play with beavers allowed.

    Raises
    ------
    ValueError
        If a field is invalid or they contradict each other.
    """

    board: np.ndarray
    state: MatchStateLike
    dice: tuple | None = None
    turn: int = 1
    cube_action: str | None = None

    def __post_init__(self):
        b = validate_board(self.board)
        b.setflags(write=False)
        object.__setattr__(self, "board", b)
        _check_state(self.state)
        object.__setattr__(self, "dice", check_dice(self.dice))
        if self.turn not in (1, -1) or isinstance(self.turn, bool):
            raise ValueError(f"turn is {self.turn!r}, must be 1 (X, bottom) or -1 (O, top)")
        if self.cube_action not in (None,) + _CUBE_ACTIONS:
            raise ValueError(f"cube_action {self.cube_action!r}: None, 'D', 'B' or 'R'")
        offer = {None: None, "D": "double", "B": "beaver", "R": "raccoon"}[self.cube_action]
        _check_offer(self.state, self.dice, offer)
        if self.state.cube > 1 << MAX_CUBE_LOG2 or self.state.max_cube > 1 << MAX_CUBE_LOG2:
            raise ValueError(f"cube and max_cube are at most {1 << MAX_CUBE_LOG2} in an XGID")

    def __eq__(self, other):
        if not isinstance(other, XGIDGame):
            return NotImplemented
        return (np.array_equal(self.board, other.board) and self.state == other.state
                and self.dice == other.dice and self.turn == other.turn
                and self.cube_action == other.cube_action)

    __hash__ = None

    @property
    def text(self) -> str:
        """The XGID, all ten fields."""
        s, t = self.state, self.turn
        owner = {"centred": 0, "player": t, "opponent": -t}[s.cube_owner]
        score_x, score_o = s.score if t == 1 else s.score[::-1]
        if self.cube_action:
            dice = self.cube_action
        elif self.dice is None:
            dice = "00"
        else:
            dice = "%d%d" % _high_first(self.dice)
        flags = int(s.crawford) if not s.is_money else int(s.jacoby) | int(s.beaver) << 1
        return encode_xgid(
            self.board, cube_log2=_log2(s.cube), cube_owner=owner, turn=t, dice=dice,
            score_x=score_x, score_o=score_o, crawford_jacoby=flags,
            match_length=s.match_length, max_cube=_log2(s.max_cube),
        )


def game_to_xgid(board, state: MatchStateLike, dice=None, *, turn: int = 1,
                 cube_action=None) -> str:
    """XGID of a position with its game state (eXtreme Gammon's XGID).

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Row 0 the player on roll.
    state : MatchState
        From the view of the player on roll. ``holland`` is not written (an XGID cannot
        hold it).
    dice : None or (int, int) or str
        The roll (written larger die first, as XG does), or ``None``: dice field ``00``.
    turn : {1, -1}
        1 writes the player on roll as the bottom player X (as :func:`encode_xgid`),
        -1 as the top player O.
    cube_action : {None, "D", "B", "R"}
        See :class:`XGIDGame`.

    Returns
    -------
    str
        ``"XGID=..."`` with ten fields.

    Raises
    ------
    ValueError
        See :class:`XGIDGame`.

    Examples
    --------
    >>> from fastbg import Position
    >>> s = MatchState(cube=2, cube_owner="player", match_length=7, score=(2, 4))
    >>> game_to_xgid(Position.start().board, s, (6, 3))
    'XGID=-b----E-C---eE---c-e----B-:1:1:1:63:2:4:0:7:10'
    """
    return XGIDGame(board, state, dice, turn, cube_action).text
