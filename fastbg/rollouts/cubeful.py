"""Cubeful rollouts: games played to the end with the cube in play (money or match).

:func:`cubeful_rollout` plays games from a position in which, before each roll, the
player on roll may double (a centred cube or its own, within the cube limit). Cube
decisions use the shipped neural network's 0-ply probabilities of the position before
the roll and Janowski's money formulas (:mod:`fastbg.cube`) with the cube efficiency of
:func:`fastbg.cube.default_cube_efficiency` (or a fixed ``x``); the opponent takes or
passes by the same numbers. Checker plays use any policy of :func:`fastbg.rollout`.

The game loop is in ``fastbg._core.cubeful`` (compiled, GIL released) and
:mod:`fastbg.reference.cubeful` (pure Python), each engine's own port of
:mod:`fastbg.cube`'s formulas, chosen by :func:`fastbg.engine.get_engine`; both give the same
counts for the same seed.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

from ..cube.metfile import load_met
from ..cube.met import DEFAULT_MET
from ..engine import get_engine
from ..game.matchstate import MatchState
from ..game.parse import position_and_roll
from ..game.position import START_BOARD, Position
from ..spec import luck as _luck
from ..spec.board import MAX_CUBE_LOG2, N_CUBE_VALUES, RESULT_CLASSES
from .blocks import BlockRecipe, block_size_for, check_games, stop_flag, stratified_rolls
from .cubeless import VR_PREFILTER, stop_rule, stored_counts_shape
from .cubesettings import CubefulSettings, with_jacoby
from .firstroll import first_roll_keys as _first_roll_keys
from .runner import PlayedRun, Runner, RunPlan, configure, play_stored
from .settings import rollout_settings

__all__ = ["cubeful_rollout", "CubefulRolloutResult", "RESULT_CLASSES",
           "result_points", "stored_statistics", "convergence_point"]

#: Points of each result class (:data:`RESULT_CLASSES`, the engine spec's
#: :data:`fastbg.spec.board.RESULT_CLASSES`) per unit of the final cube (before the Jacoby
#: rule). The counts' columns are the final cube values 2**0 .. 2**MAX_CUBE_LOG2.
_BASE_POINTS = np.array([1, 2, 3, -1, -2, -3, 1, -1], dtype=np.int64)


def result_points(cube: int = 1, cube_owner: str = "centred", jacoby: bool = False) -> np.ndarray:
    """Points won by the starting player for each cell of the counts.

    Parameters
    ----------
    cube : int
        Starting cube value.
    cube_owner : {"centred", "player", "opponent"}
        Starting owner.
    jacoby : bool
        Jacoby rule: gammons and backgammons count single while the cube is centred. In
        money play a centred cube stays centred exactly until the first double, so these
        are the games ending with the starting (centred) cube value.

    Returns
    -------
    numpy.ndarray of int64, shape (8, 13)
        ``points[c, j]``: points (not per unit of the starting cube) of a game of result
        class ``c`` ending with a cube of ``2**j``.
    """
    pts = _BASE_POINTS[:, None] * (2 ** np.arange(N_CUBE_VALUES, dtype=np.int64))[None, :]
    if jacoby and cube_owner == "centred":
        j0 = int(cube).bit_length() - 1
        pts[[1, 2], j0] = cube
        pts[[4, 5], j0] = -cube
    return pts


@dataclass(frozen=True)
class CubefulRolloutResult:
    """The result of :func:`cubeful_rollout`.

    Attributes
    ----------
    equity : float
        Cubeful money equity of the starting player (row 0 of the position, about to
        decide on the cube and roll): mean points per game, **per unit of the starting
        cube**.
    stderr : float
        Standard error of ``equity``: the sample standard deviation (ddof=1) of the
        per-game points (per unit of the starting cube), divided by sqrt(games). NaN for
        fewer than two games.
    counts : numpy.ndarray of int64, shape (8, 13)
        ``counts[c, j]``: games of result class ``c`` (:data:`RESULT_CLASSES`) that
        ended with a cube of ``2**j`` (for a pass, the cube before the refused double).
    games : int
        Games played.
    seed : int
        Root seed (reported also when drawn fresh).
    seconds : float
        Wall-clock time.
    outcomes : dict
        Fraction of games of each result class (keys :data:`RESULT_CLASSES`): the
        cubeless-style breakdown, with passes as their own classes.
    doubled : float
        Fraction of games in which at least one double was offered.
    passed : float
        Fraction of games ended by a refused double.
    mean_cube : float
        Mean final cube value (the value at stake at the end; for a pass, the value
        won), per unit of the starting cube.
    engine, policy : str
        Engine and checker-play policy.
    x : float or None
        Fixed cube efficiency, or None for the per-position default.
    cube, cube_owner, max_cube, jacoby, opening
        The cube state and options used.
    workers : int
        Threads used (the numbers do not depend on it).
    match_length, score : int, tuple
        Match play: the match length and score ``(starting player, opponent)``; 0 and
        ``(0, 0)`` for money play.
    mwc, mwc_stderr : float
        Match play: the starting player's mean match winning chance after the game and
        its standard error; NaN for money play. ``equity`` and ``stderr`` are then the
        normalised money equity (EMG) of ``mwc``.
    met : str
        Match play: the match equity table's name; "" for money play.
    interrupted : bool
        True if stopped (Ctrl-C) before all games were played; the numbers cover the
        finished blocks.
    vr : bool
        Variance reduction: ``equity``, ``stderr`` (and ``mwc``, ``mwc_stderr``) are the
        mean and standard error of the luck-adjusted results; ``counts``, ``outcomes``
        and the cube statistics are those of the games as played.
    settings : dict
        Everything that determines the numbers (:func:`cubeful_settings`).
    dask : str or None
        The Dask scheduler's address when the blocks ran on a cluster (``workers`` is then
        its threads).
    games_requested : int
        The games asked for: the most a run with a stop rule (``until_se``) may play.
    run_id : int or None
        With a ``store``: the run's id in it (to resume or extend it).
    stored_games : int
        Games of a resumed run read from its store rather than played now (``seconds``
        and ``games_per_second`` are those of the games played now).
    by_first_roll : list of dict, optional
        With ``by_first_roll=True``: per first roll (``roll`` "6-5", from the opening roll
        also ``first``, "player" or "opponent"), its ``games``, ``equity`` and ``stderr``
        (match play also ``mwc`` and ``mwc_stderr``), ``outcomes``, ``doubled``, ``passed``
        and ``mean_cube``, as for the whole run (the rows' games and counts add up to the
        totals). With ``vr`` each row's estimate has its first roll's luck put back, so it is
        the cubeful equity given that first roll.
    """

    equity: float
    stderr: float
    counts: np.ndarray = field(repr=False)
    games: int
    seed: int
    seconds: float
    outcomes: dict = field(repr=False)
    doubled: float
    passed: float
    mean_cube: float
    engine: str = "cython"
    policy: str = "nn"
    x: float | None = None
    cube: int = 1
    cube_owner: str = "centred"
    max_cube: int = 1024
    jacoby: bool = False
    opening: bool = False
    workers: int = 1
    match_length: int = 0
    score: tuple = (0, 0)
    mwc: float = float("nan")
    mwc_stderr: float = float("nan")
    met: str = ""
    interrupted: bool = False
    vr: bool = False
    settings: dict = field(default_factory=dict)
    dask: str | None = None
    games_requested: int = 0
    by_first_roll: list | None = None
    run_id: int | None = None
    stored_games: int = 0

    @property
    def games_per_second(self) -> float:
        """Games played now (not read from a store) per second of wall-clock time."""
        n = self.games - self.stored_games
        return n / self.seconds if self.seconds > 0 else float("inf")

    def to_dict(self) -> dict:
        """JSON-ready dict: the attributes (``counts`` as nested lists; ``dask`` only for a
        run on a cluster; ``by_first_roll`` only when asked for; ``run_id`` and
        ``stored_games`` only for a stored run) and ``games_per_second``; with a stop rule,
        ``stop_rule_met`` (as :meth:`fastbg.RolloutResult.to_dict`)."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        del d["games_requested"]        # as a cubeless result's: settings["games"] has it
        for k in ("dask", "run_id"):
            if d[k] is None:
                del d[k]
        if self.run_id is None:
            del d["stored_games"]
        if self.by_first_roll is None:
            del d["by_first_roll"]
        else:
            d["by_first_roll"] = [dict(r, outcomes=dict(r["outcomes"])) for r in self.by_first_roll]
        rule = self.settings.get("stop_rule")
        if rule:
            d["stop_rule_met"] = bool(self.stderr <= rule["until_se"])
        d["counts"] = self.counts.tolist()
        d["outcomes"] = dict(self.outcomes)
        d["score"] = list(self.score)
        d["games_per_second"] = self.games_per_second
        return d


