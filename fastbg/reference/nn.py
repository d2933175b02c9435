"""Neural-network evaluator of the pure-Python engine (numpy), mirroring ``fastbg._core.nn``.

A TD-Gammon style network (G. Tesauro, "Practical issues in temporal difference
learning", Machine Learning 8:257-277, 1992; "Temporal difference learning and
TD-Gammon", Communications of the ACM 38(3):58-68, 1995).

Encoding (196 inputs), in fastbg's perspective-relative frame (DESIGN section 2):
for side ``s`` (0 = on roll, 1 = opponent, each in its own numbering) and index
``i`` in 0..23 holding ``n`` checkers, the units ``98 s + 4 i + u`` are
``n >= 1``, ``n >= 2``, ``n >= 3`` (1.0 each) and ``(n - 3) / 2`` when ``n > 3``;
unit ``98 s + 96`` is (checkers on the bar) / 2 and ``98 s + 97`` is (checkers
off) / 15. Tesauro's two turn units are constant in this frame (row 0 is always
on roll) and are dropped.

Network: 196 inputs -> ``nh`` sigmoid hidden units -> 5 sigmoid outputs, the raw
estimates of (win, win_gammon, win_backgammon, lose_gammon, lose_backgammon) for
the side on roll before it rolls. :func:`consistent` turns them into
probabilities that respect ``backgammon <= gammon <= win`` and
``lose_backgammon <= lose_gammon <= 1 - win``.

Two forward passes: :func:`forward` (the float network as trained, mirrored by
``Net.forward``) and :func:`forward_q` (the policy's network in integers up to the
output sigmoid, :func:`quantize`; ``NNPolicy.forward``), which the core computes
incrementally from the position before the roll.

Engine contract (identical choices): for the float network both engines compute
every floating value with the same IEEE operations in the same order -- hidden
unit ``j`` is ``b1[j]`` plus ``w1[i, j] * x[i]`` for the active inputs ``i`` in
increasing order, output ``k`` is ``b2[k]`` plus ``w2[k, j] * h[j]`` for
increasing ``j``, each a separate multiply and add (the core is compiled with
``-ffp-contract=off``) -- and the sigmoid is a table loaded here, read by linear
interpolation with the same operations. Adding a product with a zero input changes
nothing but the sign of a zero, so the dense numpy loops here equal the core's
sparse sums bit for bit. The policy's network has integer sums only (exact in any
order) before its five output sigmoids.

Both sigmoid tables (:func:`sigmoid_table`, :func:`hidden_table`), the weights' files and
the quantisation (:func:`quantize`) are the engine spec's (:mod:`fastbg.spec.nn`), which
the compiled core reads too; their names are importable from here as before.
"""
from __future__ import annotations


import numpy as np

from ..spec.nn import (  # noqa: F401  (the spec's names, also the reference's)
    DATA_DIR, H_BINS_LOG2, H_MAXV, H_OFFSET, H_ONE, H_ONE_LOG2, H_RANGE, H_SHIFT, H_SIZE,
    HIDDEN_SIGMOID_FILE, HIDDEN_SIGMOID_SHA256, META_NAME, NN_INPUTS, NN_MAX_HIDDEN,
    NN_OUTPUTS, NN_SIDE, Q_BITS, SIG_LIMIT, SIG_SCALE, SIG_STEPS, SIGMOID_FILE, SIGMOID_SHA256,
    WEIGHTS_NAME, check_weights, compute_hidden_table, compute_sigmoid_table, default_weights, equity,
    hidden_table, load_weights, quantize, quantize_output, save_weights, sha256_file,
    sigmoid_table, weights_path)
from . import bearoffdb
from .board import outcome, swap
from .movegen import legal_plays

__all__ = [
    "NN_INPUTS",
    "NN_OUTPUTS",
    "SIG_STEPS",
    "sigmoid_table",
    "compute_sigmoid_table",
    "sigmoid",
    "encode",
    "forward",
    "quantize",
    "quantize_output",
    "forward_q",
    "policy_probabilities",
    "hidden_table",
    "compute_hidden_table",
    "consistent",
    "equity",
    "play_equities",
    "load_weights",
    "save_weights",
    "default_weights",
    "weights_path",
    "NNPolicy",
    "NN1PlyPolicy",
    "reply_value",
]

