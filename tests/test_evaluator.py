"""The second evaluator (contact and race nets by position class) in both engines.

- quantization: warm-started nets (the shipped first network's weights, new inputs at
  zero) reproduce the first network within the rounding of the tables;
- the engines: bitwise equal probabilities and play equities on random nets and
  Hypothesis boards, the same choices, the same games;
- the classes: a race goes to the race net, a pure bear-off to the database.
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings

from fastbg.game import START_BOARD
from fastbg.reference import evaluator as rev
from fastbg.reference import features as rfeat
from fastbg.reference import nn as rnn
from fastbg.reference.movegen import legal_plays
from strategies import boards


def core():
    return pytest.importorskip("fastbg._core.evaluator", reason="Cython core not built")


def random_nets(seed: int, hidden: int = 16, scale: float = 0.3, contact: int | None = None,
                crashed: bool | str = False) -> dict:
    """Random nets; the contact net at its full width (252 inputs) or ``contact`` inputs;
    with ``crashed``, a crashed net of the contact net's width too (``"blots"``: and the
    10 blot inputs)."""
    rng = np.random.default_rng(seed)
    width = {"contact": contact or rev.N_INPUTS["contact"], "race": rev.N_INPUTS["race"]}
    width["crashed"] = width["contact"] + (rev.N_BLOT_INPUTS if crashed == "blots" else 0)
    return {kind: {"w1": rng.normal(0, scale, (width[kind], hidden)),
                   "b1": rng.normal(0, scale, hidden),
                   "w2": rng.normal(0, scale, (5, hidden)),
                   "b2": rng.normal(0, scale, 5)}
            for kind in rev.KINDS + (("crashed",) if crashed else ())}


def random_walk(seed: int, steps: int):
    """``(board, plays)`` of the decisions with more than one play in ``steps`` random
    rolls of games of random plays (a new game from the start when one ends)."""
    rng = np.random.default_rng(seed)
    b = np.array(START_BOARD)
    for _ in range(steps):
        d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
        plays = legal_plays(b, d1, d2)
        if len(plays) > 1:
            yield b, plays
        if len(plays):
            b = plays[rng.integers(len(plays))]
        if not b[0].any():
            b = np.array(START_BOARD)
            continue
        b = b[::-1].copy()


def widen(nets: dict, rows: np.ndarray | None = None) -> dict:
    """``nets`` with a 236-input contact net (and crashed net, if any) widened to 252 (the
    new rows zero, or ``rows``); a crashed net's blot rows (246 inputs) stay last (262)."""
    out = dict(nets)
    for kind in ("contact", "crashed"):
        if kind in nets:
            c = dict(nets[kind])
            extra = np.zeros((16, c["w1"].shape[1])) if rows is None else rows
            c["w1"] = np.vstack([c["w1"][:236], extra, c["w1"][236:]])
            out[kind] = c
    return out


def warm_nets() -> dict:
    """The shipped first network in the second evaluator's layouts (new inputs at 0)."""
    old = rnn.default_weights()
    contact = {"w1": np.vstack([old["w1"], np.zeros((40, old["w1"].shape[1]))]),
               "b1": old["b1"], "w2": old["w2"], "b2": old["b2"]}
    w1 = np.zeros((rev.N_INPUTS["race"], old["w1"].shape[1]))
    for s in (0, 1):
        w1[113 * s:113 * s + 96] = old["w1"][98 * s:98 * s + 96]
        for k in range(15):           # one-hot off == k carries k/15 of the off unit
            w1[113 * s + 96 + k] = old["w1"][98 * s + 97] * k / 15
    race = {"w1": w1, "b1": old["b1"], "w2": old["w2"], "b2": old["b2"]}
    return {"contact": contact, "race": race}


def test_warm_started_nets_reproduce_the_first_network():
    pol = rev.EvalPolicy(warm_nets())
    first = rnn.NNPolicy()
    rng = np.random.default_rng(3)
    boards_seen = 0
    for _ in range(30):   # positions of a few random games
        b = np.array(START_BOARD)
        for _ in range(60):
            d1, d2 = rng.integers(1, 7, 2)
            plays = legal_plays(b, int(d1), int(d2))
            if len(plays):
                b = plays[rng.integers(len(plays))]
            if not b[0].any():
                break
            b = b[::-1].copy()
            if rfeat.position_class(b) in ("contact", "race"):
                p1, p2 = first.probabilities(b), pol.probabilities(b)
                # the tables round each row to 2**-16: outputs agree to about 1e-3
                assert np.abs(p1 - p2).max() < 5e-3
                boards_seen += 1
    assert boards_seen > 500


def test_classes_choose_the_net():
    pol = rev.EvalPolicy(random_nets(1))
    race = np.zeros((2, 25), np.int8)
    race[0, [2, 5, 7]] = 5
    race[1, [1, 3, 4, 8]] = [4, 4, 4, 3]
    assert rfeat.position_class(race) == "race"
    raw = rev.forward_q(pol.q["race"], race)[0]
    np.testing.assert_array_equal(pol.probabilities(race), rnn.consistent(race[None], raw[None])[0])
    home = np.zeros((2, 25), np.int8)
    home[0, :3] = 5
    home[1, :3] = 5
    from fastbg.reference import bearoffdb
    np.testing.assert_array_equal(pol.probabilities(home), bearoffdb.bearoff_probabilities(home))


