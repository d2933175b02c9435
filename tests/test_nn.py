"""The neural-network evaluator: encoding, engine agreement, consistency, training, shipping."""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastbg.game.position import START_BOARD
from fastbg.reference import nn as rnn
from fastbg.reference import rollout as rrollout
from fastbg.reference.board import swap
from fastbg.reference.movegen import legal_plays

from strategies import boards

cnn = pytest.importorskip("fastbg._core.nn", reason="Cython core not built")
crollout = pytest.importorskip("fastbg._core.rollout", reason="Cython core not built")

ROLLS = [(d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1)]


def random_weights(seed: int, hidden: int = 24, scale: float = 0.6) -> dict:
    rng = np.random.default_rng(seed)
    return {
        "w1": rng.normal(0, scale, (rnn.NN_INPUTS, hidden)),
        "b1": rng.normal(0, scale, hidden),
        "w2": rng.normal(0, scale, (5, hidden)),
        "b2": rng.normal(0, scale, 5),
    }


def net_of(w: dict):
    return cnn.Net(w["w1"], w["b1"], w["w2"], w["b2"])


# ---------------------------------------------------------------------------
# Encoding


def test_start_position_units():
    # Start, each side from its own view: 2 on index 23 (24-point), 5 on 12
    # (13-point), 3 on 7 (8-point), 5 on 5 (6-point).
    x = rnn.encode(START_BOARD)
    expected = np.zeros(196)
    for side in (0, 1):
        base = 98 * side
        for i, units in ((23, [1, 1, 0, 0]), (12, [1, 1, 1, 1.0]), (7, [1, 1, 1, 0]),
                         (5, [1, 1, 1, 1.0])):
            expected[base + 4 * i: base + 4 * i + 4] = units
    assert np.array_equal(x, expected)
    assert np.array_equal(cnn.encode_board(START_BOARD), expected)


def test_bar_off_and_big_stack_units():
    b = np.zeros((2, 25), dtype=np.int8)
    b[0, 0] = 9          # (9 - 3) / 2 = 3 on the fourth unit
    b[0, 24] = 3         # bar 3 / 2
    # mover: 12 on board+bar, 3 off
    b[1, 10] = 1
    x = rnn.encode(b)
    assert list(x[0:4]) == [1, 1, 1, 3.0]
    assert x[96] == 1.5 and x[97] == 3 / 15
    assert list(x[98 + 40: 98 + 44]) == [1, 0, 0, 0]
    assert x[98 + 96] == 0 and x[98 + 97] == 14 / 15
    assert np.array_equal(cnn.encode_board(b), x)


@settings(max_examples=200, deadline=None)
@given(boards())
def test_encoding_engines_equal_and_swap_symmetric(board):
    x = rnn.encode(board)
    assert np.array_equal(cnn.encode_board(board), x)
    xs = rnn.encode(swap(board))
    assert np.array_equal(xs[:98], x[98:]) and np.array_equal(xs[98:], x[:98])


def test_symmetric_position_is_even_before_the_roll_for_a_symmetric_net():
    # A net whose outputs are symmetric under the swap gives the start position an
    # equity that is exactly minus that of the swapped start: the start is its own swap.
    w = random_weights(3)
    p = net_of(w).probabilities(START_BOARD)
    q = net_of(w).probabilities(swap(START_BOARD))
    assert np.array_equal(p, q)


# ---------------------------------------------------------------------------
# Forward pass and policy: the two engines agree bit for bit


def test_sigmoid_table_close_to_logistic():
    x = np.linspace(-20, 20, 4001)
    y = rnn.sigmoid(x)
    exact = 1 / (1 + np.exp(-np.clip(x, -16, 16)))
    assert np.max(np.abs(y - exact)) < 2e-5
    assert np.all(np.diff(y) >= 0)


@settings(max_examples=150, deadline=None)
@given(boards(), st.integers(0, 2**31 - 1))
def test_policy_forward_bitwise_equal_and_close_to_float(board, seed):
    w = random_weights(seed % 1000, hidden=8 + seed % 40, scale=[0.1, 1.0, 4.0][seed % 3])
    pol = cnn.NNPolicy(net_of(w))
    ref = rnn.NNPolicy(w)
    assert pol.forward(board).tobytes() == ref.forward(board).tobytes()
    assert pol.probabilities(board).tobytes() == ref.probabilities(board).tobytes()
    # The integer network against the float one: each hidden unit is off by at
    # most 3.4e-4 (table bin or clamp) plus its rounded pre-activation (26 rows of
    # 2**-17 at most, times slope 1/4); each output pre-activation by that times
    # sum |w2|, plus the rounding of w2 (nh h-values of at most 1 times 2**-(w_bits+1))
    # and of b2; the output sigmoid's slope is at most 1/4, its table 2e-5 off.
    q = rnn.quantize(w)
    nh = w["w2"].shape[1]
    h_err = 3.4e-4 + 26 * 2.0**-17 / 4
    bound = 0.25 * (np.abs(w["w2"]).sum(axis=1) * h_err + nh * 2.0**-(q["w_bits"] + 1)
                    + 2.0**-(14 + q["w_bits"] + 1)) + 4e-5
    assert np.all(np.abs(pol.forward(board) - rnn.forward(w, board)) <= bound)


