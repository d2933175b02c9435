"""Position ID and XGID codecs (pure Python).

Boards follow the fastbg convention (DESIGN section 2): an ``int8`` array of shape
``(2, 25)``, row 0 the player on roll, row 1 the opponent, each from its own point of
view (index ``i`` = point ``i + 1``, index 24 = bar).

GNU Backgammon Position ID
    An 80-bit key, stored as 10 bytes (bit ``k`` of the key is bit ``k % 8`` of byte
    ``k // 8``) and written as 14 characters of standard base64 without padding. For
    each side in turn, and for each of its points 1..24 then its bar, the key holds
    as many 1-bits as the side has checkers there followed by one 0-bit; the rest of
    the key is zero. The side **not on roll** comes first, then the side on roll:
    the manual's prose says the opposite, but its examples and the program follow
    this order (source: GNU Backgammon manual, "A technical description of the
    Position ID", and the program's output for the starting position
    ``4HPwATDgc/ABMA``).

eXtreme Gammon XGID
    ``XGID=<board>:<cube>:<owner>:<turn>:<dice>:<score X>:<score O>:<crawford/jacoby>:
    <match length>:<max cube>``. The board is 26 characters: character 0 is the bar
    of the top player (lower case, "O"), characters 1..24 are points 1..24 counted
    from the bottom player's side (upper case, "X"), character 25 is the bottom
    player's bar; ``-`` is empty, ``A``..``O`` (``a``..``o``) are 1..15 checkers.
    ``turn`` is 1 when X (upper case) is on roll and -1 when O is. Source: eXtreme
    Gammon's documentation of the XGID and its published examples
    (``XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10`` is the start).
    :func:`decode_xgid` / :func:`encode_xgid` handle the raw fields;
    :func:`xgid_to_game` / :func:`game_to_xgid` convert them to and from a board, a
    :class:`~fastbg.matchstate.MatchState` and the dice, validating every field:
    cube ``2 ** field``; cube position 1 / 0 / -1 = owned by X (bottom) / centred /
    owned by O (top); dice ``00`` to roll, two digits rolled, ``D`` doubled, ``B``
    beavered, ``R`` raccooned; the two scores are X's then O's; the 8th field is
    the Crawford flag (0/1) in match play and Jacoby (1) + beaver (2) in money
    play; match length 0 = money; max cube ``2 ** field``. An XGID has exactly these
    ten fields, as eXtreme Gammon writes it; one with more or fewer is refused. A
    centred cube above 1 (cube field 1 or more with cube position 0, a "centred
    2-cube") comes only from automatic doubles, which are a money-play option: it is
    read in money play (cube turned but nobody owns it; either side may double it,
    and the Jacoby rule still applies, as no double has been offered) and refused
    in match play, where a turned cube is always owned.

GNU Backgammon Match ID
    12 characters of base64 for a 9-byte key, bit ``k`` of the key being bit
    ``k % 8`` of byte ``k // 8``. Fields, each least significant bit first, by
    bit offset (source: GNU Backgammon manual, "A technical description of the
    Match ID"): 0-3 log2 of the cube; 4-5 cube owner (0 or 1 = that player,
    3 = centred); 6 the player on roll ("dice owner"); 7 Crawford game; 8-10 game
    state (0 no game started, 1 playing, 2 over, 3 resigned, 4 dropped); 11 the
    player to act ("turn"; the opponent while a double or resignation is
    pending); 12 double offered; 13-14 resignation offered (1 single, 2 gammon,
    3 backgammon); 15-17 and 18-20 the dice (0 = not rolled); 21-35 match length
    (0 = money); 36-50 player 0's score; 51-65 player 1's. Bit 66, absent from the
    manual, is set by GNU Backgammon 1.x when its Jacoby option is *off*; fastbg
    reads it in money play only and writes it only there. Both programs write
    the larger die first. The manual's example ``QYkqASAAIAAA``: 9-point match,
    player 0 2 points and owning a 2-cube, player 1 4 points and on roll with 5-2.

Players and perspective (fastbg's conventions)
    A :class:`~fastbg.matchstate.MatchState` is relative to the player on roll.
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

import base64
import re
from dataclasses import dataclass

import numpy as np

from .matchstate import DEFAULT_MAX_CUBE, MatchState, check_dice
from .reference.board import validate_board

__all__ = [
    "decode_position_id",
    "encode_position_id",
    "decode_xgid",
    "encode_xgid",
    "XGID",
    "validate_board",
    "MatchID",
    "decode_match_id",
    "encode_match_id",
    "decode_gnubg_id",
    "encode_gnubg_id",
    "XGIDGame",
    "xgid_to_game",
    "game_to_xgid",
]

_B64_CHAR = re.compile(r"[A-Za-z0-9+/]")


def _b64_bytes(text, kind: str, length: int) -> bytes:
    """The bytes of a GNU Backgammon ID: ``length`` base64 characters, no padding.

    Raises
    ------
    ValueError
        Naming ``kind`` and the problem: not a string, wrong length, a character
        outside the base64 alphabet.
    """
    if not isinstance(text, str):
        raise ValueError(f"a {kind} is a string, got {type(text).__name__}")
    s = text.strip()
    if len(s) != length:
        raise ValueError(f"bad {kind} {text!r}: it has {len(s)} characters, not {length}")
    bad = next((c for c in s if not _B64_CHAR.fullmatch(c)), None)
    if bad is not None:
        raise ValueError(f"bad {kind} {text!r}: {bad!r} is not a base64 character")
    return base64.b64decode(s + "=" * (-len(s) % 4), validate=True)


def _key_bits(board: np.ndarray):
    for side in (1, 0):  # side not on roll first
        for i in range(25):
            for _ in range(int(board[side, i])):
                yield 1
            yield 0


def encode_position_id(board) -> str:
    """GNU Backgammon Position ID of a board.

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Row 0 the player on roll.

    Returns
    -------
    str
        14 characters of base64.

    Raises
    ------
    ValueError
        If the board is not valid (see :func:`validate_board`).
    """
    b = validate_board(board)
    key = bytearray(10)
    for k, bit in enumerate(_key_bits(b)):
        if bit:
            key[k >> 3] |= 1 << (k & 7)
    return base64.b64encode(bytes(key)).decode("ascii")[:14]


def decode_position_id(pid: str) -> np.ndarray:
    """Board of a GNU Backgammon Position ID.

    Parameters
    ----------
    pid : str
        14 base64 characters (surrounding white space is ignored).

    Returns
    -------
    numpy.ndarray of int8, shape (2, 25)
        Row 0 is the player on roll.

    Raises
    ------
    ValueError
        If the ID has the wrong length or alphabet, describes more than 15
        checkers for a side, more than 80 bits, or a point held by both sides; or
        if it is not canonical: the key bits after the last point, and the four
        padding bits of the 14th character (84 bits of base64 for an 80-bit key),
        must be zero, as GNU Backgammon writes them. The message names the
        canonical ID of the position (``4HPwATDgc/ABMB`` is refused, naming
        ``4HPwATDgc/ABMA``).
    """
    key = _b64_bytes(pid, "Position ID", 14)
    bits = [(key[k >> 3] >> (k & 7)) & 1 for k in range(80)]
    board = np.zeros((2, 25), dtype=np.int64)
    k = 0
    for side in (1, 0):
        for i in range(25):
            n = 0
            while k < 80 and bits[k]:
                n += 1
                k += 1
            if k >= 80:
                raise ValueError(f"bad Position ID {pid!r}: the key runs past 80 bits")
            k += 1  # the separating 0-bit
            board[side, i] = n
        total = int(board[side].sum())
        if total > 15:
            who = "player on roll" if side == 0 else "opponent"
            raise ValueError(f"bad Position ID {pid!r}: the {who} has {total} checkers")
    try:
        board = validate_board(board)
    except ValueError as exc:
        raise ValueError(f"bad Position ID {pid!r}: {exc}") from None
    canonical = encode_position_id(board)
    if canonical != pid.strip():
        # base64 decoding drops the 4 padding bits of the last character, so compare
        # the text: any bit set after the last point's separator or in the padding.
        where = ("key bits after the last point's separator" if any(bits[k:])
                 else "padding bits (the 4 bits of the 14th character after the 80-bit key)")
        raise ValueError(
            f"bad Position ID {pid!r}: not canonical, its {where} are not zero; the "
            f"canonical ID of this position is {canonical!r}")
    return board


# --------------------------------------------------------------------------- XGID


@dataclass(frozen=True)
class XGID:
    """The fields of an XGID.

    Attributes
    ----------
    board : numpy.ndarray of int8, shape (2, 25)
        Row 0 is the player on roll (after resolving ``turn``).
    cube_log2 : int
        Cube value is ``2 ** cube_log2``.
    cube_owner : int
        0 centred, 1 owned by the bottom player (X), -1 by the top player (O).
    turn : int
        1 if X (upper case) is on roll, -1 if O is.
    dice : str
        ``"00"`` when the player is to roll, two digits when rolled, or XG's
        ``"D"``, ``"B"``, ``"R"`` markers for a pending cube action.
    score_x, score_o : int
        Match scores of X and O.
    crawford_jacoby : int
        Crawford flag in a match, Jacoby/beaver bits in money play.
    match_length : int
        0 for money play.
    max_cube : int
        Maximum cube, as a power of two.
    """

    board: np.ndarray
    cube_log2: int = 0
    cube_owner: int = 0
    turn: int = 1
    dice: str = "00"
    score_x: int = 0
    score_o: int = 0
    crawford_jacoby: int = 0
    match_length: int = 0
    max_cube: int = 10


def _xg_char(n: int, upper: bool) -> str:
    if n == 0:
        return "-"
    return chr((ord("A") if upper else ord("a")) + n - 1)


def encode_xgid(board, **fields) -> str:
    """XGID of a board with the player on roll as X (upper case, ``turn = 1``).

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        Row 0 the player on roll.
    **fields
        Optional XGID fields other than the board (see :class:`XGID`); defaults
        are a centred 1-cube, money play, player to roll.

    Returns
    -------
    str
        ``"XGID=..."`` with ten colon-separated fields.

    Raises
    ------
    ValueError
        If the board is not valid.
    """
    b = validate_board(board)
    f = XGID(board=b, **fields)
    # X (row 0) on roll with turn=1; with turn=-1 O is on roll and is row 0.
    x_row, o_row = (b[0], b[1]) if f.turn == 1 else (b[1], b[0])
    chars = [_xg_char(int(o_row[24]), False)]
    for p in range(1, 25):  # X's point p; O's point 25 - p
        if x_row[p - 1]:
            chars.append(_xg_char(int(x_row[p - 1]), True))
        else:
            chars.append(_xg_char(int(o_row[24 - p]), False))
    chars.append(_xg_char(int(x_row[24]), True))
    return "XGID=" + ":".join(
        [
            "".join(chars),
            str(f.cube_log2),
            str(f.cube_owner),
            str(f.turn),
            f.dice,
            str(f.score_x),
            str(f.score_o),
            str(f.crawford_jacoby),
            str(f.match_length),
            str(f.max_cube),
        ]
    )


#: What the messages call each numeric XGID field; the fields that may be negative.
_XGID_FIELD_LABELS = {
    "cube_log2": "cube field", "cube_owner": "cube position", "turn": "turn",
    "score_x": "score of X", "score_o": "score of O", "crawford_jacoby": "8th field",
    "match_length": "match length", "max_cube": "max cube field",
}
_SIGNED_XGID_FIELDS = ("cube_owner", "turn")
#: Fields of an XGID after ``XGID=``, the board included, as eXtreme Gammon writes it.
_XGID_FIELDS = 10


def decode_xgid(xgid: str) -> XGID:
    """Parse an XGID.

    Parameters
    ----------
    xgid : str
        With or without the ``XGID=`` prefix: the ten colon-separated fields
        eXtreme Gammon writes (board, cube, cube position, turn, dice, score of
        X, score of O, Crawford/Jacoby, match length, max cube). The fields are
        read, not checked against each other: a cube field of 1 or more with
        cube position 0 (a centred cube above 1) is read as it stands;
        :func:`xgid_to_game` decides whether the state is possible.

    Returns
    -------
    XGID
        ``board`` has the player on roll (by the ``turn`` field) in row 0.

    Raises
    ------
    ValueError
        If the board part is not 26 characters of ``-``, ``a``..``o``,
        ``A``..``O``; there are not exactly ten fields (the message gives the
        count); a numeric field is not ASCII digits (with an optional leading
        ``-`` for the cube position and ``turn``, the only fields that may be
        negative; no spaces or ``+``); ``turn`` is not 1 or -1; a side's bar
        holds the other side's checkers; or the board is not valid (more than
        15 checkers a side).
    """
    if not isinstance(xgid, str):
        raise ValueError(f"an XGID is a string, got {type(xgid).__name__}")
    s = xgid.strip()
    if s.upper().startswith("XGID="):
        s = s[5:]
    parts = s.split(":")
    pos = parts[0]
    if len(pos) != 26:
        raise ValueError(f"bad XGID {xgid!r}: the board part has {len(pos)} characters, not 26")
    if len(parts) != _XGID_FIELDS:
        raise ValueError(
            f"bad XGID {xgid!r}: it has {len(parts)} field{'s' if len(parts) != 1 else ''}, "
            f"expected {_XGID_FIELDS} (board:cube:cube position:turn:dice:score X:score O:"
            "Crawford/Jacoby:match length:max cube)")
    x_row = np.zeros(25, dtype=np.int64)
    o_row = np.zeros(25, dtype=np.int64)
    for idx, c in enumerate(pos):
        if c == "-":
            continue
        if "A" <= c <= "O":
            n, upper = ord(c) - ord("A") + 1, True
        elif "a" <= c <= "o":
            n, upper = ord(c) - ord("a") + 1, False
        else:
            raise ValueError(f"bad XGID {xgid!r}: {c!r} is not a checker count (- a..o A..O)")
        if idx == 0:
            if upper:
                raise ValueError(f"bad XGID {xgid!r}: X checkers on O's bar (character 1)")
            o_row[24] = n
        elif idx == 25:
            if not upper:
                raise ValueError(f"bad XGID {xgid!r}: O checkers on X's bar (character 26)")
            x_row[24] = n
        elif upper:
            x_row[idx - 1] = n
        else:
            o_row[24 - idx] = n
    names = ["cube_log2", "cube_owner", "turn", "dice", "score_x", "score_o",
             "crawford_jacoby", "match_length", "max_cube"]
    values: dict = {}
    for name, text in zip(names, parts[1:]):
        if name == "dice":
            if not re.fullmatch(r"00|[1-6]{2}|[DBR]", text):
                raise ValueError(
                    f"bad XGID {xgid!r}: dice field {text!r} is not 00 (to roll), two dice "
                    "1..6 or one of D, B, R"
                )
            values[name] = text
            continue
        signed = name in _SIGNED_XGID_FIELDS
        if not re.fullmatch(r"-?[0-9]+" if signed else r"[0-9]+", text):
            label = _XGID_FIELD_LABELS[name]
            if re.fullmatch(r"-[0-9]+", text):
                raise ValueError(f"bad XGID {xgid!r}: {label} is {text}, negative; it is 0 "
                                 "or more")
            raise ValueError(
                f"bad XGID {xgid!r}: {label} is {text!r}, not a whole number (ASCII digits"
                + (", with an optional leading '-')" if signed else ")"))
        values[name] = int(text)
    turn = values.get("turn", 1)
    if turn not in (1, -1):
        raise ValueError(f"bad XGID {xgid!r}: turn is {turn}, must be 1 or -1")
    board = np.stack([x_row, o_row]) if turn == 1 else np.stack([o_row, x_row])
    try:
        board = validate_board(board)
    except ValueError as exc:
        raise ValueError(f"bad XGID {xgid!r}: {exc}") from None
    return XGID(board=board, **values)


# ------------------------------------------------------------------ game state: shared


_CUBE_ACTIONS = ("D", "B", "R")


def _high_first(dice):
    """Dice written larger first, as GNU Backgammon and eXtreme Gammon write them."""
    return None if dice is None else (max(dice), min(dice))


def _log2(value: int) -> int:
    return value.bit_length() - 1


# ------------------------------------------------------------------ GNU Backgammon Match ID

_MAX_CUBE_LOG2 = 15  # 4 bits in the Match ID: up to a 32768-cube
_MAX_15_BITS = (1 << 15) - 1
_GAME_STATES = {0: "no game started", 1: "playing", 2: "game over", 3: "resigned",
                4: "dropped cube"}
#: (offset, width) of each Match ID field; GNU Backgammon manual, "A technical
#: description of the Match ID", plus bit 66 (Jacoby not in use) of GNU Backgammon 1.x.
_MID_FIELDS = {
    "cube_log2": (0, 4), "owner": (4, 2), "player": (6, 1), "crawford": (7, 1),
    "game_state": (8, 3), "turn": (11, 1), "double_offered": (12, 1), "resign": (13, 2),
    "die1": (15, 3), "die2": (18, 3), "match_length": (21, 15), "score0": (36, 15),
    "score1": (51, 15), "no_jacoby": (66, 1),
}


def _check_offer(state: MatchState, dice, offer: str | None) -> None:
    """A pending cube action must come before the roll and be one the doubler may make."""
    if offer is None:
        return
    if dice is not None:
        raise ValueError(f"a cube action ({offer}) is pending but dice {dice} are rolled: "
                         "doubling comes before the roll")
    if offer == "double" and not state.may_double:
        raise ValueError(f"a double is offered but the player on roll may not double "
                         f"({state.why_not_double})")
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

    state: MatchState
    dice: tuple | None = None
    player: int = 1
    turn: int | None = None
    double_offered: bool = False
    resign: int = 0
    game_state: int = 1

    def __post_init__(self):
        put = object.__setattr__
        if not isinstance(self.state, MatchState):
            raise ValueError(f"state must be a MatchState, got {type(self.state).__name__}")
        if self.state.cube > 1 << _MAX_CUBE_LOG2:
            raise ValueError(f"cube {self.state.cube} is above the Match ID's largest, "
                             f"{1 << _MAX_CUBE_LOG2}")
        if self.state.match_length > _MAX_15_BITS:
            raise ValueError(f"match length {self.state.match_length} does not fit the "
                             f"Match ID's 15 bits (at most {_MAX_15_BITS})")
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
            name = _GAME_STATES.get(self.game_state)
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
            "no_jacoby": int(s.is_money and not s.jacoby),
        }
        key = 0
        for name, (offset, _width) in _MID_FIELDS.items():
            key |= values[name] << offset
        return base64.b64encode(key.to_bytes(9, "little")).decode("ascii")


def encode_match_id(state: MatchState, dice=None, *, player: int = 1, turn=None,
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
        Match ID"). Bit 66 is set in money play without the Jacoby rule; in match play,
        where GNU Backgammon writes its (irrelevant) Jacoby setting there, it is written
        0, as GNU Backgammon does with its default settings and as the manual's example
        has it.

    Raises
    ------
    ValueError
        See :class:`MatchID`.

    Examples
    --------
    >>> s = MatchState(cube=2, cube_owner="opponent", match_length=9, score=(4, 2))
    >>> encode_match_id(s, (5, 2), player=1)
    'QYkqASAAIAAA'
    """
    return MatchID(state, dice, player, turn, double_offered, resign, game_state).text


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
    key = int.from_bytes(_b64_bytes(mid, "Match ID", 12), "little")
    f = {name: (key >> offset) & ((1 << width) - 1)
         for name, (offset, width) in _MID_FIELDS.items()}

    def bad(why):
        return ValueError(f"bad Match ID {mid!r}: {why}")

    if f["owner"] == 2:
        raise bad("cube owner field is 2; 0 or 1 (a player) or 3 (centred) expected")
    if f["game_state"] not in (0, 1):
        name = _GAME_STATES.get(f["game_state"], "not a game state")
        raise bad(f"game state {f['game_state']} ({name}): only a game not started or "
                  "in play has a player on roll")
    d1, d2 = f["die1"], f["die2"]
    if d1 > 6 or d2 > 6:
        raise bad(f"a die of {max(d1, d2)}; dice are 1..6 (0 = not rolled)")
    if (d1 == 0) != (d2 == 0):
        raise bad(f"only one die is set ({d1}, {d2})")
    length = f["match_length"]
    p = f["player"]
    money = length == 0
    if money and f["crawford"]:
        raise bad("the Crawford flag is set in money play")
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


