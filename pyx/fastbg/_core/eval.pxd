# cython: language_level=3
"""Policies: pick one play among the legal ones, without the GIL.

A policy is a cdef class whose ``choose_c`` is a ``noexcept nogil`` method, so the
game loop calls it through the vtable with no Python interaction. (The C method
is ``choose_c`` because Cython cannot give a cdef and a def method one name; the
Python-level ``choose(board_before, plays, bitgen)`` mirrors the reference.)
"""
from libc.stdint cimport int64_t, uint64_t
from numpy.random cimport bitgen_t
from fastbg._core._types cimport board_t, linear_eval_t


cdef class Policy:
    cdef readonly str name      # "random", "pubeval", ...
    cdef const linear_eval_t* linear(self, const board_t* before) noexcept nogil
        # The linear evaluation this policy maximises for a roll from `before`, or
        # NULL. Non-NULL promises that the policy's choice is exactly the play of
        # highest score, ties to the canonically first, with no draw: the game
        # loop then lets the move generator keep only that play.

    cdef int choose_c(self, const board_t* before, board_t* plays,
                      const int64_t* scores, const uint64_t* keys, int n,
                      bitgen_t* bg) noexcept nogil
        # Index in plays[0..n) of the play to make, n >= 2. `before` is the
        # position before the roll (mover's frame), `plays` the distinct legal
        # plays in any order (the method may reorder the buffer in place; the
        # index refers to the buffer as it is on return). `scores` holds the
        # plays' scores under linear(before), or is NULL; `keys` their play keys
        # (movegen.play_key), or NULL. May draw from `bg`.


cdef class Evaluator(Policy):
    # A policy that plays by a position evaluator at 0 ply, and the evaluator itself,
    # for the loops that need probabilities (cubeful games' cube decisions):
    # fastbg._core.nn.NNPolicy (the first network) and fastbg._core.evaluator.EvalPolicy.
    cdef void probabilities_c(self, const board_t* b, double* p) noexcept nogil
        # p[0..4]: the five probabilities of b (row 0 on roll, before its roll; the game
        # not over): win, win_gammon, win_backgammon, lose_gammon, lose_backgammon.


cdef class RandomPolicy(Policy):
    # Uniform choice: one draw k = bounded(bg, n), then the play of rank k in
    # the order of play keys, ties in canonical order (found by quickselect over
    # the keys; the buffer is not sorted).
    pass


cdef class PubevalPolicy(Policy):
    # Tesauro's pubeval in exact integers (weights x 1e5, inputs x 30).
    cdef int64_t point_score[2][24][32]
        # [race][L - 1][n + 15]: sum of W[5b + j] * X[5b + j] for location L
        # (b = 24 - L) holding n = mover's checkers, or minus the opponent's
        # (index 31 unused: rows padded to POINT_STRIDE).
    cdef linear_eval_t lin[2]
        # [race]: the evaluation over point_score[race], with bar weight
        # W[120] * 15, off weight W[121] * 2 and win score WIN_SCORE (2**63 - 1).
