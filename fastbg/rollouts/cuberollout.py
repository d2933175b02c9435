"""Cube decisions by rollout: the No double and Double/take lines rolled out side by side.

:func:`cube_rollout` does what the analysis programs call a cube rollout: it plays every
trial twice from the position, once after *No double* (the player on roll rolls with the
cube as it is) and once after *Double/take* (the cube doubled and owned by the opponent),
both as cubeful games (:func:`fastbg.rollouts.cubeful.cubeful_rollout`'s loop: later cube
decisions by Janowski's model on the network's probabilities), with **the same dice**: trial
``j`` of block ``k`` draws from its own stream, ``SeedSequence(seed, spawn_key=(k, j))``, in
both lines. Double/pass needs no rollout (the doubler wins the current cube). The
difference Double/take - No double, which decides the double, is estimated from the paired
per-trial differences, far more precisely than either value.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from ..cube.money import cube_action
from ..cube.stats import decision_z
from ..engine import get_engine
from ..game.position import Position
from .blocks import BlockRecipe, abandoned, check_games
from .cubeful import (N_CUBE_VALUES, RESULT_CLASSES, run_setup, block_parts, block_setup,
                      cube_position, cubeful_settings, match_cells, mean_and_se, qrolls,
                      result_points, vr_options)
from .cubesettings import CubeRolloutSettings
from .runner import Runner, RunPlan, configure, play_stored

__all__ = ["cube_rollout", "CubeRolloutResult", "decided_by_first_roll",
           "stored_statistics", "COUNTS_SHAPE"]

_LINES = ("nd", "dt")


@dataclass(frozen=True)
class CubeRolloutResult:
    """The result of :func:`cube_rollout`.

    Attributes
    ----------
    nd, dt, dp : float
        No double, Double/take and Double/pass for the player on roll: money equity per unit
        of the current cube, or match winning chances (match play); ``dt`` and ``dp`` are
        NaN when the player may not double (``why_not``).
    stderr : dict
        Standard errors of ``nd``, ``dt`` (``dp`` is exact) and of the paired difference
        ``dt_minus_nd``.
    action : str
        :func:`fastbg.cube.cube_action` of the three values (or "No double" when the player
        may not double).
    z : dict
        How sure the decision is (:func:`fastbg.cube.stats.decision_z`): ``double``, the
        margin of doubling over not doubling (``min(dt, dp) - nd``) in standard errors of
        that difference; ``take``, the margin ``dp - dt`` (the taker's take) in standard
        errors of ``dt``. NaN with fewer than 2 trials.
    games : int
        Trials (each played in both lines).
    counts : numpy.ndarray of int64, shape (2, 8, 13)
        Per line (No double, Double/take) the counts of (result class, final cube), as
        :func:`fastbg.rollouts.cubeful.cubeful_rollout`.
    mode : str
        ``"money"`` or ``"match"``.
    why_not : str or None
        Why the player may not double, if it may not (only the No double line is played).
    seed, seconds, workers, interrupted, settings
        As for the other rollouts.
    dask : str or None
        The Dask scheduler's address when the trials ran on a cluster.
    vr : bool
        Variance reduction: the values and standard errors are those of the luck-adjusted
        trials (``counts`` are the games as played).
    certain : bool
        The trials cannot vary (:func:`decided_by_first_roll`): ``nd`` and ``dt`` are the
        values of the one result every trial has, the standard errors 0, and a margin is
        infinite, or NaN for a tie (two values exactly equal).
    run_id : int or None
        With a ``store``: the run's id in it (to resume or extend it).
    stored_games : int
        Trials of a resumed run read from its store rather than played now.
    """

    nd: float
    dt: float
    dp: float
    stderr: dict
    action: str
    z: dict
    games: int
    counts: np.ndarray
    mode: str
    why_not: str | None
    seed: int
    seconds: float
    workers: int
    interrupted: bool
    position_id: str
    settings: dict = field(default_factory=dict)
    vr: bool = False
    dask: str | None = None
    certain: bool = False
    run_id: int | None = None
    stored_games: int = 0

    def to_dict(self) -> dict:
        """JSON-ready dict: ``position_id``, ``mode``, ``method`` ("rollout"), ``decision``
        (``action``, ``can_double``, ``why_not``, ``nd``, ``dt``, ``dp``, ``stderr``, ``z``,
        ``certain``),
        ``games``, ``seed``, ``seconds``, ``workers``, ``interrupted``, ``passed`` (per line:
        the share of trials that ended in a pass) and ``settings`` (and ``dask`` for a run
        on a cluster, ``run_id`` and ``stored_games`` for a stored one)."""
        def clean(v):
            return None if isinstance(v, float) and math.isnan(v) else v
        n = max(self.games, 1)
        return {"position_id": self.position_id, "mode": self.mode, "method": "rollout",
                "decision": {
                    "action": self.action, "can_double": self.why_not is None,
                    "why_not": self.why_not, "nd": self.nd, "dt": clean(self.dt),
                    "dp": clean(self.dp),
                    "stderr": {k: clean(v) for k, v in self.stderr.items()},
                    "z": {k: clean(v) for k, v in self.z.items()},
                    "certain": self.certain},
                "games": self.games, "seed": self.seed,
                "seconds": self.seconds, "workers": self.workers,
                "interrupted": self.interrupted,
                "passed": {line: int(self.counts[i, 6:].sum()) / n
                           for i, line in enumerate(_LINES)},
                "settings": dict(self.settings),
                **({} if self.dask is None else {"dask": self.dask}),
                **({} if self.run_id is None else {"run_id": self.run_id,
                                                   "stored_games": self.stored_games})}


def decided_by_first_roll(board, engine: str = "cython") -> bool:
    """Whether the player on roll ends the game with every roll, whatever it plays: each
    legal play of each of the 21 rolls bears off its last checker.

    The trials of a cube rollout then cannot vary: every one is the same game, one roll
    long, in both lines (no cube decision after the root's, no luck to adjust, the result
    fixed by the opponent's checkers, which do not move).

    Parameters
    ----------
    board : array_like of int, shape (2, 25)
        The position, row 0 the player on roll (DESIGN section 2).
    engine : {"cython", "python"}
        The move generator.
    """
    b = np.ascontiguousarray(board, dtype=np.int8)
    if not 0 < int(b[0].sum()) <= 4:    # (one roll bears off at most four checkers)
        return False
    legal = get_engine(engine).legal_plays
    return all(len(plays) > 0 and not any(int(p[0].sum()) for p in plays)
               for d1 in range(1, 7) for d2 in range(1, d1 + 1)
               for plays in (legal(b, d1, d2),))


def _certain_value(counts, vals) -> float | None:
    """The value of a line whose trials all have one result (a cell of ``counts``, shape
    (8, 13)), exactly as the table ``vals`` holds it: a mean of equal values is not always
    the value itself in floating point; None if the trials have more than one."""
    cells = np.argwhere(np.asarray(counts))
    return float(vals[tuple(cells[0])]) if len(cells) == 1 else None


def _values(su) -> tuple[np.ndarray, np.ndarray, float]:
    """Per-cell values of the two lines (shape (8, 13) each) in the decision's unit, and
    Double/pass: money, points per unit of the current cube; match, the player's MWC."""
    st = su.state
    if st.is_money:
        nd = result_points(st.cube, st.cube_owner, su.jac) / st.cube
        dt = result_points(2 * st.cube, "opponent", su.jac) / st.cube
        return nd, dt, 1.0
    cell = match_cells(su.tables[0])
    j0 = int(st.cube).bit_length() - 1
    return cell, cell, float(su.tables[0][j0][0])


def _cube_block(*, policy: str, line_opts: list, vals: tuple, luck_scale: list, **parts):
    """The block function of :func:`cube_rollout` (a recipe's factory): each trial played in
    both lines with the same dice."""
    su = block_setup(**parts)
    vr_opts = vr_options(su)

    def block(k, n, _bitgen):
        counts = np.zeros((2, len(RESULT_CLASSES), N_CUBE_VALUES), dtype=np.int64)
        x = np.zeros((2, n))
        pol = su.make_policy(policy)
        streams = np.random.SeedSequence(su.entropy, spawn_key=(k,)).spawn(n)
        luck = np.zeros(1)
        q = qrolls(su, k, n)
        for j in range(n):
            if abandoned():            # a second Ctrl-C: the partial block is discarded
                break
            for i, opts in enumerate(line_opts):
                c = su.cub.cubeful_block(su.board, 1, np.random.PCG64DXSM(streams[j]), pol,
                                         su.evaluator, **opts, **vr_opts,
                                         qrolls=None if q is None else q[j:j + 1],
                                         luck=luck)     # 0 without variance reduction
                counts[i] += c
                cls, lc = np.argwhere(c)[0]
                x[i, j] = vals[i][cls, lc] - luck_scale[i] * luck[0]
        sums = np.array([x[0].sum(), x[1].sum(), (x[0] ** 2).sum(), (x[1] ** 2).sum(),
                         (x[0] * x[1]).sum()])
        return counts, sums
    return block


#: The shape of a cube rollout block's counts: per line (No double, Double/take) the counts
#: of (result class, final cube) (:func:`fastbg.rollouts.cubeless.stored_counts_shape`).
COUNTS_SHAPE = (2, len(RESULT_CLASSES), N_CUBE_VALUES)


def cube_rollout(position, games: int, *, settings: CubeRolloutSettings | None = None,
                 runner: Runner | None = None, **overrides) -> CubeRolloutResult:
    """Decide the cube by rolling out No double and Double/take with the same dice.

    Parameters
    ----------
    position : Position, str or array_like
        The position, the player on roll before its cube decision (no dice rolled).
    games : int
        Trials, at least 1; each is played in both lines.
    settings : CubeRolloutSettings, optional
        Everything the numbers depend on besides the position and ``games``
        (:class:`fastbg.rollouts.cubesettings.CubeRolloutSettings`; default: its defaults).
    runner : Runner, optional
        Where and how the trials are played (:class:`fastbg.rollouts.runner.Runner`).
    **overrides
        Any field of the settings or of the runner, by name (below); an unknown name is a
        TypeError.

    Other Parameters
    ----------------
    seed, policy, x, met
        As :func:`fastbg.rollouts.cubeful.cubeful_rollout` (``x``: the cube efficiency of
        the cube decisions *inside* the games).
    state : MatchState, optional
        Cube, owner, match score and rules (default money play, centred cube). The
        Holland rule counts from ``state.rolls_played`` (unknown: "both sides have played
        two").
    vr : bool, optional
        Variance reduction of both lines, as :func:`fastbg.rollouts.cubeful.cubeful_rollout`
        (default: on for the nn policies); each trial's luck in a line is valued at that
        line's cube, so the paired difference is luck-adjusted too.
    quasi_random : bool, default True
        Quasi-random dice: each trial's first two rolls stratified by trial index (the
        same in both lines), as :func:`fastbg.rollout`.
    engine, workers, dask, progress, on_interrupt, on_block
        The runner's, as :func:`fastbg.rollout`; the same numbers.
    store, run_id, table_run
        Keep the run in a results store (kind ``"cube"``), as :func:`fastbg.rollout`:
        resumed or extended (``run_id``, or :func:`fastbg.resume`) it ends with the numbers
        of one uninterrupted run.

    Returns
    -------
    CubeRolloutResult

    Raises
    ------
    ValueError
        As :func:`fastbg.rollouts.cubeful.cubeful_rollout`.
    TypeError
        For a keyword that is no setting and no field of the runner.

    Notes
    -----
    With ``c`` the current cube, the No double line is the cubeful game from the position
    with the player rolling first (no cube decision before its roll), the Double/take line
    the one with the cube at ``2c`` owned by the opponent; both are valued per unit of
    ``c`` (money) or in the player's MWC after the game (match). Double/pass is ``+1``
    (money) or the MWC of winning ``c`` points. The in-game cube decisions carry
    Janowski's and the network's bias.

    **Reproducibility.** Trial ``j`` of block ``k`` draws its dice from
    ``SeedSequence(seed, spawn_key=(k, j))`` in both lines, so the same fastbg version, seed
    and settings give the same numbers for any ``workers``, either engine and a Dask
    cluster, and a stored run resumed or extended the numbers of one uninterrupted run.
    """
    settings, runner = configure(CubeRolloutSettings, settings, runner, overrides,
                                 "cube_rollout")
    pos = cube_position(position)
    games = check_games(games)
    st = settings.resolve()
    su = run_setup(pos, games, st, False)
    state = su.state.for_position(pos.board)   # the start: no roll played yet (Holland)
    v_nd, v_dt, dp = _values(su)
    line_opts = [dict(su.opts, root_decision=False)]
    if state.may_double:
        line_opts.append(dict(su.opts, cube=2 * state.cube, cube_owner="opponent"))
    # the luck of a line comes per unit of its own starting cube (money): in units of c
    luck_scale = [1.0, 2.0] if state.is_money else [1.0, 1.0]
    block = BlockRecipe(_cube_block, dict(block_parts(su, runner.engine), policy=st.policy,
                                          line_opts=line_opts, vals=(v_nd, v_dt),
                                          luck_scale=luck_scale))
    plan = RunPlan(kind="cube", request=dict(position=pos.to_position_id(), games=games,
                                              **st.as_dict()),
                   settings=_recorded_settings(su, st.policy, runner.engine),
                   block_size=su.block_size, counts_shape=COUNTS_SHAPE)
    played = play_stored(plan, runner, pos.board, games, su.entropy, block)
    run = played.run
    d = _decision(state, run.counts, run.sums, run.games, (v_nd, v_dt, dp),
                  run.games > 0 and decided_by_first_roll(pos.board, runner.engine))
    result = CubeRolloutResult(
        **d, games=run.games, counts=run.counts, mode="money" if state.is_money else "match",
        why_not=state.why_not_double, seed=su.entropy, seconds=played.seconds,
        workers=played.workers, interrupted=run.interrupted,
        position_id=pos.to_position_id(), settings=plan.settings, vr=su.vr,
        dask=played.address, run_id=None if played.stored is None else played.stored.run_id,
        stored_games=played.stored_games)
    if played.stored is not None and not played.stored.finish(run.interrupted,
                                                              _summary(result)):
        result = dataclasses.replace(result, run_id=None)   # stopped before its first block
    return result


def _recorded_settings(su, policy: str, engine: str) -> dict:
    """The settings a cube rollout's result carries and its store records."""
    return cubeful_settings(
        su, policy, engine, dice_method=("quasi-random (first two rolls stratified), "
                                         if su.quasi_random else "pseudo-random, ")
        + "a stream per trial shared by both lines",
        method="cube rollout (No double and Double/take)")


def _decision(state, counts, sums, n: int, values, certain: bool) -> dict:
    """The values, standard errors, action and margins of a cube rollout from its merged
    ``counts`` (shape (2, 8, 13)) and ``sums`` (the lines' sums, sums of squares and sum of
    products) over ``n`` trials; ``values`` the lines' per-cell values and Double/pass
    (:func:`_values`); ``certain``: the trials cannot vary (:func:`decided_by_first_roll`).
    Returns the fields ``nd``, ``dt``, ``dp``, ``stderr``, ``action``, ``z`` and
    ``certain`` of :class:`CubeRolloutResult`."""
    nan = float("nan")
    v_nd, v_dt, dp = values
    can = state.may_double
    s = np.zeros(5) if sums is None else np.asarray(sums, dtype=np.float64)
    nd, se_nd = mean_and_se(float(s[0]), float(s[2]), n)
    if certain:
        # every trial the same game: the values of its result, no sampling error (a sum
        # of squares less n times the squared mean leaves rounding, not a variance)
        exact = [_certain_value(counts[i], v) for i, v in enumerate((v_nd, v_dt)[:1 + can])]
        certain = None not in exact
    if certain:
        nd, se_nd = exact[0], 0.0
    if can:
        dt, se_dt = mean_and_se(float(s[1]), float(s[3]), n)
        dd = s[1] - s[0]
        dd2 = s[3] - 2 * s[4] + s[2]
        # (dd2 is a difference of the lines' sums of squares: its round-off is theirs)
        diff, se_diff = mean_and_se(float(dd), float(dd2), n,
                                    scale=math.sqrt(max(float(s[2] + s[3]), 0.0) / n))
        if certain:
            dt, se_dt, se_diff = exact[1], 0.0, 0.0
        action = cube_action(nd, dt, dp, redouble=state.cube_owner == "player",
                             beaver=state.is_money and state.beaver)
        z = (decision_z(nd, dt, dp, se_nd, se_dt, se_diff) if n >= 2 or certain
             else {"double": nan, "take": nan})
    else:
        dt = se_dt = se_diff = dp = nan
        z = {"double": nan, "take": nan}
        action = "No double"
    return dict(nd=nd, dt=dt, dp=dp, stderr={"nd": se_nd, "dt": se_dt, "dt_minus_nd": se_diff},
                action=action, z=z, certain=bool(certain))


def _summary(res: CubeRolloutResult) -> dict:
    """What a store keeps of a finished cube rollout (``fastbg runs`` lists it)."""
    return {k: getattr(res, k) for k in ("games", "nd", "dt", "dp", "stderr", "action",
                                         "interrupted")}


def stored_statistics(request: dict, counts, sums, n: int) -> dict:
    """The estimate of a stored cube rollout from its request and its blocks' merged
    ``counts`` and ``sums`` (``fastbg runs``): ``games``, ``nd``, ``dt``, ``dp``,
    ``action``, and as ``equity`` and ``stderr`` the No double line's."""
    st = CubeRolloutSettings.from_request(request)
    pos = Position.parse(request["position"])
    su = run_setup(pos, request["games"], st, False)
    state = su.state.for_position(pos.board)
    d = _decision(state, np.asarray(counts), sums, n, _values(su), False)
    return {"games": n, "equity": d["nd"], "stderr": d["stderr"]["nd"],
            **{k: d[k] for k in ("nd", "dt", "dp", "action")}}
