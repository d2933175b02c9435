# cython: language_level=3
"""One turn of the core's game loops: a roll played by a policy (GIL released).

Mirror of :mod:`fastbg.reference.turn`. Every game loop of the core (rollout blocks,
two-policy matches, cubeful games, TD training) takes its turns through
``play_turn_c``; it is inline, so this module has no compiled part of its own.
"""
from numpy.random cimport bitgen_t
from fastbg._core._types cimport board_t, linear_eval_t
from fastbg._core.movegen cimport movegen_t, generate
from fastbg._core.eval cimport Policy


cdef inline const board_t* play_turn_c(Policy policy, movegen_t* g, const board_t* b,
                                       int d1, int d2, bitgen_t* bg) noexcept nogil:
    # The position after row 0 of `b` plays d1-d2 (rows not swapped): `b` itself with
    # no legal play, the only play, or the policy's choice (which may draw from `bg`).
    # A policy that maximises a linear evaluation is served by the generator itself:
    # it keeps only the best play (ties to the canonically first), exactly the
    # policy's choice. NULL if the roll had more than MAX_PLAYS plays. The result
    # points into `g` (or is `b`): use it before the next call. Every game loop of the
    # core takes its turns here.
    cdef const linear_eval_t* ev = policy.linear(b)
    cdef int n = generate(g, b, d1, d2, ev, ev != NULL)
    if n < 0:
        return NULL
    if n == 0:
        return b
    if n == 1 or ev != NULL:
        return &g.plays[0]
    return &g.plays[policy.choose_c(b, g.plays, NULL, g.keys, n, bg)]