@settings(max_examples=150, deadline=None)
@given(boards(), st.integers(0, 2**31 - 1))
def test_forward_bitwise_equal(board, seed):
    w = random_weights(seed % 1000, hidden=8 + seed % 40, scale=[0.1, 1.0, 4.0][seed % 3])
    net = net_of(w)
    assert net.forward(board).tobytes() == rnn.forward(w, board).tobytes()
    p = rnn.consistent(board, rnn.forward(w, board))
    assert net.probabilities(board).tobytes() == p.tobytes()


@settings(max_examples=120, deadline=None)
@given(boards(), st.sampled_from(ROLLS), st.integers(0, 50))
def test_same_choice_and_equities(board, roll, seed):
    plays = legal_plays(board, *roll)
    if len(plays) == 0:
        return
    w = random_weights(seed)
    net = net_of(w)
    pol = cnn.NNPolicy(net)
    assert pol.play_equities(board, plays).tobytes() == rnn.play_equities(w, plays).tobytes()
    shuffled = plays[::-1].copy()
    ci = pol.choose(board, shuffled, np.random.PCG64DXSM(0))
    ri = rnn.NNPolicy(w).choose(board, plays)
    assert np.array_equal(shuffled[ci], plays[ri])


def test_exact_ties_go_to_the_canonically_first_play():
    w = random_weights(0)
    for k in w:
        w[k] = np.zeros_like(w[k])      # every non-final play has equity 0
    plays = legal_plays(START_BOARD, 3, 1)
    assert rnn.NNPolicy(w).choose(START_BOARD, plays) == 0
    shuffled = plays[::-1].copy()
    ci = cnn.NNPolicy(net_of(w)).choose(START_BOARD, shuffled, np.random.PCG64DXSM(0))
    assert np.array_equal(shuffled[ci], plays[0])


@settings(max_examples=200, deadline=None)
@given(boards(), st.integers(0, 100))
def test_probabilities_are_consistent(board, seed):
    p = net_of(random_weights(seed, scale=3.0)).probabilities(board)
    win, wg, wbg, lg, lbg = p
    assert 0 <= wbg <= wg <= win <= 1
    assert 0 <= lbg <= lg <= 1 - win + 1e-15
    if board[1].sum() < 15:
        assert wg == 0 and wbg == 0
    if board[0].sum() < 15:
        assert lg == 0 and lbg == 0


def test_final_play_scores_its_result():
    b = np.zeros((2, 25), dtype=np.int8)
    b[0, 0] = 1
    b[1, 20] = 15        # opponent in the mover's home board: a backgammon
    w = random_weights(1)
    plays = legal_plays(b, 2, 1)
    eq = rnn.play_equities(w, plays)
    assert 3.0 in eq
    assert cnn.NNPolicy(net_of(w)).play_equities(b, plays).tobytes() == eq.tobytes()


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("opponent", ["pubeval", "random", "nn"])
def test_match_games_equal_between_engines(seed, opponent):
    w = random_weights(seed, hidden=16, scale=0.3)
    pairs = {
        "cython": (cnn.NNPolicy(net_of(w)), opponent),
        "python": (rnn.NNPolicy(w), opponent),
    }
    results = {}
    for eng, (pol, opp) in pairs.items():
        mod = crollout if eng == "cython" else rrollout
        if opp == "nn":
            opp = cnn.NNPolicy(net_of(random_weights(seed + 7, 16, 0.3))) if eng == "cython" \
                else rnn.NNPolicy(random_weights(seed + 7, 16, 0.3))
        results[eng] = [
            mod.match_game(START_BOARD, np.random.PCG64DXSM(seed * 100 + g),
                           np.random.PCG64DXSM(g), pol, opp)
            for g in range(2)
        ]
    assert results["cython"] == results["python"]


