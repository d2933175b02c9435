# cython: language_level=3
"""Variance reduction by luck adjustment (header-only), mirror of :mod:`fastbg.spec.luck`.

The luck of a roll is the yardstick's value of the position after the best play for
that roll minus the mean of that value over all the rolls that could have come
(:meth:`fastbg._core.evaluator.EvalPolicy.roll_values` gives the 21 values of a
position). A game's luck-adjusted result is its outcome minus the summed luck of every
random roll, each from the root's point of view (row 0 of the rollout's start). The
luck of a roll has mean zero given everything before it, whatever the yardstick, so
the adjusted result has the outcome's expectation: the estimate stays unbiased and
only its variance changes.

Vectors are the five probabilities (win, win_gammon, win_backgammon, lose_gammon,
lose_backgammon); the equity of an adjusted vector is the cubeless equity formula
applied to it (linear, so it is the adjusted equity). Every sum below runs in one
fixed order, the same in the pure-Python engine, so both give the same bits.
"""


cdef inline int roll_slot(int a, int b) noexcept nogil:
    # The index 0..20 of the roll a-b in roll_values' order (d1 = 1..6, d2 = 1..d1).
    cdef int hi = a if a > b else b
    cdef int lo = b if a > b else a
    return hi * (hi - 1) // 2 + lo - 1


cdef inline void roll_mean(const double* v, double* mean) noexcept nogil:
    # mean[0..5): the average of v[21][5] over the 36 rolls (weight 1 a double, 2 else).
    cdef double acc[5]
    cdef double w
    cdef int d1, d2, k, s = 0
    for k in range(5):
        acc[k] = 0.0
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            w = 1.0 if d1 == d2 else 2.0
            for k in range(5):
                acc[k] = acc[k] + w * v[5 * s + k]
            s += 1
    for k in range(5):
        mean[k] = acc[k] / 36.0


cdef inline void flip5(const double* r, double* q) noexcept nogil:
    # The other side's probabilities: win <-> lose, gammons exchanged.
    q[0] = 1.0 - r[0]
    q[1] = r[3]
    q[2] = r[4]
    q[3] = r[1]
    q[4] = r[2]


cdef inline void opening_mean(const double* v0, const double* v1, double* mean) noexcept nogil:
    # mean[0..5), root's view: the average over the 30 outcomes of the opening roll (15
    # non-double rolls for each side) of v0 (root on roll, root's view) and of v1 (the
    # opponent on roll, its view, flipped). Root's rolls first, then the opponent's.
    cdef double acc[5]
    cdef double q[5]
    cdef int d1, d2, k, s
    for k in range(5):
        acc[k] = 0.0
    for d1 in range(2, 7):
        for d2 in range(1, d1):
            s = roll_slot(d1, d2)
            for k in range(5):
                acc[k] = acc[k] + v0[5 * s + k]
    for d1 in range(2, 7):
        for d2 in range(1, d1):
            flip5(&v1[5 * roll_slot(d1, d2)], q)
            for k in range(5):
                acc[k] = acc[k] + q[k]
    for k in range(5):
        mean[k] = acc[k] / 30.0


cdef inline void add_luck(double* L, const double* actual, const double* mean,
                          bint root) noexcept nogil:
    # L += actual - mean, both in the mover's view; `root`: the mover is the root, else
    # the difference is turned to the root's view (win negated, gammons exchanged).
    cdef double d[5]
    cdef int k
    for k in range(5):
        d[k] = actual[k] - mean[k]
    if root:
        for k in range(5):
            L[k] = L[k] + d[k]
    else:
        L[0] = L[0] - d[0]
        L[1] = L[1] + d[3]
        L[2] = L[2] + d[4]
        L[3] = L[3] + d[1]
        L[4] = L[4] + d[2]


cdef inline void adjusted_result(int c, const double* L, double* adj) noexcept nogil:
    # adj[0..6): outcome class c's indicators (root's view) minus L, and in adj[5] the
    # cubeless equity of that vector ((2 w - 1) + (wg - lg) + (wbg - lbg), nn.equity5's
    # order of operations).
    adj[0] = (1.0 if c < 3 else 0.0) - L[0]
    adj[1] = (1.0 if c == 1 or c == 2 else 0.0) - L[1]
    adj[2] = (1.0 if c == 2 else 0.0) - L[2]
    adj[3] = (1.0 if c == 4 or c == 5 else 0.0) - L[3]
    adj[4] = (1.0 if c == 5 else 0.0) - L[4]
    adj[5] = (2.0 * adj[0] - 1.0) + (adj[1] - adj[3]) + (adj[2] - adj[4])
