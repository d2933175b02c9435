"""The first network's files and integer form, shared by both engines.

The shipped weights (``fastbg/data/nn/nn.npz``, checked against ``nn.json``'s SHA-256),
the two sigmoid tables (``sigmoid.npy``, ``hidden_sigmoid.npy``, pinned SHA-256s), the
network's shapes and its quantisation (:func:`quantize`: the policy's network in integers
up to the output sigmoid). The pure-Python engine (:mod:`fastbg.reference.nn`) and the
compiled core (``fastbg._core.nn``, ``fastbg._core.evaluator``) both read them here: this
module imports nothing of fastbg, so the engines' bitwise agreement is not agreement with
each other. The forward passes, which each engine computes its own way, are theirs.

Both sigmoid tables are data files, checked against their SHA-256 at load, so that they are
the same on every CPU: built at load with :func:`math.exp`, as they were, glibc gave one
output-sigmoid entry a different last bit on CPUs without FMA.
``experiments/make_sigmoid_tables.py`` writes them from :func:`compute_sigmoid_table` and
:func:`compute_hidden_table` (exp correctly rounded), which equal the old ``math.exp``
tables of FMA machines bit for bit.
"""
from __future__ import annotations

import decimal
import hashlib
import json
from pathlib import Path

import numpy as np

__all__ = [
    "NN_INPUTS", "NN_SIDE", "NN_OUTPUTS", "NN_MAX_HIDDEN", "SIG_LIMIT", "SIG_SCALE", "SIG_STEPS",
    "DATA_DIR", "WEIGHTS_NAME", "META_NAME", "SIGMOID_FILE", "SIGMOID_SHA256",
    "HIDDEN_SIGMOID_FILE", "HIDDEN_SIGMOID_SHA256", "Q_BITS", "H_RANGE", "H_BINS_LOG2",
    "H_SIZE", "H_SHIFT", "H_OFFSET", "H_MAXV", "H_ONE_LOG2", "H_ONE", "INT32_MAX",
    "equity", "sigmoid_table", "compute_sigmoid_table", "hidden_table", "compute_hidden_table",
    "check_weights", "quantize", "quantize_output", "weights_path", "sha256_file",
    "load_weights", "save_weights", "default_weights",
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


def check_weights(w: dict) -> dict:
    """``w1`` (196, nh), ``b1`` (nh,), ``w2`` (5, nh), ``b2`` (5,) as float64, checked: the
    first network's arrays, with 1 <= nh <= NN_MAX_HIDDEN and finite weights.

    Raises
    ------
    ValueError
        For a missing array, inconsistent shapes or non-finite weights.
    """
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
INT32_MAX = 2**31 - 1

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
    w = check_weights(weights)
    w1, nh = w["w1"], w["w1"].shape[1]
    one = float(1 << Q_BITS)
    point = np.zeros((2, 25, 16, nh), dtype=np.int64)
    off = np.zeros((2, 16, nh), dtype=np.int64)
    for s in range(2):
        base = NN_SIDE * s
        for n in range(1, 16):
            for i in range(24):
                u = base + 4 * i
                point[s, i, n] = np.rint(point_units(w1, u, n) * one)
            point[s, 24, n] = np.rint((n / 2.0) * w1[base + 96] * one)
            off[s, n] = np.rint((n / 15.0) * w1[base + 97] * one)
    bias = np.rint(w["b1"] * one).astype(np.int64)
    bound = (np.abs(bias) + np.abs(point).max(axis=2).sum(axis=(0, 1))
             + np.abs(off).max(axis=1).sum(axis=0)).max()
    if bound > INT32_MAX:
        raise ValueError(f"first-layer weights too large for the integer network "
                         f"(pre-activation bound {bound / one:.0f}, limit {INT32_MAX / one:.0f})")
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
                and (np.abs(b2q) + np.abs(w2q).sum(axis=1) * H_ONE).max() <= INT32_MAX):
            break
        w_bits -= 1
    else:
        raise ValueError(f"output weights too large for {what}")
    return {"w2": w2q.astype(np.int16), "b2": b2q.astype(np.int32), "w_bits": w_bits,
            "out_scale": 2.0**-(H_ONE_LOG2 + w_bits)}


def equity(p) -> np.ndarray:
    """Cubeless equity (DESIGN section 5) ``(2 win - 1) + (win_gammon - lose_gammon) + (win_bg - lose_bg)``.

    Parameters
    ----------
    p : array_like of float64, shape (5,) or (n, 5)

    Returns
    -------
    float or numpy.ndarray of float64, shape (n,)
    """
    p = np.asarray(p, dtype=np.float64)
    return (2.0 * p[..., 0] - 1.0) + (p[..., 1] - p[..., 3]) + (p[..., 2] - p[..., 4])


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
    return check_weights(w)


def save_weights(path, weights: dict, dtype=np.float64, **extra) -> None:
    """Save weights (and any extra arrays) as an uncompressed ``.npz``."""
    w = check_weights(weights)
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


def point_units(w1: np.ndarray, u: int, n: int) -> np.ndarray:
    """First-layer contribution of ``n`` checkers through the 4 units starting at row ``u``."""
    v = w1[u].copy()
    if n >= 2:
        v = v + w1[u + 1]
    if n >= 3:
        v = v + w1[u + 2]
    if n > 3:
        v = v + ((n - 3) / 2.0) * w1[u + 3]
    return v