def sigmoid(x) -> np.ndarray:
    """Table sigmoid, elementwise, with the same operations as the core.

    ``x`` is clamped to [-16, 16] (NaN to -16), ``t = (x + 16) * 64``,
    ``k = min(floor(t), 2047)``, result ``T[k] + (t - k) * (T[k + 1] - T[k])``.
    Maximum error against the exact logistic function about 1e-5.

    Parameters
    ----------
    x : array_like of float64

    Returns
    -------
    numpy.ndarray of float64, same shape as ``x``
    """
    table = sigmoid_table()
    x = np.asarray(x, dtype=np.float64)
    x = np.where(x > -SIG_LIMIT, x, -SIG_LIMIT)
    x = np.where(x < SIG_LIMIT, x, SIG_LIMIT)
    t = (x + SIG_LIMIT) * SIG_SCALE
    k = np.minimum(t.astype(np.int64), SIG_STEPS - 1)
    f = t - k
    lo = table[k]
    return lo + f * (table[k + 1] - lo)


def encode(boards) -> np.ndarray:
    """Tesauro's inputs of positions (row 0 on roll).

    Parameters
    ----------
    boards : array_like of int, shape (2, 25) or (n, 2, 25)

    Returns
    -------
    numpy.ndarray of float64, shape (196,) or (n, 196)
        See the module docstring for the layout.
    """
    b = np.asarray(boards, dtype=np.int64)
    single = b.ndim == 2
    b = b.reshape(-1, 2, 25)
    n = b.shape[0]
    x = np.zeros((n, 2, NN_SIDE), dtype=np.float64)
    pts = b[:, :, :24]
    x[:, :, 0:96:4] = pts >= 1
    x[:, :, 1:96:4] = pts >= 2
    x[:, :, 2:96:4] = pts >= 3
    x[:, :, 3:96:4] = np.where(pts > 3, (pts - 3) * 0.5, 0.0)
    x[:, :, 96] = b[:, :, 24] * 0.5
    x[:, :, 97] = (15 - b.sum(axis=2)) / 15.0
    x = x.reshape(n, NN_INPUTS)
    return x[0] if single else x


def forward(weights: dict, boards) -> np.ndarray:
    """Raw sigmoid outputs of positions (row 0 on roll, before its roll).

    Parameters
    ----------
    weights : dict
        ``w1`` (196, nh), ``b1`` (nh,), ``w2`` (5, nh), ``b2`` (5,), float64.
    boards : array_like of int, shape (2, 25) or (n, 2, 25)

    Returns
    -------
    numpy.ndarray of float64, shape (5,) or (n, 5)
        Bitwise equal to ``fastbg._core.nn.Net.forward``.
    """
    w = check_weights(weights)
    b = np.asarray(boards)
    single = b.ndim == 2
    x = encode(b.reshape(-1, 2, 25))
    n = x.shape[0]
    w1, b1, w2, b2 = w["w1"], w["b1"], w["w2"], w["b2"]
    h = np.repeat(b1[None, :], n, axis=0)
    for i in np.flatnonzero(x.any(axis=0)):
        h += x[:, i, None] * w1[i][None, :]
    o = _outputs(sigmoid(h), w2, b2)
    return o[0] if single else o


def _outputs(h: np.ndarray, w2: np.ndarray, b2: np.ndarray) -> np.ndarray:
    """Sigmoid outputs from hidden activations ``h`` (n, nh): b2[k] + w2[k, j] h[j], j ascending."""
    o = np.repeat(b2[None, :], h.shape[0], axis=0)
    for j in range(h.shape[1]):
        o += h[:, j, None] * w2[:, j][None, :]
    return sigmoid(o)


def hidden_q(q: dict, boards) -> np.ndarray:
    """The policy's hidden activations, int64 in units of 1/16384, shape (n, nh)."""
    b = np.asarray(boards, dtype=np.int64).reshape(-1, 2, 25)
    pre = np.repeat(q["bias"][None, :].astype(np.int64), b.shape[0], axis=0)
    idx = np.arange(25)
    for s in range(2):
        pre += q["point"][s, idx[None, :], b[:, s, :]].astype(np.int64).sum(axis=1)
        pre += q["off"][s, 15 - b[:, s, :].sum(axis=1)]
    v = np.clip(pre + H_OFFSET, 0, H_MAXV) >> H_SHIFT
    return hidden_table()[v].astype(np.int64)


