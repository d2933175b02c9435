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

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..cube.money import cube_action
from ..cube.stats import decision_z
from ..engine import get_engine
from .blocks import BlockRecipe, abandoned
from .cubeful import (N_CUBE_VALUES, RESULT_CLASSES, _setup, block_parts, block_setup,
                      cubeful_settings, match_cells, mean_and_se, qrolls, result_points,
                      run_setup_blocks, vr_options)

__all__ = ["cube_rollout", "CubeRolloutResult", "decided_by_first_roll"]

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

    def to_dict(self) -> dict:
        """JSON-ready dict: ``position_id``, ``mode``, ``method`` ("rollout"), ``decision``
        (``action``, ``can_double``, ``why_not``, ``nd``, ``dt``, ``dp``, ``stderr``, ``z``,
        ``certain``),
        ``games``, ``seed``, ``seconds``, ``workers``, ``interrupted``, ``passed`` (per line:
        the share of trials that ended in a pass) and ``settings`` (and ``dask`` for a run
        on a cluster)."""
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
                **({} if self.dask is None else {"dask": self.dask})}


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


def cube_rollout(
    position,
    games: int,
    *,
    seed: int | None = None,
    workers: int | None = None,
    policy: str = "nn",
    engine: str = "cython",
    state=None,
    x: float | None = None,
    progress: Callable[[int], None] | None = None,
    on_interrupt: Callable[[int], None] | None = None,
    met=None,
    vr: bool | None = None,
    quasi_random: bool = True,
    dask=None,
) -> CubeRolloutResult:
    """Decide the cube by rolling out No double and Double/take with the same dice.

    Parameters
    ----------
    position : Position, str or array_like
        The position, the player on roll before its cube decision (no dice rolled).
    games : int
        Trials, at least 1; each is played in both lines.
    seed, workers, policy, engine, x, progress, on_interrupt, met
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
    dask : bool or str or distributed.Client, optional
        Play the blocks on a Dask cluster, as :func:`fastbg.rollout`; the same numbers.

    Returns
    -------
    CubeRolloutResult

    Raises
    ------
    ValueError
        As :func:`fastbg.rollouts.cubeful.cubeful_rollout`.

    Notes
    -----
    With ``c`` the current cube, the No double line is the cubeful game from the position
    with the player rolling first (no cube decision before its roll), the Double/take line
    the one with the cube at ``2c`` owned by the opponent; both are valued per unit of
    ``c`` (money) or in the player's MWC after the game (match). Double/pass is ``+1``
    (money) or the MWC of winning ``c`` points. The in-game cube decisions carry
    Janowski's and the network's bias.
    """
    su = _setup(position, games, seed, workers, policy, engine, state, x, False, False,
                progress, met, vr, quasi_random)
    st = su.state.for_position(su.pos.board)   # the start: no roll played yet (Holland)
    can = st.may_double
    v_nd, v_dt, dp = _values(su)
    line_opts = [dict(su.opts, root_decision=False)]
    if can:
        line_opts.append(dict(su.opts, cube=2 * st.cube, cube_owner="opponent"))
    vals = (v_nd, v_dt)

    # the luck of a line comes per unit of its own starting cube (money): in units of c
    luck_scale = [1.0, 2.0] if st.is_money else [1.0, 1.0]
    block = BlockRecipe(_cube_block, dict(block_parts(su, engine), policy=policy,
                                          line_opts=line_opts, vals=vals, luck_scale=luck_scale))
    run, seconds, workers, address = run_setup_blocks(
        su, dask, workers, engine=engine, progress=progress, block=block,
        on_interrupt=on_interrupt, counts_shape=(2, len(RESULT_CLASSES), N_CUBE_VALUES))
    n = run.games
    nan = float("nan")
    s = np.zeros(5) if run.sums is None else np.asarray(run.sums, dtype=np.float64)

    nd, se_nd = mean_and_se(float(s[0]), float(s[2]), n)
    certain = n > 0 and decided_by_first_roll(su.pos.board, engine)
    if certain:
        # every trial the same game: the values of its result, no sampling error (a sum
        # of squares less n times the squared mean leaves rounding, not a variance)
        exact = [_certain_value(run.counts[i], vals[i]) for i in range(len(line_opts))]
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
        action = cube_action(nd, dt, dp, redouble=st.cube_owner == "player",
                             beaver=st.is_money and st.beaver)
        z = (decision_z(nd, dt, dp, se_nd, se_dt, se_diff) if n >= 2 or certain
             else {"double": nan, "take": nan})
    else:
        dt = se_dt = se_diff = dp = nan
        z = {"double": nan, "take": nan}
        action = "No double"
    settings = cubeful_settings(
        su, policy, engine, dice_method=("quasi-random (first two rolls stratified), "
                                         if su.quasi_random else "pseudo-random, ")
        + "a stream per trial shared by both lines",
        method="cube rollout (No double and Double/take)")
    return CubeRolloutResult(
        nd=nd, dt=dt, dp=dp, stderr={"nd": se_nd, "dt": se_dt, "dt_minus_nd": se_diff},
        action=action, z=z, games=n, counts=run.counts,
        mode="money" if st.is_money else "match", why_not=st.why_not_double, seed=su.entropy,
        seconds=seconds, workers=workers, interrupted=run.interrupted,
        position_id=su.pos.to_position_id(), settings=settings, vr=su.vr, dask=address,
        certain=bool(certain))
