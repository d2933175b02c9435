"""A float evaluator of trained checkpoints, for the benchmarks' ``--hook``.

``experiments/errorrate.py score --hook experiments/evaluator/hook.py:load
--hook-arg contact=RUN/epoch_010.npz,race=RUN2/epoch_012.npz`` scores a pair of
checkpoints of ``train.py`` at 0 ply: each position after a play is classified as
``docs/evaluator.md`` says; pure bear-offs go to the one-sided database, races to the race
net, the rest to the contact net (a net not given falls back to the shipped first
network). Outputs are read as the first network's are (``fastbg.reference.nn.consistent``).
This is the float network of training, not the integer one the engines will play with;
the two differ by about 1e-4 in equity.

A net of ``train.py --hidden2`` (a second hidden layer, weights ``wh``, ``bh``, ``w3``) is
read here only: the engines have one hidden layer.

Ablations the engines do not have: a race net of 230 inputs reads ``race_extra.py``'s
columns too, a crashed net of 249 (or 265) inputs ``crashed_extra.py``'s after its 236 (or
252) contact inputs, one of 242 or 246 (or 258, 262) ``crashed_blots.py``'s, and
``crashed=A.npz+B.npz+...`` is an ensemble (the mean of the members' outputs).
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from fastbg._core import features as feats
from fastbg.reference import bearoffdb
from fastbg.reference import nn as rnn


def _sibling(name: str):
    """A module beside this file (errorrate.py loads this one by its path)."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


race_extra = _sibling("race_extra").race_extra
_cx = _sibling("crashed_extra")
_cb = _sibling("crashed_blots")


#: blots=home in the hook argument: a crashed net of 246 inputs reads crashed_blots.py's
#: home_blots (train.py --home-blots), not the engines' blot features.
HOME_BLOTS = False


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _forward(w: dict, x: np.ndarray) -> np.ndarray:
    # a contact net reads the first w1.shape[0] of the 252 inputs (236: no extra features)
    h = _sigmoid(x[:, :w["w1"].shape[0]] @ w["w1"] + w["b1"])
    z = h @ w["w2"].T + w["b2"]
    if "wh" in w:    # train.py --hidden2: a second hidden layer beside the first's outputs
        z = z + _sigmoid(h @ w["wh"] + w["bh"]) @ w["w3"].T
    return _sigmoid(z)


def _load(path: str) -> dict:
    with np.load(path) as z:
        return {k: z[k].astype(np.float64) for k in ("w1", "b1", "w2", "b2", "wh", "bh", "w3")
                if k in z.files}


def probabilities(nets: dict, boards: np.ndarray, mixed: str | None = None) -> np.ndarray:
    """The five probabilities of each board (row 0 on roll, before its roll).

    ``mixed="crashed"``: when the boards (one decision's plays) are crashed and race
    positions both, the race ones are read by the crashed net too.
    """
    b = np.ascontiguousarray(np.asarray(boards, dtype=np.int8).reshape(-1, 2, 25))
    p = np.zeros((len(b), 5))
    cls = np.array([feats.position_class(x) for x in b], dtype=object)
    if "crashed" in nets:
        cls[(cls == "contact") & feats.is_crashed(b)] = "crashed"
        if mixed == "crashed" and (cls == "crashed").any():
            cls[cls == "race"] = "crashed"
    for i in np.flatnonzero(cls == "bearoff"):
        p[i] = bearoffdb.bearoff_probabilities(b[i])
    for kind, inputs in (("contact", feats.contact_inputs_many), ("crashed", feats.contact_inputs_many),
                         ("race", feats.race_inputs_many)):
        rows = np.flatnonzero(cls == kind)
        if not len(rows):
            continue
        if kind in nets:
            x0 = inputs(b[rows])
            raw = 0.0
            members = nets[kind] if isinstance(nets[kind], list) else [nets[kind]]
            extra = None                # the experimental columns, made once for all members
            for w in members:       # an ensemble (crashed=A+B+...): the mean of the outputs
                x = x0
                n_in = w["w1"].shape[0]
                if kind == "race" and n_in > x.shape[1]:   # race_extra.py's
                    extra = race_extra(b[rows]) if extra is None else extra
                    x = np.concatenate([x, extra], axis=1)
                if kind == "crashed" and n_in - _cx.N_CRASHED_EXTRA in (236, 252):   # crashed_extra.py's
                    extra = _cx.crashed_extra(b[rows]) if extra is None else extra
                    x = np.concatenate([x[:, :n_in - _cx.N_CRASHED_EXTRA], extra], axis=1)
                for nb in (_cb.N_CRASHED_BLOTS, _cb.N_CRASHED_BLOTS_SHOTS):   # crashed_blots.py's
                    if kind == "crashed" and n_in - nb in (236, 252):
                        if extra is None:
                            extra = (_cb.home_blots(b[rows]) if HOME_BLOTS and nb == 10
                                     else _cb.crashed_blots(b[rows], shots=nb == 10))
                        x = np.concatenate([x[:, :n_in - nb], extra], axis=1)
                raw = raw + _forward(w, x) / len(members)
        else:  # the shipped first network
            raw = rnn.forward(rnn.default_weights(), b[rows])
        p[rows] = rnn.consistent(b[rows], raw)
    return p


def load(spec: str):
    """``"contact=PATH,race=PATH"`` -> the hook: boards after a play -> mover's equities."""
    nets = {}
    mixed = None
    for part in filter(None, spec.split(",")):
        kind, _, path = part.partition("=")
        if kind == "mixed":
            mixed = path
            continue
        if kind == "blots":
            global HOME_BLOTS
            HOME_BLOTS = path == "home"
            continue
        if kind not in ("contact", "race", "crashed"):
            raise SystemExit(f"hook argument {part!r}: contact=PATH, crashed=PATH or race=PATH")
        nets[kind] = [_load(q) for q in path.split("+")] if "+" in path else _load(path)

    def mover_equities(boards):
        b = np.asarray(boards, dtype=np.int8).reshape(-1, 2, 25)
        out = np.empty(len(b))
        done = ~b[:, 1].any(axis=1)        # the mover (row 1) bore off its last checker
        for i in np.flatnonzero(done):
            out[i] = float(1 + rnn_loser_points(b[i]))
        live = np.flatnonzero(~done)
        if len(live):
            p = probabilities(nets, b[live], mixed)
            out[live] = -(2 * p[:, 0] - 1 + p[:, 1] - p[:, 3] + p[:, 2] - p[:, 4])
        return out

    return mover_equities


def rnn_loser_points(board: np.ndarray) -> int:
    """0, 1 or 2 extra points of a finished game, for the loser in row 0."""
    loser = board[0]
    if loser.sum() < 15:
        return 0
    return 2 if (loser[18:].any()) else 1
