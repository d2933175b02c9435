"""Integer weights of Tesauro's pubeval, shared by both engines.

Source: G. Tesauro, ``pubeval.c`` (IBM Research, 1993), the public benchmark
evaluation function for backgammon move selection, as distributed with GNU
Backgammon (``pub_eval.c``). Every published weight has exactly five decimals, so
each is stored here as an exact integer: the published weight times ``10**5``.

Layout (122 entries, the order of pubeval's input vector ``X``): for block
``b = 0..23`` (location ``L = 24 - b`` counted from the mover's side), entries
``5b .. 5b+4`` weigh "one opposing blot", "one checker", "two or more", "exactly
three" and "each checker beyond three"; entry 120 weighs the opponent's checkers
on the bar and entry 121 the mover's checkers off. See :mod:`fastbg.reference`
for the exact integer inputs (pubeval's inputs times 30).

``RACE_WEIGHTS`` is pubeval's ``wr`` (used when the position before the move is a
race), ``CONTACT_WEIGHTS`` its ``wc``. Both are tuples of 122 Python ``int``. The
Cython core copies them at policy construction, so this module is the single
source of the numbers.

``WIN_SCORE`` is the score of a play that bears off the mover's last checker
(pubeval.c returns its "best possible move" value there): the largest ``int64``,
above any weighted sum of a legal position.
"""

__all__ = ["RACE_WEIGHTS", "CONTACT_WEIGHTS", "WIN_SCORE"]

RACE_WEIGHTS = (
    0, -17160, 27010, 29906, -8471,  # block 0: location 24
    0, -140375, -105121, 7217, -1351,  # block 1: location 23
    0, -129506, -216183, 13246, -103508,  # block 2: location 22
    0, -229847, -234631, 17253, 8302,  # block 3: location 21
    0, -127266, -287401, -7456, -34240,  # block 4: location 20
    0, -134640, -246556, -13022, -1591,  # block 5: location 19
    0, 27448, 60015, 48302, 25236,  # block 6: location 18
    0, 39521, 68178, 5281, 9266,  # block 7: location 17
    0, 24855, -6844, -37646, 5685,  # block 8: location 16
    0, 17405, 430, 74427, 576,  # block 9: location 15
    0, 12392, 31202, -91035, -16270,  # block 10: location 14
    0, 1418, -10839, -2781, -88035,  # block 11: location 13
    0, 107274, 200366, 116242, 22520,  # block 12: location 12
    0, 85631, 106349, 149549, 18966,  # block 13: location 11
    0, 37183, -50352, -14818, 12039,  # block 14: location 10
    0, 13681, 13978, 111245, -12707,  # block 15: location 9
    0, -22082, 20178, -6285, -52728,  # block 16: location 8
    0, -13597, -19412, -9308, -126062,  # block 17: location 7
    0, 305454, 516874, 150680, 535000,  # block 18: location 6
    0, 219605, 385390, 88296, 230052,  # block 19: location 5
    0, 92321, 108744, -11696, -78560,  # block 20: location 4
    0, -9795, -83050, -109167, -494251,  # block 21: location 3
    0, -100316, -366465, -256906, -967677,  # block 22: location 2
    0, -277982, -726713, -340177, -1232252,  # block 23: location 1
    0,  # X[120]: opponent's checkers on the bar
    342040,  # X[121]: mover's checkers off
)

CONTACT_WEIGHTS = (
    25696, -66937, -166135, -202487, -253398,  # block 0: location 24
    -16092, -111725, -106654, -92830, -199558,  # block 1: location 23
    -110388, -80802, 9856, -62086, -127999,  # block 2: location 22
    -59220, -73667, 89032, -38933, -159847,  # block 3: location 21
    -150197, -60966, 156166, -47389, -180390,  # block 4: location 20
    -83425, -97741, -141371, 24500, 10970,  # block 5: location 19
    -136476, -105572, 115420, 11069, -38319,  # block 6: location 18
    -74816, -59244, 81116, -39511, 11424,  # block 7: location 17
    -73169, -56074, 109792, 15977, 13786,  # block 8: location 16
    -118435, -43363, 106169, -21329, 4798,  # block 9: location 15
    -94373, -22982, 122737, -13099, -6295,  # block 10: location 14
    -75882, -13658, 178389, 30416, 36797,  # block 11: location 13
    -69851, 13003, 123070, 40868, -21081,  # block 12: location 12
    -64073, 31061, 159554, 65718, 25429,  # block 13: location 11
    -80789, 8240, 178964, 54304, 41174,  # block 14: location 10
    -106161, 7851, 201451, 49786, 91936,  # block 15: location 9
    -90750, 5941, 183120, 58722, 128777,  # block 16: location 8
    -83711, -33248, 264983, 52698, 82132,  # block 17: location 7
    -58897, -118223, 335809, 62017, 57353,  # block 18: location 6
    -7276, -36214, 437655, 45481, 21746,  # block 19: location 5
    10504, -61977, 354001, 4612, -18108,  # block 20: location 4
    63211, -87046, 247673, -48016, -127157,  # block 21: location 3
    86505, -111342, 124612, -82385, -277082,  # block 22: location 2
    123606, -159529, 10438, -130206, -411520,  # block 23: location 1
    562596,  # X[120]: opponent's checkers on the bar
    -275800,  # X[121]: mover's checkers off
)

WIN_SCORE = 2**63 - 1

assert len(RACE_WEIGHTS) == 122 and len(CONTACT_WEIGHTS) == 122
