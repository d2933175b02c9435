"""Match-play cube decisions from cubeless probabilities and a match equity table.

:func:`match_cube_decision` values No double, Double/take and Double/pass in match winning
chance (MWC, in [0, 1]) and in normalised money equity (EMG), and names the proper action
with :func:`fastbg.cube.money.cube_action`. :func:`cubeful_mwc` is the cubeful MWC of a position
for any cube state, :func:`live_cube_mwc` its fully-live part.

Method
------
Janowski's cubeful model, generalised to match play as in GNU Backgammon ("Cubeful
equities" in the GNU Backgammon manual, Jørn Thyssen; Rick Janowski, "Take-Points in Money
Games", 1993)::

    MWC(cubeful) = x * MWC(live) + (1 - x) * MWC(dead)

- ``MWC(dead)``: the game is played out at the current cube, :meth:`~fastbg.cube.met.
  MatchEquityTable.cubeless_mwc` (sum over the six results of P(result) * MWC after it).
- ``MWC(live)``: the fully live cube. The player's MWC is piecewise linear in his cubeless
  game winning chance ``p`` through the points ``(0, L)``, ``(TP, MWC(lose cube))``, ``(CP,
  MWC(win cube))`` and ``(1, W)``: at 0 he loses with his average loss (``L``, gammons
  weighted by the position's gammon shares), at his take point ``TP`` he is doubled out, at
  his cash point ``CP`` he doubles the opponent out, at 1 he wins his average win ``W``. The
  point ``TP`` exists only if the opponent may double usefully (cube centred or the
  opponent's, and the opponent still needs more than the cube); ``CP`` only if the player
  may. ``TP`` and ``CP`` are live take/cash points at the score with the position's gammon
  shares (:meth:`~fastbg.cube.met.MatchEquityTable.take_point`: ``TP(live, n) = TP(dead, n) * (1 -
  TP(live, 2n))``, highest cube level first).
- ``x``: the cube efficiency; GNU Backgammon uses 0.68 for contact positions, 0.6 to 0.7 in
  races by pip count (:func:`fastbg.cube.money.default_cube_efficiency`, used when a ``position``
  is given). On the last roll -- the opponent bears off with every roll on its next turn
  (:func:`fastbg.cube.money.is_last_roll`) -- the cube is dead and ``x = 0`` is exact.

No double = cubeful MWC at the current cube and owner; Double/take = cubeful MWC at twice
the cube, owned by the opponent; Double/pass = MWC after winning a single game at the current
cube. The take point reported is the opponent's game winning chance at which Double/take and
Double/pass are equal in this model (with the position's gammon shares held fixed): the dead
take point for ``x = 0``, the live one for ``x = 1``.

Match-play rules handled: no doubling in the Crawford game; after it, the leader (1-away)
never doubles, the trailer's cube is live and he doubles at once when that is right (the
leader's redouble is dead); a side that already wins the match by winning a single game at
the current cube has a dead cube (doubling only gives the opponent the cube) and does not
double; doubles beyond what a side needs are valued through the table (a win worth more than
the points needed is a match win).

The worked example of the GNU Backgammon manual (Woolsey's table, 3-0 to 7, live take
points 24.5%/27.3% on the 1-cube, cubeless MWC 29.1%, live 29.2%, cubeful 29.17% at x = 0.68)
is reproduced in ``tests/test_matchcube.py``.
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass

import numpy as np

from ..game.matchstate import an
from ..game.outcomes import CUBE_OWNERS
from .efficiency import CONTACT_CUBE_EFFICIENCY, _resolve_x
from .met import DEFAULT_MET, MatchEquityTable, _cube, _swap
from .metfile import load_met
from .money import ACTIONS, cube_action, probability_vector
from .renamed import renamed_keyword

__all__ = ["DEFAULT_CUBE_EFFICIENCY", "MatchCubeDecision", "cubeful_mwc", "live_cube_mwc",
           "match_cube_decision"]

#: GNU Backgammon's cube efficiency for contact and crashed positions: the ``x`` used when
#: neither ``x`` nor a position is given.
DEFAULT_CUBE_EFFICIENCY = CONTACT_CUBE_EFFICIENCY


def _cube_owner(cube_owner: str, owner: str | None, function: str) -> str:
    """The cube owner of ``function``'s arguments: ``cube_owner``, or its deprecated name
    ``owner`` (a DeprecationWarning; both, and different: TypeError)."""
    if owner is None:
        return cube_owner
    warnings.warn(f"{function}(owner=...) is deprecated: use cube_owner=...", DeprecationWarning,
                  stacklevel=3)
    if cube_owner != "centred" and cube_owner != owner:
        raise TypeError(f"{function}() got cube_owner={cube_owner!r} and owner={owner!r}: give "
                        "cube_owner alone")
    return owner


def _state(met, away, away_opponent, cube, owner, crawford):
    met = load_met(met)
    a, b = met._score(away, away_opponent)
    c = _cube(cube)
    if owner not in CUBE_OWNERS:
        raise ValueError(f"cube_owner must be one of {CUBE_OWNERS}, got {owner!r}")
    if (owner == "centred") != (c == 1):
        raise ValueError(f"in match play a centred cube is on 1 and an owned cube is on 2 or "
                         f"more; got cube {c} owned by {owner!r}")
    if crawford:
        if (a == 1) == (b == 1):
            raise ValueError("the Crawford game needs exactly one side at 1-away, got "
                             f"{a}-away/{b}-away")
        if c != 1:
            raise ValueError("no cube is turned in the Crawford game: cube must be 1, centred")
    return met, a, b, c


def _live(met, p5, a, b, c, owner, crawford) -> float:
    """Fully-live-cube MWC (Janowski's piecewise-linear interpolation)."""
    r = met.result_mwc(a, b, c)
    w = p5[0]
    lose = 1.0 - w
    wg, wbg, lg, lbg = p5[1:]
    W = ((w - wg) * r[0] + (wg - wbg) * r[1] + wbg * r[2]) / w if w > 0 else r[0]
    L = ((lose - lg) * r[3] + (lg - lbg) * r[4] + lbg * r[5]) / lose if lose > 0 else r[3]
    xs, ys = [0.0], [L]
    if not crawford:
        if owner != "player" and b > c:      # the opponent may double usefully
            xs.append(met.take_point(a, b, c, live=True, probabilities=_swap(p5)))
            ys.append(r[3])
        if owner != "opponent" and a > c:    # the player may double usefully
            xs.append(met.cash_point(a, b, c, live=True, probabilities=p5))
            ys.append(r[0])
    xs.append(1.0)
    ys.append(W)
    if len(xs) == 4 and xs[1] > xs[2]:
        # take point above the cash point (odd scores with heavy gammons): both sides'
        # windows overlap; meet in the middle, where the value jumps from a drop to a cash
        m = 0.5 * (xs[1] + xs[2])
        if w < m:
            return float(np.interp(w, [0.0, m], [L, r[3]]))
        return float(np.interp(w, [m, 1.0], [r[0], W]))
    return float(np.interp(w, xs, ys))


@renamed_keyword("probs", "probabilities")
def live_cube_mwc(probabilities, away: int, away_opponent: int, *, cube: int = 1,
                  cube_owner: str = "centred", crawford: bool = False,
                  met: str | MatchEquityTable = DEFAULT_MET, owner: str | None = None) -> float:
    """MWC of the player on roll with a fully live cube (x = 1).

    Parameters
    ----------
    probabilities : mapping, object or sequence of 5 float
        Cubeless probabilities of the player on roll (DESIGN.md section 5), in any form
        :func:`match_cube_decision` accepts (a :class:`~fastbg.rollouts.cubeless.RolloutResult`,
        for instance). Its old name, ``probs=``, still works, with a DeprecationWarning.
    away, away_opponent : int
        Points the player and the opponent need, both >= 1.
    cube : int
        Cube value (1 when centred, 2 or more when owned).
    cube_owner : {"centred", "player", "opponent"}
        Who owns the cube (:data:`fastbg.cube.CUBE_OWNERS`).
    crawford : bool
        Whether this game is the Crawford game (no cube: the live MWC is the dead one).
    met : str or MatchEquityTable
        The table, or a name or path for :func:`fastbg.cube.load_met`.
    owner : str, optional
        Deprecated name of ``cube_owner`` (a DeprecationWarning).

    Returns
    -------
    float
        MWC in [0, 1].

    Raises
    ------
    ValueError
        For invalid probabilities, scores, cube state or table.
    """
    owner = _cube_owner(cube_owner, owner, "live_cube_mwc")
    p5 = probability_vector(probabilities)
    met, a, b, c = _state(met, away, away_opponent, cube, owner, crawford)
    return _live(met, p5, a, b, c, owner, crawford)


@renamed_keyword("probs", "probabilities")
def cubeful_mwc(probabilities, away: int, away_opponent: int, *, cube: int = 1,
                cube_owner: str = "centred", crawford: bool = False,
                met: str | MatchEquityTable = DEFAULT_MET,
                x: float | None = None, position=None, owner: str | None = None) -> float:
    """Cubeful MWC of the player on roll: ``x * live + (1 - x) * dead``.

    Parameters
    ----------
    probabilities, away, away_opponent, cube, cube_owner, crawford, met, owner
        As for :func:`live_cube_mwc` (``probs=``, the old name of ``probabilities``, with a
        DeprecationWarning).
    x : float, optional
        Cube efficiency in [0, 1] (0: dead cube, 1: fully live). Default:
        :func:`fastbg.cube.money.default_cube_efficiency` of ``position`` if one is given (0 on
        the last roll), else :data:`DEFAULT_CUBE_EFFICIENCY` (0.68).
    position : optional
        Only used for the default ``x``.

    Returns
    -------
    float
        MWC in [0, 1].

    Raises
    ------
    ValueError
        For invalid arguments, or ``x`` outside [0, 1].
    """
    owner = _cube_owner(cube_owner, owner, "cubeful_mwc")
    p5 = probability_vector(probabilities)
    x = _resolve_x(x, position)
    met, a, b, c = _state(met, away, away_opponent, cube, owner, crawford)
    return _cubeful(met, p5, a, b, c, owner, crawford, x)


def _cubeful(met, p5, a, b, c, owner, crawford, x) -> float:
    dead = met.cubeless_mwc(p5, a, b, c)
    if x == 0.0:
        return dead
    return x * _live(met, p5, a, b, c, owner, crawford) + (1.0 - x) * dead


@dataclass(frozen=True)
class MatchCubeDecision:
    """A match-play cube decision, from the view of the player on roll.

    Attributes
    ----------
    nd, dt, dp : float
        MWC in [0, 1] of No double, Double/take and Double/pass. NaN for ``dt`` and ``dp``
        when the player cannot double (see ``can_double``).
    nd_emg, dt_emg, dp_emg : float
        The same as normalised money equity at the current cube (points per unit of the
        current cube; Double/pass is +1).
    action : str
        One of :data:`fastbg.cube.ACTIONS` ("Redouble" wording when the player owns the
        cube). When the player cannot double it is "No double, take" (or "No redouble,
        take"): no double, and the answer is moot.
    can_double : bool
        False in the Crawford game, when the opponent owns the cube, and when the player's
        cube is dead (a single win at the current cube already wins the match: the leader
        after the Crawford game, double match point).
    cubeless_mwc : float
        Dead-cube MWC at the current cube.
    take_point : float
        The opponent's take point of this double in the model (his game winning chance at
        which Double/take equals Double/pass, gammon shares of the position held fixed), in
        [0, 1]; NaN when the player cannot double.
    cash_point : float
        ``1 - take_point``: the player's game winning chance from which the double is a pass.
    take_point_dead, take_point_live : float
        The opponent's dead- and live-cube take points with the position's gammon shares
        (:meth:`fastbg.cube.met.MatchEquityTable.take_point`); NaN when the player cannot double.
    away, away_opponent, cube : int
        Score and cube value of the decision.
    cube_owner : str
        Cube owner, one of :data:`fastbg.cube.CUBE_OWNERS` (``owner``: its deprecated
        name).
    crawford, post_crawford : bool
        Whether this game is the Crawford game, or a post-Crawford game.
    x : float
        Cube efficiency used.
    met : str
        Name of the match equity table used.
    """

    nd: float
    dt: float
    dp: float
    nd_emg: float
    dt_emg: float
    dp_emg: float
    action: str
    can_double: bool
    cubeless_mwc: float
    take_point: float
    cash_point: float
    take_point_dead: float
    take_point_live: float
    away: int
    away_opponent: int
    cube: int
    cube_owner: str
    crawford: bool
    post_crawford: bool
    x: float
    met: str

    @property
    def owner(self) -> str:
        """Deprecated name of :attr:`cube_owner`."""
        warnings.warn("MatchCubeDecision.owner is deprecated: use cube_owner", DeprecationWarning,
                      stacklevel=2)
        return self.cube_owner

    @property
    def best(self) -> float:
        """MWC of the proper action (no double, or the taker's best answer to the double)."""
        if not self.can_double:
            return self.nd
        return max(self.nd, min(self.dt, self.dp))

    def as_dict(self) -> dict:
        """The decision as a plain dict (JSON-ready except NaN)."""
        return asdict(self)


@renamed_keyword("probs", "probabilities")
def match_cube_decision(probabilities, match_length: int, score: tuple[int, int] = (0, 0), *,
                        cube: int = 1, cube_owner: str = "centred", crawford: bool = False,
                        met: str | MatchEquityTable = DEFAULT_MET,
                        x: float | None = None, position=None,
                        owner: str | None = None) -> MatchCubeDecision:
    """The cube decision of the player on roll in a match.

    Parameters
    ----------
    probabilities : mapping, object or sequence of 5 float
        Cubeless probabilities of the player on roll, ``(win, win_gammon, win_backgammon,
        lose_gammon, lose_backgammon)`` (DESIGN.md section 5), in any form
        :func:`fastbg.cube.money.money_cube_decision` accepts: five numbers, a mapping with those
        keys, or an object with those attributes such as a
        :class:`~fastbg.rollouts.cubeless.RolloutResult`. Its old name, ``probs=``, still
        works, with a DeprecationWarning.
    match_length : int
        Points to win the match (at most the table's length).
    score : (int, int)
        Points already won by the player on roll and by the opponent, each below
        ``match_length``.
    cube : int
        Cube value: 1 when centred, a power of two >= 2 when owned.
    cube_owner : {"centred", "player", "opponent"}
        Who owns the cube, from the view of the player on roll (as
        :attr:`fastbg.MatchState.cube_owner` and :func:`fastbg.money_cube_decision`).
    crawford : bool
        True when this game is the Crawford game (exactly one side 1-away; no doubling).
        With a side at 1-away and ``crawford=False`` the game is post-Crawford (GNU
        Backgammon's Match ID convention).
    met : str or MatchEquityTable
        The table, or a name or path for :func:`fastbg.cube.load_met`. Default Kazaross-XG2.
    x : float, optional
        Cube efficiency in [0, 1]. Default: :func:`fastbg.cube.money.default_cube_efficiency`
        of ``position`` if one is given (GNU Backgammon's values, and 0 on the last roll:
        when the opponent bears off with every roll on its next turn the cube is dead and
        the dead-cube MWCs are exact), else :data:`DEFAULT_CUBE_EFFICIENCY` (0.68, GNU
        Backgammon's contact value).
    position : optional
        Only used for the default ``x``.
    owner : str, optional
        Deprecated name of ``cube_owner`` (a DeprecationWarning).

    Returns
    -------
    MatchCubeDecision

    Raises
    ------
    ValueError
        For invalid probabilities, a score outside the match or beyond the table, an
        inconsistent cube state (a centred cube not on 1, an owned one on 1, a turned cube
        or no side at 1-away in the Crawford game), an unknown table, or ``x`` outside
        [0, 1].

    Notes
    -----
    See the module docstring for the method and its sources. The MWCs are model values: as
    good as the probabilities, the table and the single efficiency ``x`` (no look-ahead).
    """
    owner = _cube_owner(cube_owner, owner, "match_cube_decision")
    p5 = probability_vector(probabilities)
    x = _resolve_x(x, position)
    n = _whole(match_length, "match_length")
    if n < 1:
        raise ValueError(f"match_length must be >= 1, got {n}")
    try:
        s_p, s_o = score
    except (TypeError, ValueError):
        raise ValueError(f"score must be a pair (player, opponent), got {score!r}") from None
    s_p, s_o = _whole(s_p, "score"), _whole(s_o, "score")
    if not (0 <= s_p < n and 0 <= s_o < n):
        raise ValueError(f"scores must lie in [0, {n - 1}] in {an(n)}-point match, got "
                         f"{s_p}-{s_o}")
    table, a, b, c = _state(met, n - s_p, n - s_o, cube, owner, crawford)
    post = not crawford and (a == 1) != (b == 1)

    dead = table.cubeless_mwc(p5, a, b, c)
    nd = _cubeful(table, p5, a, b, c, owner, crawford, x)
    can_double = not crawford and owner != "opponent" and a > c
    redouble = owner == "player"
    nan = float("nan")
    if can_double:
        dp = float(table.result_mwc(a, b, c)[0])
        dt = _cubeful(table, p5, a, b, 2 * c, "opponent", False, x)
        action = cube_action(nd, dt, dp, redouble=redouble)
        tp = 1.0 - _cash_root(table, p5, a, b, c, x, dp)
        tp_dead = 1.0 - table.cash_point(a, b, c, live=False, probabilities=p5)
        tp_live = 1.0 - table.cash_point(a, b, c, live=True, probabilities=p5)
    else:
        dt = dp = tp = tp_dead = tp_live = nan
        action = ACTIONS[0].replace("double", "redouble") if redouble else ACTIONS[0]

    def emg(v):  # NaN (no double possible) stays NaN
        return table.emg(v, a, b, c) if v == v else nan

    return MatchCubeDecision(
        nd=nd, dt=dt, dp=dp, nd_emg=emg(nd), dt_emg=emg(dt), dp_emg=emg(dp), action=action,
        can_double=can_double, cubeless_mwc=dead, take_point=tp, cash_point=1.0 - tp,
        take_point_dead=tp_dead, take_point_live=tp_live, away=a, away_opponent=b, cube=c,
        cube_owner=owner, crawford=bool(crawford), post_crawford=post, x=x,
        met=table.name or table.source)


def _whole(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} must be a whole number, got {value!r}")
    return int(value)


def _cash_root(table, p5, a, b, c, x, dp) -> float:
    """The player's game winning chance at which Double/take equals Double/pass.

    Double/take is increasing in the win chance (a mixture of two increasing piecewise-linear
    functions once the gammon shares are fixed), from the average loss at 0 to the average
    win at 1, which bracket Double/pass; bisection to 1e-12.
    """
    win = p5[0]
    rw = p5[1:3] / win if win > 0 else np.zeros(2)
    rl = p5[3:5] / (1.0 - win) if win < 1 else np.zeros(2)

    def dt_minus_dp(q: float) -> float:
        pq = np.array([q, q * rw[0], q * rw[1], (1 - q) * rl[0], (1 - q) * rl[1]])
        return _cubeful(table, pq, a, b, 2 * c, "opponent", False, x) - dp

    lo, hi = 0.0, 1.0
    if dt_minus_dp(lo) >= 0:
        return 0.0
    if dt_minus_dp(hi) <= 0:
        return 1.0
    while hi - lo > 1e-12:
        mid = 0.5 * (lo + hi)
        if dt_minus_dp(mid) < 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)