def bearing_off_against_contact(rng) -> np.ndarray:
    """A crashed position whose side 0 bears off (2 to 7 checkers home, the rest off)
    against a checker of side 1 on the bar or in side 0's home board, or two; side 1's
    other 3 to 12 checkers are in its outer boards and home. Side 1 bears off too, now
    and then, against side 0's checker on the bar."""
    b = np.zeros((2, 25), np.int8)
    for _ in range(int(rng.integers(2, 8))):
        b[0, rng.integers(0, 6)] += 1
    for _ in range(int(rng.integers(1, 3))):
        empty = [24] + [23 - i for i in range(6) if not b[0, i]]
        b[1, rng.choice(empty)] += 1
    for _ in range(int(rng.integers(3, 13))):
        b[1, rng.integers(0, 6 if rng.random() < 0.3 else 12)] += 1
    if not b[1, 6:].any() and rng.random() < 0.5:
        b[0, 24] = 1                    # both bear off, each against the other's bar checker
        b[0, 0] -= b[0, 0] > 0
    return b


def crashed_board(in_play: int, stacked: int = 0) -> np.ndarray:
    """A contact position whose side 0 has ``in_play`` checkers in play, ``stacked`` more
    on its ace point and the rest off; side 1 has 12 checkers, 2 of them back."""
    b = np.zeros((2, 25), np.int8)
    b[0, 0] = 1 + stacked
    b[0, 3:3 + in_play - 1] = 1
    b[1, [5, 7, 12, 21]] = [5, 3, 2, 2]
    return b


def test_the_crashed_rule():
    # a side with at most 7 checkers in play (those stacked on its ace and deuce points
    # beyond the first of each do not count), either side, in one board or many
    assert rfeat.is_crashed(crashed_board(7)) and not rfeat.is_crashed(crashed_board(8))
    assert rfeat.is_crashed(crashed_board(7, stacked=6))
    deuce = crashed_board(7)
    deuce[0, 1] = 3                     # 2 in play on the deuce point: 8 in play
    assert not rfeat.is_crashed(deuce)
    deuce[0, 1] = 2
    deuce[0, 3] = 0                     # the ace and deuce points' first checkers count
    assert rfeat.is_crashed(deuce)
    assert rfeat.is_crashed(crashed_board(7)[::-1].copy())     # symmetric
    start = np.array(START_BOARD)
    np.testing.assert_array_equal(rfeat.is_crashed(np.stack([start, crashed_board(3)])), [False, True])


def test_a_crashed_net_reads_the_crashed_positions():
    nets = random_nets(2, crashed=True)
    pol = rev.EvalPolicy(nets)
    without = rev.EvalPolicy({k: nets[k] for k in rev.KINDS})
    crashed, contact = crashed_board(5), crashed_board(9)
    assert rfeat.position_class(crashed) == rfeat.position_class(contact) == "contact"
    raw = rev.forward_q(pol.q["crashed"], crashed)
    np.testing.assert_array_equal(pol.probabilities(crashed), rnn.consistent(crashed[None], raw)[0])
    np.testing.assert_array_equal(pol.probabilities(contact), without.probabilities(contact))
    assert not np.array_equal(pol.probabilities(crashed), without.probabilities(crashed))
    assert "crashed=16" in repr(pol) and "crashed" not in repr(without)
    c = core()
    assert repr(c.EvalPolicy(nets)) == repr(pol)
    np.testing.assert_array_equal(c.EvalPolicy(nets).probabilities(crashed), pol.probabilities(crashed))


def test_bad_crashed_nets_are_refused(tmp_path):
    nets = random_nets(2, crashed=True, contact=236)
    nets["crashed"]["w1"] = np.zeros((252, 16))
    with pytest.raises(ValueError, match="crashed net reads 252 inputs and the contact net 236"):
        rev.EvalPolicy(nets)
    with pytest.raises(ValueError, match="crashed net reads 252"):
        core().EvalPolicy(nets)
    with pytest.raises(ValueError, match="unknown net kind 'bearoff'"):
        rev.check_nets({**random_nets(2), "bearoff": nets["race"]})
    with pytest.raises(ValueError, match="lack the race net"):
        rev.save_nets(tmp_path / "n.npz", {"contact": nets["contact"]})


@pytest.mark.parametrize("width, crashed", [(236, False), pytest.param(252, False, marks=pytest.mark.slow),
                                            pytest.param(236, True, marks=pytest.mark.slow),
                                            (236, "blots"), (252, "blots")])
@settings(max_examples=150, deadline=None)
@given(board=boards())
def test_engines_agree_bit_for_bit(width, crashed, board):
    if rfeat.position_class(board) == "over":
        return
    nets = random_nets(7, contact=width, crashed=crashed)
    rp = rev.EvalPolicy(nets).probabilities(board)
    cp = core().EvalPolicy(nets).probabilities(board)
    np.testing.assert_array_equal(rp, cp)


