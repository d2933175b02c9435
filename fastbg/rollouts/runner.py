"""Where and how a run executes: the :class:`Runner`, apart from what its numbers depend on.

Design
------
A run function takes its settings (what the numbers depend on,
:mod:`fastbg.rollouts.settings`) and a runner (where and how the games are played) as two
objects, and keyword overrides of either::

    fastbg.rollout(position, games, settings=RolloutSettings(policy="pubeval"),
                   runner=Runner(workers=2, store="runs.sqlite"), seed=7)

:func:`configure` sorts the keywords into the two objects, so the many keyword arguments
the run functions always took keep working unchanged. Nothing in a runner changes the
numbers: the engine (the compiled core or the pure-Python reference play the same games),
the threads or the Dask cluster, the results store (a stored run resumed or extended ends
with the numbers of one uninterrupted run), the progress and block callbacks, and Ctrl-C.
"""
from __future__ import annotations

import contextlib
import dataclasses
import time
from dataclasses import dataclass
from typing import Callable

from .blocks import BlockRun, block_size_of, check_engine, n_blocks, resolve_workers, run_blocks
from .cluster import connect
from .store import OpenRun, open_run

__all__ = ["Runner", "configure", "RunPlan", "PlayedRun", "play_stored", "chain_callbacks",
           "RunSession", "open_session"]


