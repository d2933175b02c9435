"""Distributed runs: rollout blocks as the tasks of a Dask cluster (``dask.distributed``).

:func:`connect` turns the ``dask=`` argument of the rollout functions (``True`` for a
``LocalCluster`` of worker processes on this machine, a scheduler address, or a
``distributed.Client``) into a :class:`DaskCluster`, which :func:`fastbg.rollouts.blocks.
run_blocks` uses in place of its threads. A task plays one block or a few consecutive ones
(:data:`TASK_SECONDS`; how long a block takes is remembered from one run to the next on the
same cluster, :func:`block_kind`) and is a pure function of the run's
:class:`~fastbg.rollouts.blocks.BlockRecipe` and its first block, so the blocks lost with a
worker are simply played again by another, and the results are merged in block order by
the calling process: the numbers are those of a threaded run with the same seed and
settings (DESIGN section 4).

dask.distributed is an optional extra (``pip install 'fastbg[dask]'``), imported only when
a cluster is asked for.
"""
from __future__ import annotations

import asyncio
import logging
import os
import re
import signal
import threading
import time
import uuid
from collections import OrderedDict

import numpy as np

from .._version import __version__
from ..engine import get_engine
from .blocks import BlockRecipe, block_size_of, play_block, resolve_workers

__all__ = ["DaskCluster", "DaskBlocks", "connect", "check_address", "dask_setup", "INSTALL_HINT"]

INSTALL_HINT = "pip install 'fastbg[dask]'"

#: A scheduler address as ``dask scheduler`` prints it (``tcp://HOST:PORT``; the scheme may be
#: left out, tcp being Dask's default; HOST a name, an IPv4 address or a bracketed IPv6 one).
_ADDRESS = re.compile(r"^(?:(?:tcp|tls|ws|wss|ucx)://)?(?:[A-Za-z0-9_.-]+|\[[0-9A-Fa-f:.]+\]):[0-9]{1,5}$")

#: Set in the environment of a local cluster's workers (:func:`dask_setup`).
_LOCAL_WORKER = "FASTBG_LOCAL_DASK_WORKER"

#: Seconds between two questions to the scheduler about the cluster's threads (workers come
#: and go; asking at every block would cost a round trip each).
_THREADS_EVERY = 1.0

#: Seconds of play a task aims at. A task costs this process and a worker a few
#: milliseconds of CPU (scheduling, messages, pickling): a fast policy's 1,000-game block
#: (pubeval: a few hundredths of a second) pays 10-60% for it, so such blocks go to the
#: workers several at a time (experiments/bench_dask.py). A task no longer than this keeps
#: a lost worker's or a Ctrl-C's cost small.
TASK_SECONDS = 1.0

#: The most blocks one task plays.
MAX_TASK_BLOCKS = 64

#: Seconds a game took on a cluster's workers, by (scheduler address, :func:`block_kind`):
#: the last estimate of each kind of run, so that the next run of that kind (the next
#: ``fastbg.rollout`` call, the next row of a table, the next stage of candidate plays)
#: sizes its first tasks at once instead of sending single blocks until its first ones
#: come back (every such task a round trip: 5% of a one-second pubeval run, issue 13).
#: Only the grouping of blocks into tasks depends on it, never the numbers.
_SECONDS_PER_GAME: OrderedDict = OrderedDict()
_SECONDS_LOCK = threading.Lock()
#: Kinds of run remembered (the least recently used are forgotten).
_SECONDS_MAX = 256

#: Arguments of a recipe that name the run's seed or its place, not what a game costs.
_NOT_COST = frozenset({"entropy", "offset", "seed"})

#: Dask settings of a local cluster: with Dask's own, its periodic chores cost the two cores a
#: few percent even while it waits (3% of a core for each worker, 3% for the scheduler's
#: process, measured on the 2-core development machine), about what issue 13 allows for Dask
#: in all: the workers' statistical profiler samples every thread's stack every 10 ms, the
#: event loops check their own health every 20 ms, and the system monitor samples CPU and
#: memory every 0.5 s. With these, about a fifth of that. (The same settings for ``dask
#: scheduler`` / ``dask worker`` as ``DASK_...`` variables: docs/distributed.md.)
LOCAL_CLUSTER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
    # a worker's and its nanny's memory checks every 0.1 s (a block holds kilobytes), and
    # work stealing, which rebalances queues of many tasks (a run keeps two per thread)
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.scheduler.work-stealing": False,
}


