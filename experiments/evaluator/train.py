"""Supervised training of the contact and race nets on rollout labels (PyTorch, CPU).

Step 6 of the recipe (issue 11's EVALUATOR.md, summarised in ``experiments/TRAINING.md``): a net of ``docs/evaluator.md``'s
inputs (the contact net's 252, or its first 236 with ``--width 236``; the race net's 226),
one sigmoid hidden layer and five
sigmoid outputs, trained by minibatch AdamW on the cross-entropy between its outputs and
the label probabilities (win, win gammon, win backgammon, lose gammon, lose backgammon of
the rollouts of ``labels.py``; each output a Bernoulli with a soft target).

**Warm start.** ``--init`` (default the shipped net, ``fastbg/data/nn/nn.npz``) gives the
first layer of Tesauro's 196 units; the new inputs start at zero, so the first step's net
*is* the shipped one (for the race net the off-count unit becomes the one-hot units with
the same contribution), which keeps the TD-trained "natural" minimum bgsage warns about
losing when starting supervised training from random weights. A 236-input contact
checkpoint (generation 8 and before) warm-starts a 252-input net the same way: the 16 rows
of the extra features start at zero, so the first step's net is the checkpoint's.

**Validation.** Positions of every 20th game (``game % 20 == 0``) are held out, so no
validation position shares a game with a training one. Each epoch logs the training loss,
the validation loss and the mean absolute error of the cubeless equity on the validation
positions (whose labels carry rollout noise of their own: about 0.07 equity for 216 games).

**Resumable.** ``experiments/runs/evaluator/<name>/`` holds ``log.jsonl`` (one line an
epoch), ``last.pt`` (model, optimiser, epoch) and ``epoch_<k>.npz`` (the weights in
fastbg's format, float64: ``w1`` (inputs, hidden), ``b1``, ``w2`` (5, hidden), ``b2``, plus
``kind``); re-running the same command continues after the last finished epoch. The shuffle
of epoch ``k`` is seeded by ``(seed, k)``, so a resumed run is the uninterrupted one.

Usage::

    pip install -e ".[train]"
    python experiments/evaluator/train.py --net contact --name c1 \\
        --positions experiments/runs/evaluator/positions_g1.npz \\
        --labels experiments/runs/evaluator/labels_g1 --epochs 30
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import labels as labels_mod  # noqa: E402
import lookahead as lookahead_mod  # noqa: E402
from crashed_extra import N_CRASHED_EXTRA, crashed_extra  # noqa: E402
from crashed_blots import crashed_blots, home_blots  # noqa: E402
from race_extra import N_RACE_EXTRA, race_extra  # noqa: E402
from fastbg.reference.features import CONTACT_INPUTS, LEGACY_CONTACT_INPUTS, is_crashed  # noqa: E402
from fastbg.reference.nn import load_weights  # noqa: E402

RUNS = HERE.parent / "runs" / "evaluator"
N_INPUTS = {"contact": CONTACT_INPUTS, "race": 226, "crashed": CONTACT_INPUTS}    # contact: --width
#: A contact net reads all 252 inputs or the first 236 (no extra features; generation 8).
CONTACT_WIDTHS = (LEGACY_CONTACT_INPUTS, CONTACT_INPUTS)
SIDE_RACE = 113          # race inputs per side: 96 point units, 15 off one-hot, 2 numbers
SIDE_TESAURO = 98        # Tesauro's units per side: 96 point units, bar, off


def targets(counts: np.ndarray) -> np.ndarray:
    """The five probabilities of outcome counts (n, 6) -> (n, 5) float32."""
    c = counts.astype(np.float64)
    n = c.sum(axis=1, keepdims=True)
    p = np.stack([c[:, 0] + c[:, 1] + c[:, 2], c[:, 1] + c[:, 2], c[:, 2],
                  c[:, 4] + c[:, 5], c[:, 5]], axis=1) / n
    return p.astype(np.float32)


def equity(p) -> np.ndarray:
    """Cubeless equity of probabilities (n, 5) (DESIGN section 5)."""
    return 2 * p[:, 0] - 1 + p[:, 1] - p[:, 3] + p[:, 2] - p[:, 4]


def warm_start(kind: str, old: dict, hidden: int) -> dict:
    """First weights of a ``kind`` net: a checkpoint of the same kind as it is, or a
    196-input first-generation net mapped onto the new layout (new inputs at zero)."""
    old = with_extra_rows(kind, old)
    if old["w1"].shape[0] == N_INPUTS[kind]:
        w = {k: np.array(old[k], dtype=np.float64) for k in ("w1", "b1", "w2", "b2") + SECOND_LAYER
             if k in old}
        return widen(w, hidden)
    h_old = old["b1"].shape[0]
    if hidden != h_old:
        raise SystemExit(f"--hidden {hidden} differs from the --init net's {h_old}")
    w1 = np.zeros((N_INPUTS[kind], hidden))
    if kind == "contact":
        w1[:196] = old["w1"]
    else:
        for s in (0, 1):
            src, dst = s * SIDE_TESAURO, s * SIDE_RACE
            w1[dst:dst + 96] = old["w1"][src:src + 96]
            off = old["w1"][src + 97]                      # weight of off / 15
            for k in range(15):                            # one-hot off == k
                w1[dst + 96 + k] = off * k / 15.0
    return {"w1": w1, "b1": old["b1"].copy(), "w2": old["w2"].copy(), "b2": old["b2"].copy()}


def widen(w: dict, hidden: int, seed: int = 12345) -> dict:
    """``w`` with ``hidden`` hidden units: the new units get small random input weights and
    zero output weights, so the widened net computes exactly what ``w`` does and training
    starts from its minimum (Net2Net's function-preserving growth)."""
    h_old = w["b1"].shape[0]
    if hidden == h_old:
        return w
    if hidden < h_old:
        raise SystemExit(f"--hidden {hidden} is smaller than the --init net's {h_old}")
    rng = np.random.default_rng(seed)
    extra = hidden - h_old
    n_in = w["w1"].shape[0]
    out = {"w1": np.concatenate([w["w1"], rng.normal(0.0, 0.1, (n_in, extra))], axis=1),
           "b1": np.concatenate([w["b1"], rng.normal(0.0, 0.1, extra)]),
           "w2": np.concatenate([w["w2"], np.zeros((w["w2"].shape[0], extra))], axis=1),
           "b2": w["b2"].copy()}
    if "wh" in w:   # --hidden2's layer: the new units feed it nothing either
        out.update(wh=np.concatenate([w["wh"], np.zeros((extra, w["wh"].shape[1]))]),
                   bh=w["bh"].copy(), w3=w["w3"].copy())
    return out


def with_extra_rows(kind: str, old: dict) -> dict:
    """``old`` as it is, or a 236-input contact net with the rows of the 16 extra feature
    inputs (docs/evaluator.md: inputs 236..251) at zero, when the net to train reads them:
    the same function of the position (the integer engines give bit-identical results)."""
    rows = old["w1"].shape[0]
    if kind == "race" and rows == 226 < N_INPUTS["race"]:     # --race-width 230
        w1 = np.zeros((N_INPUTS["race"], old["w1"].shape[1]))
        w1[:rows] = old["w1"]
        return {"w1": w1, **{k: np.array(old[k], dtype=np.float64) for k in ("b1", "w2", "b2")}}
    if kind not in ("contact", "crashed") or rows != LEGACY_CONTACT_INPUTS or N_INPUTS[kind] == rows:
        return old
    w1 = np.zeros((N_INPUTS[kind], old["w1"].shape[1]))
    w1[:rows] = old["w1"]
    return {"w1": w1, **{k: np.array(old[k], dtype=np.float64) for k in ("b1", "w2", "b2")}}


def load_init(path: str) -> dict:
    """The ``--init`` weights: the shipped first network's format (``load_weights``) or a
    checkpoint of this script (``epoch_<k>.npz``)."""
    with np.load(path) as z:
        if z["w1"].shape[0] != 196:
            return {k: z[k] for k in ("w1", "b1", "w2", "b2") + SECOND_LAYER if k in z.files}
    return load_weights(path)


SECOND_LAYER = ("wh", "bh", "w3")   # --hidden2's layer: hidden -> hidden2 -> the outputs


def with_second_layer(w: dict, hidden2: int, seed: int = 12345) -> dict:
    """``w`` with a second hidden layer of ``hidden2`` sigmoid units beside the first's
    output connection: logits = w2 h1 + w3 sigmoid(wh^T h1 + bh) + b2. ``w3`` starts at
    zero, so the net computes exactly what ``w`` does and training starts from its minimum
    (an ablation: the engines read one hidden layer)."""
    if hidden2 <= 0 or "wh" in w:
        return w
    rng = np.random.default_rng(seed)
    h1 = w["b1"].shape[0]
    return {**w, "wh": rng.normal(0.0, 1.0 / np.sqrt(h1), (h1, hidden2)),
            "bh": np.zeros(hidden2), "w3": np.zeros((w["w2"].shape[0], hidden2))}


class Net(torch.nn.Module):
    def __init__(self, w: dict):
        super().__init__()
        n_in, hidden = w["w1"].shape
        self.l1 = torch.nn.Linear(n_in, hidden)
        self.l2 = torch.nn.Linear(hidden, 5)
        self.lh = self.l3 = None
        if "wh" in w:                 # --hidden2: a second hidden layer beside l2
            self.lh = torch.nn.Linear(hidden, w["wh"].shape[1])
            self.l3 = torch.nn.Linear(w["wh"].shape[1], 5, bias=False)
            with torch.no_grad():
                self.lh.weight.copy_(torch.tensor(w["wh"].T))
                self.lh.bias.copy_(torch.tensor(w["bh"]))
                self.l3.weight.copy_(torch.tensor(w["w3"]))
        with torch.no_grad():
            self.l1.weight.copy_(torch.tensor(w["w1"].T))
            self.l1.bias.copy_(torch.tensor(w["b1"]))
            self.l2.weight.copy_(torch.tensor(w["w2"]))
            self.l2.bias.copy_(torch.tensor(w["b2"]))

    def forward(self, x):
        h = torch.sigmoid(self.l1(x))
        if self.lh is None:
            return self.l2(h)      # logits; sigmoid in the loss
        return self.l2(h) + self.l3(torch.sigmoid(self.lh(h)))

    def weights(self) -> dict:
        w = {"w1": self.l1.weight.detach().double().numpy().T.copy(),
             "b1": self.l1.bias.detach().double().numpy().copy(),
             "w2": self.l2.weight.detach().double().numpy().copy(),
             "b2": self.l2.bias.detach().double().numpy().copy()}
        if self.lh is not None:
            w.update(wh=self.lh.weight.detach().double().numpy().T.copy(),
                     bh=self.lh.bias.detach().double().numpy().copy(),
                     w3=self.l3.weight.detach().double().numpy().copy())
        return w


def load_data(args):
    """Inputs and targets of the labelled positions of the chosen class, cached; with
    ``--also POSITIONS LABELS``, those of more data sets appended (validation stays by
    game within each)."""
    sets = [(args.positions, args.labels)] + list(args.also or ()) + list(args.rank_only or ())
    n_ce = 1 + len(args.also or ())          # the sets that enter the cross-entropy
    parts = [_load_one(args, positions, labels) for positions, labels in sets]
    anchors = [anchor_rows(args, positions, labels, part[3]) for (positions, labels), part in zip(sets, parts)]
    ce = np.concatenate([np.full(len(p[1]), 1.0 if k < n_ce else 0.0, np.float32)
                         for k, p in enumerate(parts)])
    # a cache may hold more columns than the net reads (252 for a 236-input contact net,
    # 230 for a 226-input race net)
    parts = [(p[0][:, :N_INPUTS[args.net]], *p[1:]) for p in parts]
    if args.rank_also_only:        # no ranking loss on the main set's decisions
        parts[0] = (*parts[0][:3], np.full(len(parts[0][3]), -1, np.int64))
        anchors[0] = tuple(a[:0] for a in anchors[0])
    offset = 0                       # group numbers unique across the data sets
    for p, a in zip(parts, anchors):
        g = p[3]
        n = int(g.max()) + 1 if len(g) else 0
        g[g >= 0] += offset
        a[2][:] += offset
        offset += n
    data = tuple(np.concatenate([p[i] for p in parts]) for i in range(4))
    return data + (tuple(np.concatenate([a[i] for a in anchors]) for i in range(4)), ce)


def decision_keys(pos, rows: np.ndarray) -> np.ndarray:
    """A decision's key (game, ply) for the candidate rows (``role >= 1``), -1 for others."""
    if "role" not in pos.files:
        return np.full(len(rows), -1, np.int64)
    game, ply, role = (pos[k][rows].astype(np.int64) for k in ("game", "ply", "role"))
    return np.where(role >= 1, game * 100000 + ply, -1)


def anchor_rows(args, positions: str, labels: str, grp: np.ndarray):
    """``--anchors NETS``: the other-class candidates of the decisions of the trained rows.

    A crashed decision often has plays that leave a race (or a non-crashed contact
    position) beside crashed ones, and the player compares the race net's value of the
    first with the crashed net's of the second. The trained net's ranking losses see only
    its own rows; with anchors they see the decision whole: the other candidates enter
    each decision's ranking and regret losses with their labels and the fixed
    probabilities the nets of ``NETS`` give them (0-ply, in integers, as the ``nn``
    player values them), so the trained net learns its values beside theirs.

    Returns (probabilities (n, 5), labels (n, 5), groups (n,), validation (n,)), in
    ``grp``'s numbering (the data set's groups, before offsetting); empty without
    ``--anchors``."""
    empty = (np.zeros((0, 5), np.float32), np.zeros((0, 5), np.float32),
             np.zeros(0, np.int64), np.zeros(0, bool))
    if not args.anchors or args.net == "race":
        return empty
    pos = np.load(positions)
    boards_all = pos["boards"]
    idx, counts, probs = read_labels(labels, boards_all)
    probs = targets(counts) if probs is None else probs
    from fastbg.reference.features import position_class
    boards = boards_all[idx]
    mine = kept_rows(args, boards, np.array([position_class(b) for b in boards]))
    keys = decision_keys(pos, idx)
    ukeys = np.unique(keys[mine & (keys >= 0)])      # grp numbers the kept rows' keys so
    at = np.searchsorted(ukeys, keys)
    other = ~mine & (keys >= 0) & (at < len(ukeys))
    other &= ukeys[np.minimum(at, len(ukeys) - 1)] == keys
    rows = np.flatnonzero(other)
    if not len(rows):
        return empty
    assert len(ukeys) == int(grp.max()) + 1
    b = np.ascontiguousarray(boards[rows])
    y = probs[rows].astype(np.float32)
    p = y.copy()                                   # a finished game: its exact label
    live = b[:, 0].any(axis=1) & b[:, 1].any(axis=1)
    if live.any():
        p[live] = _anchor_policy(args.anchors).lookahead(np.ascontiguousarray(b[live]), 0)
    g = pos["game"][idx][rows]
    print(f"{len(rows)} anchor candidates of other classes in {positions}", file=sys.stderr)
    return p.astype(np.float32), y, at[rows].astype(np.int64), g % 20 == 0


_POLICIES = {}


def _anchor_policy(nets: str):
    if nets not in _POLICIES:
        from fastbg._core.evaluator import EvalPolicy
        from fastbg.reference.evaluator import load_nets
        _POLICIES[nets] = EvalPolicy(load_nets(nets))
    return _POLICIES[nets]


def with_anchors(p, y, g, anchors):
    """The rows of a minibatch (student probabilities ``p``, labels ``y``, groups ``g``)
    with the anchor candidates of their decisions appended (``anchors``: fixed
    probabilities, labels, groups as tensors; or None)."""
    if anchors is None or not len(anchors[2]):
        return p, y, g
    pa, ya, ga = anchors
    present = torch.zeros(int(max(int(g.max()), int(ga.max()))) + 2, dtype=torch.bool)
    present[g[g >= 0]] = True
    sel = present[ga]
    return torch.cat([p, pa[sel]]), torch.cat([y, ya[sel]]), torch.cat([g, ga[sel]])


def read_labels(labels: str, boards_all: np.ndarray):
    """The labelled rows of a positions file and their labels: (rows, rollout counts or
    None, probabilities or None) of ``lookahead:PATH[@K]`` or a ``labels.py`` directory
    (probabilities for ``--vr`` rollouts, luck-adjusted). Errors: SystemExit."""
    if labels.startswith("lookahead:"):
        src, _, k = labels.split(":", 1)[1].partition("@")   # PATH@K: its first K chunks only
        if k and not (k.isdigit() and int(k) > 0):
            raise SystemExit(f"train.py: error: {labels}: K in PATH@K is a number of chunks >= 1")
        idx, probs = lookahead_mod.load(src, int(k) if k else None, boards_all)
        return idx, None, probs
    if not Path(labels).is_dir():
        raise SystemExit(f"train.py: error: no labels directory {labels} (lookahead labels "
                         "are given as lookahead:PATH)")
    idx, counts = labels_mod.load(labels)
    return idx, counts, labels_mod.load_probs(labels)


def kept_rows(args, boards: np.ndarray, cls: np.ndarray) -> np.ndarray:
    """Which boards (of classes ``cls``) the trained net reads: the crashed contact ones
    for ``--net crashed``, the other contact ones with ``--no-crashed``, else its class."""
    if args.net == "crashed":
        return (cls == "contact") & is_crashed(boards)
    if args.net == "contact" and args.no_crashed:
        return (cls == "contact") & ~is_crashed(boards)
    return cls == args.net


def _load_one(args, positions: str, labels: str):
    if not Path(positions).is_file():
        raise SystemExit(f"train.py: error: no positions file {positions}")
    pos = np.load(positions)
    boards_all = pos["boards"]
    idx, counts, probs = read_labels(labels, boards_all)
    if labels.startswith("lookahead:"):
        src = labels.split(":", 1)[1].partition("@")[0]
        cache = Path(src).parent / f"inputs_{Path(src).name}_{net_rows(args)}_{len(idx)}.npz"
    else:
        cache = Path(labels) / f"inputs_{net_rows(args)}_{len(idx)}.npz"
    if len(idx) == 0:
        raise SystemExit(f"no labels in {labels} yet")
    if idx.max() >= len(boards_all):
        raise SystemExit(f"train.py: error: {labels} labels row {idx.max()}, beyond the "
                         f"{len(boards_all)} positions of {positions}")
    # the cache is the inputs of these boards with these labels, nothing else
    key = lookahead_mod.fingerprint(boards_all[idx])[:16] + (
        "" if probs is None else lookahead_mod.fingerprint(probs.view(np.int8))[:16])
    if cache.exists():
        z = np.load(cache)
        if ("key" in z.files and str(z["key"]) == key and z["x"].shape[1] >= N_INPUTS[args.net]
                and ("grp" in z.files or "role" not in pos.files)):
            # (a cache of 236 columns, or one without decision groups, is recomputed)
            grp = z["grp"] if "grp" in z.files else np.full(len(z["y"]), -1, np.int64)
            return z["x"], z["y"], z["val"], grp
    feats = importlib.import_module(f"fastbg.{'_core' if args.engine == 'cython' else 'reference'}.features")
    boards = pos["boards"][idx]
    keep = kept_rows(args, boards, np.array([feats.position_class(b) for b in boards]))
    b = np.ascontiguousarray(boards[keep])
    t0 = time.perf_counter()
    x = (feats.race_inputs_many(b) if args.net == "race" else feats.contact_inputs_many(b))
    if args.net == "race" and N_INPUTS["race"] > 226:      # --race-width 230
        x = np.concatenate([x, race_extra(b)], axis=1)
    if args.net == "crashed" and args.crashed_extra:    # crashed_extra.py's, after --width
        x = np.concatenate([x[:, :args.width], crashed_extra(b)], axis=1)
    if args.net == "crashed" and args.crashed_blots:    # crashed_blots.py's, after those
        x = np.concatenate([x[:, :N_INPUTS["crashed"] - args.crashed_blots],
                            home_blots(b) if args.home_blots else
                            crashed_blots(b, shots=args.crashed_blots == 10)], axis=1)
    print(f"{len(b)} {args.net} inputs in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    y = targets(counts[keep]) if probs is None else probs[keep].astype(np.float32)
    g = pos["game"][idx][keep]
    # held out: every 20th game, and every 20th random race (game -1) by its row
    val = np.where(g >= 0, g % 20 == 0, idx[keep] % 20 == 0)
    grp = decision_groups(pos, idx[keep])
    np.savez(cache, x=x.astype(np.float32), y=y, val=val, grp=grp, key=key)
    return x.astype(np.float32), y, val, grp


def net_rows(args) -> str:
    """Which rows a data set gives the net (the name of its inputs cache)."""
    if args.net == "crashed" and (args.crashed_extra or args.crashed_blots):
        return (f"crashed_w{args.width}" + (f"x{N_CRASHED_EXTRA}" if args.crashed_extra else "")
                + (f"b{args.crashed_blots}" if args.crashed_blots else "")
                + ("h" if args.home_blots else ""))
    return "contact_nocrashed" if args.net == "contact" and args.no_crashed else args.net


def rank_residuals(p, y, grp, tau: float | None = None):
    """Per grouped row, (student equity - its group's mean) - (label equity - its group's
    mean), for the rows whose group has at least two rows here; None if there are none.
    Only equity differences between the candidates of one decision decide a play, so this
    is the part of the error that costs equity in play.

    With ``tau`` (an equity > 0), the rows of a group are weighted by
    ``a = exp(-(best label equity of the group - label equity) / tau)``: the means are
    weighted means, and each residual is scaled by ``sqrt(a * count / sum(a))`` (so the
    weights of a group average 1). The mean square of the result is then the weighted
    mean of the squared pairwise errors ``((es_i - es_j) - (et_i - et_j))**2`` over the
    pairs of a group with weight ``a_i * a_j``, up to a constant: the differences between
    the near-best candidates, which decide the play, count most; ``tau=None`` is the
    unweighted loss (every pair alike)."""
    mask = grp >= 0
    if int(mask.sum()) < 2:
        return None
    _, g = torch.unique(grp[mask], return_inverse=True)
    es, et = equity(p[mask]), equity(y[mask])
    m = int(g.max()) + 1
    cnt = torch.zeros(m).index_add_(0, g, torch.ones(len(g)))
    if tau is None:
        a = torch.ones(len(g))
    else:
        best = torch.full((m,), -torch.inf).scatter_reduce(0, g, et, reduce="amax")
        a = torch.exp(-(best[g] - et) / tau)
    tot = torch.zeros(m).index_add_(0, g, a)
    ms = torch.zeros(m).index_add_(0, g, a * es) / tot
    mt = torch.zeros(m).index_add_(0, g, a * et) / tot
    d = (es - ms[g]) - (et - mt[g])
    if tau is not None:
        d = d * torch.sqrt(a * cnt[g] / tot[g])
    d = d[cnt[g] >= 2]
    return d if len(d) else None


def soft_regret(p, y, grp, temp: float):
    """Per decision (group of at least two rows here), the expected regret of the student's
    soft choice: ``sum_i pi_i * (best label equity - label equity_i)`` with ``pi`` the
    softmax of the student's equities over the group at temperature ``temp`` (an equity);
    None if there is no such group. The mover's equities: every candidate has the
    opponent on roll, so the mover's equity is minus the cubeless equity of its row. As
    ``temp`` goes to 0 this is the checker-play error of the student's 0-ply choice
    measured by the labels, the very figure ``errorrate.py`` reports against GNU
    Backgammon 2-ply: the loss spends the net's capacity on the decisions it gets wrong,
    in proportion to what they cost, where the squared ranking residuals of
    :func:`rank_residuals` weigh every candidate's error alike."""
    mask = grp >= 0
    if int(mask.sum()) < 2:
        return None
    _, g = torch.unique(grp[mask], return_inverse=True)
    ms, mt = -equity(p[mask]), -equity(y[mask])
    m = int(g.max()) + 1
    cnt = torch.zeros(m).index_add_(0, g, torch.ones(len(g)))
    z = ms / temp
    top = torch.full((m,), -torch.inf).scatter_reduce(0, g, z.detach(), reduce="amax")
    e = torch.exp(z - top[g])
    pi = e / torch.zeros(m).index_add_(0, g, e)[g]
    best = torch.full((m,), -torch.inf).scatter_reduce(0, g, mt, reduce="amax")
    r = torch.zeros(m).index_add_(0, g, pi * (best[g] - mt))
    r = r[cnt >= 2]
    return r if len(r) else None


def decision_groups(pos, rows: np.ndarray) -> np.ndarray:
    """For each of ``rows`` of a positions file, the decision it is a candidate of: the
    positions after the alternative plays of one roll (``role >= 1``, the same game and
    ply) share a group number; positions before a roll and random races get -1. Files
    without ``role`` (older ones) have no groups."""
    if "role" not in pos.files:
        return np.full(len(rows), -1, np.int64)
    key = decision_keys(pos, rows)
    _, grp = np.unique(key, return_inverse=True)
    grp = grp.astype(np.int64)
    grp[key < 0] = -1
    return grp


def repeated_order(unit: np.ndarray, extra: np.ndarray, g: torch.Generator) -> np.ndarray:
    """Row order of one epoch: every shuffling unit (``unit[i]``: row i's unit, numbered
    0..m-1) once plus the units listed in ``extra`` once more each, all in random order
    (from ``g``), each unit's rows together in their order."""
    order = np.argsort(unit, kind="stable")          # rows grouped by unit
    size = np.bincount(unit)
    start = np.cumsum(size) - size
    units = np.concatenate([np.arange(len(size)), extra])
    units = units[torch.randperm(len(units), generator=g).numpy()]
    n = size[units]
    within = np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
    return order[np.repeat(start[units], n) + within]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--net", choices=("contact", "race", "crashed"), required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--positions", required=True)
    ap.add_argument("--labels", required=True,
                    help="a labels.py directory (rollout counts), or lookahead:PATH for the "
                         "probabilities of lookahead.py (lookahead:PATH@K: its first K chunks)")
    ap.add_argument("--also", nargs=2, action="append", metavar=("POSITIONS", "LABELS"),
                    help="another data set to train on as well (repeatable)")
    ap.add_argument("--rank-only", nargs=2, action="append", metavar=("POSITIONS", "LABELS"),
                    help="a data set that enters only the ranking and regret losses (its rows "
                         "add nothing to the cross-entropy): e.g. decisions whose candidates "
                         "keep their differences from a teacher's 0-ply values while rollouts "
                         "of other positions teach the values (repeatable)")
    ap.add_argument("--init", default=str(HERE.parent.parent / "fastbg" / "data" / "nn" / "nn.npz"),
                    help="the shipped first network (default) or a checkpoint of the same net")
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--hidden2", type=int, default=0,
                    help="ablation: a second hidden layer of this many units beside the "
                         "first's output connection, starting at zero weight "
                         "(with_second_layer; the engines read one hidden layer)")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--weight-decay", type=float, default=1e-5)
    ap.add_argument("--schedule", choices=("constant", "cosine"), default="constant",
                    help="learning rate: constant, or a cosine decay over the epochs from "
                         "--lr to --lr-min (by minibatch)")
    ap.add_argument("--lr-min", type=float, default=1e-6)
    ap.add_argument("--anchors", default=None, metavar="NETS",
                    help="a nets file (pack.py): the other-class candidates of the trained "
                         "rows' decisions join their ranking and regret losses with these "
                         "nets' fixed 0-ply values (anchor_rows)")
    ap.add_argument("--rank-also-only", action="store_true",
                    help="the ranking loss on the --also sets' decisions only (e.g. those with "
                         "2-ply labels), not on the main set's")
    ap.add_argument("--rank", type=float, default=0.0,
                    help="weight of the ranking loss: the squared error of each candidate's "
                         "equity relative to the mean of its decision's candidates (0: off)")
    ap.add_argument("--regret", type=float, default=0.0,
                    help="weight of the regret loss: each decision's expected regret (by the "
                         "labels) of the student's softmax choice among its candidates "
                         "(soft_regret; 0: off; on the same decisions as --rank)")
    ap.add_argument("--regret-temp", type=float, default=0.01, metavar="T",
                    help="the softmax temperature of --regret, an equity (default 0.01)")
    ap.add_argument("--rank-tau", type=float, default=None, metavar="TAU",
                    help="weight the ranking loss towards each decision's near-best "
                         "candidates: a candidate TAU (equity) below its decision's best "
                         "counts 1/e as much (default: every candidate alike)")
    ap.add_argument("--no-crashed", action="store_true",
                    help="contact net: leave out the crashed contact positions (which a "
                         "nets file with a crashed net reads with that net)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--engine", choices=("cython", "python"), default="cython",
                    help="which engine's features module computes the inputs (same numbers)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--drop-features", action="store_true",
                    help="ablation: zero the contact net's feature inputs (Tesauro's 196 only)")
    ap.add_argument("--race-width", type=int, choices=(226, 226 + N_RACE_EXTRA), default=226,
                    help="the race net's inputs: the engines' 226, or 230 with the experimental "
                         "inputs of race_extra.py (an ablation)")
    ap.add_argument("--crashed-extra", action="store_true",
                    help="the crashed net also reads the experimental inputs of crashed_extra.py "
                         "(13 columns after its --width contact inputs; an ablation)")
    ap.add_argument("--crashed-blots", type=int, nargs="?", const=6, default=0, choices=(6, 10),
                    help="the crashed net also reads the experimental inputs of crashed_blots.py "
                         "(6 columns after the others: the blots a side bearing off against "
                         "contact must leave on its next roll; 10: with the shots at them; an "
                         "ablation)")
    ap.add_argument("--home-blots", action="store_true",
                    help="with --crashed-blots 10: crashed_blots.py's home_blots instead, each "
                         "side's blot features against a checker on the bar (its home board "
                         "alone; an experiment for a cheaper engine)")
    ap.add_argument("--repeat-off", type=int, default=1, metavar="K",
                    help="each epoch, the training rows of positions where a side has borne "
                         "off checkers (bearing off against contact, saving a gammon or "
                         "backgammon) K times, the others once (their decision groups whole)")
    ap.add_argument("--width", type=int, choices=CONTACT_WIDTHS, default=CONTACT_INPUTS,
                    help="the contact net's inputs: all 252, or the first 236 (without the "
                         "extra features of docs/evaluator.md)")
    args = ap.parse_args(argv)
    if args.home_blots and args.crashed_blots != 10:
        ap.error("--home-blots goes with --crashed-blots 10")
    if args.rank_tau is not None and not args.rank_tau > 0:
        ap.error(f"--rank-tau is an equity > 0, got {args.rank_tau}")
    N_INPUTS["contact"] = N_INPUTS["crashed"] = args.width   # what warm_start builds (a script's setting)
    N_INPUTS["race"] = args.race_width
    if args.crashed_extra:
        N_INPUTS["crashed"] = args.width + N_CRASHED_EXTRA
    if args.crashed_blots:
        N_INPUTS["crashed"] += args.crashed_blots
    torch.set_num_threads(args.threads)
    run = RUNS / args.name
    run.mkdir(parents=True, exist_ok=True)
    saved = run / "args.json"
    if (run / "last.pt").exists() and saved.exists():      # resuming: the same run, or refuse
        before = json.loads(saved.read_text())
        changed = sorted(k for k, v in vars(args).items() if k in before and before[k] != v)
        if changed:
            raise SystemExit(f"train.py: error: run {args.name} exists with other "
                             f"{', '.join('--' + k.replace('_', '-') for k in changed)}: "
                             "rerun it as it was, or give another --name")
    x, y, val, grp, (pa, ya, ga, va), ce = load_data(args)
    anchors_t = (torch.tensor(pa[~va]), torch.tensor(ya[~va]), torch.tensor(ga[~va]))
    anchors_v = (torch.tensor(pa[va]), torch.tensor(ya[va]), torch.tensor(ga[va]))
    if args.drop_features and args.net == "contact":
        x = x.copy()
        x[:, 196:] = 0.0
    xt, yt = torch.tensor(x[~val]), torch.tensor(y[~val])
    xv, yv = torch.tensor(x[val]), torch.tensor(y[val])
    cet, cev = torch.tensor(ce[~val]), torch.tensor(ce[val])   # 1: in the cross-entropy
    gt, gv = torch.tensor(grp[~val]), torch.tensor(grp[val])
    # shuffling unit of each training row: its decision group (kept together in a
    # minibatch so the ranking loss sees siblings), or the row alone
    g_np = grp[~val]
    unit = np.where(g_np >= 0, g_np, g_np.max(initial=-1) + 1 + np.arange(len(g_np)))
    _, unit = np.unique(unit, return_inverse=True)
    # units repeated each epoch (--repeat-off): those with a row where a side has checkers
    # off (Tesauro's "off" unit of either side, columns 97 and 195)
    extra_units = np.zeros(0, np.int64)
    if args.repeat_off > 1:
        off_rows = (x[~val][:, 97] > 0) | (x[~val][:, 195] > 0)
        extra_units = np.tile(np.unique(unit[off_rows]), args.repeat_off - 1)
        print(f"--repeat-off {args.repeat_off}: {int(off_rows.sum())} of {len(off_rows)} "
              f"training rows have checkers off", file=sys.stderr)
    model = Net(with_second_layer(warm_start(args.net, load_init(args.init), args.hidden),
                                  args.hidden2, seed=args.seed))
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    bce_rows = torch.nn.BCEWithLogitsLoss(reduction="none")

    def bce(logits, target, w):
        """Mean cross-entropy over the rows of weight 1 (every row but --rank-only's)."""
        n = w.sum()
        return (bce_rows(logits, target).mean(dim=1) * w).sum() / n if n > 0 else logits.sum() * 0.0
    start = 0
    last = run / "last.pt"
    if last.exists():
        state = torch.load(last, weights_only=False)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        start = state["epoch"] + 1
    (run / "args.json").write_text(json.dumps(vars(args), indent=1))

    def evaluate() -> tuple[float, float]:
        with torch.no_grad():
            logits = model(xv)
            loss = float(bce(logits, yv, cev))
            p = torch.sigmoid(logits).numpy()
        m = cev.numpy() > 0
        return loss, float(np.mean(np.abs(equity(p[m]) - equity(yv.numpy()[m])))) if m.any() else float("nan")

    def evaluate_rank() -> float | None:
        """Mean absolute error of the equity differences between sibling candidates."""
        with torch.no_grad():
            d = rank_residuals(*with_anchors(torch.sigmoid(model(xv)), yv, gv, anchors_v))
        return None if d is None else float(d.abs().mean())

    def evaluate_regret() -> float | None:
        """The held-out decisions' mean regret (by their labels, in millipoints) of the
        student's 0-ply choice: its checker-play error against its teacher."""
        with torch.no_grad():
            r = soft_regret(*with_anchors(torch.sigmoid(model(xv)), yv, gv, anchors_v), 1e-9)
        return None if r is None else 1000 * float(r.mean())

    if start == 0:
        loss, mae = evaluate()
        rk, rg = evaluate_rank(), evaluate_regret()
        with open(run / "log.jsonl", "a") as f:
            f.write(json.dumps({"epoch": -1, "val_loss": loss, "val_equity_mae": mae,
                                "val_rank_mae": rk, "val_regret_mp": rg, "train": len(xt),
                                "val": len(xv)}) + "\n")
        print(f"init: val loss {loss:.5f}, equity MAE {mae:.4f}, rank MAE {rk}, regret {rg} mp "
              f"({len(xt)} train, {len(xv)} val)")
    t0 = time.perf_counter()
    for epoch in range(start, args.epochs):
        g = torch.Generator().manual_seed(args.seed * 100003 + epoch)
        if len(extra_units):   # units in random order, some of them more than once
            perm = torch.tensor(repeated_order(unit, extra_units, g))
        elif args.rank > 0 or args.regret > 0:    # whole decision groups in random order
            pri = torch.randperm(int(unit.max()) + 1, generator=g).numpy()
            perm = torch.tensor(np.argsort(pri[unit], kind="stable"))
        else:
            perm = torch.randperm(len(xt), generator=g)
        model.train()
        total = 0.0
        steps = (len(perm) + args.batch - 1) // args.batch
        for i, k in enumerate(range(0, len(perm), args.batch)):
            if args.schedule == "cosine":
                t = (epoch * steps + i) / (args.epochs * steps)
                for grp in opt.param_groups:
                    grp["lr"] = args.lr_min + 0.5 * (args.lr - args.lr_min) * (1 + np.cos(np.pi * t))
            b = perm[k:k + args.batch]
            opt.zero_grad()
            logits = model(xt[b])
            loss = bce(logits, yt[b], cet[b])
            if args.rank > 0 or args.regret > 0:
                pb, yb, gb = with_anchors(torch.sigmoid(logits), yt[b], gt[b], anchors_t)
            if args.rank > 0:
                d = rank_residuals(pb, yb, gb, args.rank_tau)
                if d is not None:
                    loss = loss + args.rank * (d * d).mean()
            if args.regret > 0:
                r = soft_regret(pb, yb, gb, args.regret_temp)
                if r is not None:
                    loss = loss + args.regret * r.mean()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(b)
        model.eval()
        vloss, mae = evaluate()
        rk, rg = evaluate_rank(), evaluate_regret()
        w = model.weights()
        np.savez(run / f"epoch_{epoch:03d}.npz", **w, kind=args.net)
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch}, last)
        rec = {"epoch": epoch, "train_loss": total / len(perm), "val_loss": vloss,
               "val_equity_mae": mae, "val_rank_mae": rk, "val_regret_mp": rg, "seconds": time.perf_counter() - t0}
        with open(run / "log.jsonl", "a") as f:
            f.write(json.dumps(rec) + "\n")
        print(json.dumps(rec), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