def forward_q(q: dict, boards) -> np.ndarray:
    """Raw outputs by the policy's integer network (:func:`quantize`).

    Parameters
    ----------
    q : dict
        From :func:`quantize`.
    boards : array_like of int, shape (2, 25) or (n, 2, 25)

    Returns
    -------
    numpy.ndarray of float64, shape (5,) or (n, 5)
        Bitwise equal to ``fastbg._core.nn.NNPolicy.forward``.
    """
    single = np.asarray(boards).ndim == 2
    h = hidden_q(q, boards)
    acc = h @ q["w2"].astype(np.int64).T + q["b2"].astype(np.int64)[None, :]
    o = sigmoid(acc.astype(np.float64) * q["out_scale"])
    return o[0] if single else o


def consistent(boards, raw) -> np.ndarray:
    """The five probabilities from raw outputs, with the consistency constraints.

    ``win_gammon = min(raw, win)``, ``win_backgammon = min(raw, win_gammon)``,
    ``lose_gammon = min(raw, 1 - win)``, ``lose_backgammon = min(raw, lose_gammon)``;
    a side's gammons are 0 once its opponent has borne off a checker, and in a
    race (:func:`fastbg.reference.board.is_race`) its backgammons are 0 unless the
    opponent still has a checker in the side's home board (the only way to be
    backgammoned, as checkers never move back in a race).

    Parameters
    ----------
    boards : array_like of int, shape (2, 25) or (n, 2, 25)
    raw : array_like of float64, shape (5,) or (n, 5)

    Returns
    -------
    numpy.ndarray of float64, shape of ``raw``
    """
    b = np.asarray(boards).reshape(-1, 2, 25)
    r = np.asarray(raw, dtype=np.float64)
    single = r.ndim == 1
    r = r.reshape(-1, NN_OUTPUTS)
    p = np.empty_like(r)
    w = r[:, 0]
    p[:, 0] = w
    p[:, 1] = np.minimum(r[:, 1], w)
    p[:, 2] = np.minimum(r[:, 2], p[:, 1])
    p[:, 3] = np.minimum(r[:, 3], 1.0 - w)
    p[:, 4] = np.minimum(r[:, 4], p[:, 3])
    sums = b.astype(np.int64).sum(axis=2)
    occupied = b[:, :, ::-1] > 0                        # index 24 (bar) first
    back = np.where(occupied.any(axis=2), 25 - occupied.argmax(axis=2), 0)
    race = back[:, 0] + back[:, 1] < 25
    p[race & (back[:, 1] <= 18), 2] = 0.0
    p[race & (back[:, 0] <= 18), 4] = 0.0
    p[sums[:, 1] < 15, 1:3] = 0.0
    p[sums[:, 0] < 15, 3:5] = 0.0
    return p[0] if single else p


def play_equities(weights: dict, plays) -> np.ndarray:
    """The mover's cubeless equity after each play (rows not yet swapped), as the policy sees it.

    Parameters
    ----------
    weights : dict
        Network weights, or their :func:`quantize` tables (the policy's forward
        pass :func:`forward_q` is used either way).
    plays : array_like of int, shape (n, 2, 25)

    Returns
    -------
    numpy.ndarray of float64, shape (n,)
        1, 2 or 3 exactly for a play that bears off the last checker (the
        result), else minus the equity of the position with the turn passed
        (:func:`policy_probabilities`: the bear-off database in a pure bear-off).
    """
    arr = np.asarray(plays, dtype=np.int8).reshape(-1, 2, 25)
    out = np.empty(arr.shape[0], dtype=np.float64)
    done = arr[:, 0].astype(np.int64).sum(axis=1) == 0
    for j in np.flatnonzero(done):
        out[j] = float(outcome(arr[j]))
    rest = np.flatnonzero(~done)
    if rest.size:
        q = weights if "point" in weights else quantize(weights)
        out[rest] = -equity(policy_probabilities(q, arr[rest][:, ::-1, :]))
    return out


def _pure_bearoff(b: np.ndarray) -> np.ndarray:
    """Boards (n, 2, 25) whose checkers are all on points 1..6, both sides with some left."""
    return ~b[:, :, 6:].any(axis=(1, 2)) & b[:, 0].any(axis=1) & b[:, 1].any(axis=1)