def _cost(value):
    """What of a recipe's argument ``value`` goes into :func:`block_kind`: plain values as
    they are, settings (dicts) item by item, sequences by their length (the candidates of a
    stage), anything else (a position's board, cell values) by its type alone."""
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, dict):
        return tuple(sorted((str(k), _cost(v)) for k, v in value.items() if k not in _NOT_COST))
    if isinstance(value, (list, tuple)):
        return ("len", len(value), tuple(_cost(v) for v in value if isinstance(v, dict)))
    return type(value).__name__


def block_kind(block, block_size: int):
    """What a block's cost depends on, as a key: the recipe's block function and its settings
    (policy, engine, variance reduction, truncation, cube options, number of candidates...)
    and the block size, without the seed nor the position (which change the cost only
    moderately; a run refines the estimate with its own first blocks anyway). None for a
    block function that is not a :class:`~fastbg.rollouts.blocks.BlockRecipe` (not
    remembered)."""
    if not isinstance(block, BlockRecipe):
        return None
    f = block.factory
    return (getattr(f, "__module__", None), getattr(f, "__qualname__", repr(f)),
            int(block_size), _cost(block.kwargs))


def _remembered(key):
    if key is None:
        return None
    with _SECONDS_LOCK:
        return _SECONDS_PER_GAME.get(key)


def _remember(key, per_game: float) -> None:
    if key is None:
        return
    with _SECONDS_LOCK:
        _SECONDS_PER_GAME[key] = per_game
        _SECONDS_PER_GAME.move_to_end(key)
        while len(_SECONDS_PER_GAME) > _SECONDS_MAX:
            _SECONDS_PER_GAME.popitem(last=False)


def _distributed():
    try:  # lazy on purpose: dask.distributed is an optional extra, needed only for a cluster
        import distributed
    except ImportError:
        raise ImportError("distributed runs need dask.distributed, which is not installed: "
                          f"{INSTALL_HINT}") from None
    return distributed


def check_address(address: str) -> str:
    """``address`` if it reads as a Dask scheduler's address (``tcp://HOST:PORT``), else
    ValueError naming it (a position given after ``--dask`` lands here, for one)."""
    text = address.strip()
    if not _ADDRESS.match(text):
        raise ValueError(f"{address!r} is not a Dask scheduler address: give tcp://HOST:PORT, "
                         "as `dask scheduler` prints it (a position goes before --dask)")
    return text


def _refused(address: str) -> str | None:
    """Why a TCP connection to the scheduler's ``HOST:PORT`` is refused outright (nothing
    listens on that port, an unknown host), or ``None`` when it is not (it connects, or
    takes time, or the address is not over TCP: Dask's own connect and time-out decide)."""
    import socket

    scheme, _, rest = address.strip().rpartition("://")
    if scheme not in ("", "tcp", "tls", "ws", "wss"):
        return None
    host, _, port = rest.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=2.0):
            return None
    except (ConnectionRefusedError, socket.gaierror) as exc:
        return str(exc.strerror or exc)
    except (OSError, ValueError):      # a time-out, an unreachable network: Dask decides
        return None


def _warm_up() -> str:
    """On a worker: import the engine and load the networks before the first block, so that
    a run's time holds games, not start-up; returns the worker's fastbg version."""
    try:
        get_engine("cython").evaluator.EvalPolicy()
    except ImportError:     # a worker without the compiled core can still play engine="python"
        pass
    return __version__


def dask_setup(worker=None) -> None:
    """Dask's preload hook, run as a worker starts (every worker of a local cluster, restarted
    ones too; ``dask worker --preload fastbg.rollouts.cluster`` elsewhere): load fastbg and
    the networks before the first block. A local cluster's worker also ignores Ctrl-C, which
    the terminal sends to the whole process group: the process running the rollout stops
    the run (keeping the blocks in flight), then closes the cluster."""
    if os.environ.get(_LOCAL_WORKER):
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        except ValueError:     # not the main thread: nothing to change there
            pass
        # A local cluster closes its scheduler as the run ends; a worker whose heartbeat was
        # on its way then logs the closed connection with a traceback, on the run's stderr
        # (seen after a Ctrl-C on a loaded machine). The run has its results by then.
        logging.getLogger("distributed.worker").addFilter(_closing_heartbeat)
    _warm_up()


