"""Block scheduling, seeding and the exact merge of rollout blocks.

A rollout of ``games`` games is cut into blocks of :data:`BLOCK_SIZE` games. Block
``k`` draws its dice from ``PCG64DXSM(SeedSequence(entropy, spawn_key=(k,)))``, so the
dice of every game depend only on (seed, block, game index), never on the number of
workers or on scheduling (DESIGN section 4). Blocks return integer counts of the six
outcome classes and the merge is exact integer addition.
"""
from __future__ import annotations

import os
import signal
import threading
import time
import uuid
from collections import OrderedDict
from fractions import Fraction
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from .._version import __version__
from ..engine import ENGINES, get_engine
from ..reference.policies import POLICIES
from ..reference.dice import bounded

__all__ = ["MAX_GAMES", "check_games", "check_policy", "check_engine", "check_policy_engine",
           "resolve_workers", "BLOCK_SIZE", "SLOW_POLICY_BLOCK_SIZES", "block_size_for",
           "block_bit_generator", "block_sizes", "block_size_of", "n_blocks", "run_blocks",
           "BlockRun", "BlockRecipe", "play_block", "stratified_rolls", "OPENING_OUTCOMES",
           "stop_flag", "abandoned", "BlockAbandoned"]

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


def block_size_for(policy: str) -> int:
    """Games per block of a run whose checker play is ``policy`` (:data:`BLOCK_SIZE`, or
    :data:`SLOW_POLICY_BLOCK_SIZES` for the slow policies)."""
    return SLOW_POLICY_BLOCK_SIZES.get(policy, BLOCK_SIZE)


def check_policy_engine(policy: str, engine: str) -> None:
    """A rollout's ``policy`` (:data:`fastbg.reference.policies.POLICIES`) and ``engine``
    (:data:`fastbg.engine.ENGINES`), checked: ValueError naming the choices otherwise."""
    check_policy(policy)
    check_engine(engine)


def check_policy(policy: str) -> None:
    """A rollout's ``policy`` (:data:`fastbg.reference.policies.POLICIES`), checked."""
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


def block_bit_generator(entropy: int, k: int) -> np.random.PCG64DXSM:
    """The bit generator of block ``k`` of a rollout whose root seed is ``entropy``."""
    return np.random.PCG64DXSM(np.random.SeedSequence(entropy, spawn_key=(k,)))


#: The spawn key's first word of the quasi-random dice streams (``(QR_KEY, group)``); block
#: streams have one-word keys ``(k,)``, so the two never coincide.
QR_KEY = 0x5152

