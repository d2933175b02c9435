"""Dice from a numpy bit generator: the dice contract of both engines, draw for draw.

The engine spec's dice (DESIGN section 4 and the engine contract in
:mod:`fastbg.reference`): the pure-Python engine plays with these functions, the Cython
core's ``dice.pxd`` makes the same draws in C, and the rollouts' stratified first rolls
(:mod:`fastbg.rollouts.blocks`) use :func:`bounded`. Every function reads whole 64-bit draws
with ``bitgen.random_raw()``, the same stream the Cython core reads through
numpy's ``bitgen_t.next_uint64``, and rejects the biased tail of the 64-bit range
so that ``x % n`` is exactly uniform.

Reproducibility
---------------
For a bit generator in a given state, each function consumes the same draws and
returns the same values as the Cython core.
"""
from __future__ import annotations

import numpy as np

__all__ = ["roll_index", "roll", "bounded", "opening_roll"]

_TWO64 = 1 << 64
# Draws at or above this limit are rejected: below it every residue mod 36 is
# equally frequent.
_LIMIT36 = _TWO64 - (_TWO64 % 36)


def _next_uint64(bitgen) -> int:
    # random_raw() returns numpy.uint64; Python ints keep the modular arithmetic exact.
    if isinstance(bitgen, np.random.MT19937):
        # MT19937's raw output is 32 bits; numpy's C next_uint64 joins two draws,
        # the first in the high half.
        hi, lo = (int(x) for x in bitgen.random_raw(2))
        return (hi << 32) | lo
    return int(bitgen.random_raw())


def roll_index(bitgen) -> int:
    """Draw a roll as an index in ``[0, 36)``.

    Parameters
    ----------
    bitgen : numpy.random.BitGenerator
        For example ``numpy.random.PCG64DXSM(seed)``.

    Returns
    -------
    int
        ``r`` with die 1 ``= r // 6 + 1`` and die 2 ``= r % 6 + 1``; draws
        ``x >= 2**64 - 2**64 % 36`` are rejected and drawn again.
    """
    while True:
        x = _next_uint64(bitgen)
        if x < _LIMIT36:
            return x % 36


def roll(bitgen) -> tuple[int, int]:
    """Roll two dice.

    Parameters
    ----------
    bitgen : numpy.random.BitGenerator

    Returns
    -------
    (int, int)
        ``(r // 6 + 1, r % 6 + 1)`` for ``r = roll_index(bitgen)``.
    """
    r = roll_index(bitgen)
    return r // 6 + 1, r % 6 + 1


def bounded(bitgen, n: int) -> int:
    """Draw a uniform integer in ``[0, n)``.

    Parameters
    ----------
    bitgen : numpy.random.BitGenerator
    n : int
        Number of choices, ``2 <= n < 2**64``.

    Returns
    -------
    int
        ``x % n`` for the first draw ``x < 2**64 - 2**64 % n``.

    Raises
    ------
    ValueError
        If ``n < 2`` (the engines never draw for fewer than two choices) or
        ``n >= 2**64``.
    """
    n = int(n)
    if n < 2 or n >= _TWO64:
        raise ValueError(f"bounded() needs 2 <= n < 2**64, got n={n}")
    limit = _TWO64 - (_TWO64 % n)
    while True:
        x = _next_uint64(bitgen)
        if x < limit:
            return x % n


def opening_roll(bitgen) -> tuple[int, int]:
    """The opening roll: one die each, re-rolled while they tie.

    Parameters
    ----------
    bitgen : numpy.random.BitGenerator

    Returns
    -------
    (int, int)
        ``(a, b)`` with ``a != b``: ``a = r // 6 + 1`` is the die of the side on
        roll in the position, ``b = r % 6 + 1`` the opponent's, for the first
        ``r = roll_index(bitgen)`` that is not a double. If ``a > b`` the side on
        roll plays ``(a, b)``; otherwise the opponent moves first with ``(b, a)``.
    """
    while True:
        r = roll_index(bitgen)
        a, b = r // 6 + 1, r % 6 + 1
        if a != b:
            return a, b
