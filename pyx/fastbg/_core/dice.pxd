# cython: language_level=3
"""Dice from numpy's ``bitgen_t`` (header-only; DESIGN section 4, engine contract).

Every function draws 64-bit words with ``next_uint64`` and rejects the biased tail
``x >= 2**64 - (2**64 % n)`` before reducing ``x % n``, so each value is exactly
uniform and the pure-Python engine (which reads ``random_raw()``) sees the same
words and makes the same decisions.
"""
from libc.stdint cimport uint64_t
from numpy.random cimport bitgen_t
from cpython.pycapsule cimport PyCapsule_GetPointer


cdef inline bitgen_t* get_bitgen(object bitgen) except NULL:
    """The ``bitgen_t*`` of a numpy BitGenerator, e.g. ``PCG64DXSM`` (TypeError otherwise).

    The caller must keep ``bitgen`` alive while it uses the pointer. No lock is
    taken: each rollout block owns its bit generator.
    """
    try:
        capsule = bitgen.capsule
    except AttributeError:
        raise TypeError(
            "expected a numpy.random.BitGenerator (e.g. numpy.random.PCG64DXSM), "
            f"got {type(bitgen).__name__}"
        ) from None
    return <bitgen_t*>PyCapsule_GetPointer(capsule, "BitGenerator")

cdef inline int roll_index(bitgen_t* bg) noexcept nogil:
    """A roll index r in [0, 36): die 1 is r // 6 + 1, die 2 is r % 6 + 1."""
    cdef uint64_t x = bg.next_uint64(bg.state)
    # Reject x >= 2**64 - (2**64 % 36); 2**64 % 36 == 16.
    while x >= 18446744073709551600ULL:
        x = bg.next_uint64(bg.state)
    return <int>(x % 36)


cdef inline uint64_t bounded(bitgen_t* bg, uint64_t n) noexcept nogil:
    """A uniform integer in [0, n) for n >= 1 (one draw when n is a power of two)."""
    # 2**64 % n computed in uint64 arithmetic: (2**64 - n) % n.
    cdef uint64_t rem = (<uint64_t>0 - n) % n
    cdef uint64_t limit = <uint64_t>0 - rem      # 2**64 - rem, meaningful when rem > 0
    cdef uint64_t x = bg.next_uint64(bg.state)
    if rem != 0:
        while x >= limit:
            x = bg.next_uint64(bg.state)
    return x % n


cdef inline bint opening_dice(int r, int* d1, int* d2) noexcept nogil:
    """The opening roll whose outcome is the roll index ``r`` (not a double): ``a = r // 6 + 1``
    for the side on roll, ``b = r % 6 + 1`` for the opponent. Sets ``d1 > d2`` and returns
    True if the side on roll plays them (``a > b``)."""
    cdef int a = r // 6 + 1
    cdef int b = r % 6 + 1
    if a > b:
        d1[0] = a
        d2[0] = b
        return True
    d1[0] = b
    d2[0] = a
    return False


cdef inline bint opening_roll(bitgen_t* bg, int* d1, int* d2) noexcept nogil:
    """The opening roll: each side rolls one die, ties are re-rolled.

    Draws ``r = roll_index``; ``a = r // 6 + 1`` is the die of the side on roll,
    ``b = r % 6 + 1`` the opponent's, re-drawn while ``a == b``. Sets ``d1 > d2``
    to the two numbers and returns True if the side on roll plays them (``a > b``),
    False if its opponent moves first.
    """
    cdef int r
    while True:
        r = roll_index(bg)
        if r // 6 != r % 6:
            return opening_dice(r, d1, d2)


cdef inline int next_roll(bitgen_t* bg, const int* q, int* qi) noexcept nogil:
    # The next random roll: the game's next stratified roll index (quasi-random dice: q[0],
    # q[1] for its first two random rolls; -1 = none) or a draw from bg.
    cdef int r
    if q != NULL and qi[0] < 2:
        r = q[qi[0]]
        qi[0] += 1
        if r >= 0:
            return r
    return roll_index(bg)


cdef inline bint next_opening(bitgen_t* bg, const int* q, int* qi, int* d1, int* d2) noexcept nogil:
    # The opening roll (dice.opening_roll's result), from the game's stratified outcome
    # r = 6 (a - 1) + (b - 1), a != b (a the die of the side on roll), or drawn from bg.
    cdef int r
    if q != NULL and qi[0] < 2:
        r = q[qi[0]]
        qi[0] += 1
        if r >= 0:
            return opening_dice(r, d1, d2)
    return opening_roll(bg, d1, d2)
