"""Match equity tables and the match-play arithmetic that needs only a table.

A match equity table (MET) gives the match winning chance (MWC, a probability in [0, 1]) of a
player at the start of a game, from the number of points each side still needs ("away").
:func:`fastbg.cube.metfile.load_met` reads tables in GNU Backgammon's MET XML format; three classic tables ship
with fastbg (:data:`SHIPPED_METS`, provenance in ``fastbg/data/met/README.md``), the default
being Kazaross-XG2.

On top of the table: MWC after each game result (:meth:`MatchEquityTable.result_mwc`), the
dead-cube MWC of the five cubeless probabilities (:meth:`~MatchEquityTable.cubeless_mwc`),
the conversion to and from normalised money equity (:meth:`~MatchEquityTable.emg`), gammon
values (:meth:`~MatchEquityTable.gammon_values`), dead and live take and cash points
(:meth:`~MatchEquityTable.take_point`, :meth:`~MatchEquityTable.cash_point`) and the leader's
free drop after the Crawford game (:meth:`~MatchEquityTable.free_drop`). Cube decisions at a
match score are in :mod:`fastbg.cube.match`.

Conventions
-----------
- *away*: points a side still needs; ``away <= 0`` means that side has won.
- Probabilities follow DESIGN.md section 5: ``(win, win_gammon, win_backgammon, lose_gammon,
  lose_backgammon)`` from the view of the player on roll, gammons including backgammons.
- The six outcome classes (:data:`OUTCOMES`) are win single/gammon/backgammon, lose
  single/gammon/backgammon, in that order, worth 1, 2, 3 times the cube.
- Crawford: the first game after a side reaches 1-away is the Crawford game, played without
  the cube; every later game is post-Crawford. The MWC at the start of the Crawford game is the
  pre-Crawford table's 1-away entry; post-Crawford games use the post-Crawford table. After a
  game in which a side was already 1-away, the next game is post-Crawford; after any other
  game that leaves a side at 1-away, the next game is the Crawford game.

Sources
-------
- GNU Backgammon manual, "Match Equity Tables", "Equities explained" (normalised money
  equity, cubeful equities, live cube take points), Jørn Thyssen et al.; the MET XML format
  and its DTD ``met.dtd`` (2002).
- Kit Woolsey, "Match equity" (GammOnLine; the table and its use for cube decisions) and
  the standard dead-cube take point from the table, ``(pass - take&lose) / (take&win -
  take&lose)`` (e.g. the rec.games.backgammon archive at bkgm.com).
- Rick Janowski, "Take-Points in Money Games" (1993): live cube take points; GNU Backgammon's
  generalisation to match play, ``TP(live, n) = TP(dead, n) * (1 - TP(live, 2n))`` with the
  opponent's recube computed at the next cube level first.
"""

from __future__ import annotations

import numpy as np

from .renamed import renamed_keyword

__all__ = [
    "DEFAULT_MET", "OUTCOMES", "SHIPPED_METS", "MatchEquityTable", "gammon_values",
    "outcome_probabilities",
]

#: How far a table entry may be from what the rules of a match equity table force (0.5 at
#: 1-away/1-away, complements summing to 1): published tables are rounded to 4 decimals.
MET_TOLERANCE = 1e-3

#: Names of the tables shipped in ``fastbg/data/met`` (file name without ``.xml``).
SHIPPED_METS = ("Kazaross-XG2", "Rockwell-Kazaross", "woolsey")

#: The table used when none is named: Kazaross-XG2, the de facto standard since 2011.
DEFAULT_MET = "Kazaross-XG2"

#: The six outcome classes of a game, in the order of every length-6 array of this module.
OUTCOMES = ("win_single", "win_gammon", "win_backgammon",
            "lose_single", "lose_gammon", "lose_backgammon")

#: Points of each outcome class per unit of cube, from the player's side.
_OUTCOME_POINTS = (1, 2, 3, -1, -2, -3)

_TOL = 1e-9


# --------------------------------------------------------------------------- probabilities

