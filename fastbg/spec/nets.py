"""The second evaluator's nets: their files, shapes and integer form, shared by both engines.

The shipped nets (``fastbg/data/nn/nn2.npz``, checked against ``nn2.json``'s SHA-256), the
shapes a net may have (:data:`INPUT_WIDTHS`), their quantisation (:func:`quantize_net`: the
hidden pre-activations as exact integer sums, the output layer of
:func:`fastbg.spec.nn.quantize_output`) and the checks of a decision's arguments
(:func:`check_decision`), with which both engines refuse the same input with the same
error. The pure-Python engine (:mod:`fastbg.reference.evaluator`) and the compiled core
(``fastbg._core.evaluator``) both read them here (``docs/evaluator.md``).

**In integers, as the first network.** :func:`quantize_net` turns a net into per-point
tables (the 4 point units of each index, and for the race net its crossovers and pip
count, which are linear in the checkers of a point), per-count tables of the checkers off
(the race net's one-hot units), and for the contact net one int32 row per feature
numerator: the hidden pre-activations are exact integer sums, which the core may compute
incrementally and in any order.
"""
from __future__ import annotations

import hashlib
import json
import operator
from pathlib import Path

import numpy as np

from . import features as F
from .board import validate_board, validate_boards
from .nn import NN_OUTPUTS, Q_BITS, quantize_output
from .nn import point_units as _point_units

__all__ = ["KINDS", "OPTIONAL_KINDS", "ALL_KINDS", "N_INPUTS", "N_BLOT_INPUTS", "INPUT_WIDTHS",
           "CONTACT_KINDS", "FEATURE_MAX", "EXTRA_FEATURE_MAX", "BLOT_FEATURE_MAX", "DATA_DIR",
           "NETS_NAME", "NETS_META", "BLOT_TOP", "MAX_RANKED", "MAX_PLAYS", "check_net",
           "reads_blots", "quantize_net", "nets_path", "check_nets", "save_nets", "load_nets",
           "default_nets", "hidden_label", "check_decision"]

#: The nets every nets file holds.
KINDS = ("contact", "race")
#: The nets a nets file may hold besides: a crashed net reads crashed contact positions
#: (:func:`fastbg.reference.features.is_crashed`) instead of the contact net; it has the
#: contact net's inputs (and width).
OPTIONAL_KINDS = ("crashed",)
ALL_KINDS = KINDS + OPTIONAL_KINDS
#: Inputs of each net at its full width (docs/evaluator.md).
N_INPUTS = {"contact": F.CONTACT_INPUTS, "race": F.RACE_INPUTS, "crashed": F.CONTACT_INPUTS}
#: The blot inputs a crashed net may read after its contact inputs: side 0's and side 1's
#: blot features (docs/evaluator.md, "Blot features").
N_BLOT_INPUTS = 2 * F.N_BLOT_FEATURES
#: The widths a net may have: a contact (or crashed) net reads the first 236 inputs (the
#: legacy width, every shipped generation so far) or all 252; a crashed net may read the
#: blot inputs after those (246 or 262).
INPUT_WIDTHS = {"contact": (F.LEGACY_CONTACT_INPUTS, F.CONTACT_INPUTS), "race": (F.RACE_INPUTS,),
                "crashed": (F.LEGACY_CONTACT_INPUTS, F.CONTACT_INPUTS,
                            F.LEGACY_CONTACT_INPUTS + N_BLOT_INPUTS,
                            F.CONTACT_INPUTS + N_BLOT_INPUTS)}
#: The net of each class a nets file may hold (the contact net reads crashed positions
#: when there is no crashed net).
CONTACT_KINDS = ("contact", "crashed")
_TESAURO_SIDE = 98        # the contact net's first 196 inputs: 98 a side
_RACE_SIDE = F.RACE_INPUTS // 2   # 96 point units, 15 off units, crossovers, pips
INT32_MAX = 2**31 - 1
#: The largest numerator of each contact feature (docs/evaluator.md), for the overflow
#: bound of :func:`quantize_net`: 15 checkers at the worst place, 36 rolls, 36 * 24 pips.
FEATURE_MAX = (25, 24, 6, 6, 24, 6, 15, 375, 375, 375, 285, 36, 36, 1296, 36, 36, 36, 36, 864, 15)
#: The same for the extra features: 15 points x 6 dice, docs/evaluator.md's bound on
#: moment2, 7 made points in a row, a deficit of at most 375 pips, the ramps of 15 off.
EXTRA_FEATURE_MAX = (90, 1280, 21, 375, 375, 3, 3, 9)
#: The same for the blot features: 36 rolls, 36 shots each.
BLOT_FEATURE_MAX = (36, 36, 1, 1296, 1296)

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "nn"
NETS_NAME = "nn2.npz"
NETS_META = "nn2.json"