def cubeful_statistics(counts, cube: int = 1, cube_owner: str = "centred",
                       jacoby: bool = False) -> dict:
    """Equity, standard error and cube statistics from merged counts.

    Parameters
    ----------
    counts : array_like of int, shape (8, 13)
    cube, cube_owner, jacoby
        The starting cube and the Jacoby option (see :func:`result_points`).

    Returns
    -------
    dict
        ``equity``, ``stderr`` (per unit of the starting cube), ``outcomes``, ``doubled``,
        ``passed``, ``mean_cube``, ``games``.

    Notes
    -----
    The sums of points and squared points are exact Python integers; only the final
    divisions are floating, so the statistics depend only on the counts.
    """
    c = np.asarray(counts, dtype=np.int64)
    pts = result_points(cube, cube_owner, jacoby)
    n = int(c.sum())
    s1 = sum(int(k) * int(p) for k, p in zip(c.ravel(), pts.ravel()))
    s2 = sum(int(k) * int(p) * int(p) for k, p in zip(c.ravel(), pts.ravel()))
    j0 = int(cube).bit_length() - 1
    if n == 0:
        nan = float("nan")
        return dict(equity=nan, stderr=nan, outcomes={k: nan for k in RESULT_CLASSES},
                    doubled=nan, passed=nan, mean_cube=nan, games=0)
    equity = s1 / n / cube
    if n >= 2:
        # sum (p - mean)^2 = s2 - s1^2 / n, exactly in rationals: (n s2 - s1^2) / n
        var = (n * s2 - s1 * s1) / (n * (n - 1)) / (cube * cube)
        stderr = math.sqrt(max(var, 0.0) / n)
    else:
        stderr = float("nan")
    per_class = c.sum(axis=1)
    doubled_games = int(c[:, j0 + 1:].sum()) + int(c[6:, j0].sum())
    cube_sum = sum(int(c[:, j].sum()) << j for j in range(N_CUBE_VALUES))
    return dict(
        equity=equity,
        stderr=stderr,
        outcomes={k: int(v) / n for k, v in zip(RESULT_CLASSES, per_class)},
        doubled=doubled_games / n,
        passed=int(per_class[6:].sum()) / n,
        mean_cube=cube_sum / n / cube,
        games=n,
    )


