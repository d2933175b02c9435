"""experiments/evaluator/train.py's warm start onto the 252-input contact net.

A 236-input contact checkpoint (the shipped generation 8) warm-starts a 252-input net with
the 16 extra rows at zero, so the first step's net is the checkpoint's: the float net of
training gives the same outputs, and the integer engines the same probabilities bit for
bit. Needs the training extra (PyTorch); skipped without it.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from fastbg.reference import evaluator as rev
from fastbg.reference import features as rfeat
from fastbg.reference.board import START_BOARD

torch = pytest.importorskip("torch", reason="the training extra (PyTorch) is not installed")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "experiments" / "evaluator"))
train = pytest.importorskip("train")

BOARDS = np.array([
    START_BOARD,
    # tests/test_features.py's BACKGAME and a crashed side with 5 checkers off
    [[0, 0, 0, 2, 3, 3, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 3, 0, 0, 0],
     [0, 2, 0, 2, 0, 2, 0, 3, 0, 0, 3, 0, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]],
    [[4, 3, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0],
     [0, 0, 2, 0, 2, 3, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 3, 2, 0, 0, 0, 0, 0]],
], dtype=np.int8)


def test_a_236_input_checkpoint_warm_starts_the_252_input_net():
    assert train.N_INPUTS["contact"] == rfeat.CONTACT_INPUTS == 252
    old = rev.default_nets()["contact"]
    assert old["w1"].shape[0] == 236
    w = train.warm_start("contact", old, old["b1"].shape[0])
    assert w["w1"].shape == (252, old["w1"].shape[1])
    np.testing.assert_array_equal(w["w1"][:236], old["w1"])
    assert not w["w1"][236:].any()
    for k in ("b1", "w2", "b2"):
        np.testing.assert_array_equal(w[k], old[k])
    # the float net of training, on the 252 inputs, is the checkpoint on its 236
    x = rfeat.contact_inputs_many(BOARDS).astype(np.float32)
    with torch.no_grad():
        got = torch.sigmoid(train.Net(w)(torch.tensor(x))).double().numpy()
    np.testing.assert_allclose(got, rev.forward(old, "contact", BOARDS), rtol=0, atol=1e-5)
    # and the integer engines give the same probabilities, bit for bit
    core = pytest.importorskip("fastbg._core.evaluator", reason="Cython core not built")
    race = rev.default_nets()["race"]
    for engine in (rev, core):
        a = engine.EvalPolicy({"contact": old, "race": race})
        b = engine.EvalPolicy({"contact": w, "race": race})
        for board in BOARDS:
            np.testing.assert_array_equal(a.probabilities(board), b.probabilities(board))


def test_the_legacy_width_and_the_first_network(monkeypatch):
    old = rev.default_nets()["contact"]
    # --width 236: a 236-input checkpoint stays as it is
    monkeypatch.setitem(train.N_INPUTS, "contact", 236)
    w = train.warm_start("contact", old, old["b1"].shape[0])
    assert w["w1"].shape[0] == 236
    np.testing.assert_array_equal(w["w1"], old["w1"])
    # the 196-input first network maps onto either width, its features at zero
    from fastbg.reference.nn import default_weights

    first = default_weights()
    for width in (236, 252):
        monkeypatch.setitem(train.N_INPUTS, "contact", width)
        w = train.warm_start("contact", first, first["b1"].shape[0])
        assert w["w1"].shape[0] == width and not w["w1"][196:].any()
        np.testing.assert_array_equal(w["w1"][:196], first["w1"])


def test_a_second_hidden_layer_starts_as_the_one_layer_net():
    old = rev.default_nets()["crashed"] if "crashed" in rev.default_nets() else rev.default_nets()["contact"]
    w = train.with_second_layer({k: np.asarray(old[k], np.float64) for k in ("w1", "b1", "w2", "b2")}, 16)
    assert w["wh"].shape == (old["w1"].shape[1], 16) and not w["w3"].any()
    x = torch.tensor(rfeat.contact_inputs_many(BOARDS)[:, :old["w1"].shape[0]].astype(np.float32))
    with torch.no_grad():
        one = train.Net({k: w[k] for k in ("w1", "b1", "w2", "b2")})(x)
        two = train.Net(w)(x)
    torch.testing.assert_close(two, one)
    assert set(train.Net(w).weights()) == {"w1", "b1", "w2", "b2", "wh", "bh", "w3"}
    assert train.with_second_layer(w, 32) is w          # a checkpoint's layer is kept
    # widened, the net still computes the same: the new units feed neither layer
    wide = train.widen(w, w["b1"].shape[0] + 8)
    assert wide["wh"].shape == (w["b1"].shape[0] + 8, 16)
    with torch.no_grad():
        torch.testing.assert_close(train.Net(wide)(x), two)