def _closing_heartbeat(record: logging.LogRecord) -> bool:
    """Logging filter of a local cluster's workers: drop the heartbeat failure that closing
    the cluster can cause."""
    return not str(record.msg).startswith("Failed to communicate with scheduler during heartbeat")


def _play(block, first: int, sizes: list, entropy: int):
    """Blocks ``first, first + 1, ...`` of ``sizes`` games each, on a worker: the seconds
    they took and their ``[(k, counts, sums), ...]`` (:func:`fastbg.rollouts.blocks.play_block`).

    A pure function of its arguments: the scheduler may run it again, on another worker,
    when the worker that had it is lost, and gets the same numbers.
    """
    fn = block.cached() if isinstance(block, BlockRecipe) else block
    t0 = time.perf_counter()
    out = [play_block(fn, first + i, n, entropy) for i, n in enumerate(sizes)]
    return time.perf_counter() - t0, out


class DaskCluster:
    """A Dask client ready to play a run's blocks.

    Parameters
    ----------
    client : distributed.Client
    local : distributed.LocalCluster, optional
        The cluster this object started (closed with it).
    own_client : bool
        Close ``client`` with this object (False for a client the caller passed in).

    Attributes
    ----------
    address : str
        The scheduler's address.
    local : bool
        Whether the cluster is a ``LocalCluster`` started for the run.
    """

    def __init__(self, client, local=None, own_client: bool = False):
        self.client = client
        self._local = local
        self._own = own_client
        self.address = str(client.scheduler.address)
        self.local = local is not None

    def threads(self) -> int:
        """Threads of the cluster's workers now (0 while it has none)."""
        return int(sum(self.client.nthreads().values()))

    def blocks(self, block, entropy: int, games: int, block_size: int) -> "DaskBlocks":
        """The executor of one run (:func:`fastbg.rollouts.blocks.run_blocks`)."""
        return DaskBlocks(self, block, entropy, games, block_size)

    def check_workers(self) -> None:
        """Wait for a worker (the scheduler's connect time-out at most), load fastbg and
        the networks on every worker, and check that each runs this fastbg version;
        ValueError naming the problem otherwise."""
        import dask  # lazy on purpose: part of the optional extra
        timeout = dask.utils.parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"),
                                             default="seconds")
        try:
            self.client.wait_for_workers(1, timeout=timeout)
        except (TimeoutError, asyncio.TimeoutError):
            raise ValueError(f"the Dask scheduler at {self.address} has no workers: start "
                             f"some with `dask worker {self.address}`") from None
        try:
            versions = self.client.run(_warm_up)
        except Exception as exc:   # a worker that cannot import fastbg
            raise ValueError(f"a worker of {self.address} cannot run fastbg "
                             f"({type(exc).__name__}: {exc}): every machine needs fastbg "
                             f"{__version__} in the same Python") from None
        other = {w: v for w, v in versions.items() if v != __version__}
        if other:
            w, v = next(iter(other.items()))
            raise ValueError(f"worker {w} runs fastbg {v}, this is fastbg {__version__}: "
                             "every machine of a cluster needs the same version")

    def close(self) -> None:
        """Close the client and the local cluster if this object opened them."""
        if self._own:
            self.client.close()
        if self._local is not None:
            self._local.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class DaskBlocks:
    """The blocks of one run as Dask tasks: the executor interface of
    :func:`fastbg.rollouts.blocks.run_blocks` (as its threads' ``_Threads``)."""

    def __init__(self, cluster: DaskCluster, block, entropy: int, games: int, block_size: int):
        self.cluster = cluster
        self.client = cluster.client
        self._dist = _distributed()
        self.block = block
        self.entropy = int(entropy)
        self.games = games
        self.block_size = block_size
        # task keys name the run, so that two runs (or a run and its resume) never share one
        self.run = block.token if isinstance(block, BlockRecipe) else uuid.uuid4().hex
        self._k: dict = {}          # future -> its first block
        self._games: dict = {}      # future -> its games
        self._threads = cluster.threads()
        self._asked = time.monotonic()
        # seconds a game takes on a worker: what the last run of this kind on this cluster
        # found (the same cluster object or not: a table's rows, calls given a Client),
        # refined by this run's own tasks
        kind = block_kind(block, block_size)
        self._kind = None if kind is None else (cluster.address, kind)
        self._per_game: float | None = _remembered(self._kind)

    def threads(self) -> int:
        now = time.monotonic()
        if now - self._asked > _THREADS_EVERY:
            self._threads, self._asked = self.cluster.threads(), now
        return self._threads

    def in_flight(self) -> int:
        # two tasks a thread: one playing, one waiting on its worker, so that no worker idles
        # for the round trip to this process. While a block's time is unknown (the first run
        # of its kind on the cluster), one single-block task a thread: a worker idles for a
        # round trip after it, where a second single-block task would cost one
        threads = max(1, self.threads())
        return threads if self._per_game is None else 2 * threads

    def task_blocks(self, k: int, nblocks: int) -> int:
        """Blocks of the task starting at block ``k``: one until a block's time is known
        (from this run's first tasks, or from the last run of the same kind on the cluster),
        then as many as fill :data:`TASK_SECONDS`, but no more than leave two tasks for
        each thread in the rest of the run (so that the last tasks end together)."""
        if self._per_game is None:
            return 1
        per_block = self._per_game * max(1, self.block_size)
        m = int(TASK_SECONDS / max(per_block, 1e-6))
        share = (nblocks - k) // (2 * max(1, self.threads()))
        return max(1, min(m, share, MAX_TASK_BLOCKS))

    def submit(self, k: int, nblocks: int):
        m = self.task_blocks(k, nblocks)
        sizes = [block_size_of(j, self.games, self.block_size) for j in range(k, k + m)]
        # priority -k: the earliest blocks first, as threads take them (merging is in order)
        fut = self.client.submit(_play, self.block, k, sizes, self.entropy,
                                 key=f"fastbg-blocks-{self.run}-{k}-{k + m - 1}", priority=-k)
        self._k[fut] = k
        self._games[fut] = sum(sizes)
        return fut, m

    def wait(self, pending: set, timeout: float):
        if pending:
            try:
                self._dist.wait(list(pending), timeout=timeout, return_when="FIRST_COMPLETED")
            except (TimeoutError, asyncio.TimeoutError):
                pass
        done = {fut for fut in pending if fut.done()}
        return done, pending - done

    def drop_queued(self, pending: set) -> set:
        # Which queued blocks a worker has started is not known here: keep as many of the
        # earliest as the cluster has threads (they were sent first), cancel the rest.
        done = {fut for fut in pending if fut.done()}
        live = sorted(pending - done, key=self._k.__getitem__)
        keep = max(1, self.threads())
        for fut in live[keep:]:
            fut.cancel()
            self._k.pop(fut, None)
            self._games.pop(fut, None)
        return done | set(live[:keep])

    def running(self, pending: set) -> int:
        return sum(1 for fut in pending if not fut.done())

    def result(self, fut) -> list:
        self._k.pop(fut, None)       # the cluster may forget the task once it is merged
        games = self._games.pop(fut, 0)
        seconds, out = fut.result()
        if games > 0:
            # per game, so that a run's short last block does not read as a fast one
            per_game = seconds / games
            # the slowest recent task: a task does not grow past TASK_SECONDS on a lucky one
            self._per_game = per_game if self._per_game is None else \
                max(per_game, 0.5 * (self._per_game + per_game))
            _remember(self._kind, self._per_game)
        return out

    def abandon(self, pending: set) -> None:
        """Give up the tasks ``pending`` (a second Ctrl-C): cancelled, their results never
        read (a worker may still finish one it started; its result is dropped)."""
        live = [fut for fut in pending if not fut.done()]
        if live:
            self.client.cancel(live)
        for fut in pending:
            self._k.pop(fut, None)
            self._games.pop(fut, None)

    def close(self, wait: bool = True) -> None:
        if self._k:
            self.client.cancel(list(self._k))
            self._k.clear()
        self._games.clear()


