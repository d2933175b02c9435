# cython: language_level=3
"""Policies: pick one play among the legal ones, without the GIL.

A policy is a cdef class whose ``choose`` is a ``noexcept nogil`` method, so the
game loop calls it through the vtable with no Python interaction.
"""
from libc.stdint cimport int64_t
from numpy.random cimport bitgen_t
from fastbg._core._types cimport board_t


cdef class Policy:
    cdef readonly str name      # "random", "pubeval", ...
    cdef int choose_c(self, const board_t* before, board_t* plays, int n,
                    bitgen_t* bg) noexcept nogil
        # Index in plays[0..n) of the play to make, n >= 2. `before` is the
        # position before the roll (mover's frame), `plays` the distinct legal
        # plays in any order (the method may reorder the buffer in place; the
        # index refers to the buffer as it is on return). May draw from `bg`.


cdef class RandomPolicy(Policy):
    # Uniform choice: sorts plays into canonical order, then one draw
    # idx = bounded(bg, n).
    pass


cdef class PubevalPolicy(Policy):
    # Tesauro's pubeval in exact integers (weights x 1e5, inputs x 30).
    cdef int64_t point_score[2][24][31]
        # [race][L - 1][n + 15]: sum of W[5b + j] * X[5b + j] for location L
        # (b = 24 - L) holding n = mover's checkers, or minus the opponent's.
    cdef int64_t bar_weight[2]  # [race]: W[120] * 15, per opponent checker on its bar
    cdef int64_t off_weight[2]  # [race]: W[121] * 2, per mover checker off
    cdef int64_t win_score      # score of a play bearing off the last checker

    cdef int64_t score(self, const board_t* after, bint race) noexcept nogil
        # Full integer pubeval of one position after a play (mover's frame).