def match_cells(tables0) -> np.ndarray:
    """The starting side's MWC after a game of each cell of the counts, shape (8, 13):
    ``tables0[j]`` (``MatchEquityTable.result_mwc`` at a cube of ``2**j``) for the six
    results, a pass won as a single win and a pass lost as a single loss."""
    R = np.asarray(tables0, dtype=np.float64)[:N_CUBE_VALUES]
    return np.concatenate([R.T, R[:, [0]].T, R[:, [3]].T], axis=0)


def match_statistics(counts, tables0, cube: int = 1) -> dict:
    """Match winning chance and normalised equity from merged counts (match play).

    Parameters
    ----------
    counts : array_like of int, shape (8, 13)
    tables0 : array_like of float, shape (>= 13, 6)
        The starting side's ``MatchEquityTable.result_mwc`` at cubes ``2**j``.
    cube : int
        Starting cube.

    Returns
    -------
    dict
        ``mwc`` (mean match winning chance after the game, in [0, 1]), ``mwc_stderr``,
        ``equity`` and ``stderr``: the same as normalised money equity (EMG, GNU
        Backgammon's "normalized equity": +1 a single game won at the starting cube, -1
        one lost; :meth:`fastbg.cube.met.MatchEquityTable.emg`).
    """
    c = np.asarray(counts, dtype=np.int64)
    R = np.asarray(tables0, dtype=np.float64)[:N_CUBE_VALUES]
    cell = match_cells(tables0)
    n = int(c.sum())
    nan = float("nan")
    if n == 0:
        return dict(mwc=nan, mwc_stderr=nan, equity=nan, stderr=nan)
    flat_c, flat_v = c.ravel(), cell.ravel()
    mean = math.fsum(int(k) * float(v) for k, v in zip(flat_c, flat_v)) / n
    if n >= 2:
        ss = math.fsum(int(k) * (float(v) - mean) ** 2 for k, v in zip(flat_c, flat_v))
        se = math.sqrt(ss / (n - 1) / n)
    else:
        se = nan
    return _mwc_and_emg(mean, se, R, cube)


def _mwc_and_emg(mwc: float, se: float, tables0, cube: int) -> dict:
    """A mean MWC and its standard error, with the same as normalised money equity (EMG):
    +1 a single game won at the starting cube ``cube``, -1 one lost."""
    j0 = int(cube).bit_length() - 1
    r0, r3 = float(tables0[j0][0]), float(tables0[j0][3])
    return dict(mwc=mwc, mwc_stderr=se, equity=2.0 * (mwc - r3) / (r0 - r3) - 1.0,
                stderr=2.0 * se / (r0 - r3))


def qrolls(su: _Setup, k: int, n: int):
    """The quasi-random first rolls of block ``k``'s ``n`` games (trials), or None."""
    return stratified_rolls(su.entropy, k * su.block_size, n, su.opening) \
        if su.quasi_random else None


def vr_options(su: _Setup) -> dict:
    """The keyword arguments of the engines' ``cubeful_block`` that turn variance reduction
    on (empty without it)."""
    return dict(yardstick=su.evaluator, prefilter=VR_PREFILTER) if su.vr else {}


def block_parts(su: _Setup, engine: str) -> dict:
    """The plain parts of a cubeful run's setup that its blocks need (the keyword arguments
    of :func:`block_setup`: a :class:`~fastbg.rollouts.blocks.BlockRecipe` sends them to
    a cluster's workers)."""
    return dict(engine=engine, board=su.board, opts=su.opts, vr=su.vr,
                quasi_random=su.quasi_random, entropy=su.entropy, block_size=su.block_size,
                opening=su.opening)


def block_setup(*, engine: str, **parts) -> SimpleNamespace:
    """What the blocks of a cubeful run use, built where they are played: ``parts``
    (:func:`block_parts`) with the engine's game loop ``cub``, ``make_policy`` and the
    cube decisions' ``evaluator``; :func:`qrolls` and :func:`vr_options` take it as a setup."""
    eng = get_engine(engine)
    # the shipped evaluator, read-only: shared by all blocks and threads
    return SimpleNamespace(cub=eng.cubeful, make_policy=eng.make_policy,
                           evaluator=eng.evaluator.EvalPolicy(), **parts)