@dataclass(frozen=True, kw_only=True)
class Runner:
    """Where and how a run executes; none of it changes the numbers.

    Attributes
    ----------
    engine : {"cython", "python"}
        The compiled core or the pure-Python reference (same numbers).
    workers : int or None
        Threads (None: one per CPU; never more than the run's blocks; one for the
        pure-Python engine). With ``dask=True``: the local cluster's worker processes.
    dask : bool or str or distributed.Client or None
        Play the blocks on a Dask cluster (:mod:`fastbg.rollouts.cluster`): True starts a
        local one for the run, an address (``"tcp://HOST:PORT"``) or a client uses that one.
    store : ResultsStore or str or Path or None
        Keep the run in this results store (:class:`fastbg.rollouts.store.ResultsStore`),
        block by block, so that it can be resumed and extended.
    run_id : int or None
        With ``store``: continue that stored run (:func:`fastbg.resume` needs only the store
        and this id).
    table_run : int or None
        With ``store``: a new run is stored as a row of this table run.
    progress : callable or None
        ``progress(games)``, called with the games of each finished block.
    on_interrupt : callable or None
        ``on_interrupt(running)``, called once when Ctrl-C stops the run, with the blocks
        still running (see :func:`fastbg.rollouts.blocks.run_blocks`).
    on_block : callable or None
        ``on_block(k, games, counts, sums)``, called as each block is merged, in block order.
    on_row : callable or None
        ``on_row(label, j, n)``, called as row ``j`` of ``n`` of a table starts (tables
        only: :mod:`fastbg.research`; a rollout, which has no rows, refuses it with a
        ValueError, :func:`configure`).

    Raises
    ------
    ValueError
        For an unknown engine, a bad worker count, a callback that is not callable, or a
        ``run_id`` or ``table_run`` without a ``store``.
    """

    engine: str = "cython"
    workers: int | None = None
    dask: object = None
    store: object = None
    run_id: int | None = None
    table_run: int | None = None
    progress: Callable[[int], None] | None = None
    on_interrupt: Callable[[int], None] | None = None
    on_block: Callable | None = None
    on_row: Callable[[str, int, int], None] | None = None

    def __post_init__(self):
        check_engine(self.engine)
        if self.workers is not None:
            object.__setattr__(self, "workers", resolve_workers(self.workers))
        if self.progress is not None and not callable(self.progress):
            raise ValueError(f"progress must be a callable taking a number of games, got "
                             f"{self.progress!r}")
        if self.on_block is not None and not callable(self.on_block):
            raise ValueError(f"on_block must be a callable taking (k, games, counts, sums), "
                             f"got {self.on_block!r}")
        if self.on_row is not None and not callable(self.on_row):
            raise ValueError(f"on_row must be a callable taking (label, j, n), got "
                             f"{self.on_row!r}")
        if self.on_interrupt is not None and not callable(self.on_interrupt):
            raise ValueError(f"on_interrupt must be a callable taking a number of blocks, got "
                             f"{self.on_interrupt!r}")
        if self.store is None:
            for name in ("run_id", "table_run"):
                if getattr(self, name) is not None:
                    raise ValueError(f"{name} is for a stored run: give its store too")

    def replace(self, **changes) -> "Runner":
        """A copy with ``changes``, validated again."""
        return dataclasses.replace(self, **changes)

    def threads(self, games: int, block_size: int) -> int:
        """The threads a run of ``games`` games in blocks of ``block_size`` uses: ``workers``
        (one per CPU if None), never more than its blocks, one for the pure-Python engine
        (it holds the GIL). The numbers do not depend on it."""
        n = resolve_workers(self.workers)
        return 1 if self.engine == "python" else min(n, -(-int(games) // block_size))


def configure(settings_cls, settings, runner, overrides: dict, function: str,
              takes_on_row: bool = False):
    """The settings and the runner of a run from its arguments.

    Parameters
    ----------
    settings_cls : type
        The run's settings class (:class:`fastbg.rollouts.settings.RolloutSettings`, ...).
    settings : settings_cls or None
        The caller's settings (None: the defaults).
    runner : Runner or None
        The caller's runner (None: the defaults).
    overrides : dict
        Keyword arguments: each a field of the settings or of the runner, which it replaces.
    function : str
        The run function's name, for the TypeError of an unknown keyword.
    takes_on_row : bool
        The run is a table (:mod:`fastbg.research`), whose runner's ``on_row`` it tells of
        its rows. Any other run refuses an ``on_row`` (ValueError) rather than ignore it:
        a rollout has no rows (``on_block`` tells of its blocks).

    Returns
    -------
    (settings, runner)
        Validated (ValueError naming the first bad one).
    """
    if settings is not None and not isinstance(settings, settings_cls):
        raise TypeError(f"{function}() takes settings={settings_cls.__name__}(...), got "
                        f"{type(settings).__name__}")
    if runner is not None and not isinstance(runner, Runner):
        raise TypeError(f"{function}() takes runner=Runner(...), got {type(runner).__name__}")
    names = {f.name for f in dataclasses.fields(settings_cls)}
    runs = {f.name for f in dataclasses.fields(Runner)}
    unknown = sorted(set(overrides) - names - runs)
    if unknown:
        raise TypeError(f"{function}() got an unexpected keyword argument {unknown[0]!r}")
    s = {k: v for k, v in overrides.items() if k in names}
    r = {k: v for k, v in overrides.items() if k in runs}
    # runner first: an unknown engine is named before the settings' checks, as always
    runner = dataclasses.replace(runner, **r) if runner is not None else Runner(**r)
    settings = (dataclasses.replace(settings, **s) if settings is not None
                else settings_cls(**s))
    if runner.on_row is not None and not takes_on_row:
        raise ValueError(f"{function}() takes no on_row: it has no rows (on_row is for the "
                         "tables of fastbg.research; on_block tells of each block)")
    return settings, runner


@dataclass(frozen=True)
class RunPlan:
    """What :func:`play_stored` needs to know of a run besides its runner.

    Attributes
    ----------
    kind : str
        The run's kind in the results store (``"rollout"``, ``"plays"``, ...).
    request : dict
        ``position``, ``games`` and the settings' :meth:`~fastbg.rollouts.settings.
        RolloutSettings.as_dict`: what the store records and a resumed run must match.
    settings : dict
        The descriptive record (:func:`fastbg.rollouts.settings.rollout_settings`).
    block_size : int
        Games per block.
    counts_shape : tuple of int
        The shape of a block's counts.
    stored_shape : tuple of int or None
        The shape a stored block must have (None: not checked); default ``counts_shape``.
    """

    kind: str
    request: dict
    settings: dict
    block_size: int
    counts_shape: tuple
    stored_shape: tuple | None = ()

    def __post_init__(self):
        if self.stored_shape == ():
            object.__setattr__(self, "stored_shape", self.counts_shape)


@dataclass
class PlayedRun:
    """What :func:`play_stored` played.

    Attributes
    ----------
    run : BlockRun
        The merged blocks.
    seconds : float
        Wall-clock time of the games (a local cluster's start-up not counted).
    workers : int
        Threads used (a cluster's threads).
    address : str or None
        The Dask scheduler's address, when a cluster played.
    stored : OpenRun or None
        The stored run, still open: the caller records its result with
        :meth:`~fastbg.rollouts.store.OpenRun.finish`.
    stored_games : int
        Games read from the store rather than played now.
    """

    run: BlockRun
    seconds: float
    workers: int
    address: str | None
    stored: OpenRun | None
    stored_games: int


def chain_callbacks(first, then):
    """One block callback that calls ``first`` (the store's: a block is kept before anyone
    is told of it), then ``then``; either may be None."""
    if first is None or then is None:
        return first if then is None else then

    def both(*args):
        first(*args)
        then(*args)
    return both


class RunSession:
    """A run's cluster and stored run while its blocks are played (:func:`open_session`).

    A run plays its blocks in one call of :meth:`play` (:func:`play_stored`), or in stages
    of consecutive blocks, one call each (the candidate plays of
    :func:`fastbg.rollouts.plays.rollout_plays`, pruned between stages), on the one cluster
    and into the one stored run.

    Attributes
    ----------
    plan : RunPlan
    runner : Runner
    board : numpy.ndarray
        The position (for :func:`~fastbg.rollouts.blocks.run_blocks`).
    games : int
        Games of the whole run.
    entropy : int
        Root seed.
    cluster : DaskCluster or None
    stored : OpenRun or None
        The stored run, still open: the caller records its result with
        :meth:`~fastbg.rollouts.store.OpenRun.finish` after the session.
    workers : int
        Threads (a cluster's threads).
    address : str or None
        The Dask scheduler's address, when a cluster plays.
    stored_games : int
        Games read from the store rather than played, by the stages played so far.
    """

    def __init__(self, plan: RunPlan, runner: Runner, board, games: int, entropy: int,
                 cluster, stored: OpenRun | None, workers: int, address: str | None):
        self.plan, self.runner, self.board = plan, runner, board
        self.games, self.entropy = int(games), entropy
        self.cluster, self.stored, self.workers, self.address = cluster, stored, workers, address
        self.stored_games = 0
        self.blocks = n_blocks(self.games, plan.block_size)
        self._t0 = time.perf_counter()   # (a local cluster's start-up is not counted)

    def elapsed(self) -> float:
        """Wall-clock seconds since the blocks could start (the cluster up, the store open)."""
        return time.perf_counter() - self._t0

    def _stored_blocks(self, first: int, stop: int) -> dict:
        """The stored blocks ``first, first + 1, ...`` (up to the first missing one, below
        ``stop``), numbered from ``first`` as the stage numbers its blocks; their games are
        counted in :attr:`stored_games`."""
        done, have = {}, {} if self.stored is None else self.stored.done
        for k in range(first, stop):
            if k not in have:
                break
            done[k - first] = have[k]
            self.stored_games += block_size_of(k, self.games, self.plan.block_size)
        return done

    def play(self, block, *, first: int = 0, stop: int | None = None, until=None,
             counts_shape: tuple | None = None, on_interrupt=None, workers: int | None = None):
        """Play blocks ``first`` to ``stop - 1`` of the run (default: all of them), those in
        the store read from it.

        Parameters
        ----------
        block : BlockRecipe
            The blocks of this stage; its block ``j`` is the run's block ``first + j``.
        first, stop : int
            The stage's blocks.
        until : callable, optional
            The stop rule of :func:`~fastbg.rollouts.blocks.run_blocks`.
        counts_shape : tuple of int, optional
            The shape of a block's counts (default the plan's).
        on_interrupt : callable, optional
            Told of Ctrl-C instead of the runner's ``on_interrupt``.
        workers : int, optional
            Threads of this stage (default :attr:`workers`, never more than the blocks it
            has to play).

        Returns
        -------
        BlockRun
            The stage's blocks merged.
        """
        stop = self.blocks if stop is None else stop
        size = self.plan.block_size
        stage_games = min(self.games, stop * size) - first * size
        done = self._stored_blocks(first, stop)
        on_block = chain_callbacks(None if self.stored is None else self.stored.on_block,
                                   self.runner.on_block)
        if first and on_block is not None:    # the store and the caller see the run's numbers
            on_block = _shifted(on_block, first)
        return run_blocks(
            self.board, stage_games, self.entropy, engine=self.runner.engine,
            workers=max(1, min(self.workers if workers is None else workers,
                               stop - first - len(done))),
            progress=self.runner.progress, block_size=size,
            on_interrupt=self.runner.on_interrupt if on_interrupt is None else on_interrupt,
            block=block, until=until,
            counts_shape=self.plan.counts_shape if counts_shape is None else counts_shape,
            done=done if self.stored is not None else None, cluster=self.cluster,
            on_block=on_block)


def _shifted(on_block, first: int):
    """``on_block`` told block ``first + j`` of the run for block ``j`` of a stage."""
    def shifted(k, n, counts, sums):
        on_block(k + first, n, counts, sums)
    return shifted


@contextlib.contextmanager
def open_session(plan: RunPlan, runner: Runner, board, games: int, entropy: int):
    """The cluster and the stored run of a run, for as long as its blocks play.

    The cluster is connected before the store is opened, so a scheduler that does not
    answer leaves the store untouched. On an error or a Ctrl-C that escapes the run, a
    stored run is released (:meth:`~fastbg.rollouts.store.OpenRun.abort`); a cluster
    started here is closed in any case, the stored run left open for the caller's
    :meth:`~fastbg.rollouts.store.OpenRun.finish`.

    Parameters
    ----------
    plan : RunPlan
    runner : Runner
    board : numpy.ndarray
        The position.
    games : int
        Games of the run.
    entropy : int
        Root seed.

    Yields
    ------
    RunSession
    """
    cl = connect(runner.dask, runner.workers, blocks=n_blocks(int(games), plan.block_size))
    nworkers = runner.threads(games, plan.block_size)
    address = stored = None
    try:
        if cl is not None:
            nworkers, address = cl.threads() or nworkers, cl.address
        stored = open_run(runner.store, runner.run_id, plan.kind, plan.request, plan.settings,
                          plan.block_size, parent=runner.table_run,
                          counts_shape=plan.stored_shape)
        yield RunSession(plan, runner, board, games, entropy, cl, stored, nworkers, address)
    except BaseException:          # an error, or Ctrl-C before the run could see it
        if stored is not None:
            stored.abort()
        raise
    finally:
        if cl is not None:
            cl.close()


def play_stored(plan: RunPlan, runner: Runner, board, games: int, entropy: int, block,
                until=None) -> PlayedRun:
    """Play a run's blocks where ``runner`` says: on threads or a Dask cluster, kept in its
    store or not (a stored run resumed from its stored blocks), in one stage
    (:func:`open_session`, :meth:`RunSession.play`).

    Parameters
    ----------
    plan : RunPlan
    runner : Runner
    board : numpy.ndarray
        The position (for :func:`~fastbg.rollouts.blocks.run_blocks`).
    games : int
        Games of the run.
    entropy : int
        Root seed.
    block : BlockRecipe
        The run's blocks.
    until : callable, optional
        The stop rule of :func:`~fastbg.rollouts.blocks.run_blocks`.

    Returns
    -------
    PlayedRun
    """
    with open_session(plan, runner, board, games, entropy) as session:
        run = session.play(block, until=until)
        seconds = session.elapsed()
    return PlayedRun(run, seconds, session.workers, session.address, session.stored,
                     session.stored_games)