def connect(dask, workers: int | None = None, *, blocks: int | None = None) -> DaskCluster | None:
    """The cluster a run asked for with ``dask=``, started or connected and checked.

    Parameters
    ----------
    dask : None, bool, str, distributed.Client or DaskCluster
        ``None`` or ``False``: no cluster (threads; returns None). ``True``: a
        ``LocalCluster`` of ``workers`` worker processes on this machine, one thread
        each. A scheduler address (``tcp://HOST:PORT``): that cluster, its workers as
        they are. A ``distributed.Client``: its cluster (left open at the end). A
        :class:`DaskCluster` that this function returned before: that cluster again, left
        open and not checked again (the runs of a table's rows share the table's cluster:
        :mod:`fastbg.research`).
    workers : int, optional
        With ``dask=True``: the worker processes (default one per CPU, never more than
        ``blocks``). Not allowed with an address, a client or a cluster, whose workers are
        their own.
    blocks : int, optional
        Blocks of the run (of the longest run, for a cluster that serves several).

    Returns
    -------
    DaskCluster or None
        To be closed by the caller (it closes only what it opened).

    Raises
    ------
    ImportError
        If dask.distributed is not installed.
    ValueError
        For a bad ``dask`` or ``workers``, an address that refuses the connection, a
        scheduler that does not answer within Dask's connect time-out
        (``distributed.comm.timeouts.connect``, 30 s unless configured),
        one with no workers, or workers without this fastbg version.
    """
    if dask is None or dask is False:
        return None
    if isinstance(dask, DaskCluster):
        if workers is not None:
            raise ValueError("workers is the number of worker processes of a local cluster "
                             "(dask=True); an existing cluster's workers are its own")
        # started (or connected) and checked by its owner, who closes it: a view that
        # closes nothing, so that each run of a table's rows can `close()` as usual
        view = DaskCluster(dask.client)
        view.local = dask.local
        return view
    if isinstance(dask, str):
        address = check_address(dask)
    dist = _distributed()
    if not isinstance(dask, (bool, str, dist.Client)):
        raise ValueError(f"dask must be True, a scheduler address (tcp://HOST:PORT) or a "
                         f"distributed.Client, got {dask!r}")
    if dask is not True and workers is not None:
        raise ValueError("workers is the number of worker processes of a local cluster "
                         "(dask=True); an existing cluster's workers are its own")
    if dask is True:
        n = resolve_workers(workers)
        if blocks is not None:
            n = max(1, min(n, blocks))
        import dask  # lazy on purpose: part of the optional extra
        # Dask's nannies start workers with MALLOC_TRIM_THRESHOLD_=65536, which also fixes
        # glibc's mmap threshold: every block then maps its buffers afresh (about 1,000 page
        # faults a block with the nn, none on threads); a local cluster's workers go without
        environ = {k: v for k, v in dask.config.get("distributed.nanny.pre-spawn-environ").items()
                   if k != "MALLOC_TRIM_THRESHOLD_"}
        # (a nanny hands the settings to its worker processes, restarted ones too)
        with dask.config.set({**LOCAL_CLUSTER_CONFIG,
                              "distributed.nanny.pre-spawn-environ": environ}):
            # the scheduler's web server on a free port (":8787" warns when another cluster
            # holds it); its logs only for errors, so that a run prints only its results
            local = dist.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                      dashboard_address=":0", silence_logs=logging.ERROR,
                                      preload=[__name__], env={_LOCAL_WORKER: "1"})
            try:
                client = dist.Client(local)
            except BaseException:
                local.close()
                raise
        cluster = DaskCluster(client, local=local, own_client=True)
    elif isinstance(dask, str):
        refused = _refused(address)
        if refused:     # nothing listens there: say so now, not after Dask's time-out
            raise ValueError(f"no Dask scheduler answers at {address} ({refused}); start one "
                             "with `dask scheduler` and give the address it prints")
        try:
            client = dist.Client(address)
        except (OSError, TimeoutError, asyncio.TimeoutError, ValueError) as exc:
            raise ValueError(f"no Dask scheduler answers at {address} ({exc}); start one "
                             "with `dask scheduler` and give the address it prints") from None
        cluster = DaskCluster(client, own_client=True)
    else:
        cluster = DaskCluster(dask)
    try:
        cluster.check_workers()
    except BaseException:
        cluster.close()
        raise
    return cluster
