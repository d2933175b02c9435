"""The pure-Python engine of fastbg: the reference the Cython core is tested against.

It mirrors the compiled package ``fastbg._core`` module by module and function by
function, and for the same inputs (board, dice, bit generator state) it returns the
same results. It uses a different, deliberately simple algorithm for move generation
(recursion over every order of the dice, then filtering by the dice rules and
de-duplicating by resulting position), so that agreement between the two engines
means something. Neither engine imports the other: what they share (the start, board
validation, outcome classes, dice, pubeval's weights, the nets' files and quantisation) is
the engine spec, :mod:`fastbg.spec`. Outside the tests, only :func:`fastbg.engine.get_engine`
imports this package.

Engine contract (both engines)
------------------------------
Boards
    ``numpy.ndarray`` of shape ``(2, 25)``, dtype ``int8``. Row 0 is the side to
    move, row 1 its opponent, each counted from its own point of view: index ``i``
    is the side's point ``i + 1``; index 24 is its bar. Checkers off are
    ``15 - row.sum()``. My point ``p`` is the opponent's point ``25 - p``.

Plays
    ``legal_plays(board, d1, d2)`` returns an ``int8`` array of shape ``(n, 2, 25)``:
    every distinct resulting position **in the mover's frame** (rows not swapped),
    sorted in *canonical order*: lexicographic order of the 50 bytes of the
    flattened ``(2, 25)`` array. ``n == 0`` means no legal play. Dice are counted
    as actually played, also when the last checker goes off: where the last checker
    can go off with one die or, by another route (hitting on the way), with both,
    only the route that plays both is legal (GNU Backgammon agrees, see
    ``../shared/golden``).

Dice (DESIGN section 4)
    ``roll_index(bitgen)``: draw ``x = next_uint64``; while
    ``x >= 2**64 - (2**64 % 36)`` draw again; return ``x % 36``.
    Die 1 is ``r // 6 + 1``, die 2 is ``r % 6 + 1``.
    ``bounded(bitgen, n)`` (n >= 2): the same rejection with ``2**64 % n``, then
    ``x % n``. The pure engine reads ``bit_generator.random_raw()``.
    Opening roll: draw ``r``; die ``a = r // 6 + 1`` is the die of the side on roll
    in the position, ``b = r % 6 + 1`` the opponent's; re-draw while ``a == b``.
    If ``a > b`` the side on roll plays ``(a, b)``; otherwise the opponent moves
    first with ``(b, a)``.

Game loop
    ``play_game(board, bitgen, policy, dice=None, opening=False)`` plays one game
    from ``board`` with the side in row 0 about to roll and returns the outcome
    class from that side's point of view. Each turn: roll (except a first roll
    fixed by ``dice``, or decided by the opening roll when ``opening``), generate
    plays; ``n == 0``: board unchanged; ``n == 1``: that play, no draw; ``n >= 2``:
    the policy picks one of the plays (given in canonical order). If the mover has no checker left
    the game ends, otherwise rows are swapped and the opponent is on roll.

Outcome classes
    0 win single, 1 win gammon, 2 win backgammon, 3 lose single, 4 lose gammon,
    5 lose backgammon. A loser with a checker off loses a single game; with none
    off, a backgammon if it has a checker on its bar or in the winner's home
    board (its own points 19..24, indices 18..23), else a gammon.

Policies
    ``random``: one draw ``k = bounded(bitgen, n)`` per decision with n >= 2;
    the play of rank ``k`` when the plays are ordered by their *play key*
    ``sum((play - before) * KEY) mod 2**64`` over the 50 counts (``KEY`` from
    ``movegen.hash_keys()``: splitmix64), ties in canonical order. (Any fixed order
    is uniform; this one the Cython generator computes incrementally, so it picks
    without sorting boards.) ``pubeval``: Tesauro's public evaluation function
    (G. Tesauro, pubeval.c, 1993) computed *exactly in integers*: weights times
    10**5 (all published weights have five decimals) and inputs times 30, so
    ``score = sum(W[i] * X[i])`` is an exact int64 and ties are exact. The race
    weights are used when the position *before* the move is a race (no contact:
    ``my_back + opp_back < 25`` where ``*_back`` is a side's highest occupied point,
    bar = 25). A play that bears off the mover's last checker scores the maximum.
    Ties go to the first play in canonical order. Inputs for the mover's board
    after the play, location ``L`` in 1..24 (the mover's point ``L``), block
    ``b = 24 - L``, ``n`` = mover's checkers on ``L`` or minus the opponent's:
    ``X[5b] = 30`` if ``n == -1``; ``X[5b+1] = 30`` if ``n == 1``; ``X[5b+2] = 30``
    if ``n >= 2``; ``X[5b+3] = 30`` if ``n == 3``; ``X[5b+4] = 15 (n - 3)`` if
    ``n >= 4``; ``X[120] = 15 *`` opponent's bar; ``X[121] = 2 *`` mover's checkers
    off. The mover's bar is not an input.

Blocks
    ``rollout_block(board, games, bitgen, policy, dice=None, opening=False)``
    plays ``games`` games one after another from one bit generator and returns
    ``int64[6]`` counts of the outcome classes.
    ``rollout_block_vr(board, games, bitgen, policy, yardstick, dice=None, opening=False)``
    plays the same games and also returns the ``float64[2, 6]`` sums of their
    luck-adjusted results and of their squares (variance reduction, :mod:`.luck`).
"""