def _check_probabilities(probs) -> np.ndarray:
    """Validate the five cubeless probabilities; return a float64 array of shape (..., 5)."""
    try:
        p = np.asarray(probs, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"probabilities must be numbers: {exc}") from None
    if p.ndim == 0 or p.shape[-1] != 5:
        raise ValueError("probabilities need shape (..., 5): (win, win_gammon, win_backgammon,"
                         f" lose_gammon, lose_backgammon); got shape {p.shape}")
    if not np.all(np.isfinite(p)):
        raise ValueError("probabilities must be finite")
    if np.any(p < -_TOL) or np.any(p > 1 + _TOL):
        raise ValueError("probabilities must lie in [0, 1]")
    win, wg, wbg, lg, lbg = np.moveaxis(p, -1, 0)
    if np.any(wg > win + _TOL) or np.any(wbg > wg + _TOL):
        raise ValueError("need win_backgammon <= win_gammon <= win")
    if np.any(lg > 1 - win + _TOL) or np.any(lbg > lg + _TOL):
        raise ValueError("need lose_backgammon <= lose_gammon <= lose = 1 - win")
    return np.clip(p, 0.0, 1.0)


@renamed_keyword("probs", "probabilities")
def outcome_probabilities(probabilities) -> np.ndarray:
    """The probabilities of the six outcome classes from the five cubeless probabilities.

    Parameters
    ----------
    probabilities : array_like, shape (..., 5)
        ``(win, win_gammon, win_backgammon, lose_gammon, lose_backgammon)``, gammons including
        backgammons (DESIGN.md section 5). Its old name, ``probs=``, still works, with a
        DeprecationWarning.

    Returns
    -------
    numpy.ndarray, shape (..., 6), float64
        Probabilities of :data:`OUTCOMES`; they sum to 1.

    Raises
    ------
    ValueError
        If the shape is wrong, a value is outside [0, 1] or not finite, or the probabilities
        are inconsistent (a backgammon rate above the gammon rate, a gammon rate above the win
        or loss rate).
    """
    p = _check_probabilities(probabilities)
    win, wg, wbg, lg, lbg = np.moveaxis(p, -1, 0)
    lose = 1.0 - win
    return np.stack([win - wg, wg - wbg, wbg, lose - lg, lg - lbg, lbg], axis=-1)


def _ratios(probs: np.ndarray) -> tuple[tuple[float, float], tuple[float, float]]:
    """Gammon and backgammon shares of wins and of losses, ``((g, bg) of wins, (g, bg) of
    losses)``, each a fraction of that side's games; 0 where that side never wins."""
    win, wg, wbg, lg, lbg = (float(v) for v in probs)
    lose = 1.0 - win
    rw = (wg / win, wbg / win) if win > 0 else (0.0, 0.0)
    rl = (lg / lose, lbg / lose) if lose > 0 else (0.0, 0.0)
    return rw, rl


def _swap(probs: np.ndarray) -> np.ndarray:
    """The same probabilities from the other side's view."""
    win, wg, wbg, lg, lbg = probs
    return np.array([1.0 - win, lg, lbg, wg, wbg])


def gammon_values(outcome_values) -> tuple[float, float]:
    """Gammon values from the values of the six game results.

    Parameters
    ----------
    outcome_values : array_like, shape (6,)
        Value to the player of each of :data:`OUTCOMES` (MWC, points, anything linear).

    Returns
    -------
    (float, float)
        ``(gv_win, gv_lose)`` with ``gv_win = (V(win gammon) - V(win single)) / (V(win
        single) - V(lose single))`` and ``gv_lose = (V(lose single) - V(lose gammon)) /
        (V(win single) - V(lose single))``: what winning (saving) a gammon is worth in units
        of the swing between winning and losing a single game. For money (values 1, 2, 3,
        -1, -2, -3) both are 0.5.

    Raises
    ------
    ValueError
        If the shape is not (6,) or winning a single game is worth no more than losing one.

    Notes
    -----
    The usual definition of the gammon value ("gammon price") of match play literature: a
    take point with gammons is ``(pass - lose*) / (win* - lose*)`` with gammon-weighted
    results, and the gammon values are the weights that turn gammon rates into that shift.
    """
    v = np.asarray(outcome_values, dtype=np.float64)
    if v.shape != (6,):
        raise ValueError(f"outcome values need shape (6,), got {v.shape}")
    swing = v[0] - v[3]
    if not swing > 0:
        raise ValueError("a single win must be worth more than a single loss")
    return float((v[1] - v[0]) / swing), float((v[3] - v[4]) / swing)


# --------------------------------------------------------------------------- the table

def _away(value, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} must be a whole number of points, got {value!r}")
    return int(value)


