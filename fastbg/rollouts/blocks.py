"""Block scheduling of rollouts: :func:`run_blocks` and the recipes of blocks.

A rollout of ``games`` games is cut into blocks of :data:`BLOCK_SIZE` games. Block
``k`` draws its dice from ``PCG64DXSM(SeedSequence(entropy, spawn_key=(k,)))``, so the
dice of every game depend only on (seed, block, game index), never on the number of
workers or on scheduling (DESIGN section 4). Blocks return integer counts of the six
outcome classes and the merge is exact integer addition.

Design
------
:func:`run_blocks` only schedules; each of its parts is a module of its own, tested alone:
:mod:`~fastbg.rollouts.seeding` (the dice of each block, quasi-random stratification),
:mod:`~fastbg.rollouts.merge` (the ordered exact merge and the stop rule),
:mod:`~fastbg.rollouts.interrupts` (the two-stage Ctrl-C state machine) and
:mod:`~fastbg.rollouts.executors` (threads; :mod:`~fastbg.rollouts.cluster` has the Dask
executor). Their public names are re-exported here, where callers have always found them.
"""
from __future__ import annotations

import os
import threading
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .._version import __version__
from ..engine import ENGINES, get_engine
from ..spec.policies import POLICIES
from .executors import BlockAbandoned, ThreadBlocks, abandoned, stop_flag
from .interrupts import SIGINT_ECHO_SECONDS, CtrlC, on_sigint, restore_sigint
from .merge import BlockRun, OrderedMerge
from .seeding import OPENING_OUTCOMES, QR_KEY, block_bit_generator, stratified_rolls

__all__ = ["MAX_GAMES", "check_games", "check_policy", "check_engine", "check_policy_engine",
           "resolve_workers", "BLOCK_SIZE", "SLOW_POLICY_BLOCK_SIZES", "NPLY_BLOCK_SIZES",
           "block_size_for",
           "block_bit_generator", "block_sizes", "block_size_of", "n_blocks", "run_blocks",
           "BlockRun", "BlockRecipe", "play_block", "stratified_rolls", "OPENING_OUTCOMES",
           "stop_flag", "abandoned", "BlockAbandoned", "SIGINT_ECHO_SECONDS", "QR_KEY"]

#: The most games one run may ask for: a trillion, about 200 days at 60,000 games/s on two
#: cores (a count beyond it is a typo, not a plan; split such work into runs).
MAX_GAMES = 10**12

#: Games per block. Part of the reproducibility contract: changing it changes the
#: dice of every game after the first block.
BLOCK_SIZE = 1000

#: Games per block of the slow policies, also part of the contract: ``nn-1ply`` plays about
#: 20 games/s on a core, so a 1,000-game block kept Ctrl-C waiting for about a minute;
#: with 100 the wait is a few seconds.
SLOW_POLICY_BLOCK_SIZES = {"nn-1ply": 100}


#: Games per block of the runs whose decisions are evaluated at n ply (checker play or
#: luck; :attr:`fastbg.rollouts.settings.RolloutSettings.depth`), by ply: part of the
#: contract too. A 1-ply game costs about a 1-ply rollout game of ``nn-1ply`` (100 a block,
#: as it), a 2-ply one about 20 times more: blocks of a few seconds to a minute on a core.
NPLY_BLOCK_SIZES = {1: 100, 2: 10, 3: 1}


def block_size_for(policy: str, depth: int = 0) -> int:
    """Games per block of a run whose checker play is ``policy`` (:data:`BLOCK_SIZE`, or
    :data:`SLOW_POLICY_BLOCK_SIZES` for the slow policies), its deepest evaluations at
    ``depth`` ply (:data:`NPLY_BLOCK_SIZES` from 1 ply)."""
    if depth:
        return NPLY_BLOCK_SIZES[depth]
    return SLOW_POLICY_BLOCK_SIZES.get(policy, BLOCK_SIZE)


def check_policy_engine(policy: str, engine: str) -> None:
    """A rollout's ``policy`` (:data:`fastbg.spec.policies.POLICIES`) and ``engine``
    (:data:`fastbg.engine.ENGINES`), checked: ValueError naming the choices otherwise."""
    check_policy(policy)
    check_engine(engine)


