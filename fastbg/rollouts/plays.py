"""Which play is best? Candidate plays ranked by the evaluator, and rolled out side by side.

:func:`rank_plays` values every legal play of a roll by the ``nn`` evaluator (0 or 1 ply);
:func:`rollout_plays` rolls out the candidates with **common random numbers**: game ``j`` of
block ``k`` draws its dice from its own stream, the same for every candidate, so the same
rolls follow each play and the difference between two plays is estimated far more
precisely than either equity. Each play's difference from the best carries the standard
error of the paired difference (from the per-game differences), and the probability that it
is best comes from the joint normal distribution of the estimates.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ..engine import get_engine
from ..formats.dice import parse_dice
from ..game.outcomes import PROBABILITY_KEYS
from ..game.parse import position_and_roll
from ..game.plays import find_play, legal_plays
from .blocks import (BlockRecipe, abandoned, block_size_for, check_games, check_policy_engine,
                     n_blocks, resolve_workers, run_blocks, stratified_rolls)
from .cluster import connect
from .cubeless import INDICATORS6, VR_PREFILTER, stored_counts_shape, vr_statistics
from .settings import DEFAULT_POLICY, check_flag, draw_seed, resolve_vr, rollout_settings
from .store import open_run

__all__ = ["rank_plays", "rollout_plays", "RankedPlay", "PlaysRolloutResult", "DEFAULT_WITHIN",
           "DEFAULT_MAX_PLAYS", "MIN_PLAYS", "check_plays_options"]

#: Candidates by default: the plays within this much equity of the best at 0 ply ...
DEFAULT_WITHIN = 0.10
#: ... and at most this many.
DEFAULT_MAX_PLAYS = 8
#: ... and at least this many (the best ones), when there are as many plays and
#: ``max_plays`` allows: a rollout of one play alone cannot say which play is best.
MIN_PLAYS = 2
#: Games per block of a candidate rollout (9 x 36, so that quasi-random dice are balanced
#: in every block; slower policies use their smaller :func:`block_size_for`).
PLAYS_BLOCK_SIZE = 324
#: With pruning, the candidates are reconsidered after the minimum and then after every this
#: many blocks (a fixed number, not the worker count, so where plays are dropped depends only
#: on the seed).
PRUNE_STAGE = 2

_KEYS6 = (*PROBABILITY_KEYS, "equity")
_FLIP_CLASS = [3, 4, 5, 0, 1, 2]


def _to_mover(x: np.ndarray) -> np.ndarray:
    """Per-game values of the opponent on roll (..., 6) seen by the player who made the play."""
    out = np.empty_like(x)
    out[..., 0] = 1.0 - x[..., 0]
    out[..., 1] = x[..., 3]
    out[..., 2] = x[..., 4]
    out[..., 3] = x[..., 1]
    out[..., 4] = x[..., 2]
    out[..., 5] = -x[..., 5]
    return out


@dataclass
class RankedPlay:
    """A legal play and the evaluator's verdict on it, from the mover's point of view.

    Attributes
    ----------
    move : str
        Notation (``"24/18 13/11"``).
    position_id : str
        The position after the play, the opponent on roll.
    board : numpy.ndarray of int8, shape (2, 25)
        The position after the play, mover in row 0 (not swapped).
    probabilities : dict
        The five probabilities and ``equity`` (cubeless) after the play, mover's view.
    over : bool
        The play bears off the last checker (its result is certain).
    """

    move: str
    position_id: str
    board: np.ndarray
    probabilities: dict
    over: bool = False

    @property
    def equity(self) -> float:
        return self.probabilities["equity"]


def _exact_class(board: np.ndarray) -> int:
    """The outcome class (mover's view) of a play that ends the game."""
    return get_engine("python").board.outcome(board) - 1


def rank_plays(position, dice, ply: int = 0, engine: str = "cython") -> list[RankedPlay]:
    """Every legal play of a roll, valued by the ``nn`` evaluator, best first.

    Parameters
    ----------
    position : Position or str
        The position before the roll (an XGID may hold the roll instead of ``dice``).
    dice : str or tuple of int, optional when the position holds the roll
    ply : {0, 1}
        0: the evaluator's probabilities of each resulting position; 1: their average over
        the opponent's 21 rolls after its best 0-ply reply.
    engine : {"cython", "python"}

    Returns
    -------
    list of RankedPlay
        Sorted by equity, highest first (ties in canonical order). Empty when the roll has
        no legal play.

    Raises
    ------
    ValueError
        For a bad position or dice, a finished game, or ``ply`` not 0 or 1.
    """
    if ply not in (0, 1):
        raise ValueError(f"ply must be 0 or 1, got {ply!r}")
    pos, rolled = position_and_roll(position)
    dice = _dice(dice, rolled)
    plays = legal_plays(pos, dice, engine=engine)
    ev = get_engine(engine).evaluator.EvalPolicy()
    out = []
    live = [i for i, p in enumerate(plays) if p.board[0].any()]
    probs = {}
    if live:
        swapped = np.ascontiguousarray(np.array([plays[i].board[::-1] for i in live], dtype=np.int8))
        q = np.asarray(ev.lookahead(swapped, plies=ply)).reshape(-1, 5)
        for i, r in zip(live, q):
            m = np.array([1.0 - r[0], r[3], r[4], r[1], r[2]])
            probs[i] = m
    for i, p in enumerate(plays):
        if i in probs:
            m = probs[i]
            eq = (2.0 * m[0] - 1.0) + (m[1] - m[3]) + (m[2] - m[4])
            d = dict(zip(PROBABILITY_KEYS, (float(x) for x in m)), equity=float(eq))
            over = False
        else:
            x = INDICATORS6[_exact_class(p.board)]
            d = dict(zip(_KEYS6, (float(v) for v in x)))
            over = True
        out.append(RankedPlay(p.move, p.position_id, p.board, d, over))
    order = sorted(range(len(out)), key=lambda i: -out[i].equity)   # stable: canonical ties
    return [out[i] for i in order]


def _dice(dice, rolled):
    if dice is None:
        if rolled is None:
            raise ValueError("give the roll: the position has no dice rolled")
        return tuple(rolled)
    d = parse_dice(dice)
    if rolled is not None and sorted(d) != sorted(rolled):
        raise ValueError(f"the position has {rolled[0]}-{rolled[1]} rolled but dice is "
                         f"{d[0]}-{d[1]}: give one roll (or the same)")
    return d


@dataclass
class PlaysRolloutResult:
    """Candidate plays rolled out with the same dice, best first.

    Attributes
    ----------
    position_id : str
    dice : tuple of int
    plays : list of dict
        Per play: ``move``, ``position_id`` (after the play), the five probabilities and
        ``equity`` (cubeless, mover's view), ``stderr`` (same keys), ``diff`` (equity minus
        the best play's), ``diff_stderr`` (standard error of that paired difference),
        ``p_best`` (probability of being the best play), ``eval_equity`` (the 0- or 1-ply
        equity that chose it as a candidate).
    games : int
        Games per play.
    seed : int
    settings : dict
    seconds : float
    interrupted : bool
    workers : int
    run_id : int or None
        With a ``store``: the run's id in it.
    stored_games : int
        Games per play read from the store rather than played now.
    dask : str or None
        The Dask scheduler's address when the blocks ran on a cluster.
    """

    position_id: str
    dice: tuple
    plays: list
    games: int
    seed: int
    settings: dict = field(default_factory=dict)
    seconds: float = 0.0
    interrupted: bool = False
    workers: int = 1
    run_id: int | None = None
    stored_games: int = 0
    dask: str | None = None

    def to_dict(self) -> dict:
        """JSON-ready: ``position_id``, ``dice``, ``plays``, ``games``, ``seed``,
        ``seconds``, ``interrupted``, ``workers``, ``settings`` (and ``run_id`` and
        ``stored_games`` of a stored run, ``dask`` of a run on a cluster)."""
        d = {"position_id": self.position_id, "dice": list(self.dice),
             "plays": [dict(p) for p in self.plays], "games": self.games, "seed": self.seed,
             "seconds": self.seconds, "interrupted": self.interrupted,
             "workers": self.workers, "settings": dict(self.settings)}
        if self.run_id is not None:
            d.update(run_id=self.run_id, stored_games=self.stored_games)
        if self.dask is not None:
            d["dask"] = self.dask
        return d


def check_plays_options(games, policy: str, engine: str, *, vr=None, quasi_random=True,
                        top=None, ply=0, within=DEFAULT_WITHIN, max_plays=DEFAULT_MAX_PLAYS,
                        min_plays=MIN_PLAYS, prune_se=None, min_games=None) -> tuple:
    """The options of :func:`rollout_plays` checked (ValueError naming the first bad one),
    before anything is played or stored: ``(games, vr, quasi_random, prune_se, min_games)``
    normalised (``vr`` None resolved for the policy)."""
    games = check_games(games)
    check_policy_engine(policy, engine)
    vr = resolve_vr(vr, policy)
    quasi_random = check_flag("quasi_random", quasi_random)
    if ply not in (0, 1):
        raise ValueError(f"ply must be 0 or 1, got {ply!r}")
    for name, value in (("top", top), ("max_plays", max_plays), ("min_plays", min_plays)):
        if value is not None and (isinstance(value, bool)
                                  or not isinstance(value, (int, np.integer)) or value < 1):
            raise ValueError(f"{name} must be a positive integer, got {value!r}")
    if isinstance(within, bool) or not isinstance(within, (int, float, np.floating)) \
            or not within >= 0:
        raise ValueError(f"within must be a non-negative equity, got {within!r}")
    if prune_se is not None:
        if isinstance(prune_se, bool) or not isinstance(prune_se, (int, float, np.floating)) \
                or not 0 < prune_se < float("inf"):
            raise ValueError(f"prune_se must be a positive, finite number of standard errors, "
                             f"got {prune_se!r}")
        if min_games is not None:
            min_games = check_games(min_games)
            if min_games > games:
                raise ValueError(f"min_games ({min_games:,}) is more than the games asked for ({games:,})")
    elif min_games is not None:
        raise ValueError("min_games is for pruning: give prune_se too")
    return games, vr, quasi_random, prune_se, min_games


def _within_count(ranked, within) -> int:
    """How many of the ranked plays are within ``within`` equity of the best."""
    return sum(r.equity >= ranked[0].equity - within for r in ranked)


def _candidates(ranked, top, plays, position, dice, engine, n_within, max_plays, min_plays):
    if plays:
        chosen, seen = [], {}
        by_board = {r.board.tobytes(): r for r in ranked}
        for text in plays:
            p = find_play(position, dice, text, engine=engine)
            key = p.board.tobytes()
            if key in seen:
                raise ValueError(f"the play {text!r} is given twice (the same position as "
                                 f"{seen[key]!r}): give each candidate once")
            seen[key] = text
            chosen.append(by_board[key])
        return chosen
    if top is not None:
        return ranked[:int(top)]
    # (ranked best first: the plays within the window are its first ones)
    return ranked[:min(max(n_within, int(min_plays)), max_plays)]


def _plays_block(*, engine: str, policy: str, vr: bool, quasi_random: bool, entropy: int,
                 block_size: int, starts: list, over: list, active: list, offset: int):
    """The block function of one stage of :func:`rollout_plays` (a
    :class:`~fastbg.rollouts.blocks.BlockRecipe`'s factory): the candidates ``active`` (of
    ``starts``, the positions after each play, the opponent on roll; ``over[g]`` the outcome
    class of a play that ends the game, else None), its block ``k0`` being the run's block
    ``k0 + offset``."""
    eng = get_engine(engine)
    yardstick = eng.evaluator.EvalPolicy() if vr else None

    def block(k0, n, _bitgen):
        k = k0 + offset
        sel = list(active)
        x = np.empty((len(sel), n, 6))
        counts = np.zeros((len(sel), 6), dtype=np.int64)
        pol = eng.make_policy(policy)
        # Game j of block k draws its dice from its own stream, SeedSequence(seed,
        # spawn_key=(k, j)), the same for every candidate: games that last longer after one
        # play than after another do not shift the dice of the games after them.
        streams = np.random.SeedSequence(entropy, spawn_key=(k,)).spawn(n)
        q = stratified_rolls(entropy, k * block_size, n, False) if quasi_random else None
        buf = np.empty((1, 6))
        cls = np.empty(1, dtype=np.int8)
        for c, g in enumerate(sel):     # c: the row of this block, g: the candidate
            if over[g] is not None:
                cls_over = over[g]
                x[c] = INDICATORS6[cls_over]
                counts[c, cls_over] = n
                continue
            for j in range(n):
                if abandoned():        # a second Ctrl-C: play_block discards the block
                    return counts, None
                bitgen = np.random.PCG64DXSM(streams[j])
                if vr:
                    cnt, _ = eng.rollout_block_vr(starts[g], 1, bitgen, pol, yardstick,
                                                  prefilter=VR_PREFILTER, per_game=buf,
                                                  qrolls=None if q is None else q[j:j + 1])
                    x[c, j] = _to_mover(buf[0])
                    counts[c] += np.asarray(cnt)[_FLIP_CLASS]
                else:
                    eng.rollout_block(starts[g], 1, bitgen, pol, classes=cls,
                                      qrolls=None if q is None else q[j:j + 1])
                    x[c, j] = _to_mover(INDICATORS6[cls[0]])
                    counts[c, _FLIP_CLASS[cls[0]]] += 1
        s = x.sum(axis=1)
        ss = (x * x).sum(axis=1)
        e = x[:, :, 5]
        m = len(sel)
        cross = np.array([[(e[a] * e[b]).sum() for b in range(m)] for a in range(m)])
        return counts, np.concatenate([s.ravel(), ss.ravel(), cross.ravel()])

    return block


def rollout_plays(
    position,
    dice=None,
    games: int = 1296,
    seed: int | None = None,
    workers: int | None = None,
    policy: str = DEFAULT_POLICY,
    engine: str = "cython",
    *,
    top: int | None = None,
    plays: list[str] | None = None,
    ply: int = 0,
    within: float = DEFAULT_WITHIN,
    max_plays: int = DEFAULT_MAX_PLAYS,
    min_plays: int = MIN_PLAYS,
    vr: bool | None = None,
    quasi_random: bool = True,
    prune_se: float | None = None,
    min_games: int | None = None,
    progress: Callable[[int], None] | None = None,
    on_interrupt: Callable[[int], None] | None = None,
    store=None,
    run_id: int | None = None,
    table_run: int | None = None,
    dask=None,
) -> PlaysRolloutResult:
    """Roll out the candidate plays of a roll with common random numbers.

    Parameters
    ----------
    position : Position or str
        The position before the roll (an XGID may hold the roll).
    dice : str or tuple of int, optional
        The roll to play (required unless the position holds it).
    games : int
        Games per candidate.
    seed, workers, policy, engine
        As :func:`fastbg.rollout`; after each play the opponent rolls, with ordinary dice.
    top : int, optional
        The ``top`` best plays at ``ply`` instead of the default choice.
    plays : list of str, optional
        These plays (notation, any order of moves) instead.
    ply : {0, 1}
        The evaluation that ranks the candidates.
    within, max_plays, min_plays : float, int, int
        Default candidates: the plays within ``within`` equity of the best, at most
        ``max_plays``, and at least the ``min_plays`` best (default :data:`MIN_PLAYS`, 2)
        when there are that many legal plays and ``max_plays`` allows: one play rolled out
        alone is compared with nothing. (The openings and replies tables take 1: they want
        the best play's equity.)
    vr : bool, optional
        Variance reduction, as :func:`fastbg.rollout` (default: on for the nn policies).
    quasi_random : bool, default True
        Quasi-random dice, as :func:`fastbg.rollout`: the opponent's first reply and the
        roll after it stratified over the games, the same for every candidate.
    prune_se : float, optional
        Stop rule: once ``min_games`` are in, and then after every :data:`PRUNE_STAGE` blocks
        (648 games), drop the
        plays more than ``prune_se`` standard errors of the paired difference behind the
        best; they keep the games they played (``games`` and ``pruned`` in their row). The
        stages are fixed block ranges, so the result depends only on the seed and the
        settings. ``None`` (default): every candidate plays every game.
    min_games : int, optional
        With ``prune_se``: no pruning before this many games (rounded up to whole blocks of
        :data:`PLAYS_BLOCK_SIZE` games; default :data:`PRUNE_STAGE` blocks, 648 games).
    progress, on_interrupt : callable, optional
        As :func:`fastbg.rollout`; ``progress`` counts games per candidate.
    store, run_id, table_run : optional
        As :func:`fastbg.rollout`: keep the run in a results store block by block (each
        block's counts and sums of every candidate still played), continue stored run
        ``run_id`` (same position, roll and settings; ``games`` may grow), or store a new
        run as a row of table run ``table_run``. Where pruning dropped plays is decided
        again from the stored blocks, so a resumed run ends with the numbers of one
        uninterrupted run.
    dask : bool or str or distributed.Client, optional
        Play the blocks on a Dask cluster, as :func:`fastbg.rollout`; the same numbers.

    Returns
    -------
    PlaysRolloutResult

    Raises
    ------
    ValueError
        For a bad position, dice, play, option, a roll with no legal play, a finished
        game or one where neither side can ever move (:meth:`fastbg.Position.check_playable`).

    Notes
    -----
    Game ``j`` of block ``k`` of every candidate draws its dice from its own
    ``PCG64DXSM(SeedSequence(seed, spawn_key=(k, j)))``: the same rolls follow each play
    (common random numbers), game by game. The standard error of a difference is that of the per-game
    differences; ``p_best`` is the share of 20,000 draws from the estimates' joint normal
    distribution (means and covariance of the per-game equities, a fixed draw seed) in which
    the play has the highest equity. **Reproducibility**: as :func:`fastbg.rollout`, the
    numbers depend only on the seed and the settings, not on ``workers`` nor on a Dask
    cluster.
    """
    pos, rolled = position_and_roll(position)
    pos.check_playable()   # before any game: over, or nobody can ever move
    dice = _dice(dice, rolled)
    games, vr, quasi_random, prune_se, min_games = check_plays_options(
        games, policy, engine, vr=vr, quasi_random=quasi_random, top=top, ply=ply,
        within=within, max_plays=max_plays, min_plays=min_plays, prune_se=prune_se,
        min_games=min_games)
    entropy = draw_seed(seed)
    request = dict(position=pos.to_position_id(), games=games, dice=list(dice), seed=entropy,
                   policy=policy, top=top, plays=None if plays is None else list(plays),
                   ply=ply, within=within, max_plays=max_plays, vr=vr,
                   quasi_random=quasi_random, prune_se=prune_se, min_games=min_games)
    ranked = rank_plays(pos, dice, ply=ply, engine=engine)
    if not ranked:
        raise ValueError(f"{dice[0]}-{dice[1]} has no legal play here: nothing to compare")
    n_within = _within_count(ranked, within)
    cands = _candidates(ranked, top, plays, pos, dice, engine, n_within, max_plays, min_plays)
    C = len(cands)
    block_size = min(block_size_for(policy), PLAYS_BLOCK_SIZE)
    nworkers = resolve_workers(workers)
    nworkers = 1 if engine == "python" else min(nworkers, n_blocks(games, block_size))
    get_engine(engine)
    starts = [np.ascontiguousarray(c.board[::-1]) for c in cands]
    over = [_exact_class(c.board) if c.over else None for c in cands]
    active = list(range(C))     # the candidates the blocks play (pruning shrinks it)
    offset = 0                  # the first block of the stage being run

    nblocks = n_blocks(games, block_size)
    first_stop = PRUNE_STAGE if min_games is None else max(1, -(-min_games // block_size))
    settings = rollout_settings(
        policy=policy, seed=entropy, games=games, block_size=block_size, vr=bool(vr),
        vr_prefilter=VR_PREFILTER if vr else None, first_roll="rolled", engine=engine,
        dice_method=("quasi-random (first two rolls stratified), a stream per game"
                     if quasi_random else "pseudo-random, a stream per game"),
        dice_played=list(dice), candidates_by=None if plays else f"nn {ply}-ply",
        candidates=("given" if plays
                    else f"top {top}" + (f" (all {len(ranked)} plays)" if top >= len(ranked)
                                         else "")
                    if top is not None
                    else f"within {within:g} of the best, at most {max_plays}"
                    + (f" (the {C} best: {n_within} within)" if C > n_within else "")),
        common_random_numbers=True, candidate_moves=[c.move for c in cands],
        prune=None if prune_se is None else {"prune_se": float(prune_se),
                                             "min_games": min(games, first_stop * block_size),
                                             "stage_games": PRUNE_STAGE * block_size})
    # the cluster before the store: a scheduler that does not answer leaves the store untouched
    cl = connect(dask, workers, blocks=nblocks)   # one cluster for every stage
    stored = None
    try:
        if cl is not None:
            nworkers, address = cl.threads() or nworkers, cl.address
        # (pruning shrinks the blocks' counts: their shape is checked only without it)
        stored = open_run(store, run_id, "plays", request, settings, block_size,
                          parent=table_run,
                          counts_shape=stored_counts_shape("plays", request, settings))
        done = {} if stored is None else stored.done

        t0 = time.perf_counter()   # (a local cluster's start-up is not counted)
        stages = []                 # (candidates, games, counts, sums) of each stage
        interrupted = False
        stored_games = 0
        noticed = []                # Ctrl-C in a stage's last blocks ends that stage whole

        def interrupt(running: int) -> None:
            noticed.append(running)
            if on_interrupt is not None:
                on_interrupt(running)
        while offset < nblocks and not interrupted:
            first = offset
            if prune_se is None:
                stop = nblocks
            else:
                stop = min(nblocks, first_stop if first == 0 else first + PRUNE_STAGE)
            stage_games = min(games, stop * block_size) - first * block_size
            # the stage's stored blocks, numbered from the stage's first block as its blocks are
            stage_done = {}
            for k in range(first, stop):
                if k not in done:
                    break
                stage_done[k - first] = done[k]
                stored_games += min(block_size, games - k * block_size)
            block = BlockRecipe(_plays_block, dict(
                engine=engine, policy=policy, vr=vr, quasi_random=quasi_random, entropy=entropy,
                block_size=block_size, starts=starts, over=over, active=list(active),
                offset=first))
            run = run_blocks(pos.board, stage_games, entropy, engine=engine, policy=policy,
                             workers=max(1, min(nworkers, stop - first - len(stage_done))),
                             progress=progress, block_size=block_size, block=block,
                             counts_shape=(len(active), 6), on_interrupt=interrupt,
                             done=stage_done, cluster=cl,
                             on_block=None if stored is None else
                             (lambda k, n, c, f, first=first: stored.on_block(k + first, n, c, f)))
            interrupted = run.interrupted or bool(noticed and stop < nblocks)
            if run.games:
                stages.append((list(active), run.games, run.counts, run.sums))
            offset = stop
            if prune_se is not None and run.games and offset < nblocks and len(active) > 1:
                active = _survivors(stages, float(prune_se))
        seconds = time.perf_counter() - t0
    except BaseException:          # an error, or Ctrl-C before a stage could see it
        if stored is not None:
            stored.abort()
        raise
    finally:
        if cl is not None:
            cl.close()
    n = sum(st[1] for st in stages)
    out = _staged_statistics(cands, stages, C) if n else []
    result = PlaysRolloutResult(position_id=pos.to_position_id(), dice=tuple(dice), plays=out,
                                games=n, seed=entropy, settings=settings, seconds=seconds,
                                interrupted=interrupted, workers=nworkers,
                                run_id=None if stored is None else stored.run_id,
                                stored_games=stored_games, dask=None if cl is None else address)
    if stored is not None:
        best = out[0] if out else None
        kept = stored.finish(interrupted, {
            "games": n, "interrupted": interrupted, "best": best and best["move"],
            "equity": best and best["equity"], "stderr": best and {"equity": best["stderr"]["equity"]},
            "plays": [{k: p[k] for k in ("move", "equity", "diff", "diff_stderr", "p_best")}
                      | {"se": p["stderr"]["equity"], "games": p["games"]} for p in out]})
        if not kept:
            result.run_id = None   # stopped before its first block: not kept
    return result


def _statistics(cands, sums, n, C) -> list[dict]:
    f = np.asarray(sums, dtype=np.float64)
    s = f[:C * 6].reshape(C, 6)
    ss = f[C * 6:2 * C * 6].reshape(C, 6)
    cross = f[2 * C * 6:].reshape(C, C)
    eq = s[:, 5] / n
    if n > 1:
        cov = (cross - np.outer(s[:, 5], s[:, 5]) / n) / (n - 1) / n   # of the mean equities
    else:
        cov = np.full((C, C), np.nan)
    best = int(np.argmax(eq))
    if C == 1:
        p_best = np.ones(1)
    elif n > 1:
        cov = (cov + cov.T) / 2
        draws = np.random.default_rng(0).multivariate_normal(eq, cov, size=20000, method="eigh")
        p_best = np.bincount(np.argmax(draws, axis=1), minlength=C) / len(draws)
    else:
        p_best = np.full(C, np.nan)
    rows = []
    for c, cand in enumerate(cands):
        if c == best:
            dvar = 0.0
        elif n > 1:
            dvar = max(0.0, cov[c, c] + cov[best, best] - 2 * cov[c, best])
        else:
            dvar = float("nan")
        est, se = vr_statistics(np.array([s[c], ss[c]]), n)   # probabilities kept in [0, 1]
        rows.append({"move": cand.move, "position_id": cand.position_id, **est,
                     "stderr": se,
                     "diff": float(eq[c] - eq[best]), "diff_stderr": float(np.sqrt(dvar)),
                     "p_best": float(p_best[c]), "eval_equity": cand.equity})
    rows.sort(key=lambda r: -r["equity"])
    return rows


def _stage_parts(stage):
    """A stage's candidates and its sums split: (cands, n, s (m, 6), ss (m, 6), cross (m, m))."""
    sel, n, _, sums = stage
    m = len(sel)
    f = np.asarray(sums, dtype=np.float64)
    return sel, n, f[:m * 6].reshape(m, 6), f[m * 6:2 * m * 6].reshape(m, 6), \
        f[2 * m * 6:].reshape(m, m)


def _paired(stages, a: int, b: int) -> tuple[int, float, float]:
    """Games, mean and standard error of the per-game equity difference a - b over the
    stages in which both were played."""
    n = 0
    d = dd = 0.0
    for st in stages:
        sel, ns, s, ss, cross = _stage_parts(st)
        if a in sel and b in sel:
            i, j = sel.index(a), sel.index(b)
            n += ns
            d += s[i, 5] - s[j, 5]
            dd += ss[i, 5] + ss[j, 5] - 2 * cross[i, j]
    mean = d / n if n else float("nan")
    se = float(np.sqrt(max(0.0, (dd - n * mean * mean) / (n - 1)) / n)) if n > 1 else float("nan")
    return n, float(mean), se


def _survivors(stages, k: float) -> list[int]:
    """The candidates of the last stage not more than ``k`` paired standard errors behind
    the best of them (by their equity over all the stages they played)."""
    sel = stages[-1][0]
    tot = {c: [0.0, 0] for c in sel}
    for st in stages:
        s_sel, ns, s, _, _ = _stage_parts(st)
        for i, c in enumerate(s_sel):
            if c in tot:
                tot[c][0] += s[i, 5]
                tot[c][1] += ns
    eq = {c: v[0] / v[1] for c, v in tot.items()}
    best = max(sel, key=lambda c: (eq[c], -sel.index(c)))
    keep = []
    for c in sel:
        if c == best:
            keep.append(c)
            continue
        _, diff, se = _paired(stages, best, c)
        if not diff > k * se:
            keep.append(c)
    return keep


def _staged_statistics(cands, stages, C: int) -> list[dict]:
    """:func:`_statistics` of the plays that played every stage, and for the plays pruned
    on the way their own estimates and their paired difference from the best over the
    games they played (``p_best`` None)."""
    surv = stages[-1][0]
    n = sum(st[1] for st in stages)
    m = len(surv)
    s = np.zeros((m, 6))
    ss = np.zeros((m, 6))
    cross = np.zeros((m, m))
    own = {c: [np.zeros(6), np.zeros(6), 0] for c in range(C)}
    for st in stages:
        sel, ns, s_st, ss_st, cr = _stage_parts(st)
        for i, c in enumerate(sel):
            own[c][0] += s_st[i]
            own[c][1] += ss_st[i]
            own[c][2] += ns
        idx = [sel.index(c) for c in surv]
        s += s_st[idx]
        ss += ss_st[idx]
        cross += cr[np.ix_(idx, idx)]
    rows = _statistics([cands[c] for c in surv], np.concatenate([s.ravel(), ss.ravel(),
                                                                  cross.ravel()]), n, m)
    for r in rows:
        r.update(games=n, pruned=False)
    best = surv[int(np.argmax(s[:, 5]))]
    for c in range(C):
        if c in surv or own[c][2] == 0:
            continue
        nc = own[c][2]
        est, se = vr_statistics(np.array([own[c][0], own[c][1]]), nc)
        _, diff, dse = _paired(stages, c, best)
        rows.append({"move": cands[c].move, "position_id": cands[c].position_id, **est,
                     "stderr": se, "diff": diff, "diff_stderr": dse, "p_best": None,
                     "eval_equity": cands[c].equity, "games": nc, "pruned": True})
    rows.sort(key=lambda r: -r["equity"])
    return rows