def _cube(value) -> int:
    c = _away(value, "cube")
    if c < 1 or c & (c - 1):
        raise ValueError(f"cube must be a power of two >= 1, got {c}")
    return c


class _BeyondTable(ValueError):
    """A score the table does not hold (a ValueError, so callers see no difference)."""


class MatchEquityTable:
    """A match equity table: pre-Crawford and post-Crawford match winning chances.

    Parameters
    ----------
    pre_crawford : array_like, shape (n, n)
        ``pre_crawford[i, j]`` is the MWC, in [0, 1], of player 0 needing ``i + 1`` points
        against player 1 needing ``j + 1``, at the start of a game (cube centred on 1). Row
        or column 0 is the Crawford game.
    post_crawford : array_like, shape (m,) or (2, m)
        ``post_crawford[k, j]`` is the MWC of player ``k`` as the trailer needing ``j + 1``
        points against a leader who needs 1, at the start of a post-Crawford game. A single
        row serves both players.
    name, description, source : str
        From the file's ``<info>`` and where it was read from.
    declared_length : int, optional
        The ``<length>`` the file claims (the arrays decide what is usable).

    Raises
    ------
    ValueError
        If a table has the wrong shape, is empty, or holds values outside [0, 1]; if
        ``declared_length`` is not the pre-Crawford table's size; or if the two players
        share one post-Crawford table (equal strength) but 1-away/1-away is not 0.5 or
        ``mwc(a, b) + mwc(b, a)`` is not 1 (within :data:`MET_TOLERANCE`).

    Notes
    -----
    For the shipped tables (and any table made for players of equal strength) the two
    players are interchangeable: ``mwc(a, b) + mwc(b, a) == 1``. An asymmetric table
    (GNU Backgammon's ``jac050.xml``, say) is from player 0's view, and so is every method
    here: its first away argument is player 0's.

    Instances are immutable; the arrays they expose are read-only views.
    """

    def __init__(self, pre_crawford, post_crawford, *, name: str = "", description: str = "",
                 source: str = "", declared_length: int | None = None):
        pre = np.array(pre_crawford, dtype=np.float64)
        post = np.array(post_crawford, dtype=np.float64)
        if post.ndim == 1:
            post = np.stack([post, post])
        if pre.ndim != 2 or pre.shape[0] != pre.shape[1] or pre.shape[0] < 1:
            raise ValueError(f"pre-Crawford table must be square and non-empty, got shape "
                             f"{pre.shape}")
        if post.ndim != 2 or post.shape[0] != 2 or post.shape[1] < 1:
            raise ValueError(f"post-Crawford table must have shape (m,) or (2, m), got "
                             f"{post.shape}")
        for what, arr in (("pre-Crawford", pre), ("post-Crawford", post)):
            if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr > 1):
                raise ValueError(f"{what} table values must be match winning chances in "
                                 "[0, 1]")
        n = pre.shape[0]
        if declared_length is not None and declared_length != n:
            raise ValueError(f"the declared <length> is {declared_length} but the pre-Crawford "
                             f"table has {n} rows and columns")
        if np.allclose(post[0], post[1], atol=MET_TOLERANCE, rtol=0.0):
            # One post-Crawford table for both players: they are of equal strength, so the
            # table must be symmetric, 1-away/1-away an even game included.
            if abs(pre[0, 0] - 0.5) > MET_TOLERANCE:
                raise ValueError(f"1-away/1-away is {pre[0, 0]:.6g}, not 0.5: with one "
                                 "post-Crawford table for both players the last game is even")
            dev = np.abs(pre + pre.T - 1.0)
            i, j = np.unravel_index(int(np.argmax(dev)), dev.shape)
            if dev[i, j] > MET_TOLERANCE:
                raise ValueError(
                    f"mwc({i + 1}-away, {j + 1}-away) + mwc({j + 1}-away, {i + 1}-away) = "
                    f"{pre[i, j] + pre[j, i]:.6g}, not 1: with one post-Crawford table for both "
                    "players one side's chance is the other's complement")
        pre.setflags(write=False)
        post.setflags(write=False)
        self._pre = pre
        self._post = post
        self.name = name
        self.description = description
        self.source = source
        self.declared_length = pre.shape[0] if declared_length is None else declared_length

    # -- the table itself ------------------------------------------------------------------

    @property
    def length(self) -> int:
        """Largest away score of the pre-Crawford table (the longest match it covers)."""
        return self._pre.shape[0]

    @property
    def post_crawford_length(self) -> int:
        """Largest trailer's away score of the post-Crawford table."""
        return self._post.shape[1]

    @property
    def pre_crawford(self) -> np.ndarray:
        """Read-only ``(length, length)`` array: ``[i, j]`` is the MWC of player 0 needing
        ``i + 1`` against ``j + 1``."""
        return self._pre

    @property
    def post_crawford(self) -> np.ndarray:
        """Read-only ``(2, post_crawford_length)`` array: ``[k, j]`` is the MWC of player
        ``k`` as the trailer needing ``j + 1`` against a leader needing 1, post-Crawford."""
        return self._post

    @property
    def symmetric(self) -> bool:
        """Whether the two players are interchangeable (equal strength)."""
        return bool(np.allclose(self._pre + self._pre.T, 1.0, atol=1e-6)
                    and np.allclose(self._post[0], self._post[1], atol=1e-6))

    def __repr__(self) -> str:
        return (f"MatchEquityTable(name={self.name!r}, length={self.length}, "
                f"source={self.source!r})")

    def mwc(self, away: int, away_opponent: int, *, crawford: bool = True) -> float:
        """Match winning chance of the player at the start of a game at this score.

        Parameters
        ----------
        away, away_opponent : int
            Points the player and the opponent still need. ``away <= 0`` means the player
            has won (MWC 1.0), ``away_opponent <= 0`` that the opponent has (MWC 0.0).
        crawford : bool
            Only used when exactly one side is 1-away: True (default) when this game is the
            Crawford game (the pre-Crawford table's 1-away entry), False for a post-Crawford
            game (the post-Crawford table).

        Returns
        -------
        float
            MWC of the player, in [0, 1].

        Raises
        ------
        ValueError
            If both sides have won, an away score is not a whole number, or the score lies
            beyond what the table holds.
        """
        a = _away(away, "away")
        b = _away(away_opponent, "away_opponent")
        if a <= 0 and b <= 0:
            raise ValueError("both sides cannot have won the match")
        if a <= 0:
            return 1.0
        if b <= 0:
            return 0.0
        if not crawford and (a == 1) != (b == 1):
            if b == 1:
                return float(self._post[0, self._post_index(a)])
            return 1.0 - float(self._post[1, self._post_index(b)])
        if a > self.length or b > self.length:
            raise _BeyondTable(f"table {self.name!r} holds scores up to {self.length}-away; "
                               f"got {a}-away/{b}-away")
        return float(self._pre[a - 1, b - 1])

    def _beyond(self, a: int, b: int) -> _BeyondTable:
        """The error for a game at ``a``-away/``b``-away whose results need an entry the
        table lacks: pre-Crawford entries unless a side is 1-away, whose results lead to
        post-Crawford games."""
        if (a == 1) != (b == 1):
            return _BeyondTable(f"table {self.name!r} holds post-Crawford scores up to "
                                f"{self.post_crawford_length}-away; got {a}-away/{b}-away")
        return _BeyondTable(f"table {self.name!r} holds scores up to {self.length}-away; "
                            f"got {a}-away/{b}-away")

    def _post_index(self, away_trailer: int) -> int:
        if away_trailer > self.post_crawford_length:
            raise _BeyondTable(f"table {self.name!r} holds post-Crawford scores up to "
                               f"{self.post_crawford_length}-away; got {away_trailer}-away")
        return away_trailer - 1

    def _after(self, a: int, b: int, points: int) -> float:
        """MWC after the player wins (points > 0) or loses (points < 0) points at a/b.

        A result the table does not hold is reported at the score of the game, a/b,
        not at the score after it (a 65-point match at 0-0 is 65-away/65-away)."""
        crawford = not (a == 1 or b == 1)  # a game with a side at 1-away is followed by post
        try:
            if points > 0:
                return self.mwc(a - points, b, crawford=crawford)
            return self.mwc(a, b + points, crawford=crawford)
        except _BeyondTable:
            raise self._beyond(a, b) from None

    def result_mwc(self, away: int, away_opponent: int, cube: int = 1) -> np.ndarray:
        """The player's MWC after each possible result of the current game.

        Parameters
        ----------
        away, away_opponent : int
            Points each side needs, both >= 1.
        cube : int
            Cube value, a power of two.

        Returns
        -------
        numpy.ndarray, shape (6,), float64
            MWC after each of :data:`OUTCOMES` (win single/gammon/backgammon, lose
            single/gammon/backgammon) at this cube. The next game is the Crawford game when
            a side reaches 1-away for the first time, post-Crawford when a side was already
            1-away.

        Raises
        ------
        ValueError
            If an away score is below 1 or beyond the table, or the cube is not a power of
            two.
        """
        a, b = self._score(away, away_opponent)
        c = _cube(cube)
        return np.array([self._after(a, b, k * c) for k in _OUTCOME_POINTS])

    def _score(self, away, away_opponent) -> tuple[int, int]:
        a = _away(away, "away")
        b = _away(away_opponent, "away_opponent")
        if a < 1 or b < 1:
            raise ValueError(f"a game in progress needs both away scores >= 1, got {a}/{b}")
        return a, b

    @renamed_keyword("probs", "probabilities")
    def cubeless_mwc(self, probabilities, away: int, away_opponent: int, cube: int = 1):
        """Dead-cube match winning chance of the five cubeless probabilities.

        ``sum over the six outcome classes of P(class) * MWC(after that result)``: the MWC
        if the game is played to the end at this cube, without further doubles.

        Parameters
        ----------
        probabilities : array_like, shape (..., 5)
            Cubeless probabilities of the player on roll (DESIGN.md section 5). Its old
            name, ``probs=``, still works, with a DeprecationWarning.
        away, away_opponent : int
            Points the player and the opponent need, both >= 1.
        cube : int
            Cube value.

        Returns
        -------
        float or numpy.ndarray of shape (...)
            MWC in [0, 1]; a float for a single position.

        Raises
        ------
        ValueError
            For invalid probabilities, scores or cube (see :func:`outcome_probabilities` and
            :meth:`result_mwc`).
        """
        out = outcome_probabilities(probabilities) @ self.result_mwc(away, away_opponent, cube)
        return float(out) if np.ndim(out) == 0 else out

    # -- normalised money equity ------------------------------------------------------------

    def emg(self, mwc, away: int, away_opponent: int, cube: int = 1):
        """Normalised money equity (EMG, "equivalent to money game") of an MWC at a score.

        ``EMG = 2 * (MWC - MWC(lose)) / (MWC(win) - MWC(lose)) - 1``, where ``MWC(win)`` and
        ``MWC(lose)`` follow a single game won or lost at the current cube: the linear map
        that sends those two to +1 and -1, as GNU Backgammon normalises ("Normalized equity",
        GNU Backgammon manual).

        Parameters
        ----------
        mwc : float or array_like
            Match winning chance(s) of the player, in [0, 1].
        away, away_opponent : int
            Points the player and the opponent need, both >= 1.
        cube : int
            Cube value.

        Returns
        -------
        float or numpy.ndarray
            Equity in points per unit of the current cube (money-game scale: a cash is +1).

        Raises
        ------
        ValueError
            For invalid scores or cube.
        """
        r = self.result_mwc(away, away_opponent, cube)
        out = 2.0 * (np.asarray(mwc, dtype=np.float64) - r[3]) / (r[0] - r[3]) - 1.0
        return float(out) if np.ndim(out) == 0 else out

    def mwc_from_emg(self, equity, away: int, away_opponent: int, cube: int = 1):
        """Inverse of :meth:`emg`: the MWC of a normalised money equity at a score.

        Parameters
        ----------
        equity : float or array_like
            EMG, in points per unit of the current cube.
        away, away_opponent, cube
            As for :meth:`emg`.

        Returns
        -------
        float or numpy.ndarray
            Match winning chance (may leave [0, 1] for equities outside the achievable
            range).
        """
        r = self.result_mwc(away, away_opponent, cube)
        out = r[3] + (np.asarray(equity, dtype=np.float64) + 1.0) * (r[0] - r[3]) / 2.0
        return float(out) if np.ndim(out) == 0 else out

    # -- gammon values, take and cash points -------------------------------------------------

    def gammon_values(self, away: int, away_opponent: int, cube: int = 1) -> tuple[float, float]:
        """Gammon values of the player at a score and cube.

        Parameters
        ----------
        away, away_opponent : int
            Points the player and the opponent need, both >= 1.
        cube : int
            Cube value the game is played for.

        Returns
        -------
        (float, float)
            ``(gv_win, gv_lose)``, see :func:`gammon_values`; 0.5 and 0.5 in money play,
            close to that early in a long match, 0 for a side whose single win or loss
            already decides the match.
        """
        return gammon_values(self.result_mwc(away, away_opponent, cube))

    def _take_point(self, a_p: int, a_o: int, cube: int, taker_is_p: bool,
                    ratios_p: tuple[float, float], ratios_o: tuple[float, float],
                    live: bool) -> float:
        """Take point of a double from cube to 2*cube, as a win chance of the taker.

        Player p (player 0 of the table) needs a_p, o needs a_o; ratios are the (gammon,
        backgammon) shares of each side's wins. The doubler's gammons always count; the
        taker's count unless the taker's recube is live (then the taker cashes his good games
        instead of playing them out, as in GNU Backgammon and eXtreme Gammon).
        """
        r1 = self.result_mwc(a_p, a_o, cube)
        r2 = self.result_mwc(a_p, a_o, 2 * cube)
        a_taker = a_p if taker_is_p else a_o
        recube_live = live and a_taker > 2 * cube   # the taker still gains from redoubling

        def mean(v, ratios, counted):
            g, bg = ratios if counted else (0.0, 0.0)
            return (1.0 - g) * v[0] + (g - bg) * v[1] + bg * v[2]

        if taker_is_p:
            pass_ = r1[3]
            lose = mean(r2[3:], ratios_o, True)
            win = mean(r2[:3], ratios_p, not recube_live)
        else:
            pass_ = 1.0 - r1[0]
            lose = 1.0 - mean(r2[:3], ratios_p, True)
            win = 1.0 - mean(r2[3:], ratios_o, not recube_live)
        if win - lose <= _TOL:
            tp = 0.0 if pass_ <= lose else 1.0
        else:
            tp = min(max((pass_ - lose) / (win - lose), 0.0), 1.0)
        if recube_live:
            # the taker cashes at his own cash point one level up, which is one minus the
            # other side's live take point of the redouble: solve that level first
            tp *= 1.0 - self._take_point(a_p, a_o, 2 * cube, not taker_is_p,
                                         ratios_p, ratios_o, live)
        return tp

    @renamed_keyword("probs", "probabilities")
    def take_point(self, away_taker: int, away_doubler: int, cube: int = 1, *,
                   live: bool = False, probabilities=None) -> float:
        """Take point of a double from ``cube`` to ``2 * cube`` at a match score.

        Parameters
        ----------
        away_taker, away_doubler : int
            Points the side being doubled and the doubler need, both >= 1.
        cube : int
            Cube value before the double.
        live : bool
            False: dead cube, the game is played out for ``2 * cube`` without redoubles.
            True: fully live cube, the taker's recube is efficient (see Notes).
        probabilities : array_like, shape (5,), optional
            Cubeless probabilities from the **doubler's** view (the player on roll); only
            their gammon and backgammon shares are used (the shares of wins that are gammons
            weight the taker's losses, those of losses the taker's wins). None: gammonless.
            Its old name, ``probs=``, still works, with a DeprecationWarning.

        Returns
        -------
        float
            The least cubeless game winning chance, in [0, 1], with which the taker does at
            least as well taking as passing.

        Raises
        ------
        ValueError
            For invalid scores, cube or probabilities.

        Notes
        -----
        Dead cube (the standard formula): ``TP = (MWC(pass) - MWC(take, lose)) / (MWC(take,
        win) - MWC(take, lose))`` from the taker's side, the take results at ``2 * cube``
        weighted by the gammon shares.

        Live cube (Janowski's model as generalised to match play in the GNU Backgammon
        manual, "Live cube equities"): after taking, the taker owns the cube and redoubles
        exactly at his cash point, where the doubler passes; his MWC is then linear in his
        win chance from ``MWC(take, lose)`` at 0 to ``MWC(win 2*cube)`` at the cash point, so
        ``TP(live, n) = TP(dead, n) * CP(2n)`` with ``CP(2n) = 1 - TP_doubler(live, 2n)``,
        the doubler's live take point of the redouble, computed the same way one cube level
        up first. The recursion stops where the taker's recube gains nothing (his single win
        at ``2 * cube`` already wins the match), where the dead take point is used. In the
        live levels the taker's own gammons are ignored (he cashes instead of playing on),
        as in GNU Backgammon and eXtreme Gammon.

        Examples: Kazaross-XG2, 3-away/3-away, 1-cube, gammonless: dead 30.17%, live
        30.17% x 75.08% = 22.65% (the figures eXtreme Gammon shows).
        """
        a_t, a_d = self._score(away_taker, away_doubler)
        c = _cube(cube)
        rw, rl = (_ratios(_check_probabilities(probabilities)) if probabilities is not None
                  else ((0, 0), (0, 0)))
        # taker = player 0 of the table; the doubler's gammon shares are its wins' shares
        return float(self._take_point(a_t, a_d, c, True, rl, rw, bool(live)))

    @renamed_keyword("probs", "probabilities")
    def cash_point(self, away_doubler: int, away_taker: int, cube: int = 1, *,
                   live: bool = False, probabilities=None) -> float:
        """Cash point of the doubler: one minus the taker's take point.

        Parameters
        ----------
        away_doubler, away_taker : int
            Points the doubler and the side being doubled need, both >= 1.
        cube : int
            Cube value before the double.
        live : bool
            Dead (False) or fully live (True) cube, as for :meth:`take_point`.
        probabilities : array_like, shape (5,), optional
            Cubeless probabilities from the doubler's view; None: gammonless. Its old name,
            ``probs=``, still works, with a DeprecationWarning.

        Returns
        -------
        float
            The doubler's game winning chance, in [0, 1], at and above which a double is
            passed.

        Raises
        ------
        ValueError
            For invalid scores, cube or probabilities.
        """
        a_d, a_t = self._score(away_doubler, away_taker)
        c = _cube(cube)
        rw, rl = (_ratios(_check_probabilities(probabilities)) if probabilities is not None
                  else ((0, 0), (0, 0)))
        # doubler = player 0 of the table here
        return float(1.0 - self._take_point(a_d, a_t, c, False, rw, rl, bool(live)))

    # -- after the Crawford game ------------------------------------------------------------

    def post_crawford_mwc(self, away_trailer: int, *, player: int = 0) -> float:
        """MWC of the trailer at the start of a post-Crawford game against a 1-away leader.

        Parameters
        ----------
        away_trailer : int
            Points the trailer needs, >= 1 (1: double match point, 0.5 for equal players).
        player : {0, 1}
            Which player trails (matters only for asymmetric tables).

        Returns
        -------
        float
            The trailer's MWC in [0, 1].

        Raises
        ------
        ValueError
            If the score is beyond the table or ``player`` is not 0 or 1.
        """
        n = _away(away_trailer, "away_trailer")
        if n < 1:
            raise ValueError(f"away_trailer must be >= 1, got {n}")
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player!r}")
        return float(self._post[player, self._post_index(n)])

    def free_drop(self, away_trailer: int) -> float | None:
        """The leader's free drop after the Crawford game, if there is one.

        After the Crawford game the trailer doubles at once (the leader's cube is dead). At
        an even away score of the trailer the leader may drop that first double at little or
        no cost: in a gammonless game the trailer at ``2k``-away and at ``(2k-1)``-away both
        need ``k`` doubled wins, so the point given up changes nothing. The classic case is
        2-away/1-away: dropping leaves double match point (0.5), so the leader takes only
        as the favourite in the game and drops whenever the opening roll or the early play
        goes against him; the trailer's MWC at the start of the game is below 0.5 by the
        value of that option. At odd scores the drop costs a full doubled game and there is
        no free drop.

        Parameters
        ----------
        away_trailer : int
            Points the trailer needs, >= 2.

        Returns
        -------
        float or None
            None at an odd away score (no free drop). At an even one, the margin ``MWC_t(n -
            1) - MWC_t(n)`` of the trailer's post-Crawford MWCs from the table: how much MWC
            the leader may lose in the game before dropping the trailer's double is right.
            At 2-away it is the value of the free drop itself (Kazaross-XG2: 0.5 - 0.48803 =
            0.01197).

        Raises
        ------
        ValueError
            If ``away_trailer < 2`` or beyond the post-Crawford table.
        """
        n = _away(away_trailer, "away_trailer")
        if n < 2:
            raise ValueError(f"a free drop needs the trailer at 2-away or more, got {n}")
        if n % 2:
            self._post_index(n)
            return None
        return self.post_crawford_mwc(n - 1) - self.post_crawford_mwc(n)
