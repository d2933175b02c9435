"""Executors of a run's blocks: worker threads of this process, and the stop flag their
blocks read.

Design
------
:func:`fastbg.rollouts.blocks.run_blocks` needs seven things of an executor: ``in_flight()``
(tasks to keep submitted), ``submit(k, nblocks)``, ``wait(pending, timeout)``,
``drop_queued(pending)``, ``running(pending)``, ``result(future)`` (a list of ``(k, counts,
sums)``) and ``abandon(pending)`` / ``close(wait)``. :class:`ThreadBlocks` plays blocks on
threads (the compiled core releases the GIL); :class:`fastbg.rollouts.cluster.DaskBlocks`
on a Dask cluster. Neither merges anything: results go back to the calling thread, which
merges them in block order (:mod:`fastbg.rollouts.merge`).

A second Ctrl-C abandons a run's blocks through its stop flag (:mod:`fastbg.rollouts.
interrupts`): a uint8 array of one element that the compiled block loops read between games
(their ``stop`` argument), and Python loops over games through :func:`abandoned`. The worker
thread playing a run's block finds the run's flag here (each thread plays one block at a
time).
"""
from __future__ import annotations

import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Callable

import numpy as np

__all__ = ["ThreadBlocks", "BlockAbandoned", "stop_flag", "abandoned"]

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
    result is then discarded by :func:`fastbg.rollouts.blocks.play_block`)."""
    flag = stop_flag()
    return flag is not None and bool(flag[0])


class ThreadBlocks:
    """Blocks on threads of this process (the compiled core releases the GIL).

    Parameters
    ----------
    play : callable
        ``play(k) -> (k, counts, sums)``: plays block ``k``.
    workers : int
        Threads.
    flag : numpy.ndarray of uint8, shape (1,)
        The run's stop flag (:func:`stop_flag` in its workers).
    """

    def __init__(self, play: Callable[[int], tuple], workers: int, flag: np.ndarray):
        self.play = play
        self.workers = workers
        self.flag = flag
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
        """Tasks of ``pending`` still playing."""
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