def encode_gnubg_id(board, state: MatchState, dice=None, **fields) -> str:
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


# ------------------------------------------------------------------ XGID <-> game state


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
        as the XGID writes it. ``D`` needs a player who may double; ``B`` and ``R`` need
        money play with beavers allowed.

    Raises
    ------
    ValueError
        If a field is invalid or they contradict each other.
    """

    board: np.ndarray
    state: MatchState
    dice: tuple | None = None
    turn: int = 1
    cube_action: str | None = None

    def __post_init__(self):
        b = validate_board(self.board)
        b.setflags(write=False)
        object.__setattr__(self, "board", b)
        if not isinstance(self.state, MatchState):
            raise ValueError(f"state must be a MatchState, got {type(self.state).__name__}")
        object.__setattr__(self, "dice", check_dice(self.dice))
        if self.turn not in (1, -1) or isinstance(self.turn, bool):
            raise ValueError(f"turn is {self.turn!r}, must be 1 (X, bottom) or -1 (O, top)")
        if self.cube_action not in (None,) + _CUBE_ACTIONS:
            raise ValueError(f"cube_action {self.cube_action!r}: None, 'D', 'B' or 'R'")
        offer = {None: None, "D": "double", "B": "beaver", "R": "raccoon"}[self.cube_action]
        _check_offer(self.state, self.dice, offer)
        if self.state.cube > 1 << _MAX_CUBE_LOG2 or self.state.max_cube > 1 << _MAX_CUBE_LOG2:
            raise ValueError(f"cube and max_cube are at most {1 << _MAX_CUBE_LOG2} in an XGID")

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


def game_to_xgid(board, state: MatchState, dice=None, *, turn: int = 1,
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
        cube above 1 in match play; a negative score or match length; a score at or past
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
    refused (see :class:`~fastbg.matchstate.MatchState`).
    """
    f = decode_xgid(xgid)

    def bad(why):
        return ValueError(f"bad XGID {xgid!r}: {why}")

    for name, value in (("cube", f.cube_log2), ("max cube", f.max_cube)):
        if not 0 <= value <= _MAX_CUBE_LOG2:
            raise bad(f"{name} field is {value}; it is log2 of the cube, 0..{_MAX_CUBE_LOG2}")
    if f.cube_owner not in (-1, 0, 1):
        raise bad(f"cube position is {f.cube_owner}; 1 (X, bottom), 0 (centred) or "
                  "-1 (O, top) expected")
    if f.match_length < 0:
        raise bad(f"match length is {f.match_length}; 0 (money) or more")
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