def test_rollout_counts_equal_between_engines():
    from fastbg.engine import get_engine

    w = random_weights(5, hidden=16, scale=0.3)
    counts = {}
    for name, pol in (("cython", cnn.NNPolicy(net_of(w))), ("python", rnn.NNPolicy(w))):
        eng = get_engine(name)
        counts[name] = eng.rollout_block(START_BOARD, 3, np.random.PCG64DXSM(11), pol,
                                         opening=True)
    assert np.array_equal(counts["cython"], counts["python"])


# ---------------------------------------------------------------------------
# Training


def test_td_learns_a_trivial_race():
    # Mover: one checker on its ace point; opponent: 15 checkers in the mover's
    # home board and none off. Every game is a backgammon win on the first roll.
    b = np.zeros((2, 25), dtype=np.int8)
    b[0, 0] = 1
    b[1, 20] = 15
    net = net_of(random_weights(2, hidden=16, scale=0.1))
    target = np.array([1.0, 1.0, 1.0, 0.0, 0.0])
    before = np.abs(net.forward(b) - target).max()
    first = cnn.td_train(net, 200, np.random.PCG64DXSM(1), 0.5, board=b, opening=False)
    second = cnn.td_train(net, 200, np.random.PCG64DXSM(2), 0.5, board=b, opening=False)
    after = np.abs(net.forward(b) - target).max()
    assert second["mse"] < first["mse"]
    assert after < 0.1 < before
    assert first["counts"][2] == 200


def test_td_training_reproducible_and_error_decreases():
    w = random_weights(4, hidden=16, scale=0.1)
    nets = [net_of(w), net_of(w)]
    for net in nets:
        cnn.td_train(net, 30, np.random.PCG64DXSM(9), 0.1)
    a, b = nets[0].weights(), nets[1].weights()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    assert not np.array_equal(a["w1"], w["w1"])


# ---------------------------------------------------------------------------
# Registration and shipped weights

SHIPPED = (rnn.DATA_DIR / rnn.META_NAME).is_file()


def test_policy_registered():
    from fastbg._core.policies import POLICIES as core_policies
    from fastbg.reference.policies import POLICIES as ref_policies
    from fastbg.rollouts import POLICIES

    assert "nn" in POLICIES and "nn" in core_policies and "nn" in ref_policies


@pytest.mark.skipif(not SHIPPED, reason="no shipped network yet")
def test_shipped_weights_checksum_and_policies():
    meta = json.loads((rnn.DATA_DIR / rnn.META_NAME).read_text())
    path = rnn.DATA_DIR / meta["file"]
    assert rnn.sha256_file(path) == meta["sha256"]
    w = rnn.default_weights()
    from fastbg._core.policies import make_policy as core_make
    from fastbg.reference.policies import make_policy as ref_make

    assert core_make("nn").name == "nn" and ref_make("nn").name == "nn"
    assert cnn.default_net().forward(START_BOARD).tobytes() == \
        rnn.forward(w, START_BOARD).tobytes()
    assert cnn.NNPolicy().forward(START_BOARD).tobytes() == \
        rnn.NNPolicy().forward(START_BOARD).tobytes()


@pytest.mark.skipif(not SHIPPED, reason="no shipped network yet")
def test_evaluate_api():
    from fastbg.nn import evaluate

    r = evaluate("start")
    assert set(r) >= {"win", "win_gammon", "win_backgammon", "lose_gammon",
                      "lose_backgammon", "equity"}
    assert r == evaluate("start", engine="python")
    eq = (2 * r["win"] - 1) + (r["win_gammon"] - r["lose_gammon"]) + \
        (r["win_backgammon"] - r["lose_backgammon"])
    assert r["equity"] == pytest.approx(eq, abs=1e-15)


def test_corrupt_or_missing_weights_are_clear_errors(tmp_path):
    w = random_weights(0)
    path = tmp_path / "w.npz"
    rnn.save_weights(path, w)
    digest = rnn.sha256_file(path)
    assert np.array_equal(rnn.load_weights(path, digest)["w1"], w["w1"])
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad = tmp_path / "bad.npz"
    bad.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="corrupt"):
        rnn.load_weights(bad, digest)
    with pytest.raises(FileNotFoundError):
        rnn.load_weights(tmp_path / "missing.npz")
    shutil.copy(path, tmp_path / "copy.npz")
    with pytest.raises(ValueError, match="shape"):
        net_of({**w, "b1": w["b1"][:-1]})


def test_fast_training_choices_match_the_policy():
    # With alpha = 0 the weights stay fixed: the incremental move choice of the
    # training kernel must play the same games as the exact policy.
    w = random_weights(6, hidden=16, scale=0.3)
    runs = [cnn.td_train(net_of(w), 40, np.random.PCG64DXSM(3), 0.0, fast=f) for f in (False, True)]
    assert np.array_equal(runs[0]["counts"], runs[1]["counts"])
    assert runs[0]["moves"] == runs[1]["moves"]