def policy_probabilities(q: dict, boards) -> np.ndarray:
    """The ``nn`` policy's probabilities of positions (row 0 on roll, before its roll).

    The one-sided bear-off database (:func:`fastbg.reference.bearoffdb.bearoff_probabilities`)
    where both sides have all their remaining checkers in their home boards (a pure
    bear-off, as GNU Backgammon does), else the integer network (:func:`forward_q`)
    read by :func:`consistent`.

    Parameters
    ----------
    q : dict
        From :func:`quantize`.
    boards : array_like of int, shape (2, 25) or (n, 2, 25)

    Returns
    -------
    numpy.ndarray of float64, shape (5,) or (n, 5)
        Bitwise equal to ``fastbg._core.nn.NNPolicy.probabilities``.
    """
    b = np.asarray(boards, dtype=np.int8)
    single = b.ndim == 2
    b = b.reshape(-1, 2, 25)
    p = np.empty((b.shape[0], NN_OUTPUTS), dtype=np.float64)
    db = _pure_bearoff(b)
    for j in np.flatnonzero(db):
        p[j] = bearoffdb.bearoff_probabilities(b[j])
    net = np.flatnonzero(~db)
    if net.size:
        p[net] = consistent(b[net], forward_q(q, b[net]))
    return p[0] if single else p


class NNPolicy:
    """0-ply neural-network checker play (pure-Python mirror of the core's).

    Parameters
    ----------
    weights : dict, optional
        Default the shipped network (:func:`default_weights`).

    Notes
    -----
    Picks the play of highest :func:`play_equities`, ties to the first play in
    the given order (canonical order from :func:`legal_plays`); never draws.
    The forward pass is :func:`forward_q` (integer first layer, see
    :func:`quantize`), which the core computes incrementally.
    """

    name = "nn"

    def __init__(self, weights: dict | None = None):
        self.weights = check_weights(default_weights() if weights is None else weights)
        self.q = quantize(self.weights)

    def forward(self, boards) -> np.ndarray:
        """Raw outputs by the policy's forward pass (:func:`forward_q`)."""
        return forward_q(self.q, boards)

    def probabilities(self, boards) -> np.ndarray:
        """The policy's probabilities (:func:`policy_probabilities`)."""
        return policy_probabilities(self.q, boards)

    def choose(self, board_before, plays, bitgen=None) -> int:
        """Index of the play with the best equity (first of equal ones)."""
        if len(plays) == 0:
            raise ValueError("no play to choose from (the caller handles n == 0)")
        if len(plays) == 1:
            return 0
        arr = np.asarray(plays, dtype=np.int8)
        eq = play_equities(self.q, arr)
        best = 0
        for j in range(1, len(eq)):
            if eq[j] > eq[best]:
                best = j
        return best

    def __repr__(self) -> str:
        return f"NNPolicy(hidden={self.weights['w1'].shape[1]})"


def reply_value(q: dict, after) -> float:
    """Mover's 1-ply equity of the position after its play (rows not swapped).

    Average over the opponent's 21 rolls (d1 = 1..6, d2 = 1..d1; weight 1 for a
    double, 2 otherwise, summed in that order, then / 36) of minus the
    opponent's best 0-ply reply (:func:`play_equities`); a roll without a legal
    reply leaves the position unchanged. Same operations as the core.
    """
    after = np.asarray(after, dtype=np.int8)
    if not after[0].any():
        return float(outcome(after))
    opp = swap(after)
    acc = 0.0
    for d1 in range(1, 7):
        for d2 in range(1, d1 + 1):
            replies = legal_plays(opp, d1, d2)
            if len(replies) == 0:
                replies = opp[None]
            best = float(play_equities(q, replies).max())
            acc = acc + (1.0 if d1 == d2 else 2.0) * best
    return -(acc / 36.0)


class NN1PlyPolicy(NNPolicy):
    """1-ply play (mirror of the core's): the ``candidates`` best plays at 0-ply,
    each scored by :func:`reply_value`; highest wins, ties to the first play."""

    name = "nn-1ply"

    def __init__(self, weights: dict | None = None, candidates: int = 8):
        super().__init__(weights)
        if not 1 <= candidates <= 64:
            raise ValueError(f"candidates must be in 1..64, got {candidates}")
        self.candidates = candidates

    def choose(self, board_before, plays, bitgen=None) -> int:
        """Index of the play with the best 1-ply value among the 0-ply candidates."""
        if len(plays) == 0:
            raise ValueError("no play to choose from (the caller handles n == 0)")
        if len(plays) == 1:
            return 0
        arr = np.asarray(plays, dtype=np.int8)
        eq0 = play_equities(self.q, arr)
        # stable sort by equity, best first: ties keep the canonical order
        order = sorted(range(len(arr)), key=lambda j: -eq0[j])[: self.candidates]
        best, best_e = None, None
        for j in sorted(order):
            e = reply_value(self.q, arr[j])
            if best_e is None or e > best_e:
                best, best_e = j, e
        return best

    def __repr__(self) -> str:
        return f"NN1PlyPolicy(hidden={self.weights['w1'].shape[1]}, candidates={self.candidates})"