def _cubeful_block(*, policy: str, cell_values: np.ndarray, by_first_roll: bool = False,
                   **parts):
    """The block function of :func:`cubeful_rollout` (a recipe's factory). With
    ``by_first_roll`` a block returns counts of shape (1 + rows, 8, 13), the block's counts
    then each first roll's (and with ``vr`` sums of shape (1 + rows, 2))."""
    su = block_setup(**parts)
    keys, labels = _first_roll_keys(su.opening)
    nkeys = len(labels)

    def block(k, n, bitgen):
        # One checker policy per block: nn-1ply keeps a workspace per instance.
        q = qrolls(su, k, n)
        stop = stop_flag()    # the run abandons the block: a second Ctrl-C
        if by_first_roll:
            # the per-game cells (and luck) the core hands back, sorted by the quasi-random
            # first roll of each game (known before the game is played)
            cells = np.empty(n, dtype=np.int64)
            luck = np.empty(n, dtype=np.float64) if su.vr else None
            c = su.cub.cubeful_block(su.board, n, bitgen, su.make_policy(policy), su.evaluator,
                                     cells=cells, luck=luck, qrolls=q, stop=stop, **su.opts,
                                     **vr_options(su))
            key = keys[q[:, 0]]
            counts = np.zeros((1 + nkeys, *c.shape), dtype=np.int64)
            counts[0] = c
            for j in range(nkeys):
                counts[1 + j] = np.bincount(cells[key == j], minlength=c.size).reshape(c.shape)
            if not su.vr:
                return counts
            adj = cell_values[cells] - luck
            sums = np.zeros((1 + nkeys, 2))
            sums[0] = math.fsum(adj), math.fsum(adj * adj)
            for j in range(nkeys):
                a = adj[key == j]
                sums[1 + j] = math.fsum(a), math.fsum(a * a)
            return counts, sums
        if not su.vr:
            return su.cub.cubeful_block(su.board, n, bitgen, su.make_policy(policy),
                                        su.evaluator, qrolls=q, stop=stop, **su.opts)
        cells = np.empty(n, dtype=np.int64)
        luck = np.empty(n, dtype=np.float64)
        counts = su.cub.cubeful_block(su.board, n, bitgen, su.make_policy(policy), su.evaluator,
                                      cells=cells, luck=luck, qrolls=q, stop=stop, **su.opts,
                                      **vr_options(su))
        adj = cell_values[cells] - luck
        return counts, np.array([math.fsum(adj), math.fsum(adj * adj)])
    return block


#: A spread (standard deviation) of values below this fraction of their size (root mean
#: square) is round-off, not variance: :func:`mean_and_se` takes it as none. Equal values
#: leave at most a few ``sqrt(2**-52)``, about 5e-8 (measured on 3,000 random values summed
#: as the blocks do); a real spread of the evaluator's float32 values is 3e-7 and more.
ROUND_OFF_SPREAD = 1e-7


def mean_and_se(s: float, ss: float, n: int, scale: float | None = None) -> tuple[float, float]:
    """Mean and standard error (ddof=1) from a sum and a sum of squares of ``n`` values.

    Parameters
    ----------
    s, ss : float
        The values' sum and sum of squares.
    n : int
        How many values.
    scale : float, optional
        The size of the values the sums were computed from (default: the root mean square
        ``sqrt(ss / n)``); a difference of two lines' values passes the lines' size, since
        its own sum of squares is a difference of theirs.

    Returns
    -------
    mean, se : float
        NaN for ``n == 0``; ``se`` NaN for ``n == 1``. ``se`` is exactly 0 when the values'
        standard deviation is below :data:`ROUND_OFF_SPREAD` times ``scale``: ``ss - n
        mean**2`` subtracts two nearly equal sums, and of values that are all the same
        (luck-adjusted values of a race the bear-off databases value exactly) it keeps their
        rounding only, a standard deviation of a few ``sqrt(2**-52)`` of ``scale`` (an SE
        of about 6.5e-11 from 5,184 equal values of 0.56), which is no sampling error.
    """
    nan = float("nan")
    if n == 0:
        return nan, nan
    m = s / n
    if n < 2:
        return m, nan
    var = max((ss - n * m * m) / (n - 1), 0.0)
    size = math.sqrt(max(ss, 0.0) / n) if scale is None else scale
    if math.sqrt(var) <= ROUND_OFF_SPREAD * size:
        return m, 0.0
    return m, math.sqrt(var / n)


def holland_wait(state, opening: bool, board=None) -> int:
    """Rolls of the game still to come before the Holland rule lets the trailer double
    (:attr:`fastbg.game.matchstate.MatchState.holland_wait`), with an unknown
    ``rolls_played`` taken as 0 from the start of a game (with the opening roll, or from
    the starting position ``board``)."""
    return state.for_position(board, opening).holland_wait


@dataclass
class _Setup:
    """What a cubeful run derives from its position and resolved settings (:func:`run_setup`)."""
    pos: Position
    games: int
    state: MatchState
    entropy: int
    block_size: int
    board: np.ndarray
    opts: dict
    jac: bool
    max_cube: int
    x: float | None
    opening: bool
    table: object = None
    tables: np.ndarray | None = None
    vr: bool = False
    quasi_random: bool = True


