"""Ctrl-C in a run of blocks: a two-stage state machine, apart from the scheduling.

Design
------
A run's blocks play in worker threads, in compiled code that holds no GIL, which no signal
and no exception can stop. So Ctrl-C sets flags instead of raising (it can then never land
between two updates of the merge, nor inside a store's write), and the scheduling loop
(:func:`fastbg.rollouts.blocks.run_blocks`) reads them:

``running`` --first Ctrl-C--> ``stopping`` --second Ctrl-C--> ``abandoning``

- ``stopping`` (:attr:`CtrlC.stop`): no new block starts, queued ones are dropped, the running
  ones finish and are kept.
- ``abandoning`` (:attr:`CtrlC.abandon`): the running blocks are given up; :attr:`CtrlC.flag`
  (a uint8 array the engines' block loops read between games, their ``stop`` argument) is
  set so that they end after their game, and their partial results are discarded.

A second SIGINT within :data:`SIGINT_ECHO_SECONDS` of the first is the first one's echo, not
a second Ctrl-C (GNU ``timeout -s INT`` signals both the command and its process group). A
stop rule that is met moves the machine to ``abandoning`` without a key press
(:meth:`CtrlC.halt`): the blocks still playing are past the stop.

The clock is a parameter, so the machine is tested without signals or sleeps.
"""
from __future__ import annotations

import contextlib
import signal
import threading
import time
from typing import Callable

import numpy as np

__all__ = ["CtrlC", "SIGINT_ECHO_SECONDS", "on_sigint", "restore_sigint", "sigint_deferred"]

#: Seconds after a run's first SIGINT in which another is taken as the same Ctrl-C: GNU
#: ``timeout -s INT`` signals both the command and its process group, and a terminal may
#: deliver one key press to several processes, so one intent can arrive as two signals a few
#: milliseconds apart; a deliberate second Ctrl-C comes after the first one's message.
SIGINT_ECHO_SECONDS = 0.5


class CtrlC:
    """The Ctrl-C state of one run.

    Parameters
    ----------
    clock : callable
        Seconds, monotonic (default :func:`time.monotonic`).
    echo : float
        :data:`SIGINT_ECHO_SECONDS`.

    Attributes
    ----------
    stop : threading.Event
        No new block: the first Ctrl-C (or :meth:`halt`).
    abandon : threading.Event
        The running blocks are given up: a second Ctrl-C (or :meth:`halt`).
    flag : numpy.ndarray of uint8, shape (1,)
        The workers' stop flag (:func:`fastbg.rollouts.executors.stop_flag`), set with
        ``abandon``.
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic,
                 echo: float = SIGINT_ECHO_SECONDS):
        self.clock = clock
        self.echo = echo
        self.stop = threading.Event()
        self.abandon = threading.Event()
        self.flag = np.zeros(1, dtype=np.uint8)
        self._first: float | None = None     # clock() of the first Ctrl-C
        self.told = False     # the run's on_interrupt was told of the first Ctrl-C

    @property
    def state(self) -> str:
        """``"running"``, ``"stopping"`` or ``"abandoning"``."""
        return ("abandoning" if self.abandon.is_set() else
                "stopping" if self.stop.is_set() else "running")

    def press(self, signum=None, frame=None) -> None:
        """A Ctrl-C (a SIGINT handler's signature): the first stops the run after its
        running blocks, a later one (not an echo) abandons them."""
        now = self.clock()
        if self._first is None:
            self._first = now
        elif now - self._first >= self.echo:
            self.flag[0] = 1            # the workers' block loops stop after their game
            self.abandon.set()
        # else: the first Ctrl-C's echo (two signals for one intent), not a second Ctrl-C
        self.stop.set()

    def halt(self) -> None:
        """The stop rule is met: no new block, and the running ones (past the stop) end
        after their game. Not a Ctrl-C: :attr:`abandon` is left as it is."""
        self.stop.set()
        self.flag[0] = 1


def on_sigint(handler):
    """Install a SIGINT handler (main thread only); return the previous one (None when not
    installed)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGINT, handler)


def restore_sigint(previous) -> None:
    """Put back the SIGINT handler :func:`on_sigint` replaced (nothing if it installed
    none)."""
    if previous is not None:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def sigint_deferred():
    """Hold a Ctrl-C that comes inside the block until the block is done, then hand it to
    the SIGINT handler that was there before (Python's raises KeyboardInterrupt).

    For short book-keeping that must not be cut in half, such as a stored run's end (a new
    run with nothing stored is removed): a second Ctrl-C pressed as the rollout returned
    came after its handler was restored, and its KeyboardInterrupt stopped the removal
    midway, keeping empty runs. Main thread only; elsewhere the block runs as it is.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: pressed.append(frame))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if pressed:
            if callable(previous):
                previous(signal.SIGINT, pressed[0])
            elif previous != signal.SIG_IGN:
                raise KeyboardInterrupt
