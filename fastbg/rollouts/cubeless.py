"""Monte Carlo rollouts: cubeless win, gammon and backgammon probabilities."""
from __future__ import annotations

from statistics import NormalDist
from dataclasses import dataclass, field

import numpy as np

from ..engine import get_engine
from ..game.outcomes import OUTCOME_INDICATORS, PROBABILITY_KEYS
from ..game.parse import position_and_roll
from ..spec import luck as _luck
from ..spec.board import N_CUBE_VALUES, RESULT_CLASSES, START_BOARD
from ..spec.policies import POLICIES as _ENGINE_POLICIES
from .blocks import BlockRecipe, block_size_for, check_games, stop_flag, stratified_rolls
from .firstroll import first_roll_keys
from .runner import PlayedRun, Runner, RunPlan, configure, play_stored
from .settings import (DEFAULT_POLICY, DEFAULT_VR, RolloutSettings, check_flag, check_stop_rule,
                       check_truncate, resolve_vr, rollout_settings)

__all__ = ["rollout", "RolloutResult", "POLICIES", "DEFAULT_POLICY",
           "DEFAULT_VR", "INDICATORS6", "resolve_vr", "check_flag", "check_truncate",
           "check_stop_rule", "recorded_settings", "counts_shape", "stored_counts_shape",
           "outcome_statistics", "vr_statistics", "normal_quantile", "wilson_interval"]

#: Policies available in both engines (the engine spec's list, :data:`fastbg.spec.policies.POLICIES`).
POLICIES = _ENGINE_POLICIES

#: The yardstick values, for each roll, the best of pubeval's ``VR_PREFILTER`` best plays
#: (nn 0 ply): 4 keeps 85-95% of the variance reduction of valuing every play for about a
#: quarter of its time (experiments/bench_vr.py --prefilter).
VR_PREFILTER = 4

_POINTS = np.array([1, 2, 3, -1, -2, -3], dtype=np.float64)
_NORMAL = NormalDist()


def normal_quantile(q: float) -> float:
    """Quantile ``q`` of the standard normal distribution.

    The standard library's :class:`statistics.NormalDist` (``inv_cdf``), which agrees with
    ``scipy.stats.norm.ppf`` to about 1e-15 and costs no import of scipy.
    """
    return _NORMAL.inv_cdf(q)


