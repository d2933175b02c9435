"""The second evaluator (contact and race nets by position class) in both engines.

- quantization: warm-started nets (the shipped first network's weights, new inputs at
  zero) reproduce the first network within the rounding of the tables;
- the engines: bitwise equal probabilities and play equities on random nets and
  Hypothesis boards, the same choices, the same games;
- the classes: a race goes to the race net, a pure bear-off to the database.
"""
from __future__ import annotations

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


def random_nets(seed: int, hidden: int = 16, scale: float = 0.3) -> dict:
    rng = np.random.default_rng(seed)
    return {kind: {"w1": rng.normal(0, scale, (rev.N_INPUTS[kind], hidden)),
                   "b1": rng.normal(0, scale, hidden),
                   "w2": rng.normal(0, scale, (5, hidden)),
                   "b2": rng.normal(0, scale, 5)} for kind in rev.KINDS}


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


@settings(max_examples=150, deadline=None)
@given(boards())
def test_engines_agree_bit_for_bit(board):
    if rfeat.position_class(board) == "over":
        return
    nets = random_nets(7)
    rp = rev.EvalPolicy(nets).probabilities(board)
    cp = core().EvalPolicy(nets).probabilities(board)
    np.testing.assert_array_equal(rp, cp)


@pytest.mark.parametrize("seed", [1, 2])
def test_engines_choose_the_same_plays(seed):
    nets = random_nets(seed, hidden=24)
    r, c = rev.EvalPolicy(nets), core().EvalPolicy(nets)
    rng = np.random.default_rng(seed)
    b = np.array(START_BOARD)
    for _ in range(80):
        d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
        plays = legal_plays(b, d1, d2)
        if len(plays) > 1:
            np.testing.assert_array_equal(r.play_equities(b, plays), c.play_equities(b, plays))
            bg = np.random.PCG64DXSM(0)
            assert r.choose(b, plays, bg) == c.choose(b, plays, bg)
        if len(plays):
            b = plays[rng.integers(len(plays))]
        if not b[0].any():
            b = np.array(START_BOARD)
            continue
        b = b[::-1].copy()


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


def test_saved_nets_round_trip(tmp_path):
    nets = random_nets(5)
    rev.save_nets(tmp_path / "n.npz", nets)
    back = rev.load_nets(tmp_path / "n.npz")
    for kind in rev.KINDS:
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


@pytest.mark.parametrize("plies", [0, 1, 2])
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


def test_one_ply_policies_agree_between_engines():
    nets = random_nets(9, hidden=8)
    r, c = rev.EvalPolicy1Ply(nets, candidates=3), core().EvalPolicy1Ply(nets, candidates=3)
    rng = np.random.default_rng(5)
    b = np.array(START_BOARD)
    checked = 0
    while checked < 6:
        d1, d2 = (int(x) for x in rng.integers(1, 7, 2))
        plays = legal_plays(b, d1, d2)
        if len(plays) > 1:
            np.testing.assert_array_equal(r.play_values(plays[:3]), c.play_values(plays[:3]))
            assert r.choose(b, plays) == c.choose(b, plays, np.random.PCG64DXSM(0))
            checked += 1
        if len(plays):
            b = plays[rng.integers(len(plays))]
        if not b[0].any():
            b = np.array(START_BOARD)
            continue
        b = b[::-1].copy()


@pytest.mark.parametrize("position, games", [("ZEQAADIKAAAAAA", 30), ("bJ7BARiw5+ABMA", 2)])
def test_shipped_evaluator_rollouts_are_identical_in_both_engines(position, games):
    # the default policy (the shipped nets), through the public rollout API; a short race
    # (5 checkers a side: the pure-Python bear-off database builds its entries lazily)
    import fastbg

    core()
    a = fastbg.rollout(position, games, seed=21, policy="nn", engine="python")
    b = fastbg.rollout(position, games, seed=21, policy="nn", engine="cython", workers=2)
    assert a.counts.tolist() == b.counts.tolist() and a.games == games
