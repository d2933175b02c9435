"""The ordered, exact merge of a run's blocks and its stop rule (DESIGN section 4).

Design
------
Blocks finish in any order (threads, a cluster), but a run's totals must depend only on the
seed and the settings. :class:`OrderedMerge` therefore holds a finished block until every
block before it is in, then adds it: integer counts by integer addition, float sums (variance
reduction) as exact fractions rounded once when read, so no total depends on the order in
which blocks finished. The stop rule is asked after each block with the totals of blocks
``0..k``, in block order; once it is met no later block is added, whatever was already
played. The result is always a prefix of blocks ``0, 1, ..., m - 1`` (a stored run stays
resumable with the numbers of one uninterrupted run).

The merge runs in the calling thread only; it knows nothing of threads, signals or clusters
(:mod:`fastbg.rollouts.blocks` schedules the blocks, :mod:`fastbg.rollouts.interrupts` reads
Ctrl-C), so it is tested alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import numpy as np

__all__ = ["OrderedMerge", "BlockRun"]


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


class OrderedMerge:
    """Blocks merged in block order, exactly, with a stop rule.

    Parameters
    ----------
    sizes : callable
        ``sizes(k)``: the games of block ``k``.
    counts_shape : tuple of int
        The shape of a block's counts.
    until : callable, optional
        ``until(counts, sums, games) -> bool``: the stop rule, asked with the totals after
        each block; once True (:attr:`met`), later blocks are dropped.
    on_block : callable, optional
        ``on_block(k, games, counts, sums)`` of each block merged (not of stored ones).
    progress : callable, optional
        ``progress(games)`` of each block merged.

    Attributes
    ----------
    counts : numpy.ndarray of int64
        The totals of the blocks merged.
    games : int
        Their games.
    merged : int
        Blocks ``0 .. merged - 1`` are in the totals.
    met : bool
        The stop rule was met.
    """

    def __init__(self, sizes: Callable[[int], int], counts_shape: tuple,
                 until: Callable | None = None, on_block: Callable | None = None,
                 progress: Callable | None = None):
        self.sizes = sizes
        self.counts = np.zeros(counts_shape, dtype=np.int64)
        self.until = until
        self.on_block = on_block
        self.progress = progress
        self.games = 0
        self.merged = 0
        self.met = False
        self._ready: dict = {}          # finished blocks waiting for the ones before them
        self._exact: list | None = None  # float sums as exact fractions: order-free
        self._sums_shape = None

    def _add_sums(self, f: np.ndarray | None) -> None:
        if f is None:
            return
        if self._exact is None:
            self._sums_shape = f.shape
            self._exact = [Fraction(0)] * f.size
        for i, x in enumerate(f.reshape(-1).tolist()):
            self._exact[i] += Fraction(x)

    def sums(self) -> np.ndarray | None:
        """The float sums of the blocks merged, rounded once (None if no block had any)."""
        if self._exact is None:
            return None
        return np.array([float(x) for x in self._exact]).reshape(self._sums_shape)

    def add(self, k: int, counts: np.ndarray, sums: np.ndarray | None = None,
            stored: bool = False) -> None:
        """Block ``k`` finished: merged now if every block before it is in, else held.

        A block after the stop rule was met is dropped. ``stored``: read from the results
        store (``on_block`` is not called for it)."""
        if self.met:
            return              # played past the stop: dropped
        self._ready[k] = (counts, sums)
        while self.merged in self._ready and not self.met:
            c, f = self._ready.pop(self.merged)
            n = self.sizes(self.merged)
            self.counts[:] += c
            self._add_sums(f)
            self.games += n
            if self.on_block is not None and not stored:
                self.on_block(self.merged, n, c, f)
            self.merged += 1
            if self.progress is not None:
                self.progress(n)
            if self.until is not None and self.until(self.counts, self.sums(), self.games):
                self.met = True

    def add_stored(self, done: dict | None, nblocks: int) -> int:
        """Merge a resumed run's stored blocks ``{k: (counts, sums)}`` (``k = 0, 1, ...``);
        return the first block to play. ValueError if they are not blocks 0, 1, ... of a
        run of ``nblocks`` blocks."""
        first = 0
        for k in sorted(done or {}):
            if k != first or k >= nblocks:
                raise ValueError(f"stored blocks must be blocks 0, 1, ... of the run, got {k}")
            c, f = done[k]
            self.add(k, np.asarray(c, dtype=np.int64),
                     None if f is None else np.asarray(f, dtype=np.float64), stored=True)
            first += 1
            if self.met:
                break
        return first

    def add_partial(self, counts: np.ndarray, sums: np.ndarray | None) -> None:
        """The finished games of a block cut short in the calling thread (the pure-Python
        engine's, on Ctrl-C): added to the totals, after every merged block."""
        self.counts[:] += counts
        self._add_sums(sums)
        self.games += int(counts.sum())

    def result(self, interrupted: bool) -> BlockRun:
        """The run's :class:`BlockRun` (a run stopped by its rule is not ``interrupted``)."""
        return BlockRun(self.counts, self.games, interrupted and not self.met, self.sums())