def wilson_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval of a proportion: ``k`` successes in ``n`` trials.

    Parameters
    ----------
    k, n : int
        Games counted and games played, ``0 <= k <= n``.
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    (low, high) : tuple of float
        Inside [0, 1] for any ``k`` (the normal approximation ``p -/+ z se`` is not: a
        backgammon rate of 2 in 200 games gives [-0.004, 0.024]); ``(nan, nan)`` for
        ``n = 0``.

    Notes
    -----
    E. B. Wilson, "Probable inference, the law of succession, and statistical
    inference", JASA 22 (1927): the ``p`` with ``|p_hat - p| <= z sqrt(p (1 - p) / n)``,
    ``z`` the normal quantile of ``(1 + level) / 2``.
    """
    if n <= 0:
        return float("nan"), float("nan")
    z = normal_quantile((1 + level) / 2)
    p = k / n
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * np.sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n)
    return max(0.0, float(centre - half)), min(1.0, float(centre + half))


def outcome_statistics(counts) -> tuple[dict, dict]:
    """Probabilities, equity and their standard errors from outcome counts.

    Parameters
    ----------
    counts : array_like of int, shape (6,)
        Games won single/gammon/backgammon, lost single/gammon/backgammon.

    Returns
    -------
    estimates : dict
        ``win``, ``win_gammon``, ``win_backgammon``, ``lose_gammon``,
        ``lose_backgammon`` (probabilities in [0, 1]) and ``equity`` (cubeless,
        points per game per unit cube:
        ``(2 win - 1) + (wg - lg) + (wbg - lbg)``).
    stderr : dict
        The standard error of each, from the sample variance (ddof=1) of the
        per-game indicator or points: ``sqrt(s**2 / n)``. NaN for fewer than two
        games.
    """
    c = np.asarray(counts, dtype=np.int64)
    n = int(c.sum())
    est, se = {}, {}
    for key, ind in zip(PROBABILITY_KEYS, OUTCOME_INDICATORS):
        k = int(ind @ c)
        p = k / n if n else float("nan")
        est[key] = p
        se[key] = float(np.sqrt(p * (1 - p) / (n - 1))) if n > 1 else float("nan")
    if n:
        mean = float(_POINTS @ c) / n
        est["equity"] = mean
        if n > 1:
            ss = float(((_POINTS - mean) ** 2) @ c)
            se["equity"] = float(np.sqrt(ss / (n - 1) / n))
        else:
            se["equity"] = float("nan")
    else:
        est["equity"] = se["equity"] = float("nan")
    return est, se


#: Per outcome class (row), its indicators of win, wg, wbg, lg, lbg and its points: the
#: per-game values of a plain rollout, in the layout of a variance-reduced game's.
INDICATORS6 = np.ascontiguousarray(np.vstack([np.asarray(OUTCOME_INDICATORS, dtype=np.float64), _POINTS]).T)


def counts_shape(opening: bool, by_first_roll: bool) -> tuple:
    """The shape of a cubeless rollout block's counts (a stored block of another shape is
    damaged).

    Parameters
    ----------
    opening : bool
        The rollout starts with the opening roll.
    by_first_roll : bool
        With a breakdown by first roll.

    Returns
    -------
    tuple of int
        ``(6,)``, the six outcome counts; with a breakdown, ``(1 + rows, 6)``: the totals,
        then a row for each first roll (21 rolls, or from the opening 15 of each side).
    """
    return (1 + len(first_roll_keys(bool(opening))[1]), 6) if by_first_roll else (6,)


def stored_counts_shape(kind: str, request: dict, settings: dict) -> tuple | None:
    """The shape of every block's counts of a stored run, from its record: what a run
    checks its stored blocks against when it resumes, and ``fastbg runs`` when it reads
    them (:meth:`fastbg.rollouts.store.ResultsStore.blocks`).

    Parameters
    ----------
    kind : str
        The run's kind: ``"rollout"`` (:func:`rollout`), ``"plays"``
        (:func:`fastbg.rollouts.plays.rollout_plays`), ``"cubeful"``
        (:func:`fastbg.rollouts.cubeful.cubeful_rollout`: (8, 13), or (1 + rows, 8, 13) by
        first roll) or ``"cube"`` (:func:`fastbg.rollouts.cuberollout.cube_rollout`: (2, 8,
        13)); another has no known shape.
    request, settings : dict
        The run's request and settings, as it stores them.

    Returns
    -------
    tuple of int or None
        A rollout's :func:`counts_shape` (by first roll if it asked for the breakdown); for
        candidate plays, a row of six counts per candidate, ``(C, 6)``, unless the run
        prunes them (pruning shrinks the blocks' rows; a record that does not say whether
        it prunes counts as pruning); None when the shape is not known, and not checked.
    """
    if kind == "rollout":
        return counts_shape(request.get("opening", False), request.get("by_first_roll", False))
    if kind in ("cubeful", "cube"):   # (result class, final cube): per line, or first roll
        cells = (len(RESULT_CLASSES), N_CUBE_VALUES)
        if kind == "cube":
            return (2, *cells)
        rows = len(first_roll_keys(bool(request.get("opening")))[1])
        return (1 + rows, *cells) if request.get("by_first_roll") else cells
    if kind == "plays" and settings.get("candidate_moves") and (
            settings.get("prune", "unknown") is None):
        return (len(settings["candidate_moves"]), 6)
    return None


def _first_roll_luck(board, opening: bool, labels) -> list:
    """The yardstick's luck of each first roll of the breakdown (root's view, five
    probabilities), as the engines subtract it (:mod:`fastbg.spec.luck`, whose numbers
    are the core's bit for bit)."""
    ys = get_engine("python").evaluator.EvalPolicy()
    b = np.ascontiguousarray(board, dtype=np.int8)
    v0 = ys.roll_values(b, VR_PREFILTER)
    out = []
    if opening:
        v1 = ys.roll_values(np.ascontiguousarray(b[::-1]), VR_PREFILTER)
        mean = _luck.opening_mean(v0, v1)
        for roll, who in labels:
            hi, lo = int(roll[0]), int(roll[2])
            q = v0[_luck.roll_slot(hi, lo)] if who == "player" else _luck.flip(v1[_luck.roll_slot(hi, lo)])
            out.append([float(q[i]) - float(mean[i]) for i in range(5)])
    else:
        mean = _luck.roll_mean(v0)
        for roll, _ in labels:
            q = v0[_luck.roll_slot(int(roll[0]), int(roll[2]))]
            out.append([float(q[i]) - float(mean[i]) for i in range(5)])
    return out


def vr_statistics(sums, n: int) -> tuple[dict, dict]:
    """Estimates and standard errors from the sums of luck-adjusted results.

    Parameters
    ----------
    sums : array_like of float, shape (2, 6)
        Sums over ``n`` games of the adjusted win, win_gammon, win_backgammon,
        lose_gammon, lose_backgammon and equity (row 0) and of their squares
        (``rollout_block_vr``).
    n : int
        Games.

    Returns
    -------
    estimates, stderr : dict
        Means of the adjusted results (unbiased estimates of the probabilities and the
        cubeless equity) and their standard errors ``sqrt(s**2 / n)`` from the sample
        variance (ddof=1); NaN for fewer than two games. A probability whose mean falls
        outside [0, 1] (a rate near 0 or 1: the adjustment can overshoot it, by up to about
        its standard error) is clipped to it; the equity is the unclipped mean, unbiased, so
        the equity of the clipped probabilities may differ from it by as much.
    """
    s = np.asarray(sums, dtype=np.float64).reshape(2, 6)
    est, se = {}, {}
    for i, key in enumerate((*PROBABILITY_KEYS, "equity")):
        mean = s[0, i] / n if n else float("nan")
        est[key] = float(mean) if key == "equity" or not n else min(1.0, max(0.0, float(mean)))
        if n > 1:
            var = max(0.0, (s[1, i] - s[0, i] * mean) / (n - 1))
            se[key] = float(np.sqrt(var / n))
        else:
            se[key] = float("nan")
    return est, se


@dataclass
class RolloutResult:
    """The result of a cubeless rollout, from the point of view of the player on
    roll before the roll.

    Attributes
    ----------
    win, win_gammon, win_backgammon, lose_gammon, lose_backgammon : float
        Probabilities in [0, 1]; gammons include backgammons; ``lose = 1 - win``.
    equity : float
        Cubeless equity in points per game per unit cube.
    stderr : dict
        Standard error of each of the above (same keys plus ``equity``).
    counts : numpy.ndarray of int64, shape (6,)
        Games won single/gammon/backgammon, lost single/gammon/backgammon.
    games : int
        Games played (fewer than asked for when ``interrupted``).
    seed : int
        The root seed actually used (pass it back to reproduce the numbers).
    engine, policy : str
    position_id : str
    dice : tuple of int or None
        The fixed first roll, if any.
    opening : bool
        Whether games began with the opening roll.
    seconds : float
        Wall-clock time of the games.
    interrupted : bool
        True when the run was stopped early; the numbers cover the finished games.
    vr : bool
        Whether the estimates are luck-adjusted (variance reduction); ``counts`` are then
        the raw outcomes of the same games.
    truncated : int
        Games stopped before their end (``truncate``, ``truncate_bearoff``) and scored by
        the evaluator or the bear-off database; ``counts`` hold the other games.
    settings : dict
        Everything the numbers depend on (:func:`fastbg.rollouts.settings.rollout_settings`).
    by_first_roll : list of dict, optional
        With ``by_first_roll=True``: per first roll (``roll`` "6-5", from the opening roll
        also ``first``, "player" or "opponent"), its ``games``, probabilities, ``equity`` and
        ``stderr`` (the rows' games and sums add up to the totals).
    run_id : int or None
        With a ``store``: the run's id in it (to resume or extend it).
    stored_games : int
        Games of a resumed run read from its store rather than played now (``seconds``
        and ``games_per_second`` are those of the games played now).
    dask : str or None
        The Dask scheduler's address when the blocks ran on a cluster (``workers`` is
        then its threads).
    """

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float
    equity: float
    stderr: dict
    counts: np.ndarray
    games: int
    seed: int
    engine: str
    policy: str
    position_id: str
    dice: tuple | None = None
    opening: bool = False
    seconds: float = 0.0
    interrupted: bool = False
    workers: int = 1
    games_requested: int = field(default=0)
    vr: bool = False
    settings: dict = field(default_factory=dict)
    by_first_roll: list | None = None
    truncated: int = 0
    run_id: int | None = None
    stored_games: int = 0
    dask: str | None = None

    @property
    def lose(self) -> float:
        """Probability of losing, ``1 - win``."""
        return 1.0 - self.win

    @property
    def games_per_second(self) -> float:
        """Games played now (not read from a store) per second of wall-clock time."""
        n = self.games - self.stored_games
        return n / self.seconds if self.seconds > 0 else float("inf")

    def confidence_interval(self, key: str = "equity", level: float = 0.95) -> tuple[float, float]:
        """Confidence interval of one estimate.

        Parameters
        ----------
        key : str
            ``"equity"`` or one of the probability keys.
        level : float
            Confidence level in (0, 1).

        Returns
        -------
        (low, high) : tuple of float
            For a probability of a plain rollout, Wilson's score interval of its count in
            the games played (:func:`wilson_interval`, always inside [0, 1]); for the
            equity, and for every estimate of a variance-reduced rollout, the normal
            approximation ``estimate -/+ z * stderr`` with ``z`` the normal quantile of
            ``(1 + level) / 2`` (:func:`normal_quantile`).
        """
        if not 0 < level < 1:
            raise ValueError(f"confidence level must be in (0, 1), got {level}")
        if key != "equity" and key not in PROBABILITY_KEYS:
            raise ValueError(f"unknown estimate {key!r}")
        if key != "equity" and not self.vr and not self.truncated:
            k = int(OUTCOME_INDICATORS[PROBABILITY_KEYS.index(key)] @ np.asarray(self.counts))
            return wilson_interval(k, int(self.games), level)
        z = normal_quantile((1 + level) / 2)
        est = getattr(self, key)
        lo, hi = est - z * self.stderr[key], est + z * self.stderr[key]
        if key != "equity":            # a probability's interval stays inside [0, 1]
            lo, hi = max(0.0, lo), min(1.0, hi)
        return lo, hi

    def to_dict(self) -> dict:
        """JSON-ready dict: the five probabilities, ``equity``, ``stderr`` (same keys),
        ``games``, ``seed``, ``engine``, ``policy``, ``seconds``,
        ``games_per_second``, ``position_id``, ``dice``, ``opening``, ``workers``,
        ``counts``, ``interrupted``, ``vr``, ``truncated`` and ``settings`` (and ``by_first_roll`` when
        asked for; ``run_id`` and ``stored_games`` for a stored run; ``dask``, the scheduler's
        address, for a run on a cluster)."""
        d = {k: getattr(self, k) for k in PROBABILITY_KEYS}
        d["equity"] = self.equity
        d["stderr"] = dict(self.stderr)
        d.update(
            games=self.games,
            seed=self.seed,
            engine=self.engine,
            policy=self.policy,
            seconds=self.seconds,
            games_per_second=self.games_per_second if self.seconds > 0 else None,
            position_id=self.position_id,
            dice=list(self.dice) if self.dice else None,
            opening=self.opening,
            workers=self.workers,
            counts=[int(x) for x in self.counts],
            interrupted=self.interrupted,
            vr=self.vr,
            truncated=self.truncated,
            settings=dict(self.settings),
        )
        if self.run_id is not None:
            d["run_id"] = self.run_id
            d["stored_games"] = self.stored_games
        if self.dask is not None:
            d["dask"] = self.dask
        if self.by_first_roll is not None:
            d["by_first_roll"] = [dict(r) for r in self.by_first_roll]
        rule = self.settings.get("stop_rule")
        if rule:
            d["stop_rule_met"] = bool(self.stderr["equity"] <= rule["until_se"])
        return d


def stop_rule(until_se, min_games, by_first_roll: bool, stderr):
    """The ``until(counts, sums, n)`` of :func:`fastbg.rollouts.blocks.run_blocks` for a
    checked stop rule (:func:`check_stop_rule`), or None without one: true once ``n`` games
    reach ``min_games`` (at least 2) and ``stderr(counts, sums, n)`` of the run's totals (the
    first row of a breakdown by first roll) is at most ``until_se``."""
    if until_se is None:
        return None
    floor = min_games or 2

    def until(counts, sums, n):
        if n < floor:
            return False
        if by_first_roll:
            counts, sums = counts[0], None if sums is None else sums[0]
        return bool(stderr(counts, sums, n) <= until_se)
    return until


def _cubeless_block(*, settings: dict, engine: str, board: np.ndarray, block_size: int):
    """The block function of :func:`rollout` (a :class:`~fastbg.rollouts.blocks.BlockRecipe`'s
    factory: built where the blocks are played, by the threads or by each cluster worker).
    ``settings`` is the run's resolved :meth:`RolloutSettings.as_dict`, exactly what the
    results store records."""
    st = RolloutSettings(**settings)
    policy, dice, entropy, quasi_random = st.policy, st.dice, st.seed, st.quasi_random
    by_first_roll, vr, truncate_bearoff = st.by_first_roll, st.vr, st.truncate_bearoff
    truncate = st.truncate or 0
    eng = get_engine(engine)
    # the games' results come as sums of floats (luck-adjusted or scored when stopped)
    scored = vr or truncate > 0 or truncate_bearoff
    yardstick = eng.evaluator.EvalPolicy() if scored else None  # read-only: shared by the threads
    stops = dict(vr=vr, truncate=truncate, bearoff2=truncate_bearoff)
    if st.luck_ply or st.truncate_ply:      # (a 0-ply run calls the blocks as it always has)
        stops.update(luck_ply=st.luck_ply, truncate_ply=st.truncate_ply,
                     move_filter=st.checker_filter())
    ply, mfilter = st.ply, st.checker_filter()
    op = st.opening
    keys, labels = first_roll_keys(op)
    nkeys = len(labels)

    def block(k, n, bitgen):
        q = stratified_rolls(entropy, k * block_size, n, op) if quasi_random else None
        # a block's own policy: an n-ply one holds a workspace and cache for one thread
        pol = eng.policies.checker_policy(policy, ply, mfilter)
        stop = stop_flag()    # the run abandons the block: a second Ctrl-C
        if not by_first_roll:
            if scored:
                return eng.rollout_block_vr(board, n, bitgen, pol, yardstick, dice=dice,
                                            opening=op, prefilter=VR_PREFILTER, qrolls=q,
                                            stop=stop, **stops)
            return eng.rollout_block(board, n, bitgen, pol, dice=dice, opening=op, qrolls=q,
                                     stop=stop)
        key = keys[q[:, 0]]
        counts = np.zeros((1 + nkeys, 6), dtype=np.int64)
        if scored:
            per_game = np.empty((n, 6))
            c, sums = eng.rollout_block_vr(board, n, bitgen, pol, yardstick, opening=op,
                                           prefilter=VR_PREFILTER, qrolls=q, per_game=per_game,
                                           stop=stop, **stops)
        else:
            cls = np.empty(n, dtype=np.int8)
            c = eng.rollout_block(board, n, bitgen, pol, opening=op, qrolls=q, classes=cls,
                                  stop=stop)
            per_game = INDICATORS6[cls]
            sums = np.array([per_game.sum(axis=0), (per_game * per_game).sum(axis=0)])
        counts[0] = c
        fs = np.zeros((1 + nkeys, 2, 6))
        fs[0] = sums
        for j in range(nkeys):          # per first roll: games (column 0) and sums
            rows = per_game[key == j]
            counts[1 + j, 0] = len(rows)
            fs[1 + j, 0] = rows.sum(axis=0)
            fs[1 + j, 1] = (rows * rows).sum(axis=0)
        return counts, fs

    block.keeps_partial = True   # a cut pure-Python block hands over its finished games
    return block


def rollout(position, games: int, *, settings: RolloutSettings | None = None,
            runner: Runner | None = None, **overrides) -> RolloutResult:
    """Roll a position out: play ``games`` games to the end and count the results.

    Parameters
    ----------
    position : Position, str or array_like
        The position, with the player on roll about to roll: a :class:`Position`,
        ``"start"``, a GNU Backgammon Position ID, an XGID or a ``(2, 25)`` board.
    games : int
        Number of games, at least 1.
    settings : RolloutSettings, optional
        Everything the numbers depend on besides the position and ``games``
        (:class:`fastbg.rollouts.settings.RolloutSettings`; default: its defaults).
    runner : Runner, optional
        Where and how the games are played (:class:`fastbg.rollouts.runner.Runner`:
        engine, threads, Dask, store, callbacks; default: its defaults). Its ``on_row``
        is refused (a ValueError): a rollout has no rows; ``on_block`` tells of its blocks.
    **overrides
        Any field of the settings or of the runner, by name (below), replacing the one of
        ``settings`` or ``runner``: ``rollout(pos, 1000, seed=7, workers=2)``. An unknown
        name is a TypeError.

    Other Parameters
    ----------------
    seed : int, optional
        Root seed. ``None`` draws fresh entropy, which is reported in the result.
    workers : int, optional
        Threads (the compiled engine releases the GIL). ``None`` means one per
        CPU; never more than the number of blocks; the pure-Python engine always
        runs in the calling thread. The numbers do not depend on it. With ``dask=True``:
        the local cluster's worker processes.
    policy : {"nn", "pubeval", "random", "nn-1ply", "nn1"}
        How both sides choose their plays: the shipped evaluator at 0 ply (default;
        :mod:`fastbg.nn`: contact, crashed and race nets by position class, the bear-off
        database in bear-offs), Tesauro's pubeval (1993, much faster and much weaker), a
        uniform choice among the distinct legal plays, the evaluator at 1 ply (about
        100x slower than ``nn``), or ``nn1``, the first network (one 196-input net).
    engine : {"cython", "python"}
        The compiled core or the pure-Python reference; same numbers.
    dice : tuple of two int, optional
        Fix the first roll of every game. An XGID (or GNU ID pair) with the dice
        rolled fixes them the same way; giving a different ``dice`` too is an error.
    opening : bool, optional
        Begin each game with the opening roll (each side rolls one die, ties
        re-rolled, the higher die plays both, so the first play is never a
        double; the opponent moves first when its die is higher). ``None``
        (default) means: yes for the starting position without ``dice``, no
        otherwise.
    vr : bool, optional
        Variance reduction (luck adjustment, as GNU Backgammon and eXtreme Gammon do it):
        each roll's luck, the ``nn`` evaluator's value (0 ply, bear-off database in
        bear-offs) after its best play for the roll that came (among pubeval's
        :data:`VR_PREFILTER` best) minus its mean over the rolls that could have come, is
        subtracted from the game's result. Whatever ``policy`` plays, the same games are
        played (``counts`` are equal with and without it) and the estimates stay unbiased;
        their standard errors shrink about 4.5x in contact and 20x in races, for about 7x
        the time per game. ``None`` (default): on for the nn policies, off for pubeval and
        random (:data:`DEFAULT_VR`, measured by experiments/bench_vr.py).
    quasi_random : bool, default True
        Quasi-random dice (GNU Backgammon's rotation): the first two random rolls of the
        games are stratified so that every 36 games (30 from the opening roll) hold each
        first roll once and every 1,296 (1,080) each pair of first and second rolls once
        (:func:`fastbg.rollouts.blocks.stratified_rolls`); later rolls are drawn. Unbiased;
        the standard errors reported are those of independent games, so they are
        conservative.
    until_se : float, optional
        Stop rule: stop at the first block boundary where the equity's standard error is at
        most ``until_se`` (and at least ``min_games`` games are in); ``games`` is then the
        most to play. Blocks are merged in block order, so where the run stops depends only
        on the seed and the settings.
    min_games : int, optional
        With ``until_se``: never stop before this many games (default: one block).
    by_first_roll : bool, default False
        Also break the estimates down by the first roll (the 21 rolls; from the opening roll,
        its 15 rolls for each side): ``RolloutResult.by_first_roll``. Needs quasi-random dice
        and a first roll that is not fixed.
    truncate : int, optional
        Truncation: stop each game after this many half-moves (plays of either side, the
        first included) and score it by the ``nn`` evaluator's 0-ply probabilities of the
        position before the next roll. Faster and less noisy, at the price of the
        evaluator's bias at the truncation point. ``None`` (default): play to the end.
    truncate_bearoff : bool, default False
        Stop a game when it reaches the two-sided bear-off database (both sides with 1 to 6
        checkers left, all home; :func:`fastbg._core.bearoffdb.two_sided`) and score it
        exactly: the winning chance with each side playing to maximise it.
    ply : int, default 0
        Checker play at this ply (0..3, GNU Backgammon's plies, :mod:`fastbg.spec.nply`): 0,
        ``policy`` as it plays; n >= 1, every decision ranked by the ``nn`` evaluator at n
        ply through ``move_filter`` (``policy`` must be ``"nn"``). In contact about 40
        games a second on a core at 1 ply and one or two at 2 ply
        (experiments/bench_nply_rollout.py).
    move_filter : str, dict or fastbg.spec.nply.MoveFilter, optional
        Which plays the n-ply rankings (checker play and luck) value deeper: ``"normal"``
        (the default once ``ply`` or ``luck_ply`` is 1 or more; GNU Backgammon's Normal),
        ``"large"``, ``"all"`` or a filter of one's own; an error at 0 ply.
    luck_ply : int, default 0
        The ply at which variance reduction values each roll's luck: 0, the ``nn`` at 0 ply
        (the cheap yardstick); n >= 1, each roll's best play by the n-ply ranking through
        ``move_filter``, valued at n ply. Any yardstick keeps the estimate unbiased; a
        deeper one removes more of the noise, for about 21 n-ply rankings a half-move (at
        1 ply some 30 times the time of the games: experiments/bench_nply_rollout.py).
    truncate_ply : int, default 0
        With ``truncate``: score the truncated games at this ply
        (:func:`fastbg.evaluate` at that ply of the position before the next roll).
    progress : callable, optional
        Called with the number of games of each finished block.
    on_interrupt : callable, optional
        Called once when Ctrl-C stops the run, with the number of blocks still running
        (the run waits for them and keeps their games).
    store : ResultsStore or str or Path, optional
        Keep the run in this results store (:class:`fastbg.rollouts.store.ResultsStore`, or
        its file): each block as it is merged, so an interrupted run (Ctrl-C, ``kill -9``, a
        crash) can be resumed and a finished one extended.
    run_id : int, optional
        With ``store``: continue that stored run instead of starting one. Every argument
        that determines the numbers must be the run's own (ValueError otherwise), except
        ``games``, which may be more (extend); its stored blocks are used and the run plays
        from the first missing one, so the result equals that of one uninterrupted run of
        ``games`` games.
    table_run : int, optional
        With ``store``: a new run is stored as a row of this table run
        (:mod:`fastbg.research`).
    on_block : callable, optional
        ``on_block(k, games, counts, sums)``, called as each block is merged, in block order
        (not for blocks read from the store): block ``k``'s games, its integer counts
        (shape (6,), or (22, 6) with ``by_first_roll``) and its float sums (None for a plain
        rollout); for a convergence plot (:func:`fastbg.research.convergence`).
    dask : bool or str or distributed.Client, optional
        Play the blocks on a Dask cluster (:mod:`fastbg.rollouts.cluster`; needs the
        ``[dask]`` extra): ``True`` starts a ``LocalCluster`` of ``workers`` worker
        processes (one thread each) for the run, a scheduler address
        (``"tcp://HOST:PORT"``) uses that cluster, a ``distributed.Client`` its cluster.
        The same numbers as threads; a worker lost in the run costs only its blocks, which
        are played again. ``seconds`` does not count starting a local cluster.

    Returns
    -------
    RolloutResult
        Probabilities in [0, 1], cubeless equity in points per unit cube, and
        their standard errors. A stored run records ``position``, ``games`` and the resolved
        settings' :meth:`~fastbg.rollouts.settings.RolloutSettings.as_dict` as its request,
        so :func:`fastbg.resume` needs only the store and the run id.

    Raises
    ------
    ValueError
        For a bad position, a game already over or one where neither side can ever
        move (:meth:`fastbg.Position.check_playable`, before any game), ``games < 1``, bad dice,
        an unknown policy or engine, a bad seed or worker count (any bad setting, named),
        an ``on_row`` (tables only).
    TypeError
        For a keyword that is no setting and no field of the runner.
    ImportError
        For ``engine="cython"`` when the compiled core is not built; with ``dask`` when
        dask.distributed is not installed.

    Notes
    -----
    **Reproducibility.** Games run in blocks of ``fastbg.rollouts.blocks.BLOCK_SIZE``
    (1,000; 100 for ``nn-1ply`` and at 1 ply, 10 at 2 ply,
    :func:`fastbg.rollouts.blocks.block_size_for`);
    block ``k`` draws its dice from
    ``PCG64DXSM(SeedSequence(seed, spawn_key=(k,)))`` (the stratified first two rolls of
    quasi-random dice from ``SeedSequence(seed, spawn_key=(QR_KEY, group))``). The same fastbg version,
    seed and options give the same numbers for any ``workers``, either engine, and on a Dask
    cluster of any size (blocks are merged in block order).
    If the run is interrupted (Ctrl-C), the result covers the blocks that
    finished and has ``interrupted=True``. With ``vr`` the float sums of the blocks are
    added exactly (as fractions), so they too do not depend on ``workers``.
    """
    settings, runner = configure(RolloutSettings, settings, runner, overrides, "rollout")
    pos, rolled = position_and_roll(position)   # an XGID or ID pair may hold the roll
    pos.check_playable()   # before any game: over, or nobody can ever move
    games = check_games(games)
    st = settings.resolve(bool(np.array_equal(pos.board, START_BOARD)), rolled)
    st.check_games(games)
    block_size = block_size_for(st.policy, st.depth)
    plan = RunPlan(kind="rollout", request=dict(position=pos.to_position_id(), games=games,
                                                 **st.as_dict()),
                   settings=recorded_settings(st, games, block_size, runner.engine),
                   block_size=block_size, counts_shape=counts_shape(st.opening, st.by_first_roll))
    block = BlockRecipe(_cubeless_block, dict(
        settings=st.as_dict(), engine=runner.engine,
        board=np.ascontiguousarray(pos.board, dtype=np.int8), block_size=block_size))
    until = stop_rule(st.until_se, st.min_games, st.by_first_roll, lambda counts, sums, n: (
        vr_statistics(sums, n) if st.scored else outcome_statistics(counts))[1]["equity"])
    played = play_stored(plan, runner, pos.board, games, st.seed, block, until)
    result = _result(pos, st, runner.engine, played, plan)
    if played.stored is not None and not played.stored.finish(played.run.interrupted,
                                                              _summary(result)):
        result.run_id = None       # stopped before its first block: not kept
    return result


def recorded_settings(st: RolloutSettings, games: int, block_size: int, engine: str) -> dict:
    """The settings a cubeless rollout's result carries and its store records
    (:func:`fastbg.rollouts.settings.rollout_settings` of resolved settings ``st``)."""
    return rollout_settings(
        policy=st.policy, seed=st.seed, games=int(games), block_size=block_size, vr=st.vr,
        vr_prefilter=VR_PREFILTER if st.vr else None,
        dice_method=("quasi-random (first two rolls stratified)" if st.quasi_random
                     else "pseudo-random"),
        stop_rule=None if st.until_se is None else {"until_se": st.until_se,
                                                     "min_games": st.min_games},
        truncation=st.truncate, truncate_bearoff=st.truncate_bearoff, ply=st.ply,
        move_filter=st.move_filter, luck_ply=st.luck_ply, truncate_ply=st.truncate_ply,
        first_roll="opening" if st.opening else (tuple(st.dice) if st.dice else "rolled"),
        engine=engine)


def _breakdown(board, st: RolloutSettings, counts, sums) -> list[dict]:
    """The rows of a breakdown by first roll (``RolloutResult.by_first_roll``) from the
    run's counts and sums (their rows ``1 + j``; row 0 holds the totals)."""
    labels = first_roll_keys(st.opening)[1]
    if sums is None:
        sums = np.zeros((1 + len(labels), 2, 6))
    rows = []
    back = _first_roll_luck(board, st.opening, labels) if st.vr else None
    for j, (roll, who) in enumerate(labels):
        nj = int(counts[1 + j, 0])
        e, sj = vr_statistics(sums[1 + j], nj)
        if back is not None and nj:
            # the games of one first roll had that roll's luck taken off: put it back
            # (on the unclipped means), so the row is the equity given that first roll
            raw = sums[1 + j, 0] / nj
            d = back[j]
            p5 = [float(raw[i]) + d[i] for i in range(5)]
            e = dict(zip(PROBABILITY_KEYS, (min(1.0, max(0.0, x)) for x in p5)))
            e["equity"] = float(raw[5]) + (2 * d[0] + (d[1] - d[3]) + (d[2] - d[4]))
        row = {"roll": roll}
        if who is not None:
            row["first"] = who
        row.update(games=nj, **{k: e[k] for k in (*PROBABILITY_KEYS, "equity")},
                   stderr={k: sj[k] for k in (*PROBABILITY_KEYS, "equity")})
        rows.append(row)
    return rows


def _result(pos, st: RolloutSettings, engine: str, played: PlayedRun,
            plan: RunPlan) -> RolloutResult:
    """The :class:`RolloutResult` of a played run."""
    run = played.run
    counts, sums, breakdown = run.counts, run.sums, None
    if st.by_first_roll:
        breakdown = _breakdown(pos.board, st, counts, sums)
        counts, sums = counts[0], None if sums is None else sums[0]
    if st.scored:
        est, se = vr_statistics(sums if sums is not None else np.zeros((2, 6)), run.games)
    else:
        est, se = outcome_statistics(counts)
    games = plan.request["games"]
    return RolloutResult(
        **{k: est[k] for k in PROBABILITY_KEYS}, equity=est["equity"], stderr=se,
        counts=counts, games=run.games, seed=st.seed, engine=engine, policy=st.policy,
        position_id=pos.to_position_id(), dice=st.dice, opening=st.opening,
        seconds=played.seconds, interrupted=run.interrupted, workers=played.workers,
        games_requested=games, vr=st.vr, settings=plan.settings, by_first_roll=breakdown,
        truncated=int(run.games - int(np.asarray(counts).sum())),
        run_id=None if played.stored is None else played.stored.run_id,
        stored_games=played.stored_games, dask=played.address)


def _summary(res: RolloutResult) -> dict:
    """What a store keeps of a finished run's result (``fastbg runs`` lists it)."""
    return {"games": res.games, **{k: getattr(res, k) for k in (*PROBABILITY_KEYS, "equity")},
            "stderr": dict(res.stderr), "interrupted": res.interrupted}
