"""Monte Carlo rollouts: cubeless win, gammon and backgammon probabilities."""
from __future__ import annotations

import time
from statistics import NormalDist
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..engine import ENGINES
from ..formats.dice import parse_dice
from ..game.outcomes import OUTCOME_INDICATORS, PROBABILITY_KEYS
from ..game.parse import position_and_roll
from ..reference.board import START_BOARD
from ..reference.policies import POLICIES as _ENGINE_POLICIES
from .blocks import block_size_for, check_games, n_blocks, resolve_workers, run_blocks

__all__ = ["rollout", "RolloutResult", "POLICIES", "DEFAULT_POLICY", "outcome_statistics",
           "normal_quantile", "wilson_interval"]

#: Policies available in both engines (their own list, :data:`fastbg.reference.policies.POLICIES`).
POLICIES = _ENGINE_POLICIES

#: The policy of a rollout unless one is named: the shipped evaluator (contact and race nets,
#: fastbg/data/nn/nn2.json), the strongest 0-ply player, so its rollouts are the least biased.
DEFAULT_POLICY = "nn"

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

    @property
    def lose(self) -> float:
        """Probability of losing, ``1 - win``."""
        return 1.0 - self.win

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

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
            For a probability, Wilson's score interval of its count in the games played
            (:func:`wilson_interval`, always inside [0, 1]); for the equity, the normal
            approximation ``equity -/+ z * stderr`` with ``z`` the normal quantile of
            ``(1 + level) / 2`` (:func:`normal_quantile`).
        """
        if not 0 < level < 1:
            raise ValueError(f"confidence level must be in (0, 1), got {level}")
        if key != "equity" and key not in PROBABILITY_KEYS:
            raise ValueError(f"unknown estimate {key!r}")
        if key != "equity":
            k = int(OUTCOME_INDICATORS[PROBABILITY_KEYS.index(key)] @ np.asarray(self.counts))
            return wilson_interval(k, int(self.games), level)
        z = normal_quantile((1 + level) / 2)
        return self.equity - z * self.stderr["equity"], self.equity + z * self.stderr["equity"]

    def to_dict(self) -> dict:
        """JSON-ready dict: the five probabilities, ``equity``, ``stderr`` (same keys),
        ``games``, ``seed``, ``engine``, ``policy``, ``seconds``,
        ``games_per_second``, ``position_id``, ``dice``, ``opening``, ``workers``,
        ``counts`` and ``interrupted``."""
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
        )
        return d


def _check_dice(dice) -> tuple[int, int] | None:
    return None if dice is None else parse_dice(dice)


def _check_seed(seed) -> int:
    if seed is None:
        return int(np.random.SeedSequence().entropy)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def rollout(
    position,
    games: int,
    seed: int | None = None,
    workers: int | None = None,
    policy: str = DEFAULT_POLICY,
    engine: str = "cython",
    dice=None,
    *,
    opening: bool | None = None,
    progress: Callable[[int], None] | None = None,
    on_interrupt: Callable[[int], None] | None = None,
) -> RolloutResult:
    """Roll a position out: play ``games`` games to the end and count the results.

    Parameters
    ----------
    position : Position, str or array_like
        The position, with the player on roll about to roll: a :class:`Position`,
        ``"start"``, a GNU Backgammon Position ID, an XGID or a ``(2, 25)`` board.
    games : int
        Number of games, at least 1.
    seed : int, optional
        Root seed. ``None`` draws fresh entropy, which is reported in the result.
    workers : int, optional
        Threads (the compiled engine releases the GIL). ``None`` means one per
        CPU; never more than the number of blocks; the pure-Python engine always
        runs in the calling thread. The numbers do not depend on it.
    policy : {"nn", "pubeval", "random", "nn-1ply", "nn1"}
        How both sides choose their plays: the shipped evaluator at 0 ply (default;
        :mod:`fastbg.nn`: a contact net and a race net by position class, the bear-off
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
    progress : callable, optional
        Called with the number of games of each finished block.
    on_interrupt : callable, optional
        Called once when Ctrl-C stops the run, with the number of blocks still running
        (the run waits for them and keeps their games).

    Returns
    -------
    RolloutResult
        Probabilities in [0, 1], cubeless equity in points per unit cube, and
        their standard errors.

    Raises
    ------
    ValueError
        For a bad position, a game already over, ``games < 1``, bad dice,
        an unknown policy or engine, a bad seed or worker count.
    ImportError
        For ``engine="cython"`` when the compiled core is not built.

    Notes
    -----
    **Reproducibility.** Games run in blocks of ``fastbg.rollouts.blocks.BLOCK_SIZE``
    (1,000; 100 for ``nn-1ply``, :func:`fastbg.rollouts.blocks.block_size_for`);
    block ``k`` draws its dice from
    ``PCG64DXSM(SeedSequence(seed, spawn_key=(k,)))``. The same fastbg version,
    seed and options give the same numbers for any ``workers`` and either engine.
    If the run is interrupted (Ctrl-C), the result covers the blocks that
    finished and has ``interrupted=True``.
    """
    pos, rolled = position_and_roll(position)   # an XGID or ID pair may hold the roll
    if pos.game_over:
        raise ValueError("the game is over in this position: a side has borne off all 15 checkers")
    games = check_games(games)
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}: choose one of {', '.join(POLICIES)}")
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}: choose one of {', '.join(ENGINES)}")
    dice = _check_dice(dice)
    if rolled is not None:
        if dice is None:
            dice = rolled
        elif sorted(dice) != sorted(rolled):
            raise ValueError(f"the position has {rolled[0]}-{rolled[1]} rolled but dice is "
                             f"{dice[0]}-{dice[1]}: give one roll (or the same)")
    entropy = _check_seed(seed)
    # Threads actually used: never more than there are blocks, and one for the
    # pure-Python engine (it holds the GIL); the numbers do not depend on it.
    nworkers = resolve_workers(workers)
    block_size = block_size_for(policy)
    nworkers = 1 if engine == "python" else min(nworkers, n_blocks(int(games), block_size))
    if opening is None:
        opening = dice is None and bool(np.array_equal(pos.board, START_BOARD))
    elif not isinstance(opening, (bool, np.bool_)):
        raise ValueError(f"opening must be True, False or None, got {opening!r}")
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a callable taking a number of games, got {progress!r}")
    if opening and dice is not None:
        raise ValueError("choose either a fixed first roll (dice) or the opening roll, not both")

    t0 = time.perf_counter()
    run = run_blocks(
        pos.board, int(games), entropy, engine=engine, policy=policy, dice=dice,
        opening=bool(opening), workers=nworkers, progress=progress, block_size=block_size,
        on_interrupt=on_interrupt,
    )
    seconds = time.perf_counter() - t0
    est, se = outcome_statistics(run.counts)
    return RolloutResult(
        **{k: est[k] for k in PROBABILITY_KEYS},
        equity=est["equity"],
        stderr=se,
        counts=run.counts,
        games=run.games,
        seed=entropy,
        engine=engine,
        policy=policy,
        position_id=pos.to_position_id(),
        dice=dice,
        opening=bool(opening),
        seconds=seconds,
        interrupted=run.interrupted,
        workers=nworkers,
        games_requested=int(games),
    )