@pytest.mark.parametrize("pid, roll", [
    ("4HPMwQCMz+AIIQ", (6, 4)), ("4HPwATDgc/ABMA", (3, 1)), ("4HPwATDgc/ABMA", (5, 5)),
])
def test_one_ply_same_choice_and_values(pid, roll):
    from fastbg.game.position import Position

    w = random_weights(8, hidden=12, scale=0.3)
    b = Position.parse(pid).board
    plays = legal_plays(b, *roll)
    cpol = cnn.NN1PlyPolicy(net_of(w), candidates=4)
    rpol = rnn.NN1PlyPolicy(w, candidates=4)
    shuffled = plays[::-1].copy()
    ci = cpol.choose(b, shuffled, np.random.PCG64DXSM(0))
    assert np.array_equal(shuffled[ci], plays[rpol.choose(b, plays)])
    vals = cpol.play_values(plays[:2])
    assert vals.tobytes() == np.array([rnn.reply_value(rpol.q, p) for p in plays[:2]]).tobytes()


def test_one_ply_registered():
    from fastbg._core.policies import POLICIES as core_policies
    from fastbg.reference.policies import POLICIES as ref_policies
    from fastbg.rollouts import POLICIES

    assert "nn-1ply" in POLICIES and "nn-1ply" in core_policies and "nn-1ply" in ref_policies


# --- the policy's evaluation rules: race backgammons, the bear-off database, the table cache


def _board(row0: dict, row1: dict) -> np.ndarray:
    """A board from {index: checkers} per side (the rest off)."""
    b = np.zeros((2, 25), dtype=np.int8)
    for s, row in enumerate((row0, row1)):
        for i, n in row.items():
            b[s, i] = n
    return b


@pytest.mark.parametrize("engine", ["cython", "python"])
def test_no_backgammon_in_a_race_without_checkers_in_the_winners_home(engine):
    # A race (no contact) where neither side has a checker in the other's home board:
    # no backgammon is possible either way, whatever the network says.
    b = _board({3: 5, 5: 5, 7: 5}, {2: 5, 4: 5, 8: 5})
    assert 8 + 9 < 25 and b[:, 18:].sum() == 0       # back points 8 and 9: no contact
    pol = cnn.NNPolicy() if engine == "cython" else rnn.NNPolicy()
    p = pol.probabilities(b)
    assert p[2] == 0.0 and p[4] == 0.0
    # ... while with contact (a checker back on the 24-point) they are not forced to 0
    c = _board({3: 5, 5: 5, 7: 4, 23: 1}, {2: 5, 4: 5, 8: 5})
    raw = pol.forward(c)
    assert pol.probabilities(c)[4] == min(raw[4], raw[3], 1.0 - raw[0])


@pytest.mark.parametrize("engine", ["cython", "python"])
def test_pure_bear_offs_are_read_from_the_bear_off_database(engine):
    from fastbg.reference import bearoffdb as rdb

    pol = cnn.NNPolicy() if engine == "cython" else rnn.NNPolicy()
    b = _board({0: 1}, {0: 2, 3: 3})          # one checker on the 1-point: a sure win
    assert pol.probabilities(b).tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    b = _board({1: 2, 4: 1}, {0: 1, 2: 1})
    assert pol.probabilities(b).tobytes() == rdb.bearoff_probabilities(b).tobytes()
    # the plays are scored by the database too: minus the opponent's equity after each
    plays = legal_plays(b, 4, 1)
    eq = pol.play_equities(b, plays) if engine == "cython" else rnn.play_equities(pol.q, plays)
    for play, e in zip(plays, eq):
        if play[0].any():
            assert e == -rnn.equity(rdb.bearoff_probabilities(swap(play)))


def test_policy_tables_follow_a_network_trained_in_place():
    w = random_weights(3, hidden=16, scale=0.3)
    net = net_of(w)
    before = cnn.NNPolicy(net).forward(START_BOARD)
    cnn.td_train(net, 5, np.random.PCG64DXSM(1), 0.5)
    after = cnn.NNPolicy(net)
    assert after.forward(START_BOARD).tobytes() != before.tobytes()
    assert after.forward(START_BOARD).tobytes() == \
        rnn.NNPolicy(net.weights()).forward(START_BOARD).tobytes()


def test_evaluate_refuses_an_xgid_with_the_dice_rolled():
    import fastbg

    with pytest.raises(ValueError, match="dice rolled"):
        fastbg.nn.evaluate("XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10")
    assert fastbg.nn.evaluate("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")["win"] > 0