def cube_position(position) -> Position:
    """The position of a run with the cube in play, checked: no dice rolled (the cube is
    turned before the roll) and a game that can be played (:meth:`Position.check_playable`)."""
    pos, rolled = position_and_roll(position)
    if rolled is not None:
        raise ValueError(f"the position has the dice rolled ({rolled[0]}-{rolled[1]}): the "
                         "cube is turned before the roll; give the position before it")
    pos.check_playable()   # before any game: over, or nobody can ever move
    return pos


def run_setup(pos: Position, games: int, st, opening: bool) -> _Setup:
    """What the games of :func:`cubeful_rollout` and
    :func:`fastbg.rollouts.cuberollout.cube_rollout` need, from the position, the games and
    the resolved settings ``st`` (:class:`~fastbg.rollouts.cubesettings.CubefulSettings` or
    :class:`~fastbg.rollouts.cubesettings.CubeRolloutSettings`; their docs list the errors)."""
    state = st.state
    if state.cube > 2 ** MAX_CUBE_LOG2:
        raise ValueError(f"cube {state.cube} is above the loop's limit {2 ** MAX_CUBE_LOG2}")
    max_cube = min(int(state.max_cube), 2 ** MAX_CUBE_LOG2)
    table = tables = None
    if not state.is_money:
        table = load_met(DEFAULT_MET if st.met is None else st.met)
        a = state.match_length - state.score[0]
        b = state.match_length - state.score[1]
        tables = np.array([[table.result_mwc(u, v, 2 ** j) for j in range(16)]
                           for u, v in ((a, b), (b, a))])
        if state.crawford:
            max_cube = int(state.cube)  # no doubling in the Crawford game
    opts = dict(cube=int(state.cube), cube_owner=state.cube_owner, max_cube=max_cube, x=st.x,
                jacoby=state.jacoby, opening=bool(opening),
                holland_wait=holland_wait(state, opening, pos.board))
    if not state.is_money:
        opts["match"] = (tables, a, b)
    return _Setup(pos=pos, games=int(games), state=state, entropy=st.seed,
                  block_size=block_size_for(st.policy),
                  board=np.ascontiguousarray(pos.board, dtype=np.int8), opts=opts,
                  jac=state.jacoby, max_cube=max_cube, x=st.x, opening=bool(opening),
                  table=table, tables=tables, vr=st.vr, quasi_random=st.quasi_random)


def cubeful_settings(su: _Setup, policy: str, engine: str, **extra) -> dict:
    """The settings of a cubeful run (:func:`cubeful_rollout`, cube rollouts):
    :func:`fastbg.rollouts.settings.rollout_settings` with the cube, match and rules of
    ``su``; ``extra`` (more settings of the kind of run) comes first."""
    st = su.state
    extra.setdefault("dice_method", "quasi-random (first two rolls stratified)"
                     if su.quasi_random else "pseudo-random")
    return rollout_settings(
        policy=policy, seed=su.entropy, games=int(su.games), block_size=su.block_size,
        vr=su.vr, vr_prefilter=VR_PREFILTER if su.vr else None,
        first_roll="opening" if su.opening else "rolled", engine=engine, **extra,
        cube_decisions="Janowski's model on the nn's 0-ply probabilities", x=su.x,
        cube=int(st.cube), cube_owner=st.cube_owner, jacoby=su.jac,
        match_length=st.match_length, score=list(st.score) if st.score else None,
        holland=bool(st.holland), holland_wait=su.opts["holland_wait"],
        met=None if su.table is None else (su.table.name or str(su.table.source)))


def _cell_values(su: _Setup) -> np.ndarray:
    """The value of a game in each cell of the counts (flat): money, points per unit of
    the starting cube; match, the starting side's MWC after it."""
    state = su.state
    return (result_points(state.cube, state.cube_owner, su.jac) / state.cube
            if state.is_money else match_cells(su.tables[0])).ravel()