# ------------------------------------------------------------------ the two contact widths

# The shipped nets (generation 18: generation 16's 236-input contact net of 192 hidden units,
# a crashed net of 246 inputs, the ten blot features after those 236 (generation 17's
# fine-tuned on realistic crashed decisions), and generation 14's race net), pinned when
# they were shipped (generation 8's were pinned on main before the extra features existed),
# from the reference engine (the Cython core's are the same bit for bit); the last two
# boards are crashed (read by the crashed net), the last with the side on roll bearing off
# against contact (blot features not 0): probabilities (win, win_gammon, win_backgammon,
# lose_gammon, lose_backgammon).
SHIPPED = {
    "4HPwATDgc/ABMA": [0.5306180743126729, 0.13846522280575843, 0.0036651698720623653,
                       0.1152256389169438, 0.0029548885771827995],
    "XGID=---BBBBBA----B--a-a-Bbcce-:0:0:1:00:0:0:3:0:10": [
        0.6252540447183617, 0.07245322895838809, 0.003899701675449245,
        0.07800942319643311, 0.0004081987294861088],
}
SHIPPED_BOARDS = [
    # tests/test_features.py's BACKGAME, BAR, and a crashed side with 5 checkers off
    ([[0, 0, 0, 2, 3, 3, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 3, 0, 0, 0],
      [0, 2, 0, 2, 0, 2, 0, 3, 0, 0, 3, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]],
     [0.4528317451602178, 0.07445686998038929, 0.0016648507125015721, 0.14728102395570733,
      0.00529968769056811]),
    ([[0, 0, 0, 0, 0, 5, 0, 4, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2],
      [0, 2, 1, 2, 2, 2, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]],
     [0.11146391601209495, 0.005430693444170015, 0.00015014031177795122, 0.5643208198702946,
      0.012583544201340124]),
    ([[4, 3, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0],
      [0, 0, 2, 0, 2, 3, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 3, 2, 0, 0, 0, 0, 0]],
     [0.5982364346585446, 0.3658948105261822, 0.019394005905057677, 0.0, 0.0]),
    ([[3, 3, 2, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      [3, 3, 3, 2, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0]],
     [0.9936714728198159, 0.25950407767268563, 0.0008129491723315275, 0.0, 0.0]),
]


def test_the_shipped_nets_are_unchanged():
    # The shipped contact net reads 236 inputs: the extra features must change nothing,
    # in either engine (the numbers above were computed on main before they existed).
    from fastbg.game import Position

    assert rev.default_nets()["contact"]["w1"].shape[0] == 236
    assert rev.default_nets()["crashed"]["w1"].shape[0] == 236 + rev.N_BLOT_INPUTS
    assert rfeat.blot_features(np.array(SHIPPED_BOARDS[-1][0], dtype=np.int8)).any()
    cases = [(Position.parse(spec).board, p) for spec, p in SHIPPED.items()]
    cases += [(np.array(b, dtype=np.int8), p) for b, p in SHIPPED_BOARDS]
    for pol in (rev.EvalPolicy(), core().EvalPolicy()):
        tables = pol.q if isinstance(pol, rev.EvalPolicy) else pol.tables
        assert tables["contact"]["feat"].shape[0] == 40     # no extra features computed
        assert tables["crashed"]["feat"].shape[0] == 40 + rev.N_BLOT_INPUTS   # blot rows
        for b, p in cases:
            assert pol.probabilities(b).tolist() == p


def test_the_shipped_nets_play_and_roll_out_as_before():
    # the numbers pinned when the nets were shipped: the play equities of 6-4 in the
    # priming position, and two seeded rollouts of 300 games
    import fastbg
    from fastbg._core.movegen import legal_plays as clegal
    from fastbg.game import Position

    prime = "XGID=---BBBBBA----B--a-a-Bbcce-:0:0:1:00:0:0:3:0:10"
    b = Position.parse(prime).board
    plays = clegal(b, 6, 4)
    e = core().EvalPolicy().play_equities(b, plays)
    assert len(plays) == 25 and int(np.argmax(e)) == 1 and float(e.max()) == 0.7096575950017919
    assert e[:3].tolist() == [0.5939538569063866, 0.7096575950017919, -1.1267907560486856]
    np.testing.assert_array_equal(rev.EvalPolicy().play_equities(b, plays), e)
    r = fastbg.rollout(prime, 300, seed=5, workers=1, policy="nn")
    assert r.counts.tolist() == [158, 32, 0, 98, 12, 0]
    r = fastbg.rollout("start", 300, seed=5, workers=1, policy="nn")
    assert r.counts.tolist() == [101, 42, 3, 109, 44, 1]


@settings(max_examples=100, deadline=None)
@given(board=boards())
def test_zero_extra_rows_change_nothing(board):
    # A 252-input net whose 16 extra rows are zero is its 236-input truncation exactly
    # (the integer sums gain only zero terms), in both engines.
    if rfeat.position_class(board) == "over":
        return
    narrow = random_nets(13, contact=236)
    wide = widen(narrow)
    for engine in (rev, core()):
        p236 = engine.EvalPolicy(narrow).probabilities(board)
        p252 = engine.EvalPolicy(wide).probabilities(board)
        np.testing.assert_array_equal(p236, p252)


def test_zero_extra_rows_play_the_same_games():
    from fastbg._core import rollout as crollout

    narrow = random_nets(17, hidden=12, contact=236)
    wide = widen(narrow)
    # the shipped nets too: the same games, widened or not
    shipped = rev.default_nets()
    for n, w in ((narrow, wide), (shipped, widen(shipped))):
        a = crollout.rollout_block(START_BOARD, 40, np.random.PCG64DXSM(3), core().EvalPolicy(n))
        b = crollout.rollout_block(START_BOARD, 40, np.random.PCG64DXSM(3), core().EvalPolicy(w))
        assert a.tolist() == b.tolist()
    r236, r252, c252 = rev.EvalPolicy(narrow), rev.EvalPolicy(wide), core().EvalPolicy(wide)
    for b, plays in random_walk(2, 40):
        e = r236.play_equities(b, plays)
        np.testing.assert_array_equal(r252.play_equities(b, plays), e)
        np.testing.assert_array_equal(c252.play_equities(b, plays), e)


def test_the_extra_rows_are_read():
    # Non-zero extra rows change the evaluation of a position whose extra features are
    # not zero, and the quantized table has one row per extra input (56 in all).
    narrow = random_nets(19, contact=236)
    rows = np.random.default_rng(0).normal(0, 0.3, (16, 16))
    wide = widen(narrow, rows)
    q = rev.quantize_net(wide["contact"], "contact")
    assert q["feat"].shape == (56, 16)
    den = np.concatenate([rfeat.EXTRA_FEATURE_DENOMINATORS] * 2)
    np.testing.assert_array_equal(q["feat"][40:], np.rint(rows / den[:, None] * 65536))
    b = np.array(START_BOARD)
    for engine in (rev, core()):
        assert not np.array_equal(engine.EvalPolicy(narrow).probabilities(b),
                                  engine.EvalPolicy(wide).probabilities(b))


def test_contact_widths_and_the_overflow_bound():
    nets = random_nets(23, hidden=4, contact=236)
    for bad in (235, 237, 251, 253):
        w = dict(nets["contact"])
        w["w1"] = np.zeros((bad, 4))
        with pytest.raises(ValueError, match=r"contact net: w1 has shape .*236 or 252"):
            rev.check_net(w, "contact")
    # One weight on side 0's moment2 (input 237; D 400, at most 1280): the bound is
    # 1280 / 400 * |w| in units, the limit 2**31 / 2**16 = 32768.
    w = widen(nets)["contact"]
    w["b1"] = np.zeros(4)
    w["w1"] = np.zeros((252, 4))
    w["w1"][237, 0] = 0.99 * 32768 * 400 / 1280
    rev.quantize_net(w, "contact")
    w["w1"][237, 0] = 1.01 * 32768 * 400 / 1280
    with pytest.raises(ValueError, match="too large"):
        rev.quantize_net(w, "contact")


@pytest.mark.parametrize("seed", [1, 2])
def test_engines_choose_the_same_plays(seed):
    nets = random_nets(seed, hidden=24)
    r, c = rev.EvalPolicy(nets), core().EvalPolicy(nets)
    for b, plays in random_walk(seed, 80):
        np.testing.assert_array_equal(r.play_equities(b, plays), c.play_equities(b, plays))
        bg = np.random.PCG64DXSM(0)
        assert r.choose(b, plays, bg) == c.choose(b, plays, bg)


def test_the_same_games_in_both_engines():
    from fastbg._core import rollout as crollout
    from fastbg.reference import rollout as rrollout

    nets = random_nets(11, hidden=12)
    for g in range(3):
        a = rrollout.match_game(START_BOARD, np.random.PCG64DXSM(g), np.random.PCG64DXSM(99),
                                rev.EvalPolicy(nets), "pubeval")
        b = crollout.match_game(START_BOARD, np.random.PCG64DXSM(g), np.random.PCG64DXSM(99),
                                core().EvalPolicy(nets), "pubeval")
        assert a == b


@pytest.mark.parametrize("crashed", [False, True])
def test_saved_nets_round_trip(tmp_path, crashed):
    nets = random_nets(5, crashed=crashed)
    rev.save_nets(tmp_path / "n.npz", nets)
    back = rev.load_nets(tmp_path / "n.npz")
    assert set(back) == set(nets)
    for kind in nets:
        for k in ("w1", "b1", "w2", "b2"):
            np.testing.assert_array_equal(back[kind][k], nets[kind][k])
    with pytest.raises(ValueError, match="corrupt"):
        rev.load_nets(tmp_path / "n.npz", sha256="0" * 64)
    bad = dict(nets["race"])
    bad["w1"] = bad["w1"][:-1]
    with pytest.raises(ValueError, match="race net: w1 has shape"):
        rev.check_net(bad, "race")


def random_race(rng) -> np.ndarray:
    """A race (each side's checkers in its own half, so none has contact) or bear-off."""
    b = np.zeros((2, 25), np.int8)
    for s in (0, 1):
        on = int(rng.integers(1, 16))
        for _ in range(on):
            b[s, rng.integers(0, 12)] += 1
    return b


def test_engines_agree_in_races():
    # Hypothesis boards are seldom races: the race net (and its one-hot off units, whose
    # "none off" row is folded into the bias) gets its own check
    nets = random_nets(3)
    r, c = rev.EvalPolicy(nets), core().EvalPolicy(nets)
    rng = np.random.default_rng(0)
    classes = set()
    for _ in range(300):
        b = random_race(rng)
        classes.add(rfeat.position_class(b))
        np.testing.assert_array_equal(r.probabilities(b), c.probabilities(b))
    assert "race" in classes


def full_play_equity(policy, play) -> float:
    """The mover's equity after ``play`` (the mover has checkers left) by a full
    evaluation of the swapped position, with equity5's operations in its order."""
    p = policy.probabilities(play[::-1].copy())
    return -((2.0 * p[0] - 1.0) + (p[1] - p[3]) + (p[2] - p[4]))


@pytest.mark.parametrize("width, crashed", [(236, False), (252, False), (236, True),
                                            (236, "blots")])
@pytest.mark.parametrize("hidden", [75, pytest.param(133, marks=pytest.mark.slow)])
def test_incremental_play_equities_equal_full_evaluations(width, crashed, hidden):
    # The core scores the plays of a decision from the position before the roll: the
    # point rows of the slots a play changes (one step row per checker), the contact
    # net's feature rows whose numerator changed (those of the opponent copied when
    # nothing is hit), the race net likewise, in blocks of 64 and 8 hidden units and
    # single units (hence these widths: 64 + 8 + 3, 2 * 64 + 5). Each play's equity must
    # be the full evaluation's of the swapped play, and the reference's. With a crashed
    # net, the decisions that have both crashed and other contact plays use both nets'
    # first layers from one base; with its blot rows, bear-offs against contact change
    # the blot numerators.
    nets = random_nets(31, hidden=hidden, scale=0.2, contact=width, crashed=crashed)
    r, c = rev.EvalPolicy(nets), core().EvalPolicy(nets)
    rng = np.random.default_rng(hidden)
    decisions = list(random_walk(hidden, 50))
    for k in range(40):                 # races and bear-offs, which the walk seldom reaches
        b = random_race(rng)
        if k % 2:                       # the opponent home, the mover's checkers near it
            b[1, :6] += b[1, 6:12]
            b[1, 6:] = 0
            b[0, 6:9] += b[0, 9:12]
            b[0, 9:] = 0
        d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
        if b[0].sum() and b[1].sum() and len(plays := legal_plays(b, d1, d2)) > 1:
            decisions.append((b, plays))
    for k in range(20):                 # at the edge of crashed: 7 to 9 checkers in play
        b = crashed_board(7 + k % 3, stacked=k % 2)
        if k % 4 > 1:
            b = b[::-1].copy()          # the opponent crashed
        d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
        if len(plays := legal_plays(b, d1, d2)) > 1:
            decisions.append((b, plays))
    blots = 0
    while blots < 30:                   # the blot features: bear-offs against contact
        b = bearing_off_against_contact(rng)
        b = b[::-1].copy() if blots % 2 else b      # the mover bears off, or its opponent
        d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
        if len(plays := legal_plays(b, d1, d2)) > 1:
            decisions.append((b, plays))
            blots += 1
    classes, mixed, bearing = set(), 0, 0
    for b, plays in decisions:
        e = c.play_equities(b, plays)
        kinds = set()
        for k, play in enumerate(plays):
            if play[0].any():
                cls = rfeat.position_class(play[::-1].copy())
                kinds.add("crashed" if cls == "contact" and rfeat.is_crashed(play) else cls)
                assert e[k] == full_play_equity(c, play)
        np.testing.assert_array_equal(e, r.play_equities(b, plays))
        classes |= kinds
        mixed += {"contact", "crashed"} <= kinds
        # plays of one decision with different blot features (the features of the
        # swapped plays: side 0 the opponent, side 1 the mover)
        bearing += len({tuple(rfeat.blot_features(p[::-1].copy()).reshape(-1)) for p in plays}) > 1
    assert {"contact", "crashed", "race", "bearoff"} <= classes
    assert mixed > 0                    # a decision with plays for each contact net
    assert bearing >= 10


def blot_rule_decisions(rng, count: int):
    """``count`` decisions (board, plays) of more than BLOT_TOP plays whose mover bears
    off against contact (bearing_off_against_contact), the blot rule's case."""
    out = []
    while len(out) < count:
        b = bearing_off_against_contact(rng)
        d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
        if len(plays := legal_plays(b, d1, d2)) > rev.BLOT_TOP:
            out.append((b, plays))
    return out


def test_the_blot_rule_ranks_the_same_plays_in_both_engines():
    # With a blot-reading crashed net, a decision's plays are valued with the mover's blot
    # inputs at 0, and the BLOT_TOP best of those in full: the choice is the best of those
    # three by the full value (ties canonical), then the others by the first pass. Worked
    # out here from play_equities, and the core's ranking equal to it, order and values.
    nets = random_nets(41, crashed="blots", contact=236)
    nets["crashed"]["w1"][-rev.N_BLOT_INPUTS:] *= 20    # blot inputs that change choices
    r, c = rev.EvalPolicy(nets), core().EvalPolicy(nets)
    assert r.blot_rule
    rng = np.random.default_rng(41)
    approximate, other_choice = 0, 0
    for b, plays in blot_rule_decisions(rng, 30):
        full = r.play_equities(b, plays)
        first = r.play_equities(b, plays, mover_blots=False)
        approximate += bool((first != full).any())
        top = sorted(range(len(plays)), key=lambda j: (-first[j], j))[:rev.BLOT_TOP]
        expect = sorted(top, key=lambda j: (-full[j], j))
        expect += sorted(set(range(len(plays))) - set(top), key=lambda j: (-first[j], j))
        other_choice += expect[0] != int(np.argmax(full))
        order, values = r.ranking(b, plays, 64)
        assert order.tolist() == expect[:64]
        np.testing.assert_array_equal(values[:rev.BLOT_TOP], full[order[:rev.BLOT_TOP]])
        np.testing.assert_array_equal(values[rev.BLOT_TOP:], first[order[rev.BLOT_TOP:]])
        for k in (1, 2, 3, 5, 64):      # the first k of the same ranking
            corder, cvalues = c.ranking(b, plays, k)
            assert corder.tolist() == order[:k].tolist()
            np.testing.assert_array_equal(cvalues, values[:k])
        assert c.choose(b, plays, np.random.PCG64DXSM(0)) == expect[0]
    assert approximate >= 15            # the first pass differs from the full values
    assert other_choice >= 3            # the rule is not the argmax of the full values
    # without blot inputs the ranking is the full values' (no first pass)
    plain = random_nets(41, crashed=True, contact=236)
    r2, c2 = rev.EvalPolicy(plain), core().EvalPolicy(plain)
    assert not r2.blot_rule
    for b, plays in blot_rule_decisions(rng, 5):
        full = r2.play_equities(b, plays)
        order = sorted(range(len(plays)), key=lambda j: (-full[j], j))[:5]
        assert r2.ranking(b, plays, 5)[0].tolist() == c2.ranking(b, plays, 5)[0].tolist() == order
    with pytest.raises(ValueError, match="k must be in 1..64"):
        c.ranking(b, plays, 0)
    with pytest.raises(ValueError, match="k must be in 1..64"):
        r.ranking(b, plays, 65)
    with pytest.raises(ValueError, match="1..4096 plays, got 0"):
        c.ranking(b, plays[:0])


def test_ties_go_to_the_canonically_first_play_in_any_order_given():
    # Six plays of the same value (the opponent bears off its last checker whatever is
    # played): both engines rank them in legal_plays' canonical order, whatever order they
    # are given in, and a shuffled decision keeps each play's rank.
    b = np.zeros((2, 25), dtype=np.int8)
    b[0, 3:6] = 1
    b[1, 0] = 1
    plays = legal_plays(b, 2, 1)
    r, c = rev.EvalPolicy(), core().EvalPolicy()
    assert len(plays) == 6 and len(set(r.play_equities(b, plays))) == 1
    for perm in (np.arange(6)[::-1], np.random.default_rng(5).permutation(6)):
        for pol in (r, c):
            order = pol.ranking(b, plays[perm], 6)[0]
            assert perm[order].tolist() == list(range(6))
    rng = np.random.default_rng(6)
    for _ in range(20):
        d = [int(x) for x in rng.integers(1, 7, 2)]
        plays = legal_plays(bearing_off_against_contact(rng), *d)
        perm = rng.permutation(len(plays))
        for pol in (r, c):
            k = min(len(plays), 64)
            assert perm[pol.ranking(plays[0], plays[perm], k)[0]].tolist() == \
                pol.ranking(plays[0], plays, k)[0].tolist()


def test_both_engines_refuse_a_bad_board_to_evaluate_alike():
    # the reference's probabilities read any array as a board (a float board as its
    # integer part, a stack of one as a batch); both now give the core's errors
    b = np.array(START_BOARD)
    bad = [b + 0.5, b[None], np.zeros((25, 2), np.int8),
           np.array([[257] + [0] * 24, [0] * 25], np.int16), np.zeros((2, 25), np.int8)]
    for board in bad:
        messages = set()
        for pol in (rev.EvalPolicy(), core().EvalPolicy()):
            with pytest.raises(ValueError) as err:
                pol.probabilities(board)
            messages.add(str(err.value))
        assert len(messages) == 1, messages


@pytest.mark.parametrize("engine", ["reference", "core"])
def test_both_engines_refuse_a_decision_that_cannot_be_valued_alike(engine):
    # The core values each play from `before`'s first layer, corrected by what the play
    # changes: the opponent's checker count must be the same, as in any play of the
    # roll. Both engines check the arguments with the same errors (check_decision).
    pol = (rev if engine == "reference" else core()).EvalPolicy()
    b = np.array(START_BOARD)
    plays = legal_plays(b, 6, 5)
    want = pol.play_equities(b, plays)
    # any play of the decision serves as `before` (what hook_ply.py does)
    np.testing.assert_array_equal(pol.play_equities(plays[1], plays), want)
    assert pol.ranking(plays[-1], plays, 3)[0].tolist() == pol.ranking(b, plays, 3)[0].tolist()
    empty = np.zeros((2, 25), dtype=np.int8)
    bad = [
        (dict(before=empty), ValueError, "play 0 is not a play from `before`: its opponent "
                                         "has 15 checkers on the board and bar, 0 before"),
        (dict(before=b[:, :24]), ValueError, r"a board has shape \(2, 25\)"),
        (dict(plays=plays[0]), ValueError, r"plays has shape \(n, 2, 25\), got \(2, 25\)"),
        (dict(plays=plays[:0]), ValueError, "1..4096 plays, got 0"),
        (dict(plays=np.repeat(plays[:1], 4097, axis=0)), ValueError, "1..4096 plays, got 4097"),
        (dict(plays=plays.astype(float)), ValueError, "must be integers"),
        (dict(plays=np.concatenate([plays, -plays[:1]])), ValueError, "play 7: negative"),
        (dict(k=0), ValueError, "k must be in 1..64, got 0"),
        (dict(k=2 ** 40), ValueError, "k must be in 1..64"),
        (dict(k=1.5), TypeError, "integer"),
    ]
    for change, error, message in bad:
        args = dict(before=b, plays=plays, k=1) | change
        with pytest.raises(error, match=message):
            pol.ranking(args["before"], args["plays"], args["k"])
        if "k" not in change:
            with pytest.raises(error, match=message):
                pol.play_equities(args["before"], args["plays"])


@pytest.mark.parametrize("part", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_the_blot_rule_chooses_alike_in_the_lookaheads_and_the_one_ply_policy(part):
    # The 1- and 2-ply look-aheads (labels, luck) and the 1-ply policy take the 0-ply
    # choice of a roll from the blot rule in both engines: the same numbers. The cases
    # in two parts: part 0 the cheap ones (quick tier), part 1 the rest (slow).
    nets = random_nets(43, hidden=8, crashed="blots", contact=236)
    r, c = rev.EvalPolicy(nets), core().EvalPolicy(nets)
    boards = [b for b, _ in blot_rule_decisions(np.random.default_rng(43), 4)]
    # (2 plies on boards[:2]: the reference is slow, 10 times slower on the second)
    cases = [((1, boards[:2]), (2, boards[:1])), ((1, boards[2:]), (2, boards[1:2]))][part]
    for plies, some in cases:
        np.testing.assert_allclose(r.lookahead(some, plies, candidates=2),
                                   c.lookahead(some, plies, candidates=2), rtol=0, atol=1e-12)
    r1, c1 = rev.EvalPolicy1Ply(nets, candidates=2), core().EvalPolicy1Ply(nets, candidates=2)
    decisions = blot_rule_decisions(np.random.default_rng(44), 3)
    for b, plays in (decisions[:1], decisions[1:])[part]:
        # the replies of the other side, which bears off against contact after these plays
        np.testing.assert_array_equal(r1.play_values(plays[:2]), c1.play_values(plays[:2]))
        assert r1.choose(b, plays) == c1.choose(b, plays, np.random.PCG64DXSM(0))


# (2 plies: a minute in the reference; the quick tier compares 2 plies in the blot rule's
# test above)
@pytest.mark.parametrize("plies", [0, 1, pytest.param(2, marks=pytest.mark.slow)])
def test_lookahead_labels_agree_between_engines(plies):
    nets = random_nets(4, hidden=8)
    r, c = rev.EvalPolicy(nets), core().EvalPolicy(nets)
    rng = np.random.default_rng(plies)
    boards = []
    b = np.array(START_BOARD)
    while len(boards) < (2 if plies == 2 else 12):
        d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
        plays = legal_plays(b, d1, d2)
        if len(plays):
            b = plays[rng.integers(len(plays))]
        if not b[0].any() or not b[1].any():
            b = np.array(START_BOARD)
            continue
        b = b[::-1].copy()
        if rng.random() < 0.2:
            boards.append(b.copy())
    rl = r.lookahead(boards, plies, candidates=2)
    cl = c.lookahead(boards, plies, candidates=2)
    # the same choices; the sums of 21 rolls agree to rounding
    np.testing.assert_allclose(rl, cl, rtol=0, atol=1e-12)
    assert np.all((0 <= cl) & (cl <= 1))


@pytest.mark.parametrize("part", [0, pytest.param(1, marks=pytest.mark.slow)])
def test_one_ply_policies_agree_between_engines(part):
    # six decisions of a random walk: the first three in the quick tier, the rest slow
    nets = random_nets(9, hidden=8)
    r, c = rev.EvalPolicy1Ply(nets, candidates=3), core().EvalPolicy1Ply(nets, candidates=3)
    decisions = list(itertools.islice(random_walk(5, 10**6), 6))
    for b, plays in (decisions[:3], decisions[3:])[part]:
        np.testing.assert_array_equal(r.play_values(plays[:3]), c.play_values(plays[:3]))
        assert r.choose(b, plays) == c.choose(b, plays, np.random.PCG64DXSM(0))


@pytest.mark.parametrize("position, games", [("ZEQAADIKAAAAAA", 30),
                                             pytest.param("bJ7BARiw5+ABMA", 2, marks=pytest.mark.slow)])
def test_shipped_evaluator_rollouts_are_identical_in_both_engines(position, games):
    # the default policy (the shipped nets), through the public rollout API; a short race
    # (5 checkers a side: the pure-Python bear-off database builds its entries lazily)
    import fastbg

    core()
    a = fastbg.rollout(position, games, seed=21, policy="nn", engine="python")
    b = fastbg.rollout(position, games, seed=21, policy="nn", engine="cython", workers=2)
    assert a.counts.tolist() == b.counts.tolist() and a.games == games


def test_a_blot_reading_crashed_net_plays_the_same_games_in_threads_and_engines():
    # The core computes the blot features in a move generator workspace of each thread's
    # own (thread_workspace.h): one policy shared by two threads plays each block's games
    # as alone, and as the reference does.
    from concurrent.futures import ThreadPoolExecutor

    from fastbg._core import rollout as crollout
    from fastbg.reference import rollout as rrollout

    nets = random_nets(12, crashed="blots", contact=236)
    pol = core().EvalPolicy(nets)
    b = np.zeros((2, 25), np.int8)
    b[0, [0, 1, 2, 4]] = [2, 2, 1, 1]           # side 0 bears off against two back checkers
    b[1, [20, 18, 9, 7, 5, 4]] = [1, 1, 3, 3, 4, 3]
    assert rfeat.blot_features(b)[0, 2] == 1 and rfeat.is_crashed(b)

    def block(seed):
        return crollout.rollout_block(b, 30, np.random.PCG64DXSM(seed), pol).tolist()

    alone = [block(s) for s in range(4)]
    with ThreadPoolExecutor(2) as ex:
        assert list(ex.map(block, range(4))) == alone
    ref = rrollout.rollout_block(b, 30, np.random.PCG64DXSM(0), rev.EvalPolicy(nets))
    assert ref.tolist() == alone[0]


@pytest.mark.parametrize("contact", [236, 252])
def test_a_crashed_net_may_read_the_blot_inputs(contact):
    """A crashed net of the contact net's width + 10 reads side 0's and side 1's blot
    features (docs/evaluator.md) after its contact inputs; both engines read it, bit for
    bit."""
    nets = random_nets(7, crashed="blots", contact=contact)
    q = rev.quantize_net(nets["crashed"], "crashed")
    assert q["feat"].shape == (contact - 196 + 10, 16)
    # a bear-off against a checker on the bar (crashed), whose blot features are not 0
    b = np.zeros((2, 25), dtype=np.int8)
    b[0, 0], b[1, 24], b[1, 0] = 3, 1, 14
    assert rfeat.blot_features(b)[0].tolist() == [30, 30, 1, 330, 330]
    x = np.concatenate([rfeat.contact_inputs(b)[:contact],
                        rfeat.blot_features(b).reshape(-1) / np.tile(rfeat.BLOT_FEATURE_DENOMINATORS, 2)])
    w = nets["crashed"]
    h = 1 / (1 + np.exp(-(x @ w["w1"] + w["b1"])))
    np.testing.assert_allclose(rev.forward(w, "crashed", b)[0], 1 / (1 + np.exp(-(h @ w["w2"].T + w["b2"]))))
    # the integer net within its rounding of the float one; the blot rows count
    np.testing.assert_allclose(rev.forward_q(q, b), rev.forward(w, "crashed", b), atol=0.01)
    without = dict(w, w1=np.concatenate([w["w1"][:contact], np.zeros((10, 16))]))
    assert np.abs(rev.forward(without, "crashed", b) - rev.forward(w, "crashed", b)).max() > 0.01
    pol, cpol = rev.EvalPolicy(nets), core().EvalPolicy(nets)
    np.testing.assert_array_equal(pol.probabilities(b), rnn.consistent(b[None], rev.forward_q(q, b))[0])
    rng = np.random.default_rng(8)
    for _ in range(40):
        x = bearing_off_against_contact(rng)
        for y in (x, x[::-1].copy()):
            np.testing.assert_array_equal(pol.probabilities(y), cpol.probabilities(y))
    assert "crashed=16" in repr(cpol)
    bad = dict(nets, crashed=dict(w, w1=np.zeros((contact + 5, 16))))
    with pytest.raises(ValueError, match="crashed net"):
        rev.check_nets(bad)