#: The 30 outcomes of the opening roll as roll indices ``6 (a - 1) + (b - 1)``, ``a != b``
#: (``a`` the die of the side on roll): the first-roll strata of a rollout from the opening.
OPENING_OUTCOMES = tuple(r for r in range(36) if r // 6 != r % 6)


def _permutations(bitgen, rows: int, n: int) -> np.ndarray:
    """``rows`` independent uniform permutations of ``range(n)`` (Fisher-Yates with the
    dice contract's unbiased ``bounded`` draws, so they depend on nothing but the bit
    generator: not on numpy's version)."""
    out = np.tile(np.arange(n, dtype=np.int32), (rows, 1))
    for row in out:
        for i in range(n - 1, 0, -1):
            j = bounded(bitgen, i + 1)
            row[i], row[j] = row[j], row[i]
    return out


_GROUPS: dict = {}


def _group(entropy: int, g: int, k1: int):
    key = (entropy, g, k1)
    got = _GROUPS.get(key)
    if got is None:
        bg = np.random.PCG64DXSM(np.random.SeedSequence(entropy, spawn_key=(QR_KEY, g)))
        got = (_permutations(bg, 36, k1), _permutations(bg, k1, 36))
        if len(_GROUPS) > 64:
            _GROUPS.clear()
        _GROUPS[key] = got
    return got


def stratified_rolls(entropy: int, first_game: int, n: int, opening: bool) -> np.ndarray:
    """Quasi-random dice: the first two random rolls of games ``first_game .. first_game + n - 1``.

    Parameters
    ----------
    entropy : int
        The rollout's root seed.
    first_game, n : int
        Index of the first game in the whole run (block ``k`` starts at ``k * block size``)
        and the number of games.
    opening : bool
        The first random roll is the opening roll (30 outcomes, :data:`OPENING_OUTCOMES`)
        rather than an ordinary roll (36).

    Returns
    -------
    numpy.ndarray of int32, shape (n, 2)
        Roll indices (``r // 6 + 1``, ``r % 6 + 1``) of each game's first and second random
        roll, for the engines' ``qrolls``.

    Notes
    -----
    Games are cut into groups of ``K * 36`` (``K`` = 36, or 30 from the opening) and each
    group into 36 runs of ``K`` consecutive games. In run ``h`` of group ``g`` the first rolls
    are a permutation ``A_g[h]`` of the ``K`` outcomes, so every ``K`` games contain each
    first roll once (GNU Backgammon's rotation of the first roll); the second roll of a game
    whose first outcome is ``f`` is ``L_g[f][h]``, ``L_g[f]`` a permutation of the 36 rolls,
    so a group holds each (first, second) pair once. The permutations are uniform and drawn
    from ``SeedSequence(entropy, spawn_key=(QR_KEY, g))``: every game's pair is marginally
    uniform (the estimate stays unbiased for any number of games) and depends only on
    (seed, game index), so a run's dice do not depend on its length or its workers.
    """
    k1 = 30 if opening else 36
    outcomes = np.array(OPENING_OUTCOMES if opening else range(36), dtype=np.int32)
    size = k1 * 36
    out = np.empty((n, 2), dtype=np.int32)
    for j in range(n):
        i = first_game + j
        g, m = divmod(i, size)
        h, t = divmod(m, k1)
        a, lat = _group(entropy, g, k1)
        f = int(a[h, t])
        out[j, 0] = outcomes[f]
        out[j, 1] = lat[f, h]
    return out


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


# ------------------------------------------------------------------ abandoning blocks
# A run's blocks play in worker threads, in compiled code that holds no GIL, which no
# signal and no exception can stop. A second Ctrl-C abandons them through a flag of the run:
# a uint8 array of one element that the compiled block loops read between games (their
# ``stop`` argument), and Python loops over games through abandoned(). The worker thread
# playing a run's block finds the run's flag here (each thread plays one block at a time).
_worker = threading.local()


class BlockAbandoned(Exception):
    """A block stopped early because its run abandoned it (a second Ctrl-C): its counts
    are partial and are never merged."""


def stop_flag() -> np.ndarray | None:
    """The stop flag of the run whose block this thread is playing, for the ``stop``
    argument of the engines' block loops (``rollout_block``, ``rollout_block_vr``,
    ``cubeful_block``): a uint8 array of shape (1,), set nonzero when the run abandons its
    blocks in flight. None outside a run's worker thread (the calling thread, a Dask
    worker), where nothing abandons a block."""
    return getattr(_worker, "stop", None)


def abandoned() -> bool:
    """Whether the run whose block this thread plays has abandoned it: a block function
    that loops over games in Python asks it between games and may return early (its
    result is then discarded by :func:`play_block`)."""
    flag = stop_flag()
    return flag is not None and bool(flag[0])


#: Seconds after a run's first SIGINT in which another is taken as the same Ctrl-C: GNU
#: ``timeout -s INT`` signals both the command and its process group, and a terminal may
#: deliver one key press to several processes, so one intent can arrive as two signals a few
#: milliseconds apart; a deliberate second Ctrl-C comes after the first one's message.
SIGINT_ECHO_SECONDS = 0.5


def _on_sigint(handler):
    """Install a SIGINT handler (main thread only); return the previous one."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGINT, handler)


def _restore_sigint(previous) -> None:
    if previous is not None:
        signal.signal(signal.SIGINT, previous)


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


class _Threads:
    """Blocks on threads of this process (the compiled core releases the GIL): what
    :func:`run_blocks` needs of an executor; :class:`fastbg.rollouts.cluster.DaskBlocks` is
    the other one."""

    def __init__(self, play: Callable[[int], tuple], workers: int, flag: np.ndarray):
        self.play = play
        self.workers = workers
        self.flag = flag            # the run's stop flag (stop_flag() in its workers)
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fastbg")

    def in_flight(self) -> int:
        """Tasks to keep submitted (running and queued)."""
        return 2 * self.workers

    def _play(self, k: int):
        _worker.stop = self.flag
        try:
            return self.play(k)
        finally:
            _worker.stop = None

    def submit(self, k: int, nblocks: int):
        """A task playing block ``k`` (and maybe more of the ``nblocks``): ``(future,
        blocks it plays)``."""
        return self.pool.submit(self._play, k), 1

    def wait(self, pending: set, timeout: float):
        """``(finished, pending)`` after at most ``timeout`` seconds."""
        return wait(pending, timeout=timeout, return_when=FIRST_COMPLETED)

    def drop_queued(self, pending: set) -> set:
        """Cancel the blocks not started; return the ones that will still report."""
        return {fut for fut in pending if not fut.cancel()}

    def running(self, pending: set) -> int:
        return sum(1 for fut in pending if not fut.done())

    def result(self, fut) -> list:
        """The task's blocks, ``[(k, counts, sums), ...]``."""
        return [fut.result()]

    def abandon(self, pending: set) -> None:
        """Give up the tasks ``pending``: the queued ones are cancelled, the running ones
        stop after their game (the flag is already set) and their results are never read."""
        for fut in pending:
            fut.cancel()

    def close(self, wait: bool = True) -> None:
        """Shut the threads down; ``wait=False`` (blocks abandoned) returns at once, the
        threads ending on their own within a game."""
        self.pool.shutdown(wait=wait, cancel_futures=True)


@dataclass
class BlockRun:
    """What a run of blocks produced.

    Attributes
    ----------
    counts : numpy.ndarray of int64, shape (6,) (or the ``counts_shape`` of a custom block)
        Outcome-class counts summed over the finished blocks.
    games : int
        Games in the finished blocks.
    interrupted : bool
        True if the run was stopped (Ctrl-C) before every block finished; the
        counts then hold exactly the blocks that did finish.
    sums : numpy.ndarray of float64, or None
        For blocks that also return float sums (variance reduction), their total over the
        finished blocks, added exactly (as fractions) and rounded once, so it does not
        depend on the order in which blocks finished.
    """

    counts: np.ndarray
    games: int
    interrupted: bool
    sums: np.ndarray | None = None


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
    counts = np.zeros(counts_shape, dtype=np.int64)
    exact: list | None = None   # float sums as exact fractions: the merge is order-free
    sums_shape = None
    done_games = 0

    if block is None:
        block = BlockRecipe(_engine_block, dict(engine=engine, policy=policy, board=board,
                                                dice=dice, opening=opening))
    fn = None   # the block function of threads and the calling thread (built below)

    def build():
        nonlocal fn
        # threads share one block function; a cluster's workers build their own from the recipe
        fn = block.make() if isinstance(block, BlockRecipe) and cluster is None else block

    def run_one(k: int):
        return play_block(fn, k, block_size_of(k, games, block_size), entropy)

    def add_sums(f: np.ndarray | None) -> None:
        nonlocal exact, sums_shape
        if f is None:
            return
        if exact is None:
            sums_shape = f.shape
            exact = [Fraction(0)] * f.size
        for i, x in enumerate(f.reshape(-1).tolist()):
            exact[i] += Fraction(x)

    ready: dict = {}        # finished blocks waiting for the ones before them
    merged = 0              # blocks 0..merged-1 are in the totals
    enough = threading.Event()   # the stop rule said so

    def absorb(k: int, c: np.ndarray, f: np.ndarray | None = None,
               stored: bool = False) -> None:  # calling thread
        nonlocal done_games, merged
        if enough.is_set():
            return              # played past the stop: dropped
        ready[k] = (c, f)
        while merged in ready and not enough.is_set():
            c, f = ready.pop(merged)
            n = block_size_of(merged, games, block_size)
            counts[:] += c
            add_sums(f)
            done_games += n
            if on_block is not None and not stored:
                on_block(merged, n, c, f)
            merged += 1
            if progress is not None:
                progress(n)
            if until is not None and until(counts, _float_sums(), done_games):
                enough.set()

    def _float_sums():
        return None if exact is None else np.array([float(x) for x in exact]).reshape(sums_shape)

    def result(interrupted: bool) -> BlockRun:
        return BlockRun(counts, done_games, interrupted and not enough.is_set(), _float_sums())

    first = 0
    for k in sorted(done or {}):
        if k != first or k >= nblocks:
            raise ValueError(f"stored blocks must be blocks 0, 1, ... of the run, got {k}")
        c, f = done[k]
        absorb(k, np.asarray(c, dtype=np.int64), None if f is None else
               np.asarray(f, dtype=np.float64), stored=True)
        first += 1
        if enough.is_set():
            return result(False)

    interrupted = False
    # The pure-Python engine holds the GIL, so threads would only make Ctrl-C wait
    # for whole blocks: it runs in the calling thread (same numbers either way).
    # Compiled blocks run in worker threads even for workers=1, so that the calling
    # thread stays free to notice Ctrl-C at once.
    if engine == "python" and cluster is None:
        build()
        try:
            for k in range(first, nblocks):
                absorb(*run_one(k))
                if enough.is_set():
                    break
        except KeyboardInterrupt as exc:
            interrupted = True
            # a pure-Python block cut short hands over the games it finished
            part = getattr(exc, "partial_counts", None)
            if part is not None and part.shape == counts.shape and (
                    getattr(fn, "keeps_partial", False)):
                counts[:] += part
                add_sums(getattr(exc, "partial_sums", None))
                done_games += int(part.sum())
        return result(interrupted)

    # Ctrl-C sets flags instead of raising, so it can never land between the two updates
    # of `absorb` (nor in a store's write): the first stops the run after the running
    # blocks, the second abandons them. Installed before the block function is built (it
    # loads the networks), so that no Ctrl-C of the run is lost or raised.
    stop = threading.Event()       # no new block: the first Ctrl-C, or the stop rule
    abandon = threading.Event()    # the second Ctrl-C: the running blocks are given up
    flag = np.zeros(1, dtype=np.uint8)   # stop_flag() of the run's workers
    first_press = []     # time.monotonic() of the first Ctrl-C

    def on_sigint(signum, frame):
        now = time.monotonic()
        if not first_press:
            first_press.append(now)
        elif now - first_press[0] >= SIGINT_ECHO_SECONDS:
            flag[0] = 1            # the workers' block loops stop after their game
            abandon.set()
        # else: the first Ctrl-C's echo (two signals for one intent), not a second Ctrl-C
        stop.set()

    previous = _on_sigint(on_sigint)
    ex = None
    pending = set()
    next_k = first
    told = False  # on_interrupt called
    finished: list = []   # tasks done, not merged yet
    dropped = 0           # tasks abandoned by a second Ctrl-C
    try:
        build()
        ex = (_Threads(run_one, workers, flag) if cluster is None else
              cluster.blocks(block, entropy, games, block_size))
        # Keep a bounded number of blocks in flight: memory stays flat in `games`. With a
        # stop rule, threads keep no block queued behind the running ones (one a worker): a
        # queued block starts the moment a worker is free, before this thread can merge the
        # block that may meet the rule, and was played in vain (a one-block run took two).
        ahead = None if until is None or cluster is not None else workers
        while next_k < nblocks or pending:
            try:
                if enough.is_set():
                    # the stop rule is met: every block still playing is past it and would be
                    # dropped; the threads' blocks stop after their game, a cluster's tasks
                    # are cancelled, so the run's time (and games/s) is that of its games
                    stop.set()
                    flag[0] = 1
                    ex.abandon(pending)
                    pending = set()
                    break
                limit = ex.in_flight() if ahead is None else min(ahead, ex.in_flight())
                while not stop.is_set() and next_k < nblocks and len(pending) < limit:
                    fut, taken = ex.submit(next_k, nblocks)
                    pending.add(fut)
                    next_k += taken
                if stop.is_set():
                    # queued blocks that have not started are dropped at once; only the
                    # running ones are waited for
                    pending = ex.drop_queued(pending)
                    if on_interrupt is not None and not told and not enough.is_set():
                        told = True
                        on_interrupt(ex.running(pending))
                if abandon.is_set():
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
                        absorb(*one)
                if stop.is_set() and not pending:
                    break
            except KeyboardInterrupt:  # raised by a callback (progress, on_block): a Ctrl-C
                on_sigint(signal.SIGINT, None)
                pending |= set(finished)        # the tasks it left unmerged
                finished = []
        if abandon.is_set() and pending:
            # keep the blocks that finished before the second Ctrl-C; give up the others
            for fut in [f for f in pending if f.done() and not f.cancelled()]:
                pending.discard(fut)
                try:
                    for one in ex.result(fut):
                        absorb(*one)
                except BlockAbandoned:
                    dropped += 1
            dropped += len(pending)
            ex.abandon(pending)
            pending = set()
        if dropped and on_interrupt is not None and not enough.is_set():
            on_interrupt(0)     # the second Ctrl-C took effect: the run waits for none
    finally:
        _restore_sigint(previous)
        if ex is not None:
            ex.close(wait=not abandon.is_set())
    if stop.is_set() and on_interrupt is not None and not told and not enough.is_set():
        # Ctrl-C came as the last blocks ended (after the loop's last look at the flag):
        # the run is whole, but a caller running several (a table, the stages of candidate
        # rollouts) must still hear of it, or the Ctrl-C is lost
        on_interrupt(0)
    # (a block that finished after a gap would stay in `ready`, dropped: the result is always
    # a prefix of blocks; workers start blocks in order, so after Ctrl-C there is no gap)
    interrupted = stop.is_set() and done_games < games
    return result(interrupted)