def cubeful_rollout(position, games: int, *, settings: CubefulSettings | None = None,
                    runner: Runner | None = None, **overrides) -> CubefulRolloutResult:
    """Roll a position out with the cube in play, for its cubeful equity (money or match).

    Parameters
    ----------
    position : Position, str or array_like
        The position, with the player on roll about to decide on the cube and roll:
        anything :meth:`fastbg.game.position.Position.parse` accepts.
    games : int
        Number of games, at least 1.
    settings : CubefulSettings, optional
        Everything the numbers depend on besides the position and ``games``
        (:class:`fastbg.rollouts.cubesettings.CubefulSettings`; default: its defaults).
    runner : Runner, optional
        Where and how the games are played (:class:`fastbg.rollouts.runner.Runner`:
        engine, threads, Dask, store, callbacks; default: its defaults).
    **overrides
        Any field of the settings or of the runner, by name (below), replacing the one of
        ``settings`` or ``runner``: ``cubeful_rollout(pos, 1000, seed=7, workers=2)``. An
        unknown name is a TypeError.

    Other Parameters
    ----------------
    seed : int, optional
        Root seed; ``None`` draws fresh entropy, reported in the result.
    policy : {"nn", "pubeval", "random", "nn-1ply", "nn1"}
        Checker play of both sides. Cube decisions always use the shipped evaluator at
        0 ply.
    state : MatchState, optional
        Starting cube (value, owner from the view of the player on roll, cube limit
        ``max_cube``), the Jacoby rule (``state.jacoby``), and for match play the match
        length, score and Crawford flag; default a centred 1-cube in a money game,
        ``MatchState.money()`` (cube limit 1024). The limit used is
        ``min(state.max_cube, 4096)``. With ``state.holland`` in a post-Crawford game the
        Holland rule applies: no double before both sides have played two rolls, counted
        from ``state.rolls_played`` (default: 0 from the start of a game with the opening
        roll, else "both have played two", so the rule no longer restricts the cube).
    jacoby : bool, optional
        Deprecated spelling of ``state=MatchState.money(jacoby=True)``: True turns the
        Jacoby rule on in ``state`` (an error in match play).
    x : float, optional
        Fixed cube efficiency in [0, 1] for every decision. Default: per position,
        :func:`fastbg.cube.default_cube_efficiency` (0.68 with contact, 0 on the last
        roll, 0.6 in bear-offs, 0.6 to 0.7 in races by the pip count of the player on
        roll); the loop applies the same rules exactly (the last-roll test by an exact
        closed-form rule, checked against :func:`fastbg.cube.is_last_roll` in the tests).
    opening : bool, optional
        Start each game with the opening roll (no cube decision before it; the opponent
        moves first when its die is higher). ``None``: yes for the starting position
        with the cube centred (an owned cube means the game is under way), no otherwise.
    met : str or MatchEquityTable, optional
        Match play: the match equity table (default :data:`fastbg.cube.met.DEFAULT_MET`,
        Kazaross-XG2).
    vr : bool, optional
        Variance reduction (default as :func:`fastbg.rollout`: on for the nn policies).
        Each random roll's luck, by the nn at 0 ply (:data:`fastbg.rollouts.cubeless.
        VR_PREFILTER`), is valued as the starting player's dead-cube value at the cube of
        that roll (money: points per unit of the starting cube, gammons as the Jacoby rule
        counts them; match: MWC from the table) and subtracted from the game's result.
        Unbiased for any yardstick (each luck has mean zero given the game so far).
    quasi_random : bool, default True
        Quasi-random dice, as :func:`fastbg.rollout`: the first two random rolls of the
        games (the opening roll's 30 outcomes first, from the start) stratified by game
        index.
    until_se : float, optional
        Stop rule, as :func:`fastbg.rollout`'s: stop at the first block boundary where the
        standard error of ``equity`` (the cubeful equity; the EMG in match play) is at most
        ``until_se`` (and at least ``min_games`` games are in); ``games`` is then the most to
        play. Blocks are merged in block order, so where the run stops depends only on the
        seed and the settings.
    min_games : int, optional
        With ``until_se``: never stop before this many games (default: one block).
    by_first_roll : bool, default False
        Also break the results down by the first roll (the 21 rolls; from the opening roll,
        its 15 rolls for each side): ``CubefulRolloutResult.by_first_roll``. Needs
        quasi-random dice.
    engine, workers, dask, progress, on_interrupt, on_block
        The runner's, as :func:`fastbg.rollout` (the numbers do not depend on them).
    store, run_id, table_run
        Keep the run in a results store, as :func:`fastbg.rollout` (kind ``"cubeful"``):
        resumed or extended (``run_id``, or :func:`fastbg.resume` with the store and the
        id alone) it ends with the numbers of one uninterrupted run.

    Returns
    -------
    CubefulRolloutResult
        Cubeful equity in points per game per unit of the starting cube, its standard
        error, the integer counts and cube statistics. A stored run records ``position``,
        ``games`` and the resolved settings' ``as_dict()`` as its request.

    Raises
    ------
    ValueError
        For a bad position, a finished game or one where neither side can ever move
        (:meth:`fastbg.Position.check_playable`, before any game), ``games < 1``, an unknown policy or
        engine, a bad seed, worker count or ``x``, Jacoby in match play, a score
        beyond the table, a bad stop rule, or ``by_first_roll`` with pseudo-random dice.
    TypeError
        For a keyword that is no setting and no field of the runner.
    ImportError
        For ``engine="cython"`` when the core is not built; with ``dask`` when
        dask.distributed is not installed.

    Notes
    -----
    **The game loop.** Before each roll, if the player on roll may double (cube centred
    or its own, and doubling keeps it within the limit), the network's five
    probabilities of the position give Janowski's No double, Double/take and
    Double/pass values (:func:`fastbg.cube.money_cube_decision`); the player doubles
    when :func:`fastbg.cube.cube_action` says (re)double; the opponent takes iff
    Double/take < Double/pass, the same numbers from the other side. A pass ends the
    game: the doubler wins the cube value before the double. Otherwise the game ends
    when a side bears off its last checker: 1, 2 or 3 points times the cube (1 for a
    gammon or backgammon under the Jacoby rule while the cube is centred).

    **Match play.** The decisions are :mod:`fastbg.cube.match`'s (Janowski's model in
    match winning chances with the table's MWCs; the same No double, Double/take and
    Double/pass values as :func:`fastbg.cube.match.match_cube_decision`): a side doubles
    only while it needs more points than the cube (so the 1-away leader never doubles
    after the Crawford game), and nobody doubles in the Crawford game. Each game is
    scored by the starting player's MWC after it (:meth:`~fastbg.cube.met.MatchEquityTable.
    result_mwc` at the final cube; a pass as a single game at the cube before the
    double).

    **Reproducibility.** Games run in blocks of ``fastbg.rollouts.blocks.BLOCK_SIZE``
    (1,000; 100 for ``nn-1ply``, :func:`fastbg.rollouts.blocks.block_size_for`); block
    ``k`` draws its dice from ``PCG64DXSM(SeedSequence(seed, spawn_key=(k,)))``. Blocks
    return integer counts of (result class, final cube) and the merge is integer
    addition, so the same fastbg version, seed and options give the same numbers for
    any ``workers``, either engine, and on a Dask cluster.
    """
    jacoby = overrides.pop("jacoby", None)
    settings, runner = configure(CubefulSettings, settings, runner, overrides, "cubeful_rollout")
    settings = with_jacoby(settings, jacoby)
    pos = cube_position(position)
    games = check_games(games)
    st = settings.resolve(at_start=bool(np.array_equal(pos.board, START_BOARD)))
    st.check_games(games)
    su = run_setup(pos, games, st, st.opening)
    until = stop_rule(st.until_se, st.min_games, st.by_first_roll,
                      lambda counts, sums, n: _statistics(su, counts, sums, n)[0]["stderr"])
    block = BlockRecipe(_cubeful_block, dict(block_parts(su, runner.engine), policy=st.policy,
                                             cell_values=_cell_values(su),
                                             by_first_roll=st.by_first_roll))
    plan = RunPlan(
        kind="cubeful", request=dict(position=pos.to_position_id(), games=games, **st.as_dict()),
        settings=cubeful_settings(su, st.policy, runner.engine, stop_rule=None
                                  if st.until_se is None else {"until_se": st.until_se,
                                                               "min_games": st.min_games}),
        block_size=su.block_size, counts_shape=stored_counts_shape("cubeful", st.as_dict(), {}))
    played = play_stored(plan, runner, pos.board, games, su.entropy, block, until)
    result = _result(su, st, runner.engine, played, plan)
    if played.stored is not None and not played.stored.finish(played.run.interrupted,
                                                              _summary(result)):
        result = dataclasses.replace(result, run_id=None)   # stopped before its first block
    return result


