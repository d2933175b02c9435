# cython: language_level=3
"""Ranking plays by a value (header-only): the candidates of the 1-ply policies and the
2-ply look-ahead (nn.NN1PlyPolicy, evaluator.EvalPolicy1Ply, EvalPolicy.ply2_probs)."""
from fastbg._core._types cimport board_t, board_cmp


cdef inline int top_plays(const double* value, const board_t* plays, int n, int k,
                          int* cand) noexcept nogil:
    # cand[0..m): the indices of the (at most) k plays of highest value, best first, ties
    # to the canonically first board (board_cmp); returns m = min(n, k). Insertion into
    # a sorted list of k, so O(n k); k is small.
    cdef int j, pos, i, m = 0
    for j in range(n):
        pos = m
        while pos > 0 and (value[j] > value[cand[pos - 1]] or (
                value[j] == value[cand[pos - 1]] and board_cmp(&plays[j], &plays[cand[pos - 1]]) < 0)):
            pos -= 1
        if pos >= k:
            continue
        if m < k:
            m += 1
        i = m - 1
        while i > pos:
            cand[i] = cand[i - 1]
            i -= 1
        cand[pos] = j
    return m
