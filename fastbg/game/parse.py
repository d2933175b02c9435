"""Reading a game from text: ``"start"``, a Position ID, a GNU Backgammon ID pair, an XGID."""
from __future__ import annotations

from .matchstate import MatchState, decode_gnubg_id, xgid_to_game
from .position import Position

__all__ = ["parse_game", "position_and_roll"]


def parse_game(text):
    """Position, game state and dice from ``"start"``, a Position ID, a GNU Backgammon
    ``PositionID:MatchID`` pair or an XGID.

    Parameters
    ----------
    text : str
        ``"start"`` (any case) or a bare 14-character Position ID: money play, centred
        1-cube, to roll. ``"<PositionID>:<MatchID>"`` as GNU Backgammon writes it (GNU
        Backgammon manual, "A technical description of the Match ID"). An XGID, with or
        without ``XGID=`` (eXtreme Gammon's documentation of the XGID).

    Returns
    -------
    position : Position
        Row 0 the player on roll.
    state : MatchState
        From the player on roll's view.
    dice : tuple of (int, int) or None
        The roll if the player has rolled, else ``None``.

    Raises
    ------
    ValueError
        If the text is none of these, or describes an impossible state (the message names
        the problem), or a double or resignation is pending: those are decisions for the
        other side, which this triple cannot express (read them with
        :func:`fastbg.game.matchstate.decode_gnubg_id` or :func:`fastbg.game.matchstate.xgid_to_game`).

    Examples
    --------
    >>> pos, state, dice = parse_game("4HPwATDgc/ABMA:QYkqASAAIAAA")
    >>> state.score, state.match_length, state.cube, state.cube_owner, dice
    ((4, 2), 9, 2, 'opponent', (5, 2))
    """
    if not isinstance(text, str):
        raise ValueError(f"a position is text, got {type(text).__name__}")
    s = text.strip()
    if s.lower() == "start":
        return Position.start(), MatchState(), None
    if s.upper().startswith("XGID="):
        game = xgid_to_game(s)
    elif ":" in s:
        head = s.split(":", 1)[0].strip()
        if len(head) == 14:
            board, mid = decode_gnubg_id(s)
            if mid.double_offered:
                raise ValueError(
                    f"{text!r}: a double is offered and the opponent must take or pass; "
                    "only positions to roll or play are read (the same cube decision "
                    "before the double has the double bit cleared)"
                )
            if mid.resign:
                raise ValueError(
                    f"{text!r}: a resignation is offered; only positions to roll or play "
                    "are read"
                )
            return Position(board), mid.state, mid.dice
        if len(head) == 26:
            game = xgid_to_game(s)
        else:
            raise ValueError(
                f"bad position {text!r}: before the first ':' expected a 14-character Position "
                f"ID or a 26-character XGID board, got {len(head)} characters"
            )
    elif len(s) == 14:
        return Position.from_position_id(s), MatchState(), None
    else:
        raise ValueError(
            f"bad position {text!r}: expected 'start', a Position ID, a GNU Backgammon "
            f"PositionID:MatchID pair or an XGID ({len(s):,} characters given)"
        )
    if game.cube_action is not None:
        raise ValueError(
            f"{text!r}: the dice field is {game.cube_action!r}, a cube action pending for "
            "the opponent; only positions to roll or play are read (write '00' for the "
            "same cube decision before the double)"
        )
    return Position(game.board), game.state, game.dice


def position_and_roll(position):
    """A position given in any accepted form, and the roll it holds if any.

    Parameters
    ----------
    position : Position, str or array_like of int, shape (2, 25)
        An XGID or a GNU ``PositionID:MatchID`` pair (read by :func:`parse_game`,
        which also refuses an impossible cube or score), or anything
        :meth:`fastbg.Position.parse` reads.

    Returns
    -------
    position : Position
    dice : tuple of (int, int) or None
        The roll of an XGID or ID pair whose player has rolled, else ``None``.

    Raises
    ------
    ValueError
        As :func:`parse_game` or :meth:`fastbg.Position.parse`.
    """
    if isinstance(position, str):
        s = position.strip()
        if s.upper().startswith("XGID=") or ":" in s:
            pos, _, dice = parse_game(s)
            return pos, dice
    return Position.parse(position), None
