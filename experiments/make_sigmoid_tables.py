"""Write the evaluator's two sigmoid tables, the data files both engines load.

``fastbg/data/nn/sigmoid.npy``: the output sigmoid, float64 (2049,),
``T[k] = 1 / (1 + exp(-(k / 64 - 16)))``; ``fastbg/data/nn/hidden_sigmoid.npy``: the
hidden units' sigmoid, int16 (8192,), ``H[k] = round(16384 / (1 + exp(-x_k)))`` at
``x_k = -8 + (k + 0.5) / 512`` (:func:`fastbg.reference.nn.compute_sigmoid_table`,
:func:`fastbg.reference.nn.compute_hidden_table`).

They are data because they used to be computed at load with :func:`math.exp`, whose
last bit depends on the CPU: glibc's exp on a CPU without FMA (checked under
``qemu-x86_64 -cpu SandyBridge``) put ``T[792]`` one ulp away from its value on an
FMA machine, so the same seeded rollout could differ in its last bits from machine to
machine. The generator takes ``exp`` correctly rounded (:mod:`decimal`, the same on
every CPU), which gives exactly the tables that ``math.exp`` built on the FMA machines
fastbg was developed on, so shipping them changed no number there. Usage::

    python experiments/make_sigmoid_tables.py            # check the shipped files
    python experiments/make_sigmoid_tables.py --write    # (re)write them

The check exits 1 if a shipped file is not what the generator makes, byte for byte, or if
this machine's ``math.exp`` puts an entry more than one ulp (float) or one unit (int16)
away; it also counts the entries where this machine's ``math.exp`` differs. After
``--write``, pin the printed SHA-256 values in ``fastbg/reference/nn.py``.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import math
import sys

import numpy as np

from fastbg.reference import nn


def npy_bytes(table: np.ndarray) -> bytes:
    """The ``.npy`` file of a table (numpy's format 1.0, little-endian: no timestamp)."""
    buf = io.BytesIO()
    np.save(buf, table.astype(table.dtype.newbyteorder("<")), allow_pickle=False)
    return buf.getvalue()


def libm_tables() -> tuple[np.ndarray, np.ndarray]:
    """The tables as fastbg built them before they were data: with this machine's math.exp."""
    sig = np.array([1.0 / (1.0 + math.exp(-(k / nn.SIG_SCALE - nn.SIG_LIMIT)))
                    for k in range(nn.SIG_STEPS + 1)], dtype=np.float64)
    step = 1.0 / (1 << nn.H_BINS_LOG2)
    hid = np.array([round(nn.H_ONE / (1.0 + math.exp(-(-nn.H_RANGE + (k + 0.5) * step))))
                    for k in range(nn.H_SIZE)], dtype=np.int16)
    return sig, hid


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="write the two files (default: check them)")
    args = ap.parse_args(argv)
    sig, hid = nn.compute_sigmoid_table(), nn.compute_hidden_table()
    # a correctly rounded exp at twice the precision gives the same tables (no double rounding)
    if not (np.array_equal(sig, nn.compute_sigmoid_table(digits=100))
            and np.array_equal(hid, nn.compute_hidden_table(digits=100))):
        print("the tables depend on the decimal precision", file=sys.stderr)
        return 1
    lsig, lhid = libm_tables()
    ulps = np.abs(lsig - sig) / np.spacing(sig)
    print(f"this machine's math.exp: {int((lsig != sig).sum())} of {sig.size} output-sigmoid entries "
          f"differ (at most {ulps.max():.0f} ulp), {int((lhid != hid).sum())} of {hid.size} hidden ones "
          f"(at most {int(np.abs(lhid.astype(int) - hid).max())})")
    bad = ulps.max() > 1 or np.abs(lhid.astype(int) - hid).max() > 1
    for name, table, pinned in ((nn.SIGMOID_FILE, sig, nn.SIGMOID_SHA256),
                                (nn.HIDDEN_SIGMOID_FILE, hid, nn.HIDDEN_SIGMOID_SHA256)):
        data = npy_bytes(table)
        digest = hashlib.sha256(data).hexdigest()
        path = nn.DATA_DIR / name
        if args.write:
            path.write_bytes(data)
            print(f"wrote {path}: SHA-256 {digest}" + ("" if digest == pinned else " (pin it in fastbg/reference/nn.py)"))
        else:
            same = path.is_file() and path.read_bytes() == data
            bad |= not same or digest != pinned
            print(f"{path}: {'as generated' if same else 'DIFFERENT from the generator'}, SHA-256 {digest}"
                  + ("" if digest == pinned else f" (pinned: {pinned})"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