def check_policy(policy: str) -> None:
    """A rollout's ``policy`` (:data:`fastbg.spec.policies.POLICIES`), checked."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}: choose one of {', '.join(POLICIES)}")


def check_engine(engine: str) -> None:
    """An ``engine`` (:data:`fastbg.engine.ENGINES`), checked."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}: choose one of {', '.join(ENGINES)}")


def check_games(games) -> int:
    """``games`` as an int, checked: a whole number in ``1..MAX_GAMES``.

    Raises
    ------
    ValueError
        Naming the problem: not a whole number, below 1, above :data:`MAX_GAMES`.
    """
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    if games > MAX_GAMES:
        raise ValueError(f"games is {games:,}: at most {MAX_GAMES:,} games a run (about 200 "
                         "days on two cores); split the work into several runs")
    return int(games)


def block_sizes(games: int, block_size: int = BLOCK_SIZE) -> list[int]:
    """Sizes of the blocks of a run of ``games`` games (the last may be short)."""
    return [block_size_of(k, games, block_size) for k in range(n_blocks(games, block_size))]


def n_blocks(games: int, block_size: int = BLOCK_SIZE) -> int:
    """Number of blocks of a run of ``games`` games."""
    return -(-games // block_size)


def block_size_of(k: int, games: int, block_size: int = BLOCK_SIZE) -> int:
    """Games in block ``k`` of a run of ``games`` games (computed, not stored, so a
    run of any length needs no memory per block)."""
    return min(block_size, games - k * block_size)


def resolve_workers(workers) -> int:
    """Worker count: ``None`` means one per CPU; otherwise a positive integer."""
    if workers is None:
        return max(1, os.cpu_count() or 1)
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    return int(workers)


#: Block functions built from recipes in this process (:meth:`BlockRecipe.cached`), newest
#: last: a worker keeps the evaluator of the runs it serves instead of loading it per block.
_BUILT: OrderedDict = OrderedDict()
_BUILT_LOCK = threading.Lock()
_BUILT_MAX = 8


@dataclass(frozen=True, eq=False)
class BlockRecipe:
    """How to make a run's block function in any process: ``factory(**kwargs)``.

    A distributed run (:mod:`fastbg.rollouts.cluster`) sends each worker the recipe, not
    the function: the function holds the evaluator's networks (megabytes, and compiled
    objects that cannot be pickled), which the worker builds itself, once per run.

    Attributes
    ----------
    factory : callable
        A module-level function (pickled by reference, so the worker needs the same fastbg)
        returning ``block(k, games_in_block, bit_generator)`` as :func:`run_blocks` takes it.
    kwargs : dict
        Its arguments: plain values and numpy arrays only, everything the block's numbers
        depend on, so a block is a pure function of (recipe, k).
    token : str
        Names the run's recipe in the workers' cache (a fresh one for every recipe).
    version : str
        The fastbg version that wrote the recipe; a worker with another refuses it.
    """

    factory: Callable[..., Callable]
    kwargs: dict
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    version: str = __version__

    def make(self) -> Callable:
        """A new block function."""
        return self.factory(**self.kwargs)

    def cached(self) -> Callable:
        """The block function of this recipe, built once per process (a worker's cache)."""
        if self.version != __version__:
            raise RuntimeError(f"this worker runs fastbg {__version__}, the run is fastbg "
                               f"{self.version}'s: every machine of a cluster needs the same "
                               "fastbg")
        with _BUILT_LOCK:
            fn = _BUILT.get(self.token)
            if fn is None:
                fn = _BUILT[self.token] = self.make()
                while len(_BUILT) > _BUILT_MAX:
                    _BUILT.popitem(last=False)
            else:
                _BUILT.move_to_end(self.token)
        return fn


def _engine_block(*, engine: str, policy: str, board: np.ndarray, dice, opening: bool) -> Callable:
    """The engine's own ``rollout_block`` (cubeless counts): :func:`run_blocks`' default."""
    eng = get_engine(engine)

    def block(k, n, bitgen):
        return eng.rollout_block(board, n, bitgen, eng.make_policy(policy), dice=dice,
                                 opening=opening, stop=stop_flag())
    block.keeps_partial = True   # a cut pure-Python block hands over its finished games
    return block


def play_block(block: Callable, k: int, games: int, entropy: int):
    """Block ``k`` of ``games`` games of a run with root seed ``entropy``:
    ``(k, counts, sums)`` (int64 counts, float64 sums or None), wherever it runs.

    Raises :class:`BlockAbandoned` if the run abandoned the block while it played (its
    result may be partial: the flag is never cleared in a run, so no partial block is
    ever returned)."""
    c = block(k, games, block_bit_generator(entropy, k))
    if abandoned():
        raise BlockAbandoned(f"block {k} abandoned")
    if isinstance(c, tuple):
        return k, np.asarray(c[0], dtype=np.int64), np.asarray(c[1], dtype=np.float64)
    return k, np.asarray(c, dtype=np.int64), None


def run_blocks(
    board: np.ndarray,
    games: int,
    entropy: int,
    *,
    engine: str = "cython",
    policy: str = "pubeval",
    dice=None,
    opening: bool = False,
    workers: int = 1,
    progress: Callable[[int], None] | None = None,
    block_size: int = BLOCK_SIZE,
    block: Callable[[int, int, np.random.BitGenerator], np.ndarray] | None = None,
    counts_shape: tuple = (6,),
    on_interrupt: Callable[[int], None] | None = None,
    until: Callable[[np.ndarray, np.ndarray | None, int], bool] | None = None,
    done: dict | None = None,
    on_block: Callable[[int, int, np.ndarray, np.ndarray | None], None] | None = None,
    cluster=None,
) -> BlockRun:
    """Play ``games`` games from ``board`` in blocks, on ``workers`` threads or a Dask cluster.

    The compiled engine releases the GIL inside a block, so threads run blocks in
    parallel; the pure-Python engine gives the same numbers, only slower. On a cluster
    each block is a task, and its results are merged here, in block order, as on threads.

    Parameters
    ----------
    board : numpy.ndarray of int8, shape (2, 25)
        Row 0 the player on roll, about to roll.
    games : int
        Number of games.
    entropy : int
        Root seed (the entropy of a ``numpy.random.SeedSequence``).
    engine, policy : str
        See :func:`fastbg.rollout`.
    dice : tuple of int, optional
        The fixed first roll of every game.
    opening : bool
        Start every game with the opening roll (no double first).
    workers : int
        Threads.
    progress : callable, optional
        Called with the number of games of each block as it finishes.
    block_size : int
        Games per block.
    block : callable or BlockRecipe, optional
        ``block(k, games_in_block, bit_generator) -> counts`` (or ``(counts, sums)``, ``sums``
        an array of float sums merged exactly: variance reduction): plays block ``k`` instead
        of the engine's ``rollout_block`` (for example cubeful games,
        :mod:`fastbg.rollouts.cubeful`); ``engine``, ``policy``, ``dice`` and ``opening`` are then
        unused except that ``engine="python"`` still runs in the calling thread. Its
        counts are integers of shape ``counts_shape``, merged by addition. On a cluster, a
        :class:`BlockRecipe` (the workers build the function once per run) or a function
        that cloudpickle can send.
    counts_shape : tuple of int
        Shape of a block's counts (``(6,)`` for the engine's outcome classes).
    on_interrupt : callable, optional
        Called in the calling thread as soon as Ctrl-C is noticed (within 0.1 s), with the
        number of blocks still running, which the run waits for; with 0 when Ctrl-C came as
        the last blocks ended (the run is then whole and not ``interrupted``, but a caller
        running several in a row should stop after this one). Called once more, with 0,
        when a second Ctrl-C abandons the running blocks (the run then waits for none).
    until : callable, optional
        A stop rule, ``until(counts, sums, games) -> bool``, asked after each block with the
        totals of blocks ``0..k`` (blocks are merged in block order): once it says True the
        run stops there, and the blocks after ``k`` that were already playing are abandoned
        (on threads they stop after their game; a cluster's tasks are cancelled) and
        dropped. So where a run stops depends only on the seed and the settings, never on
        the workers or the scheduling. With a stop rule, threads keep at most ``workers``
        blocks in flight (none queued), so that no block is started that the rule would
        drop, only the ones running beside the block that meets it.
    done : dict, optional
        Blocks already played (a resumed run, :mod:`fastbg.rollouts.store`):
        ``{k: (counts, sums)}`` for ``k = 0, 1, ..., m - 1``; they are merged first, as if
        just played, and the run plays from block ``m``.
    on_block : callable, optional
        ``on_block(k, games, counts, sums)``, called in the calling thread as each block is
        merged, in block order (the results store writes it), not for ``done`` blocks.
    cluster : fastbg.rollouts.cluster.DaskCluster, optional
        Play the blocks as tasks of this Dask cluster instead of threads (``workers`` is
        then unused): the same numbers. A worker lost in a run costs only the blocks it was
        playing, which the scheduler gives to another worker.

    Returns
    -------
    BlockRun

    Notes
    -----
    Ctrl-C (SIGINT; the handler is this run's while it lasts, in the main thread) stops the
    run in two steps. The first: no new block starts, queued ones are dropped, the blocks
    already running are allowed to finish, and the result holds every finished block with
    ``interrupted=True``. (On a cluster, where this process cannot see which queued blocks
    a worker has started, as many of the earliest blocks as it has threads are waited for
    and the rest dropped.) A second Ctrl-C abandons the running blocks (one within
    :data:`SIGINT_ECHO_SECONDS` of the first is taken as its echo and ignored: ``timeout -s
    INT`` signals the command and its process group): the run returns at once with the
    blocks merged so far (a prefix 0, 1, ..., so a stored run stays resumable with the
    numbers of an uninterrupted one); the worker threads stop after the game they are
    playing (the engines' block loops read the run's :func:`stop_flag` between games; the
    compiled code cannot be stopped inside a game) and their partial blocks are discarded.
    The pure-Python engine runs in the calling thread, where the first Ctrl-C stops it at
    once.
    """
    get_engine(engine)   # a missing compiled core is an error here, not in a worker
    nblocks = n_blocks(games, block_size)
    board = np.ascontiguousarray(board, dtype=np.int8)
    merge = OrderedMerge(lambda k: block_size_of(k, games, block_size), counts_shape,
                         until=until, on_block=on_block, progress=progress)
    if block is None:
        block = BlockRecipe(_engine_block, dict(engine=engine, policy=policy, board=board,
                                                dice=dice, opening=opening))
    first = merge.add_stored(done, nblocks)
    if merge.met:
        return merge.result(False)
    # threads share one block function; a cluster's workers build their own from the recipe
    make = block.make if isinstance(block, BlockRecipe) and cluster is None else lambda: block
    plan = _Plan(games, entropy, block_size, first, nblocks)
    # The pure-Python engine holds the GIL, so threads would only make Ctrl-C wait
    # for whole blocks: it runs in the calling thread (same numbers either way).
    # Compiled blocks run in worker threads even for workers=1, so that the calling
    # thread stays free to notice Ctrl-C at once.
    if engine == "python" and cluster is None:
        return _in_this_thread(make(), plan, merge)
    ctrl = CtrlC()
    # Installed before the block function is built (it loads the networks), so that no
    # Ctrl-C of the run is lost or raised.
    previous = on_sigint(ctrl.press)
    executor = None
    try:
        fn = make()
        executor = (ThreadBlocks(plan.player(fn), workers, ctrl.flag) if cluster is None
                    else cluster.blocks(block, entropy, games, block_size))
        # With a stop rule, threads keep no block queued behind the running ones (one a
        # worker): a queued block starts the moment a worker is free, before this thread
        # can merge the block that may meet the rule, and was played in vain.
        ahead = None if until is None or cluster is not None else workers
        _schedule(executor, plan, merge, ctrl, on_interrupt, ahead)
    finally:
        restore_sigint(previous)
        if executor is not None:
            executor.close(wait=not ctrl.abandon.is_set())
    if ctrl.stop.is_set() and on_interrupt is not None and not ctrl.told and not merge.met:
        # Ctrl-C came as the last blocks ended (after the loop's last look at the flag):
        # the run is whole, but a caller running several (a table, the stages of candidate
        # rollouts) must still hear of it, or the Ctrl-C is lost
        on_interrupt(0)
    # (a block that finished after a gap would stay held, dropped: the result is always a
    # prefix of blocks; workers start blocks in order, so after Ctrl-C there is no gap)
    return merge.result(ctrl.stop.is_set() and merge.games < games)


@dataclass(frozen=True)
class _Plan:
    """The blocks of a run still to play: ``first .. nblocks - 1`` of ``games`` games."""
    games: int
    entropy: int
    block_size: int
    first: int
    nblocks: int

    def player(self, fn: Callable) -> Callable[[int], tuple]:
        """``play(k) -> (k, counts, sums)`` of block function ``fn``."""
        return lambda k: play_block(fn, k, block_size_of(k, self.games, self.block_size),
                                    self.entropy)


def _in_this_thread(fn: Callable, plan: _Plan, merge: OrderedMerge) -> BlockRun:
    """The blocks of a pure-Python run, played in the calling thread, where the first
    Ctrl-C (a KeyboardInterrupt) stops it at once; a block cut short hands over the games it
    finished if its function says so (``keeps_partial``)."""
    play = plan.player(fn)
    try:
        for k in range(plan.first, plan.nblocks):
            merge.add(*play(k))
            if merge.met:
                break
    except KeyboardInterrupt as exc:
        part = getattr(exc, "partial_counts", None)
        if part is not None and part.shape == merge.counts.shape and (
                getattr(fn, "keeps_partial", False)):
            merge.add_partial(part, getattr(exc, "partial_sums", None))
        return merge.result(True)
    return merge.result(False)


def _schedule(ex, plan: _Plan, merge: OrderedMerge, ctrl: CtrlC, on_interrupt,
              ahead: int | None) -> None:
    """Submit a run's blocks to executor ``ex`` in order and merge their results as they
    come, until every block is in, the stop rule is met, or Ctrl-C (``ctrl``) ends it.

    Keeps a bounded number of blocks in flight (``ex.in_flight()``, at most ``ahead``):
    memory stays flat in the number of games. ``on_interrupt`` is told of the first Ctrl-C
    with the blocks still running, and with 0 when a second one abandons them."""
    pending: set = set()
    next_k = plan.first
    finished: list = []   # tasks done, not merged yet
    dropped = 0           # tasks abandoned by a second Ctrl-C
    while next_k < plan.nblocks or pending:
        try:
            if merge.met:
                # the stop rule is met: every block still playing is past it and would be
                # dropped; the threads' blocks stop after their game, a cluster's tasks are
                # cancelled, so the run's time (and games/s) is that of its games
                ctrl.halt()
                ex.abandon(pending)
                pending = set()
                break
            limit = ex.in_flight() if ahead is None else min(ahead, ex.in_flight())
            while not ctrl.stop.is_set() and next_k < plan.nblocks and len(pending) < limit:
                fut, taken = ex.submit(next_k, plan.nblocks)
                pending.add(fut)
                next_k += taken
            if ctrl.stop.is_set():
                # queued blocks that have not started are dropped at once; only the running
                # ones are waited for
                pending = ex.drop_queued(pending)
                if on_interrupt is not None and not ctrl.told and not merge.met:
                    ctrl.told = True
                    on_interrupt(ex.running(pending))
            if ctrl.abandon.is_set():
                break
            done_now, pending = ex.wait(pending, 0.1)
            finished = list(done_now)       # cancelled ones left `pending` above
            while finished:
                try:
                    got = ex.result(finished.pop())
                except BlockAbandoned:      # stopped by a second Ctrl-C: dropped
                    dropped += 1
                    continue
                for one in got:
                    merge.add(*one)
            if ctrl.stop.is_set() and not pending:
                break
        except KeyboardInterrupt:  # raised by a callback (progress, on_block): a Ctrl-C
            ctrl.press()
            pending |= set(finished)        # the tasks it left unmerged
            finished = []
    if ctrl.abandon.is_set() and pending:
        dropped += _keep_finished(ex, pending, merge)
    if dropped and on_interrupt is not None and not merge.met:
        on_interrupt(0)     # the second Ctrl-C took effect: the run waits for none


def _keep_finished(ex, pending: set, merge: OrderedMerge) -> int:
    """After a second Ctrl-C: merge the tasks of ``pending`` that finished before it, give
    up the others; return how many were dropped."""
    dropped = 0
    for fut in [f for f in pending if f.done() and not f.cancelled()]:
        pending.discard(fut)
        try:
            for one in ex.result(fut):
                merge.add(*one)
        except BlockAbandoned:
            dropped += 1
    dropped += len(pending)
    ex.abandon(pending)
    return dropped
