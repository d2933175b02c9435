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

Both sigmoid tables (:func:`sigmoid_table`, :func:`hidden_table`) are data files,
``fastbg/data/nn/sigmoid.npy`` and ``hidden_sigmoid.npy``, checked against their
SHA-256 at load, so that they are the same on every CPU: built at load with
:func:`math.exp`, as they were, glibc gave one output-sigmoid entry a different last
bit on CPUs without FMA. ``experiments/make_sigmoid_tables.py`` writes them from
:func:`compute_sigmoid_table` and :func:`compute_hidden_table` (exp correctly
rounded), which equal the old ``math.exp`` tables of FMA machines bit for bit.
"""
from __future__ import annotations

import decimal
import hashlib
import json
from pathlib import Path

import numpy as np

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

NN_INPUTS = 196
NN_SIDE = 98
NN_OUTPUTS = 5
NN_MAX_HIDDEN = 512
SIG_LIMIT = 16.0
SIG_SCALE = 64.0
SIG_STEPS = 2048

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "nn"
WEIGHTS_NAME = "nn.npz"
META_NAME = "nn.json"

#: The sigmoid tables as shipped (``experiments/make_sigmoid_tables.py`` writes them).
SIGMOID_FILE = "sigmoid.npy"
SIGMOID_SHA256 = "a6cca9fa7ddd37e3167aa88d817c07a96ef91a6bf69a74c8ec9d42e54c7b60f5"
HIDDEN_SIGMOID_FILE = "hidden_sigmoid.npy"
HIDDEN_SIGMOID_SHA256 = "71c0cfbdaf12caa04191c6642038e9e3e538795c5d75f665aa9c29ab8c92e9b2"

_TABLE: np.ndarray | None = None


def _load_table(name: str, sha256: str, dtype, size: int) -> np.ndarray:
    """A shipped table, checked against its pinned SHA-256, native byte order, read-only."""
    path = DATA_DIR / name
    got = sha256_file(path)
    if got != sha256:
        raise ValueError(f"sigmoid table {path} is corrupt: SHA-256 {got}, expected {sha256}")
    t = np.load(path, allow_pickle=False)
    if t.shape != (size,) or t.dtype != np.dtype(dtype).newbyteorder("<"):
        raise ValueError(f"sigmoid table {path} is malformed: {t.dtype} {t.shape}")
    t = t.astype(dtype)
    t.setflags(write=False)
    return t


def _exp(x: float, digits: int) -> float:
    """``exp(x)`` correctly rounded to float64 (decimal arithmetic: the same on every CPU)."""
    return float(decimal.Context(prec=digits).exp(decimal.Decimal(x)))


def sigmoid_table() -> np.ndarray:
    """The sigmoid table shared by both engines.

    Returns
    -------
    numpy.ndarray of float64, shape (SIG_STEPS + 1,) = (2049,)
        ``T[k] = 1 / (1 + exp(-(k / 64 - 16)))``, :func:`compute_sigmoid_table` as
        shipped in ``fastbg/data/nn/sigmoid.npy`` (read-only; loaded once per process).

    Raises
    ------
    ValueError
        If the file's SHA-256 is not the pinned one (``SIGMOID_SHA256``).
    """
    global _TABLE
    if _TABLE is None:
        _TABLE = _load_table(SIGMOID_FILE, SIGMOID_SHA256, np.float64, SIG_STEPS + 1)
    return _TABLE


def compute_sigmoid_table(digits: int = 50) -> np.ndarray:
    """What ``fastbg/data/nn/sigmoid.npy`` holds (:func:`sigmoid_table`), computed.

    ``T[k] = 1.0 / (1.0 + e)`` in float64 arithmetic, ``e`` = ``exp(-(k / 64 - 16))``
    correctly rounded to float64 (from ``digits`` decimal digits). The result does not
    depend on the CPU; it equals the table that :func:`math.exp` builds on x86-64 with
    FMA (glibc 2.36), which fastbg computed at load before the table was data. About
    0.05 s.

    Returns
    -------
    numpy.ndarray of float64, shape (2049,)
    """
    return np.array([1.0 / (1.0 + _exp(-(k / SIG_SCALE - SIG_LIMIT), digits))
                     for k in range(SIG_STEPS + 1)], dtype=np.float64)


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


def _check_weights(w: dict) -> dict:
    out = {}
    for key in ("w1", "b1", "w2", "b2"):
        if key not in w:
            raise ValueError(f"network weights lack {key!r}")
        out[key] = np.ascontiguousarray(w[key], dtype=np.float64)
    nh = out["w1"].shape[1] if out["w1"].ndim == 2 else -1
    if (out["w1"].shape != (NN_INPUTS, nh) or not 1 <= nh <= NN_MAX_HIDDEN
            or out["b1"].shape != (nh,) or out["w2"].shape != (NN_OUTPUTS, nh)
            or out["b2"].shape != (NN_OUTPUTS,)):
        raise ValueError(
            "inconsistent network shapes: "
            + ", ".join(f"{k} {out[k].shape}" for k in ("w1", "b1", "w2", "b2"))
        )
    for key, a in out.items():
        if not np.isfinite(a).all():
            raise ValueError(f"network weights {key!r} have non-finite values")
    return out


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
    w = _check_weights(weights)
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


#: The policy's network is all integers up to the output sigmoid (:func:`quantize`).
#: First layer: pre-activations in units of 2**-Q_BITS, exact int32 sums.
Q_BITS = 16
#: Hidden sigmoid: a table of H_SIZE bins of width 2**-H_BINS_LOG2 covering
#: [-H_RANGE, H_RANGE) (clamped outside), values in units of 1/H_ONE (int16).
H_RANGE = 8
H_BINS_LOG2 = 9
H_SIZE = 2 * H_RANGE << H_BINS_LOG2          # 8192 bins
H_SHIFT = Q_BITS - H_BINS_LOG2               # pre-activation units per bin: 2**7
H_OFFSET = H_RANGE << Q_BITS                 # pre + H_OFFSET >= 0 inside the range
H_MAXV = (2 * H_RANGE << Q_BITS) - 1
H_ONE_LOG2 = 14
H_ONE = 1 << H_ONE_LOG2                      # h = 1.0
_INT32_MAX = 2**31 - 1

_HTABLE: np.ndarray | None = None


def hidden_table() -> np.ndarray:
    """The hidden units' sigmoid table shared by both engines.

    Returns
    -------
    numpy.ndarray of int16, shape (H_SIZE,) = (8192,)
        ``H[k] = rint(16384 / (1 + exp(-x_k)))`` at the bin centres
        ``x_k = -8 + (k + 0.5) / 512``, :func:`compute_hidden_table` as shipped in
        ``fastbg/data/nn/hidden_sigmoid.npy`` (read-only; loaded once per process).
        Error against the logistic function: at most 2.4e-4 inside [-8, 8) (half a
        bin times the largest slope 1/4, plus rounding), 3.4e-4 outside (clamping).

    Raises
    ------
    ValueError
        If the file's SHA-256 is not the pinned one (``HIDDEN_SIGMOID_SHA256``).
    """
    global _HTABLE
    if _HTABLE is None:
        _HTABLE = _load_table(HIDDEN_SIGMOID_FILE, HIDDEN_SIGMOID_SHA256, np.int16, H_SIZE)
    return _HTABLE


def compute_hidden_table(digits: int = 50) -> np.ndarray:
    """What ``fastbg/data/nn/hidden_sigmoid.npy`` holds (:func:`hidden_table`), computed.

    ``H[k] = round(16384 / (1.0 + e))`` (float64 arithmetic, Python's rounding), ``e`` =
    ``exp(-x_k)`` correctly rounded to float64 (from ``digits`` decimal digits). The same
    on every CPU; it equals the table that :func:`math.exp` builds on x86-64 with FMA and
    without (glibc 2.36), which fastbg computed at load before the table was data. About
    0.2 s.

    Returns
    -------
    numpy.ndarray of int16, shape (8192,)
    """
    step = 1.0 / (1 << H_BINS_LOG2)
    return np.array([round(H_ONE / (1.0 + _exp(-(-H_RANGE + (k + 0.5) * step), digits)))
                     for k in range(H_SIZE)], dtype=np.int16)


def quantize(weights: dict) -> dict:
    """The policy's network in integers: per-point first-layer tables, int16 output weights.

    Parameters
    ----------
    weights : dict
        ``w1``, ``b1``, ``w2``, ``b2`` (float).

    Returns
    -------
    dict
        ``point`` int32 (2, 25, 16, nh): the contribution of ``n`` checkers of
        side ``s`` on index ``i`` (24 = bar) to the hidden pre-activations,
        rounded to a multiple of 2**-16; ``off`` int32 (2, 16, nh): of ``n``
        checkers off; ``bias`` int32 (nh,); ``w2`` int16 (5, nh) and ``b2`` int32
        (5,): the output layer in units of 2**-w_bits (per hidden unit of
        value 1/16384, so ``b2`` is in units of 2**-(14 + w_bits));
        ``w_bits`` int; ``out_scale`` float ``2**-(14 + w_bits)``.

    Raises
    ------
    ValueError
        If the weights are too large for int32 sums (a pre-activation bound over
        2**31 / 2**16 = 32768, or output weights over 2**31 / 2**14 in sum).

    Notes
    -----
    The forward pass (:func:`forward_q`, and the core's) is: integer
    pre-activations (bias plus one table row per occupied point, bar and off
    count), each clamped to [-8, 8) and looked up in :func:`hidden_table`
    (int16), an exact integer output sum ``b2 + w2 @ h`` (int32), and the output
    sigmoid :func:`sigmoid` of that sum times ``out_scale``. Integer sums do not
    depend on their order, so the core may compute the first layer of a play
    incrementally (only the points the play changes) and vectorise the output
    layer, with results identical to this one. ``w_bits`` is the largest
    precision (at most 14) for which no int32 sum can overflow. Against the
    float network (:func:`forward`) the raw outputs differ by about 1e-3.
    """
    w = _check_weights(weights)
    w1, nh = w["w1"], w["w1"].shape[1]
    one = float(1 << Q_BITS)
    point = np.zeros((2, 25, 16, nh), dtype=np.int64)
    off = np.zeros((2, 16, nh), dtype=np.int64)
    for s in range(2):
        base = NN_SIDE * s
        for n in range(1, 16):
            for i in range(24):
                u = base + 4 * i
                v = w1[u].copy()
                if n >= 2:
                    v = v + w1[u + 1]
                if n >= 3:
                    v = v + w1[u + 2]
                if n > 3:
                    v = v + ((n - 3) / 2.0) * w1[u + 3]
                point[s, i, n] = np.rint(v * one)
            point[s, 24, n] = np.rint((n / 2.0) * w1[base + 96] * one)
            off[s, n] = np.rint((n / 15.0) * w1[base + 97] * one)
    bias = np.rint(w["b1"] * one).astype(np.int64)
    bound = (np.abs(bias) + np.abs(point).max(axis=2).sum(axis=(0, 1))
             + np.abs(off).max(axis=1).sum(axis=0)).max()
    if bound > _INT32_MAX:
        raise ValueError(f"first-layer weights too large for the integer network "
                         f"(pre-activation bound {bound / one:.0f}, limit {_INT32_MAX / one:.0f})")
    return {"point": point.astype(np.int32), "off": off.astype(np.int32),
            "bias": bias.astype(np.int32), **quantize_output(w["w2"], w["b2"])}


def quantize_output(w2: np.ndarray, b2: np.ndarray, what: str = "the integer network") -> dict:
    """The output layer in integers: ``w2`` int16 (5, nh) and ``b2`` int32 (5,) in units of
    2**-w_bits (per hidden unit of value 1/16384, so ``b2`` in 2**-(14 + w_bits)), with
    ``w_bits`` the largest precision (at most 14) for which no int32 sum can overflow, and
    ``out_scale`` = 2**-(14 + w_bits).

    Raises
    ------
    ValueError
        If even ``w_bits = 0`` overflows (naming ``what``).
    """
    w_bits = 14
    while w_bits >= 0:
        w2q = np.rint(w2 * 2.0**w_bits).astype(np.int64)
        b2q = np.rint(b2 * 2.0**(H_ONE_LOG2 + w_bits)).astype(np.int64)
        if (np.abs(w2q).max() <= 32767
                and (np.abs(b2q) + np.abs(w2q).sum(axis=1) * H_ONE).max() <= _INT32_MAX):
            break
        w_bits -= 1
    else:
        raise ValueError(f"output weights too large for {what}")
    return {"w2": w2q.astype(np.int16), "b2": b2q.astype(np.int32), "w_bits": w_bits,
            "out_scale": 2.0**-(H_ONE_LOG2 + w_bits)}


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


def equity(p) -> np.ndarray:
    """Cubeless equity ``(2 win - 1) + (win_gammon - lose_gammon) + (win_bg - lose_bg)``.

    Parameters
    ----------
    p : array_like of float64, shape (5,) or (n, 5)

    Returns
    -------
    float or numpy.ndarray of float64, shape (n,)
    """
    p = np.asarray(p, dtype=np.float64)
    return (2.0 * p[..., 0] - 1.0) + (p[..., 1] - p[..., 3]) + (p[..., 2] - p[..., 4])


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


def weights_path() -> Path:
    """Path of the shipped weights, ``fastbg/data/nn/nn.npz``."""
    return DATA_DIR / WEIGHTS_NAME


def sha256_file(path) -> str:
    """Hex SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def load_weights(path, sha256: str | None = None) -> dict:
    """Load network weights from an ``.npz`` (keys ``w1``, ``b1``, ``w2``, ``b2``).

    Parameters
    ----------
    path : str or pathlib.Path
    sha256 : str, optional
        Expected hex SHA-256 of the file; checked when given.

    Returns
    -------
    dict of numpy.ndarray (float64)

    Raises
    ------
    FileNotFoundError
        If the file is missing.
    ValueError
        If the checksum differs, or the file is not a valid network.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"network weights not found: {path}")
    if sha256 is not None:
        got = sha256_file(path)
        if got != sha256:
            raise ValueError(
                f"network weights {path} are corrupt: SHA-256 {got}, expected {sha256}"
            )
    try:
        with np.load(path, allow_pickle=False) as z:
            w = {k: z[k] for k in ("w1", "b1", "w2", "b2") if k in z}
    except Exception as exc:  # zipfile/format errors
        raise ValueError(f"cannot read network weights {path}: {exc}") from exc
    return _check_weights(w)


def save_weights(path, weights: dict, dtype=np.float64, **extra) -> None:
    """Save weights (and any extra arrays) as an uncompressed ``.npz``."""
    w = _check_weights(weights)
    np.savez(path, **{k: v.astype(dtype) for k, v in w.items()}, **extra)


_DEFAULT: dict | None = None


def default_weights() -> dict:
    """The shipped network, loaded once per process and checked against its SHA-256.

    The checksum is read from ``fastbg/data/nn/nn.json`` (key ``sha256``).

    Raises
    ------
    FileNotFoundError
        If the weights or their JSON are missing.
    ValueError
        If the file is corrupt (checksum mismatch) or malformed.
    """
    global _DEFAULT
    if _DEFAULT is None:
        meta_path = DATA_DIR / META_NAME
        if not meta_path.is_file():
            raise FileNotFoundError(
                f"no shipped network: {meta_path} is missing (train one with "
                "experiments/train_td.py)"
            )
        meta = json.loads(meta_path.read_text())
        _DEFAULT = load_weights(DATA_DIR / meta.get("file", WEIGHTS_NAME), meta["sha256"])
    return _DEFAULT


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
        self.weights = _check_weights(default_weights() if weights is None else weights)
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