def check_net(w: dict, kind: str) -> dict:
    """``w1`` (inputs, nh), ``b1`` (nh,), ``w2`` (5, nh), ``b2`` (5,) as float64, checked.

    ``inputs`` is one of :data:`INPUT_WIDTHS` (a contact net: 236 or 252).

    Raises
    ------
    ValueError
        For an unknown kind, missing arrays, wrong shapes or non-finite weights.
    """
    if kind not in ALL_KINDS:
        raise ValueError(f"unknown net kind {kind!r}: choose one of {', '.join(ALL_KINDS)}")
    try:
        out = {k: np.asarray(w[k], dtype=np.float64) for k in ("w1", "b1", "w2", "b2")}
    except KeyError as exc:
        raise ValueError(f"{kind} net lacks {exc.args[0]!r}") from None
    nh = out["b1"].shape[0] if out["b1"].ndim == 1 else -1
    widths = INPUT_WIDTHS[kind]
    if out["w1"].ndim != 2 or out["w1"].shape[0] not in widths or out["w1"].shape[1] != nh:
        raise ValueError(f"{kind} net: w1 has shape {out['w1'].shape}, expected "
                         f"({' or '.join(map(str, widths))}, {nh})")
    want = {"b1": (nh,), "w2": (NN_OUTPUTS, nh), "b2": (NN_OUTPUTS,)}
    for k, shape in want.items():
        if out[k].shape != shape:
            raise ValueError(f"{kind} net: {k} has shape {out[k].shape}, expected {shape}")
    for k, v in out.items():
        if not np.all(np.isfinite(v)):
            raise ValueError(f"{kind} net: {k} is not finite")
    return out


def _feature_rows(first, extra) -> np.ndarray:
    """Per-side values in the order of the contact net's feature inputs (int64, (56,)):
    side 0's and side 1's of the first 20 features, then side 0's and side 1's extra."""
    return np.array(tuple(first) * 2 + tuple(extra) * 2, dtype=np.int64)


def reads_blots(inputs: int) -> bool:
    """Whether a contact-kind net of ``inputs`` inputs reads the blot features (a crashed
    net of 246 or 262)."""
    return inputs in (F.LEGACY_CONTACT_INPUTS + N_BLOT_INPUTS, F.CONTACT_INPUTS + N_BLOT_INPUTS)