def _result(su: _Setup, st: CubefulSettings, engine: str, played: PlayedRun,
            plan: RunPlan) -> CubefulRolloutResult:
    """The :class:`CubefulRolloutResult` of a played run."""
    run = played.run
    counts, sums, breakdown = run.counts, run.sums, None
    if st.by_first_roll:
        breakdown = _breakdown(su, counts, sums)
        counts, sums = counts[0], None if sums is None else sums[0]
    s, extra = _statistics(su, counts, sums, run.games)
    state = su.state
    return CubefulRolloutResult(
        equity=s["equity"], stderr=s["stderr"], counts=counts, games=run.games,
        seed=su.entropy, seconds=played.seconds, outcomes=s["outcomes"], doubled=s["doubled"],
        passed=s["passed"], mean_cube=s["mean_cube"], engine=engine, policy=st.policy, x=su.x,
        cube=int(state.cube), cube_owner=state.cube_owner, max_cube=su.max_cube, jacoby=su.jac,
        opening=su.opening, workers=played.workers, interrupted=run.interrupted, vr=su.vr,
        settings=plan.settings, dask=played.address, games_requested=int(su.games),
        by_first_roll=breakdown, run_id=None if played.stored is None else played.stored.run_id,
        stored_games=played.stored_games, **extra)


def _breakdown(su: _Setup, counts, sums) -> list[dict]:
    """The rows of a breakdown by first roll (``CubefulRolloutResult.by_first_roll``) from
    the run's counts and sums (their rows ``1 + j``; row 0 holds the totals)."""
    _, labels = _first_roll_keys(su.opening)
    rows = []
    back = _first_roll_luck(su, labels) if su.vr else None
    for j, (roll, who) in enumerate(labels):
        cj = counts[1 + j]
        rs, mx = _statistics(su, cj, None if sums is None else sums[1 + j], int(cj.sum()),
                             None if back is None else back[j])
        row = {"roll": roll}
        if who is not None:
            row["first"] = who
        row.update(games=int(cj.sum()), equity=rs.pop("equity"), stderr=rs.pop("stderr"))
        if mx:
            row.update(mwc=mx["mwc"], mwc_stderr=mx["mwc_stderr"])
        row.update(rs)
        rows.append(row)
    return rows


def _summary(res: CubefulRolloutResult) -> dict:
    """What a store keeps of a finished cubeful run's result (``fastbg runs`` lists it)."""
    d = {k: getattr(res, k) for k in ("games", "equity", "stderr", "doubled", "passed",
                                      "mean_cube", "interrupted")}
    if res.match_length:
        d.update(mwc=res.mwc, mwc_stderr=res.mwc_stderr)
    return d


def _setup_of(request: dict) -> _Setup:
    """The :func:`run_setup` of a stored cubeful run, from its request."""
    st = CubefulSettings.from_request(request)
    return run_setup(Position.parse(request["position"]), request["games"], st, bool(st.opening))


