"""Cube efficiency: GNU Backgammon's ``x`` of Janowski's model, per position.

``x`` says how much of a live cube's value a side gets (0 a dead cube, 1 a fully live
one). fastbg uses GNU Backgammon's values (its manual, "The cube efficiency", under
"Cubeful equities"), and 0, exactly, on the last roll of a race
(:func:`default_cube_efficiency`) and for a cube at its limit (:func:`cube_efficiency`, the
``x`` of a cube decision and where it comes from).
"""
from __future__ import annotations

import numpy as np

from ..game.position import Position
from ..engine import get_engine

__all__ = ["CONTACT_CUBE_EFFICIENCY", "BEAROFF_CUBE_EFFICIENCY", "RACE_CUBE_EFFICIENCY",
           "LAST_ROLL_CUBE_EFFICIENCY", "DEFAULT_CUBE_EFFICIENCY", "is_last_roll",
           "default_cube_efficiency", "cube_efficiency"]

#: GNU Backgammon's cube efficiency for contact (and crashed) positions.
CONTACT_CUBE_EFFICIENCY = 0.68
#: GNU Backgammon's cube efficiency for one-sided bear-off positions (both sides home).
BEAROFF_CUBE_EFFICIENCY = 0.6
#: Races: linear in the pip count of the player on roll between these (pips, x) end-points,
#: constant outside them (GNU Backgammon manual, "The cube efficiency").
RACE_CUBE_EFFICIENCY = ((40, 0.6), (120, 0.7))
#: The last roll (:func:`is_last_roll`): the cube is dead, and x = 0 is exact.
LAST_ROLL_CUBE_EFFICIENCY = 0.0
#: The ``x`` used when neither ``x`` nor a position is given.
DEFAULT_CUBE_EFFICIENCY = CONTACT_CUBE_EFFICIENCY


def is_last_roll(position) -> bool:
    """Whether the opponent bears off all its checkers with every roll of its next turn.

    Parameters
    ----------
    position : Position, str or array_like
        Anything :meth:`fastbg.game.position.Position.parse` accepts; the player on roll is
        about to roll.

    Returns
    -------
    bool
        True when the position is a race (no contact) and, for each of the 21 distinct
        rolls, the opponent has a legal play that bears off its last checker. Then the
        player on roll's coming roll is the last one of the game that a cube decision can
        matter for: the player wins only by bearing off with it. False for contact
        positions (the player's play might hit) and finished games.

    Raises
    ------
    ValueError
        If the position cannot be parsed.

    Notes
    -----
    Decided exactly with the pure-Python reference move generator
    (:func:`fastbg.reference.movegen.bears_off_all`) on the swapped position (the
    opponent on roll). In a race the player's play cannot change the opponent's
    checkers, so this holds after any play of the player. A side with more than two
    checkers left never qualifies (a 2-1 bears off at most two), which is checked first.
    """
    pos = Position.parse(position)
    if pos.game_over or not pos.is_race or int(pos.board[1].sum()) > 2:
        return False
    theirs = np.ascontiguousarray(pos.board[::-1])  # the opponent on roll
    bears_off_all = get_engine("python").movegen.bears_off_all
    return all(bears_off_all(theirs, d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1))