def quantize_net(weights: dict, kind: str) -> dict:
    """A net in integers: per-point, per-off-count and per-feature tables, int16 outputs.

    Parameters
    ----------
    weights : dict
        ``w1``, ``b1``, ``w2``, ``b2`` of a ``kind`` net (:func:`check_net`).
    kind : {"contact", "race", "crashed"}
        A crashed net is quantized as a contact net (the same inputs).

    Returns
    -------
    dict
        ``kind``; ``point`` int32 (2, 25, 16, nh) and ``off`` int32 (2, 16, nh): the
        contribution of ``n`` checkers of side ``s`` on index ``i`` (24 = bar) and of ``n``
        checkers off, each rounded to a multiple of 2**-16; ``feat`` int32 (40, nh) or
        (56, nh), one row per input after Tesauro's 196: the contact net's weights per
        unit of each feature numerator (side 0's 20, side 1's 20, and for a 252-input
        net side 0's 8 extra, side 1's 8), ``round(w / D * 2**16)``, or shape (0, nh) for
        the race net; ``bias``, ``w2``,
        ``b2``, ``w_bits``, ``out_scale`` as :func:`fastbg.spec.nn.quantize`. A
        crashed net of 246 or 262 inputs has 10 more ``feat`` rows: side 0's and side 1's
        blot features (:func:`fastbg.reference.features.blot_features`).

    Raises
    ------
    ValueError
        If the weights are too large for int32 sums.
    """
    w = check_net(weights, kind)
    w1, nh = w["w1"], w["w1"].shape[1]
    one = float(1 << Q_BITS)
    point = np.zeros((2, 25, 16, nh), dtype=np.int64)
    off = np.zeros((2, 16, nh), dtype=np.int64)
    if kind in CONTACT_KINDS:
        for s in range(2):
            base = _TESAURO_SIDE * s
            for n in range(1, 16):
                for i in range(24):
                    point[s, i, n] = np.rint(_point_units(w1, base + 4 * i, n) * one)
                point[s, 24, n] = np.rint((n / 2.0) * w1[base + 96] * one)
                off[s, n] = np.rint((n / 15.0) * w1[base + 97] * one)
        rows = w1.shape[0] - 196
        blots = N_BLOT_INPUTS if reads_blots(w1.shape[0]) else 0
        den = np.concatenate([
            _feature_rows(F.FEATURE_DENOMINATORS, F.EXTRA_FEATURE_DENOMINATORS)[:rows - blots],
            np.tile(F.BLOT_FEATURE_DENOMINATORS, 2)[:blots]])
        feat = np.rint(w1[196:] / den.astype(np.float64)[:, None] * one).astype(np.int64)
        fmax = np.concatenate([_feature_rows(FEATURE_MAX, EXTRA_FEATURE_MAX)[:rows - blots],
                               np.tile(np.array(BLOT_FEATURE_MAX, np.int64), 2)[:blots]])
    else:
        for s in range(2):
            base = _RACE_SIDE * s
            cross, pips = w1[base + 111], w1[base + 112]
            for n in range(1, 16):
                for i in range(25):
                    v = n * ((i // 6) / 60.0 * cross + (i + 1) / 167.0 * pips)
                    if i < 24:
                        v = v + _point_units(w1, base + 4 * i, n)
                    point[s, i, n] = np.rint(v * one)
            for n in range(15):
                off[s, n] = np.rint(w1[base + 96 + n] * one)
        feat = np.zeros((0, nh), dtype=np.int64)
        fmax = np.zeros(0, dtype=np.int64)
    bias = np.rint(w["b1"] * one).astype(np.int64)
    # The race net's one-hot "no checker off" unit is live at 0 off; fold it into the
    # bias so that every table's row for a count of 0 is zero, as the core's sums assume
    # (they skip empty points and a side with nothing off). Exact: integers.
    bias += off[0, 0] + off[1, 0]
    off -= off[:, :1]
    bound = (np.abs(bias) + np.abs(point).max(axis=2).sum(axis=(0, 1))
             + np.abs(off).max(axis=1).sum(axis=0) + (np.abs(feat) * fmax[:, None]).sum(axis=0)).max()
    if bound > INT32_MAX:
        raise ValueError(f"{kind} net: first-layer weights too large for the integer network "
                         f"(pre-activation bound {bound / one:.0f}, limit {INT32_MAX / one:.0f})")
    return {"kind": kind, "point": point.astype(np.int32), "off": off.astype(np.int32),
            "feat": feat.astype(np.int32), "bias": bias.astype(np.int32),
            **quantize_output(w["w2"], w["b2"], f"the {kind} net")}


def nets_path() -> Path:
    """Where the shipped nets are: ``fastbg/data/nn/nn2.npz``."""
    return DATA_DIR / NETS_NAME


def check_nets(nets: dict) -> dict:
    """``{"contact": w, "race": w}`` and optionally ``"crashed": w``, each checked
    (:func:`check_net`).

    Raises
    ------
    ValueError
        If a required net is missing, a net is unknown or malformed, or the crashed net
        reads another width than the contact net.
    """
    unknown = set(nets) - set(ALL_KINDS)
    if unknown:
        raise ValueError(f"unknown net kind {sorted(unknown)[0]!r}: choose among {', '.join(ALL_KINDS)}")
    for kind in KINDS:
        if kind not in nets:
            raise ValueError(f"the nets lack the {kind} net")
    out = {kind: check_net(nets[kind], kind) for kind in ALL_KINDS if kind in nets}
    if "crashed" in out and out["crashed"]["w1"].shape[0] not in (
            out["contact"]["w1"].shape[0], out["contact"]["w1"].shape[0] + N_BLOT_INPUTS):
        raise ValueError(f"the crashed net reads {out['crashed']['w1'].shape[0]} inputs and the "
                         f"contact net {out['contact']['w1'].shape[0]}: they must read the same "
                         f"(the crashed net may read the {N_BLOT_INPUTS} blot inputs besides)")
    return out


def save_nets(path, nets: dict, **extra) -> None:
    """Save ``{"contact": w, "race": w}`` (and ``"crashed": w`` if given) as one ``.npz``
    (keys ``contact_w1``, ...; :func:`check_nets`)."""
    arrays = {f"{kind}_{k}": v for kind, w in check_nets(nets).items() for k, v in w.items()}
    np.savez(path, **arrays, **extra)


def load_nets(path, sha256: str | None = None) -> dict:
    """``{"contact": w, "race": w}``, and ``"crashed": w`` if the file has a crashed net,
    from an ``.npz`` of :func:`save_nets`.

    Raises
    ------
    FileNotFoundError
        If the file is missing.
    ValueError
        If the checksum differs or the file does not hold both nets.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"evaluator nets not found: {path}")
    if sha256 is not None:
        got = hashlib.sha256(path.read_bytes()).hexdigest()
        if got != sha256:
            raise ValueError(f"evaluator nets {path} are corrupt: SHA-256 {got}, expected {sha256}")
    with np.load(path, allow_pickle=False) as z:
        kinds = KINDS + tuple(k for k in OPTIONAL_KINDS if f"{k}_w1" in z.files)
        return check_nets({kind: {k: z[f"{kind}_{k}"] for k in ("w1", "b1", "w2", "b2")
                                  if f"{kind}_{k}" in z} for kind in kinds})


_DEFAULT: dict | None = None


def default_nets() -> dict:
    """The shipped nets, verified against ``nn2.json``'s SHA-256 (loaded once)."""
    global _DEFAULT
    if _DEFAULT is None:
        meta = json.loads((DATA_DIR / NETS_META).read_text())
        _DEFAULT = load_nets(nets_path(), meta.get("sha256"))
    return _DEFAULT


def hidden_label(tables: dict) -> str:
    """``hidden=C/R`` (and ``, crashed=H``): the nets' hidden units, for a policy's repr."""
    h = {kind: t["bias"].shape[0] for kind, t in tables.items()}
    return (f"hidden={h['contact']}/{h['race']}"
            + (f", crashed={h['crashed']}" if "crashed" in h else ""))


#: The plays of a decision that the blot rule values in full (:meth:`EvalPolicy.ranking`).
BLOT_TOP = 3
#: The largest ``k`` of :meth:`EvalPolicy.ranking`.
MAX_RANKED = 64
#: The most plays a decision may have (the compiled core's bound on one roll's plays).
MAX_PLAYS = 4096


def check_decision(before, plays, k=1) -> tuple[np.ndarray, np.ndarray, int]:
    """Check the arguments of :meth:`EvalPolicy.play_equities` and :meth:`EvalPolicy.ranking`.

    Both engines refuse the same input with the same error. It is not a legality check:
    the plays are not generated again from ``before``. The core values each play
    from ``before``'s first layer corrected by the slots the play changes and the
    mover's checkers off; that holds when the opponent has as many checkers on the board
    and bar in each play as in ``before`` (a hit puts one on the bar), which every play of
    one roll has, and which any play of the decision, taken as ``before``, has too.

    Parameters
    ----------
    before : array_like of int, shape (2, 25)
        The position before the roll (mover in row 0), or any play of the decision.
    plays : array_like of int, shape (n, 2, 25)
        The plays, mover in row 0, not swapped; ``1 <= n <=`` :data:`MAX_PLAYS`.
    k : int, default 1
        How many plays :meth:`EvalPolicy.ranking` returns, ``1..``:data:`MAX_RANKED`.

    Returns
    -------
    before : numpy.ndarray of int8, shape (2, 25)
    plays : numpy.ndarray of int8, shape (n, 2, 25)
    k : int

    Raises
    ------
    ValueError
        For a malformed board (:func:`fastbg.spec.board.validate_board`), ``plays``
        not of shape (n, 2, 25) with ``n`` in 1..MAX_PLAYS, a play whose opponent's
        checker count differs from ``before``'s, or ``k`` outside 1..MAX_RANKED.
    TypeError
        For a ``k`` that is not an integer.
    """
    k = operator.index(k)
    if not 1 <= k <= MAX_RANKED:
        raise ValueError(f"k must be in 1..{MAX_RANKED}, got {k!r}")
    before = validate_board(before)
    arr = np.asarray(plays)
    if arr.ndim != 3 or arr.shape[1:] != (2, 25):
        raise ValueError(f"plays has shape (n, 2, 25), got {arr.shape}")
    if not 1 <= len(arr) <= MAX_PLAYS:
        raise ValueError(f"a decision has 1..{MAX_PLAYS} plays, got {len(arr)}")
    plays = validate_boards(arr, what="play")
    opponent = plays[:, 1].sum(axis=1, dtype=np.int64)
    for j in np.flatnonzero(opponent != int(before[1].sum()))[:1]:
        raise ValueError(
            f"play {j} is not a play from `before`: its opponent has {opponent[j]} checkers "
            f"on the board and bar, {int(before[1].sum())} before the roll")
    return before, plays, k
