"""Cube decisions: from cubeless probabilities to the proper cube action.

The vocabulary shared by money play (this module) and match play (:mod:`fastbg.matchcube`):
the cube owner names and :func:`cube_action`, which turns the three cubeful values of a cube
decision into the proper action.
"""

from __future__ import annotations

#: Who owns the cube, from the view of the player on roll (the side that may double).
CUBE_OWNERS = ("centred", "player", "opponent")

#: The proper actions, in GNU Backgammon's words. With ``redouble=True`` "double" reads
#: "redouble".
ACTIONS = (
    "No double, take",
    "No double, beaver",
    "Double, take",
    "Double, beaver",
    "Double, pass",
    "Too good to double, take",
    "Too good to double, pass",
)


def cube_action(nd: float, dt: float, dp: float, *, redouble: bool = False,
                beaver: bool = False) -> str:
    """The proper cube action from the values of its three outcomes.

    Parameters
    ----------
    nd, dt, dp : float
        Value to the player who may double of No double, Double/take and Double/pass, all in
        the same unit, larger is better for the doubler: equity per unit of the cube *before*
        the double (money play, so Double/pass is 1 without Jacoby effects), or match winning
        chances in [0, 1] (match play).
    redouble : bool
        Word the action as a redouble (the doubler owns the cube).
    beaver : bool
        Whether the taker may beaver (money play with the beaver option): a take whose value
        to the taker is positive, ``dt < 0`` in per-cube equity, is then a beaver.

    Returns
    -------
    str
        One of :data:`ACTIONS` (with "redouble" for "double" when ``redouble``).

    Notes
    -----
    The taker answers a double by whichever of take and pass is worse for the doubler, so
    doubling is worth ``min(dt, dp)``. The doubler doubles when that beats ``nd``; when it
    does not and ``nd`` beats even ``dp``, the position is too good to double (play on for a
    gammon); otherwise it is no double. Ties go to the double. The same rule as GNU
    Backgammon's cube analysis.
    """
    takes = dt < dp
    d = dt if takes else dp
    answer = ("beaver" if beaver and dt < 0 else "take") if takes else "pass"
    if nd > d:
        action = f"Too good to double, {answer}" if nd > dp else f"No double, {answer}"
    else:
        action = f"Double, {answer}"
    if redouble:
        action = action.replace("Double", "Redouble").replace("double", "redouble")
    return action