def default_cube_efficiency(position) -> float:
    """GNU Backgammon's cube efficiency ``x`` for a position, or 0 for a dead cube.

    Parameters
    ----------
    position : Position, str or array_like
        Anything :meth:`fastbg.game.position.Position.parse` accepts; the player on roll is
        about to roll.

    Returns
    -------
    float
        0, or in [0.6, 0.7]:

        ==========  ================================================================
        x           position class
        ==========  ================================================================
        0.68        contact (including crashed positions)
        0           last roll (:data:`LAST_ROLL_CUBE_EFFICIENCY`): a race in which
                    the opponent bears off its last checkers with every roll on its
                    next turn (:func:`is_last_roll`)
        0.6         bear-off: every checker of both sides in its home board (or off)
        0.6 to 0.7  other race: 0.6 at a pip count of 40 or less for the player on
                    roll, 0.7 at 120 or more, linear in between
        ==========  ================================================================

    Raises
    ------
    ValueError
        If the position cannot be parsed.

    Notes
    -----
    **Last roll.** When the opponent is sure to finish on its next turn, the game ends
    after at most two rolls: the player on roll wins exactly when it bears off with this
    roll. Nobody ever gets another useful cube turn: the player has no later turn, and
    the opponent, sure to win, gains nothing by doubling (a pass gives it the single
    game it would win anyway, and it keeps any gammon by playing on). So the cube is
    dead, the cubeful equities are the cubeless ones at the cube's value, and Janowski's
    formulas at ``x = 0`` are exact: the take point is the dead-cube 25 % (without
    gammons), not the 21.7 % of ``x = 0.6``. ``tests/test_cube.py`` checks the decisions
    against the exact solver :mod:`fastbg.cube.bearoff`.

    **GNU Backgammon's values.** The other values and the race interpolation are GNU
    Backgammon's, as its manual states them (section "The cube efficiency", under
    "Cubeful equities": one-sided bear-off 0.6, crashed 0.68, contact 0.68, race linear
    from x = 0.6 at 40 pips to x = 0.7 at 120 pips of the player on roll, clamped
    outside). GNU Backgammon uses exact database values for two-sided bear-offs instead;
    :mod:`fastbg.cube.bearoff` solves small ones exactly. Janowski (1993) suggested values
    between 0.6 and 0.7.
    """
    pos = Position.parse(position)
    if not pos.is_race:
        return CONTACT_CUBE_EFFICIENCY
    if is_last_roll(pos):
        return LAST_ROLL_CUBE_EFFICIENCY
    if not pos.board[:, 6:].any():
        return BEAROFF_CUBE_EFFICIENCY
    (pip0, x0), (pip1, x1) = RACE_CUBE_EFFICIENCY
    pips = pos.pip_counts[0]
    t = min(max((pips - pip0) / (pip1 - pip0), 0.0), 1.0)
    return x0 + t * (x1 - x0)


def cube_efficiency(position=None, state=None, x=None) -> tuple[float, str]:
    """The cube efficiency of a cube decision, and where it comes from.

    Parameters
    ----------
    position : Position, str or array_like, optional
        The position of the decision (anything :meth:`fastbg.game.position.Position.parse`
        accepts), the player on roll about to roll.
    state : MatchState, optional
        Its cube state: a cube at its limit (``state.cube >= state.max_cube``) is dead.
    x : float, optional
        A given efficiency in [0, 1], which wins over the rest.

    Returns
    -------
    x : float
        In [0, 1]: ``x`` if given; 0 for a cube at its limit (nobody may turn it again);
        else :func:`default_cube_efficiency` of the position (0 on the last roll), or
        :data:`DEFAULT_CUBE_EFFICIENCY` without a position.
    source : str
        How it was chosen, in words: ``"given"``, ``"cube at its limit (1024): dead cube"``,
        ``"last roll: dead cube"``, ``"GNU Backgammon's default for contact"`` (or ``for
        bear-off``, ``for race, 87 pips``).

    Raises
    ------
    ValueError
        If ``x`` is not a number in [0, 1] or the position cannot be parsed.
    """
    if x is not None:
        return _check_x(x), "given"
    if state is not None and state.cube >= state.max_cube:
        return 0.0, f"cube at its limit ({state.max_cube}): dead cube"
    if position is None:
        return DEFAULT_CUBE_EFFICIENCY, "GNU Backgammon's default for contact (no position given)"
    pos = Position.parse(position)
    if not pos.is_race:
        kind = "contact"
    elif is_last_roll(pos):
        return LAST_ROLL_CUBE_EFFICIENCY, "last roll: dead cube"
    elif not pos.board[:, 6:].any():
        kind = "bear-off"
    else:
        kind = f"race, {pos.pip_counts[0]} pips"
    return default_cube_efficiency(pos), f"GNU Backgammon's default for {kind}"


def _check_x(x) -> float:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise ValueError(f"cube efficiency x must be a number in [0, 1], got {x!r}")
    x = float(x)
    if not 0.0 <= x <= 1.0:  # also rejects NaN
        raise ValueError(f"cube efficiency x must be in [0, 1], got {x}")
    return x


def _resolve_x(x, position) -> float:
    if x is None:
        return DEFAULT_CUBE_EFFICIENCY if position is None else default_cube_efficiency(position)
    return _check_x(x)
