"""experiments/evaluator's data options: lookahead chunks by count, the ``--repeat-off``
epoch order, the experimental race inputs (``race_extra.py``, ``--race-width 230``) and
crashed inputs (``crashed_extra.py``, ``--crashed-extra``; ``crashed_blots.py``,
``--crashed-blots``), the
hard decisions of ``hard.py`` and the weighted ranking loss (``train.py --rank-tau``).

The epoch order and the warm start need the training extra (PyTorch); skipped without it.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "experiments" / "evaluator"))
import candidates  # noqa: E402
import crashed_blots  # noqa: E402
import crashed_extra  # noqa: E402
import hard  # noqa: E402
import lookahead  # noqa: E402
import positions  # noqa: E402
from fastbg.reference.features import is_crashed  # noqa: E402
from race_extra import N_RACE_EXTRA, race_extra  # noqa: E402


def _chunks(tmp_path: Path, ks) -> Path:
    out = tmp_path / "lookahead_x"
    for k in ks:
        idx = np.arange(10 * k, 10 * k + 10)
        np.savez(tmp_path / f"lookahead_x_{k:04d}.npz", index=idx, probs=np.full((10, 5), k / 10))
    return out


def test_lookahead_load_reads_all_chunks_or_the_first_k(tmp_path):
    out = _chunks(tmp_path, [0, 1, 2, 4])            # chunk 3 not labelled yet
    idx, probs = lookahead.load(out)
    assert len(idx) == 40 and probs.shape == (40, 5)
    idx, probs = lookahead.load(out, 2)
    np.testing.assert_array_equal(idx, np.arange(20))
    with pytest.raises(SystemExit, match="1 of its first 4 chunks are not labelled yet"):
        lookahead.load(out, 4)


def test_lookahead_load_refuses_labels_of_other_positions(tmp_path):
    boards = np.zeros((30, 2, 25), dtype=np.int8)
    boards[:, 0, 5] = np.arange(30) % 16
    out = tmp_path / "lookahead_y"
    for k in range(2):
        idx = np.arange(10 * k, 10 * k + 10)
        np.savez(tmp_path / f"lookahead_y_{k:04d}.npz", index=idx, probs=np.zeros((10, 5)),
                 boards_sha256=lookahead.fingerprint(boards[idx]))
    idx, _ = lookahead.load(out, boards=boards)
    assert len(idx) == 20
    other = boards.copy()
    other[12, 1, 3] = 1
    with pytest.raises(SystemExit, match="lookahead_y_0001.npz labels other positions"):
        lookahead.load(out, boards=other)
    with pytest.raises(SystemExit, match="beyond the 15 positions given"):
        lookahead.load(out, boards=boards[:15])
    with pytest.raises(SystemExit, match="no lookahead labels"):
        lookahead.load(tmp_path / "nothing")


def test_race_extra_counts_pips_and_checkers_outside_home():
    b = np.zeros((2, 25), dtype=np.int8)
    # side 0: 12 checkers home, one each on points 7, 10 and 20 (1 + 4 + 14 = 19 pips home)
    b[0, 0], b[0, 6], b[0, 9], b[0, 19] = 12, 1, 1, 1
    b[1, 0:6] = [3, 3, 3, 2, 2, 2]                    # side 1: all 15 home
    x = race_extra(b[None])
    assert x.shape == (1, N_RACE_EXTRA) and x.dtype == np.float32
    np.testing.assert_allclose(x[0], [19 / 100, 3 / 15, 0.0, 0.0], rtol=1e-6)


def test_crashed_extra_gammon_race_of_a_bar_checker_against_a_last_checker():
    b = np.zeros((2, 25), dtype=np.int8)
    b[0, 0], b[0, 24] = 14, 1          # on roll: 14 on its ace point, one on the bar
    b[1, 0] = 1                        # the other side: its last checker on its ace point
    x = crashed_extra.crashed_extra(b[None])
    assert x.shape == (1, crashed_extra.N_CRASHED_EXTRA) and x.dtype == np.float32
    r = 19 / crashed_extra.PIPS_PER_ROLL            # bar to the 6-point: 19 pips
    first = crashed_extra.bearoffdb.onesided((14, 0, 0, 0, 0, 1))["mean_first"]
    off = crashed_extra.bearoffdb.onesided((14, 0, 0, 0, 0, 1))["mean_off"]
    want = [19 / 100, 1 / 15, (r + off) / 20, (r + first) / 10,
            1.0,                       # the other side is off next turn; this side needs 3+
            1 / 5,                     # the bar checker, and the other side has borne off
            0, 0, 1 / 20, 0, 0, 0,     # the other side: one roll to bear off, a checker off
            0.0]                       # the race: the other side finishes first
    np.testing.assert_allclose(x[0], want, rtol=1e-6, atol=1e-7)


def test_crashed_blots_of_two_checkers_against_a_checker_on_the_bar():
    # on roll: one checker on each of its 1- and 2-points (13 off); the other side has a
    # checker on the bar and 14 on its own 1-point (far from any contact)
    b = np.zeros((2, 25), dtype=np.int8)
    b[0, 0] = b[0, 1] = 1
    b[1, 24], b[1, 0] = 1, 14
    x = crashed_blots.crashed_blots(b[None])
    assert x.shape == (1, crashed_blots.N_CRASHED_BLOTS) and x.dtype == np.float32
    # every roll bears both off (the higher die the 2-point's checker, the other the ace's;
    # 1-1: 2/1, then both off), so no play leaves a blot
    np.testing.assert_allclose(x[0, :3], [0.0, 0.0, 1.0])
    # the other side has no checker home and bears off nothing: not bearing off
    np.testing.assert_allclose(x[0, 3:], [0.0, 0.0, 0.0])


def test_crashed_blots_three_checkers_on_the_ace_point_against_the_bar():
    # three on the 1-point (12 off) against a checker on the bar: a roll bears off two
    # checkers (a blot is left) unless it is a double (four off)
    b = np.zeros((2, 25), dtype=np.int8)
    b[0, 0] = 3
    b[1, 24], b[1, 0] = 1, 14
    x = crashed_blots.crashed_blots(b[None])[0]
    np.testing.assert_allclose(x[:3], [30 / 36, 30 / 36, 1.0], rtol=1e-6)
    # seen from the other side (row 1 on roll): the same three columns, second
    np.testing.assert_allclose(crashed_blots.crashed_blots(b[::-1][None])[0, 3:], x[:3])
    # the shots at the ace-point blot: the bar checker enters on it with any 1 (11 rolls)
    y = crashed_blots.crashed_blots(b[None], shots=True)[0]
    assert y.shape == (crashed_blots.N_CRASHED_BLOTS_SHOTS,)
    np.testing.assert_allclose(y[:5], [30 / 36, 30 / 36, 1.0, 30 / 36 * 11 / 36,
                                       30 / 36 * 11 / 36], rtol=1e-6)
    # no contact (the other side's checker home, past ours): not bearing off against it
    b[1, 24], b[1, 0] = 0, 15
    assert not crashed_blots.crashed_blots(b[None]).any()


def test_home_blots_take_the_blots_against_a_checker_on_the_bar():
    # three on the 1-point against an anchor on that side's 6-point (the other side's
    # 19-point), which moves away from the 1-point: the real features see no shot;
    # home_blots take them against a checker on the bar, as above
    b = np.zeros((2, 25), dtype=np.int8)
    b[0, 0] = 3
    b[1, 18], b[1, 0] = 2, 13
    real = crashed_blots.crashed_blots(b[None], shots=True)[0]
    home = crashed_blots.home_blots(b[None])[0]
    assert home.shape == (10,) and home.dtype == np.float32
    np.testing.assert_allclose(real[:5], [0.0, 0.0, 1.0, 0.0, 0.0])
    np.testing.assert_allclose(home[:5], [30 / 36, 30 / 36, 1.0, 30 / 36 * 11 / 36,
                                          30 / 36 * 11 / 36], rtol=1e-6)
    assert not home[5:].any()
    # against a real checker on the bar the two agree; no contact, both 0
    b[1, 18], b[1, 24] = 1, 1
    np.testing.assert_array_equal(crashed_blots.home_blots(b[None]),
                                  crashed_blots.crashed_blots(b[None], shots=True))
    b[1, 18], b[1, 24], b[1, 0] = 0, 0, 15
    assert not crashed_blots.home_blots(b[None]).any()


def test_crashed_extra_race_when_the_side_on_roll_is_off_first():
    b = np.zeros((2, 25), dtype=np.int8)
    b[0, 0], b[1, 0] = 1, 2             # one checker against two on the ace point
    x = crashed_extra.crashed_extra(b[None])[0]
    assert x[12] == 1.0 and x[4] == x[10] == 0.0     # off at once; nobody can be gammoned
    # both sides with one checker: the side on roll wins, also when the other side is on roll
    # first in the order (a_on_roll=False): then B's first roll comes before A's
    a = np.zeros(crashed_extra.K)
    a[1] = 1.0
    assert crashed_extra._first_before(a, a, a_on_roll=True) == 1.0
    assert crashed_extra._first_before(a, a, a_on_roll=False) == 0.0


# a crashed side: 4 checkers in play beside 9 on its 1-point and 2 on its 2-point (the
# stacked ones beyond the first of each are out of play)
CRASHED = [[9, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0],
           [0, 2, 0, 2, 0, 2, 0, 3, 0, 0, 3, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]]
NOT_CRASHED = [[0, 0, 0, 2, 3, 3, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 3, 0, 0, 0],
               [0, 2, 0, 2, 0, 2, 0, 3, 0, 0, 3, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]]


def test_is_crashed_counts_the_checkers_in_play():
    assert is_crashed(np.array([CRASHED, NOT_CRASHED])).tolist() == [True, False]
    # 7 in play is crashed, 8 is not: checkers from the 1-point stack onto the 3-point
    seven, eight = np.array(CRASHED), np.array(CRASHED)
    seven[0, 0], seven[0, 2] = 8, 2
    eight[0, 0], eight[0, 2] = 7, 3
    assert is_crashed(seven)
    assert not is_crashed(eight)


def test_crashed_decisions_keep_whole_decisions_with_a_crashed_candidate():
    boards = np.array([CRASHED, NOT_CRASHED, NOT_CRASHED, NOT_CRASHED], dtype=np.int8)
    pos = {"boards": boards, "game": np.array([1, 1, 2, 2]), "ply": np.array([4, 4, 7, 7])}
    rows = np.arange(4)
    np.testing.assert_array_equal(candidates.crashed_decision_rows(pos, rows), [0, 1])


try:
    import torch

    import train
except ImportError:          # the training extra (PyTorch) is not installed
    torch = train = None
needs_torch = pytest.mark.skipif(torch is None, reason="the training extra (PyTorch) is not installed")


@needs_torch
def test_repeated_order_keeps_units_whole_and_repeats_the_listed_ones():
    rng = np.random.default_rng(3)
    unit = rng.integers(0, 40, 300)
    _, unit = np.unique(unit, return_inverse=True)     # units numbered 0..m-1
    extra = np.array([0, 5, 5, 17])                    # unit 5 twice more
    order = train.repeated_order(unit, extra, torch.Generator().manual_seed(1))
    m = int(unit.max()) + 1
    # every row once, plus the rows of each extra unit once more per listing
    want = np.bincount(unit, minlength=m) * (1 + np.bincount(extra, minlength=m))
    np.testing.assert_array_equal(np.bincount(unit[order], minlength=m), want)
    # each appearance of a unit is one contiguous run of its rows, in their order
    runs = np.flatnonzero(np.diff(unit[order])) + 1
    for piece in np.split(order, runs):
        u = unit[piece[0]]
        rows = np.flatnonzero(unit == u)
        assert len(piece) % len(rows) == 0
        for k in range(0, len(piece), len(rows)):
            np.testing.assert_array_equal(piece[k:k + len(rows)], rows)
    # the same generator seed gives the same order
    again = train.repeated_order(unit, extra, torch.Generator().manual_seed(1))
    np.testing.assert_array_equal(order, again)


@needs_torch
def test_a_226_input_race_checkpoint_warm_starts_the_230_input_net(monkeypatch):
    from fastbg.reference import evaluator as rev

    old = rev.default_nets()["race"]
    assert old["w1"].shape[0] == 226
    monkeypatch.setitem(train.N_INPUTS, "race", 226 + N_RACE_EXTRA)
    w = train.warm_start("race", old, old["b1"].shape[0])
    assert w["w1"].shape[0] == 230 and not w["w1"][226:].any()
    np.testing.assert_array_equal(w["w1"][:226], old["w1"])


def test_hard_decisions_are_where_the_0_ply_choice_loses_at_1_ply():
    # decision 0: 0-ply picks row 0, 1-ply prefers row 1 by 0.05 -> hard
    # decision 1: both pick row 3 -> not hard
    # decision 2: 0-ply ties rows 5 and 6 (the first, row 5, is its choice); 1-ply prefers
    #             row 6 by 0.01 -> hard at margin 0, not at margin 0.02
    dec = np.array([0, 0, 0, 1, 1, 2, 2])
    eq0 = np.array([0.30, 0.20, 0.10, -0.5, -0.6, 0.0, 0.0])
    eq1 = np.array([0.25, 0.30, 0.00, -0.4, -0.7, 0.10, 0.11])
    is_hard, loss = hard.hard_decisions(dec, eq0, eq1, 0.0)
    np.testing.assert_array_equal(is_hard, [True, False, True])
    np.testing.assert_allclose(loss, [0.05, 0.0, 0.01])
    is_hard, _ = hard.hard_decisions(dec, eq0, eq1, 0.02)
    np.testing.assert_array_equal(is_hard, [True, False, False])
    # decisions are numbered by (game, ply), whatever the row order
    np.testing.assert_array_equal(hard.decision_ids(np.array([7, 3, 7, 3]), np.array([2, 9, 2, 1])),
                                  [2, 1, 2, 0])


@needs_torch
def test_the_weighted_ranking_loss_weights_pairs_by_their_closeness_to_the_best():
    gen = torch.Generator().manual_seed(5)
    p = torch.rand(7, 5, generator=gen) * 0.5
    y = torch.rand(7, 5, generator=gen) * 0.5
    grp = torch.tensor([0, 0, 0, 1, 1, 1, 1])
    es, et = train.equity(p), train.equity(y)
    # no tau and an infinite one: the unweighted loss
    plain = train.rank_residuals(p, y, grp)
    torch.testing.assert_close(train.rank_residuals(p, y, grp, 1e12), plain)
    tau = 0.1
    d = train.rank_residuals(p, y, grp, tau)
    for g in (0, 1):
        rows = torch.nonzero(grp == g).flatten()
        a = torch.exp(-(et[rows].max() - et[rows]) / tau)
        n = len(rows)
        pairs = sum(a[i] * a[j] * ((es[rows[i]] - es[rows[j]]) - (et[rows[i]] - et[rows[j]])) ** 2
                    for i in range(n) for j in range(n))
        # the group's sum of squares is n / (2 A**2) times the weighted pairwise sum
        torch.testing.assert_close((d[rows] ** 2).sum(), pairs * n / (2 * a.sum() ** 2))
    # a pair far below its decision's best counts less than the same error near the best
    y2 = torch.zeros(3, 5)
    y2[:, 0] = torch.tensor([0.9, 0.88, 0.3])          # two near-best candidates, one bad
    p2 = y2.clone()
    p2[1, 0] += 0.05                                   # an error on a near-best candidate
    p3 = y2.clone()
    p3[2, 0] += 0.05                                   # the same error on the bad one
    g3 = torch.zeros(3, dtype=torch.long)
    near = (train.rank_residuals(p2, y2, g3, tau) ** 2).mean()
    far = (train.rank_residuals(p3, y2, g3, tau) ** 2).mean()
    assert near > 10 * far
    torch.testing.assert_close((train.rank_residuals(p2, y2, g3) ** 2).mean(),
                               (train.rank_residuals(p3, y2, g3) ** 2).mean())


def test_combine_labels_takes_the_rollouts_level_and_the_lookaheads_differences():
    import combine_labels
    look = np.array([[0.60, 0.10, 0.01, 0.05, 0.0],
                     [0.50, 0.10, 0.01, 0.05, 0.0],
                     [0.30, 0.00, 0.00, 0.10, 0.0]])
    roll = np.array([[0.50, 0.10, 0.01, 0.05, 0.0],      # offsets -0.10, -0.02 in decision 7
                     [0.48, 0.10, 0.01, 0.05, 0.0],
                     [0.40, 0.00, 0.00, 0.10, 0.0]])     # a decision of its own: +0.10
    group = np.array([7, 7, -3])
    p = combine_labels.combine(look, roll, group, mix=0.0)
    # decision 7 moves by its mean offset -0.06; the play 0.10 apart stays 0.10 apart
    np.testing.assert_allclose(p[:, 0], [0.54, 0.44, 0.40])
    np.testing.assert_allclose(combine_labels.combine(look, roll, group, mix=1.0), roll)
    np.testing.assert_allclose(combine_labels.combine(look, roll, group, mix=0.5)[:2, 0],
                               [0.52, 0.46])
    # made consistent: clipped, gammons within wins and losses
    import labels
    q = labels.consistent(np.array([[1.02, 1.01, 0.5, 0.3, 0.4]]))
    np.testing.assert_allclose(q, [[1.0, 1.0, 0.5, 0.0, 0.0]])


def test_crashed_decision_order_keeps_decisions_whole_and_only_crashed_rows():
    import labels
    boards = np.array([CRASHED, NOT_CRASHED, CRASHED, CRASHED, CRASHED], dtype=np.int8)
    pos = {"boards": boards, "game": np.array([1, 1, 2, 2, 1]), "ply": np.array([5, 5, 3, 3, 5])}
    order = labels.crashed_decision_order(pos, seed=3)
    assert sorted(order.tolist()) == [0, 2, 3, 4]                 # row 1 is not crashed
    first = pos["game"][order[0]]
    k = int((pos["game"][order] == first).sum())
    assert set(pos["game"][order[:k]]) == {first}                 # a decision's rows together
    np.testing.assert_array_equal(order, labels.crashed_decision_order(pos, seed=3))


def test_vr_rollout_labels_are_probabilities_and_resume(tmp_path):
    import labels
    boards = np.array([CRASHED, NOT_CRASHED], dtype=np.int8)
    np.savez(tmp_path / "p.npz", boards=boards, game=np.array([1, 1]), ply=np.array([2, 2]),
             role=np.array([1, 1]))
    argv = ["--positions", str(tmp_path / "p.npz"), "--out", str(tmp_path / "r"), "--vr",
            "--only", "crashed", "--per-roll", "1", "--seed", "5", "--shard", "1"]
    assert labels.main(argv) == 0
    idx, counts = labels.load(tmp_path / "r")
    probs = labels.load_probs(tmp_path / "r")
    assert idx.tolist() == [0] and counts.sum() == 36 and probs.shape == (1, 5)
    p = probs[0]
    assert 0 <= p[2] <= p[1] <= p[0] <= 1 and 0 <= p[4] <= p[3] <= 1 - p[0]
    assert labels.main(argv) == 0                                 # resumes: nothing to do
    np.testing.assert_array_equal(labels.load_probs(tmp_path / "r"), probs)
    with pytest.raises(SystemExit):
        labels.main(argv[:-2] + ["--shard", "1", "--per-roll", "2"])   # other settings refused


@needs_torch
def test_anchors_join_only_the_decisions_of_the_minibatch_and_carry_no_gradient():
    p = torch.full((3, 5), 0.3, requires_grad=True)
    y = torch.full((3, 5), 0.4)
    g = torch.tensor([4, 4, -1])                       # decision 4 and a row of its own
    pa = torch.tensor([[0.3, 0.0, 0.0, 0.0, 0.0], [0.1, 0.0, 0.0, 0.0, 0.0]])
    ya = torch.tensor([[0.1, 0.0, 0.0, 0.0, 0.0], [0.2, 0.0, 0.0, 0.0, 0.0]])
    ga = torch.tensor([4, 9])                         # decision 9 is not in this minibatch
    pb, yb, gb = train.with_anchors(p, y, g, (pa, ya, ga))
    assert gb.tolist() == [4, 4, -1, 4]
    torch.testing.assert_close(pb[3], pa[0])
    torch.testing.assert_close(yb[3], ya[0])
    # the anchor is the best play by the labels (the mover's equity 0.8 against 0.2) and
    # the student values all three alike: its soft choice pays 2/3 of the 0.6 regret
    r = train.soft_regret(pb, yb, gb, 0.01)
    assert r is not None and len(r) == 1
    torch.testing.assert_close(r[0], torch.tensor(0.4))
    r.sum().backward()
    assert p.grad is not None and p.grad[:2].abs().sum() > 0
    assert train.with_anchors(p, y, g, None)[2] is g


def test_crashed_bias_referee_scores_each_evaluators_first_choice_by_the_rollouts():
    import crashed_bias

    rows = [  # decision a: the rollouts prefer play 2; nets0 picks 1, gnubg0 and gnubg2 pick 2
        {"id": "a", "rollout": -0.50, "nets0": -0.40, "gnubg0": -0.60, "gnubg2": -0.55},
        {"id": "a", "rollout": -0.45, "nets0": -0.42, "gnubg0": -0.50, "gnubg2": -0.45},
        # decision b: everyone picks the rollouts' best
        {"id": "b", "rollout": 0.10, "nets0": 0.20, "gnubg0": 0.10, "gnubg2": 0.11},
        {"id": "b", "rollout": 0.00, "nets0": 0.00, "gnubg0": 0.00, "gnubg2": 0.00},
        # decision c: one play only, not a decision
        {"id": "c", "rollout": 0.30, "nets0": 0.0, "gnubg0": 0.0, "gnubg2": 0.0},
    ]
    ref = crashed_bias.referee(rows)
    assert ref["nets0"]["decisions"] == 2
    assert ref["nets0"]["mp"] == pytest.approx(25.0)      # (50 + 0) / 2
    assert ref["gnubg0"]["mp"] == pytest.approx(0.0) and ref["gnubg2"]["mp"] == pytest.approx(0.0)


def test_random_bar_endgames_are_crashed_contact_stragglers_against_a_home_board():
    from fastbg.reference.board import validate_board
    from fastbg.reference.features import position_class

    b = positions.random_bar_endgames(300, seed=5)
    assert b.shape == (300, 2, 25) and b.dtype == np.int8
    np.testing.assert_array_equal(b, positions.random_bar_endgames(300, seed=5))   # seeded
    for x in b:
        validate_board(x)
        assert position_class(x) == "contact" and is_crashed(x)
        # a straggler side: 8+ checkers off, one on the bar or in the other's home board,
        # against made home points
        assert any(x[s].sum() <= 7 and x[s, 18:].sum() >= 1 and (x[1 - s, :6] >= 2).any()
                   for s in (0, 1))
    assert 0.2 < (b[:, 0].sum(axis=1) <= 7).mean() < 0.8      # either side on roll
    assert (b[:, :, 24] > 0).any(axis=1).mean() > 0.3          # many on the bar


def test_contact_bearoff_starts_bear_off_against_checkers_back_with_a_gammon_to_save():
    from fastbg.reference.board import validate_board
    from fastbg.reference.features import position_class

    rng = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(7)))
    b = np.array([positions.contact_bearoff_start(rng) for _ in range(300)])
    again = np.random.Generator(np.random.PCG64DXSM(np.random.SeedSequence(7)))
    np.testing.assert_array_equal(b[0], positions.contact_bearoff_start(again))  # seeded
    for x in b:
        validate_board(x)
        assert position_class(x) == "contact"
        assert not x[0, 12:].any()                      # the side bearing off: near home
        assert x[1].sum() == 15                         # the other: no checker off,
        assert 1 <= x[1, 18:].sum() <= 4                # 1..4 back, on the bar or in its home
        assert not x[1, 12:18].any() and (x[1, :6] >= 2).any()   # the rest home or outside
    assert (b[:, 0].sum(axis=1) < 15).mean() > 0.8      # most have borne off checkers
    assert 0.2 < is_crashed(b).mean() < 0.8             # crashed or about to be