def _totals(counts, sums):
    """A run's counts and sums without a breakdown by first roll (its row 0, if it has
    one)."""
    c = np.asarray(counts)
    if c.ndim == 3:
        return c[0], None if sums is None else np.asarray(sums)[0]
    return c, sums


def stored_statistics(request: dict, counts, sums, n: int) -> dict:
    """The estimate of a stored cubeful run from its request and its blocks' merged
    ``counts`` and ``sums`` (``fastbg runs``): ``games``, ``equity`` and ``stderr`` (per
    unit of the starting cube; EMG in match play), and in match play ``mwc`` and
    ``mwc_stderr``."""
    s, extra = _statistics(_setup_of(request), *_totals(counts, sums), n)
    out = {"games": n, "equity": s["equity"], "stderr": s["stderr"]}
    out.update({k: extra[k] for k in ("mwc", "mwc_stderr") if k in extra})
    return out


def convergence_point(request: dict):
    """The ``point`` of :func:`fastbg.research.convergence` for a cubeful run of
    ``request`` (its store's request, position and games with the resolved settings'
    ``as_dict()``): ``point(counts, sums, n)`` is ``[(equity, stderr)]`` of the merged
    blocks, the cubeful equity (EMG in match play) as the run reports it."""
    su = _setup_of(request)

    def point(counts, sums, n):
        s, _ = _statistics(su, *_totals(counts, sums), n)
        return [(s["equity"], s["stderr"])]
    return point


def _statistics(su: _Setup, counts, sums, n: int, back: float | None = None):
    """The statistics of a cubeful run's games (or of one first roll's): ``counts`` shape
    (8, 13), ``sums`` (with ``vr``) the luck-adjusted results' sum and sum of squares.
    ``back``: a first roll's luck, put back on the luck-adjusted mean (points per unit of
    the starting cube, or MWC). Returns the dict of :func:`cubeful_statistics` (``equity``
    and ``stderr`` those of the run: luck-adjusted, EMG in match play) and the match
    fields (``mwc``...; empty for money play)."""
    state = su.state
    st = cubeful_statistics(counts, state.cube, state.cube_owner, su.jac)
    del st["games"]
    if su.vr:
        s1, s2 = (0.0, 0.0) if sums is None else (float(v) for v in sums)
        mean, se = mean_and_se(s1, s2, n)
        if back is not None and n:
            mean += back
        if state.is_money:
            st["equity"], st["stderr"] = mean, se
    if state.is_money:
        return st, {}
    ms = (_mwc_and_emg(mean, se, su.tables[0], state.cube) if su.vr
          else match_statistics(counts, su.tables[0], state.cube))
    st["equity"], st["stderr"] = ms["equity"], ms["stderr"]
    return st, dict(match_length=state.match_length, score=tuple(state.score),
                    mwc=ms["mwc"], mwc_stderr=ms["mwc_stderr"],
                    met=su.table.name or str(su.table.source))


def _first_roll_luck(su: _Setup, labels) -> list:
    """The luck of each first roll of the breakdown as the engines subtract it (the
    yardstick's five probabilities weighted by :func:`fastbg.reference.cubeful.luck_weights`
    at the cube of the first roll), from the pure-Python engine's numbers (the core's bit for
    bit). The cube decision before the first roll is the same in every game (the same
    position and evaluator), so so is the cube at that roll; after a double/pass no roll is
    played and the luck is 0."""
    eng = get_engine("python")
    rc = eng.cubeful
    st = su.state
    lc0 = lc = int(st.cube).bit_length() - 1
    owner = {"centred": -1, "player": 0, "opponent": 1}[st.cube_owner]
    match = None if st.is_money else (su.tables.tolist(), st.match_length - st.score[0],
                                      st.match_length - st.score[1])
    ys = eng.evaluator.EvalPolicy()
    b = np.ascontiguousarray(su.board, dtype=np.int8)
    max_log2 = int(su.max_cube).bit_length() - 1
    if not su.opening and lc < max_log2 and owner in (-1, 0) and su.opts["holland_wait"] == 0 \
            and (match is None or match[1] > 2 ** lc):
        p = rc.probabilities(ys, b)
        x = rc.default_x(b) if su.x is None else su.x
        if match is None:
            act = rc.cube_decision(p, x, owner == 0, su.jac)[0]
        else:
            act = rc.match_decision(su.tables[0], p, match[1], match[2], 2 ** lc, owner == 0, x)[0]
        if act == 2:
            return [0.0] * len(labels)
        if act == 1:
            lc, owner = lc + 1, 1
    w = rc.luck_weights(lc, lc0, owner, su.jac, match)
    v0 = ys.roll_values(b, VR_PREFILTER)
    if su.opening:
        v1 = ys.roll_values(np.ascontiguousarray(b[::-1]), VR_PREFILTER)
        mean = _luck.opening_mean(v0, v1)
    else:
        mean = _luck.roll_mean(v0)
    out = []
    for roll, who in labels:
        slot = _luck.roll_slot(int(roll[0]), int(roll[2]))
        came = _luck.flip(v1[slot]) if who == "opponent" else v0[slot]
        out.append(rc.luck_dot(w, came, mean, True))
    return out
