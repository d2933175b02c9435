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

import math
import time
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Callable

import numpy as np

from ..cube.metfile import load_met
from ..cube.met import DEFAULT_MET
from ..engine import get_engine
from ..game.matchstate import MatchState
from ..game.parse import position_and_roll
from ..game.position import START_BOARD, Position
from ..spec import luck as _luck
from ..spec.board import MAX_CUBE_LOG2, N_CUBE_VALUES, RESULT_CLASSES
from .blocks import (BlockRecipe, block_size_for, check_games, check_policy_engine, n_blocks,
                     resolve_workers, run_blocks, stop_flag, stratified_rolls)
from .cluster import connect
from .cubeless import VR_PREFILTER, check_flag, check_stop_rule, resolve_vr, stop_rule
from .firstroll import first_roll_keys as _first_roll_keys
from .settings import rollout_settings

__all__ = ["cubeful_rollout", "CubefulRolloutResult", "RESULT_CLASSES", "result_points"]

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

    @property
    def games_per_second(self) -> float:
        """Games per second of wall-clock time."""
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    def to_dict(self) -> dict:
        """JSON-ready dict: the attributes (``counts`` as nested lists; ``dask`` only for a
        run on a cluster; ``by_first_roll`` only when asked for) and ``games_per_second``;
        with a stop rule, ``stop_rule_met`` (as :meth:`fastbg.RolloutResult.to_dict`)."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        del d["games_requested"]        # as a cubeless result's: settings["games"] has it
        if self.dask is None:
            del d["dask"]
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
    """The checked arguments of a cubeful run (:func:`_setup`)."""
    pos: Position
    games: int
    state: MatchState
    entropy: int
    nworkers: int
    block_size: int
    cub: object
    make_policy: Callable
    evaluator: object
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


def _setup(position, games, seed, workers, policy, engine, state, x, jacoby, opening,
           progress, met, vr=None, quasi_random=True) -> _Setup:
    """Check the arguments shared by :func:`cubeful_rollout` and
    :func:`fastbg.rollouts.cuberollout.cube_rollout` (their docs list the errors)."""
    table = tables = None
    pos, rolled = position_and_roll(position)
    if rolled is not None:
        raise ValueError(f"the position has the dice rolled ({rolled[0]}-{rolled[1]}): the "
                         "cube is turned before the roll; give the position before it")
    pos.check_playable()   # before any game: over, or nobody can ever move
    games = check_games(games)
    check_policy_engine(policy, engine)
    if state is None:
        state = MatchState.money()
    if not isinstance(state, MatchState):
        raise ValueError(f"state must be a fastbg.MatchState, got {type(state).__name__}")
    if state.cube > 2 ** MAX_CUBE_LOG2:
        raise ValueError(f"cube {state.cube} is above the loop's limit {2 ** MAX_CUBE_LOG2}")
    max_cube = min(int(state.max_cube), 2 ** MAX_CUBE_LOG2)
    if not isinstance(jacoby, (bool, np.bool_)):
        raise ValueError(f"jacoby must be True or False, got {jacoby!r}")
    jac = bool(jacoby) or bool(state.jacoby)
    if not state.is_money:
        if jac:
            raise ValueError("the Jacoby rule is for money play only")
        table = load_met(DEFAULT_MET if met is None else met)
        a = state.match_length - state.score[0]
        b = state.match_length - state.score[1]
        tables = np.array([[table.result_mwc(u, v, 2 ** j) for j in range(16)]
                           for u, v in ((a, b), (b, a))])
        if state.crawford:
            max_cube = int(state.cube)  # no doubling in the Crawford game
    if x is not None:
        if isinstance(x, (bool, np.bool_)) or \
                not isinstance(x, (int, float, np.integer, np.floating)) \
                or not 0.0 <= float(x) <= 1.0:
            raise ValueError(f"cube efficiency x must be a number in [0, 1] or None, got {x!r}")
        x = float(x)
    if opening is None:   # an owned cube says the game is under way, whatever the board
        opening = bool(np.array_equal(pos.board, START_BOARD)) and state.cube_owner == "centred"
    elif not isinstance(opening, (bool, np.bool_)):
        raise ValueError(f"opening must be True, False or None, got {opening!r}")
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a callable taking a number of games, got {progress!r}")
    if seed is None:
        entropy = int(np.random.SeedSequence().entropy)
    elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    else:
        entropy = int(seed)
    vr = resolve_vr(vr, policy)
    quasi_random = check_flag("quasi_random", quasi_random)
    nworkers = resolve_workers(workers)
    block_size = block_size_for(policy)
    nworkers = 1 if engine == "python" else min(nworkers, n_blocks(int(games), block_size))

    eng = get_engine(engine)
    cub, make_policy = eng.cubeful, eng.make_policy
    evaluator = eng.evaluator.EvalPolicy()  # the shipped evaluator, read-only: shared by all blocks and threads
    board = np.ascontiguousarray(pos.board, dtype=np.int8)
    opts = dict(cube=int(state.cube), cube_owner=state.cube_owner, max_cube=max_cube, x=x,
                jacoby=jac, opening=bool(opening),
                holland_wait=holland_wait(state, opening, pos.board))
    if not state.is_money:
        opts["match"] = (tables, a, b)

    return _Setup(pos=pos, games=games, state=state, entropy=entropy, nworkers=nworkers,
                  block_size=block_size, cub=cub, make_policy=make_policy, evaluator=evaluator,
                  board=board, opts=opts, jac=jac, max_cube=max_cube, x=x, opening=bool(opening),
                  table=table, tables=tables, vr=vr, quasi_random=quasi_random)


def run_setup_blocks(su: _Setup, dask, workers, **options):
    """:func:`~fastbg.rollouts.blocks.run_blocks` of a cubeful run (``options`` its
    arguments), on ``su``'s threads or on the Dask cluster ``dask`` (:func:`fastbg.rollouts.
    cluster.connect` with ``workers``); returns the run, its seconds (a local cluster's
    start-up not counted), the threads that played (the cluster's when it started) and the
    scheduler's address (or None)."""
    cl = connect(dask, workers, blocks=n_blocks(int(su.games), su.block_size))
    try:
        threads = su.nworkers if cl is None else cl.threads() or su.nworkers
        t0 = time.perf_counter()
        run = run_blocks(su.board, int(su.games), su.entropy, workers=su.nworkers,
                         block_size=su.block_size, cluster=cl, **options)
        seconds = time.perf_counter() - t0
        return run, seconds, threads, None if cl is None else cl.address
    finally:
        if cl is not None:
            cl.close()


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


def cubeful_rollout(
    position,
    games: int,
    *,
    seed: int | None = None,
    workers: int | None = None,
    policy: str = "nn",
    engine: str = "cython",
    state=None,
    x: float | None = None,
    jacoby: bool = False,
    opening: bool | None = None,
    progress: Callable[[int], None] | None = None,
    on_interrupt: Callable[[int], None] | None = None,
    met=None,
    vr: bool | None = None,
    quasi_random: bool = True,
    until_se: float | None = None,
    min_games: int | None = None,
    by_first_roll: bool = False,
    dask=None,
) -> CubefulRolloutResult:
    """Roll a position out with the cube in play, for its cubeful equity (money or match).

    Parameters
    ----------
    position : Position, str or array_like
        The position, with the player on roll about to decide on the cube and roll:
        anything :meth:`fastbg.game.position.Position.parse` accepts.
    games : int
        Number of games, at least 1.
    seed : int, optional
        Root seed; ``None`` draws fresh entropy, reported in the result.
    workers : int, optional
        Threads (``None``: one per CPU, never more than the blocks; the pure-Python
        engine uses one). The numbers do not depend on it.
    policy : {"nn", "pubeval", "random", "nn-1ply"}
        Checker play of both sides. Cube decisions always use the shipped evaluator at
        0 ply.
    engine : {"cython", "python"}
        Compiled core or pure-Python reference; same numbers.
    state : MatchState, optional
        Starting cube (value, owner from the view of the player on roll, cube limit
        ``max_cube``), the Jacoby option, and for match play the match length, score and
        Crawford flag; default a centred 1-cube in a money game, ``MatchState.money()``
        (cube limit 1024). The limit used is ``min(state.max_cube, 4096)``. With
        ``state.holland`` in a post-Crawford game the Holland rule applies: no double
        before both sides have played two rolls, counted from ``state.rolls_played``
        (default: 0 from the start of a game with the opening roll, else "both have played
        two", so the rule no longer restricts the cube).
    x : float, optional
        Fixed cube efficiency in [0, 1] for every decision. Default: per position,
        :func:`fastbg.cube.default_cube_efficiency` (0.68 with contact, 0 on the last
        roll, 0.6 in bear-offs, 0.6 to 0.7 in races by the pip count of the player on
        roll); the loop applies the same rules exactly (the last-roll test by an exact
        closed-form rule, checked against :func:`fastbg.cube.is_last_roll` in the tests).
    jacoby : bool
        Jacoby rule (gammons count single while the cube is centred). Applies if this
        or ``state.jacoby`` is true.
    opening : bool, optional
        Start each game with the opening roll (no cube decision before it; the opponent
        moves first when its die is higher). ``None``: yes for the starting position
        with the cube centred (an owned cube means the game is under way), no otherwise.
    progress : callable, optional
        Called with the number of games of each finished block.
    on_interrupt : callable, optional
        Called once when Ctrl-C stops the run, with the number of blocks still running
        (the run waits for them and keeps their games).
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
    dask : bool or str or distributed.Client, optional
        Play the blocks on a Dask cluster, as :func:`fastbg.rollout` (``True``: a local
        cluster of ``workers`` processes); the same numbers.

    Returns
    -------
    CubefulRolloutResult
        Cubeful equity in points per game per unit of the starting cube, its standard
        error, the integer counts and cube statistics.

    Raises
    ------
    ValueError
        For a bad position, a finished game or one where neither side can ever move
        (:meth:`fastbg.Position.check_playable`, before any game), ``games < 1``, an unknown policy or
        engine, a bad seed, worker count or ``x``, Jacoby in match play, a score
        beyond the table, a bad stop rule, or ``by_first_roll`` with pseudo-random dice.
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
    su = _setup(position, games, seed, workers, policy, engine, state, x, jacoby, opening,
                progress, met, vr, quasi_random)
    state = su.state
    min_games = check_stop_rule(until_se, min_games, su.games)
    by_first_roll = check_flag("by_first_roll", by_first_roll)
    if by_first_roll and not su.quasi_random:
        raise ValueError("a breakdown by first roll needs quasi-random dice (the first roll "
                         "of each game is then known): leave them on")
    cell_values = (result_points(state.cube, state.cube_owner, su.jac) / state.cube
                   if state.is_money else match_cells(su.tables[0])).ravel()
    shape = (len(RESULT_CLASSES), N_CUBE_VALUES)
    _, labels = _first_roll_keys(su.opening)

    until = stop_rule(until_se, min_games, by_first_roll,
                      lambda counts, sums, n: _statistics(su, counts, sums, n)[0]["stderr"])

    block = BlockRecipe(_cubeful_block, dict(block_parts(su, engine), policy=policy,
                                             cell_values=cell_values,
                                             by_first_roll=by_first_roll))
    run, seconds, workers, address = run_setup_blocks(
        su, dask, workers, engine=engine, progress=progress, block=block,
        on_interrupt=on_interrupt, until=until,
        counts_shape=(1 + len(labels), *shape) if by_first_roll else shape)
    counts, sums, breakdown = run.counts, run.sums, None
    if by_first_roll:
        breakdown = []
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
            breakdown.append(row)
        counts, sums = counts[0], None if sums is None else sums[0]
    st, extra = _statistics(su, counts, sums, run.games)
    settings = cubeful_settings(
        su, policy, engine,
        stop_rule=None if until_se is None else {"until_se": until_se, "min_games": min_games})
    return CubefulRolloutResult(
        equity=st["equity"], stderr=st["stderr"], counts=counts, games=run.games,
        seed=su.entropy, seconds=seconds, outcomes=st["outcomes"], doubled=st["doubled"],
        passed=st["passed"], mean_cube=st["mean_cube"], engine=engine, policy=policy, x=su.x,
        cube=int(state.cube), cube_owner=state.cube_owner, max_cube=su.max_cube, jacoby=su.jac,
        opening=su.opening, workers=workers, interrupted=run.interrupted, vr=su.vr,
        settings=settings, dask=address, games_requested=int(su.games),
        by_first_roll=breakdown, **extra,
    )


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
