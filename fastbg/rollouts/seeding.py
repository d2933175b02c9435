"""Seeding and stratification: the dice of every game from (seed, block, game index) alone.

Design
------
A run's root seed is the entropy of a ``numpy.random.SeedSequence``. Block ``k`` draws its
dice from ``PCG64DXSM(SeedSequence(entropy, spawn_key=(k,)))`` (:func:`block_bit_generator`),
so no game's dice depend on the number of workers, on scheduling or on the run's length
(DESIGN section 4). Quasi-random dice (:func:`stratified_rolls`) replace the first two random
rolls of each game by a stratified pair drawn from streams of their own, keyed
``(QR_KEY, group)``: two-word keys, which never coincide with a block's one-word key.
Nothing here knows of threads, stores or settings, so it is tested alone.
"""
from __future__ import annotations

import numpy as np

from ..spec.dice import bounded

__all__ = ["block_bit_generator", "stratified_rolls", "QR_KEY", "OPENING_OUTCOMES"]


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
