"""The evaluator's sigmoid tables are shipped data, the same on every CPU, and both engines read them.

They were computed at load with ``math.exp``, whose last bit depends on the CPU (glibc without
FMA put one output-sigmoid entry an ulp away), so that seeded rollouts could differ from machine
to machine. Now ``fastbg/data/nn/sigmoid.npy`` and ``hidden_sigmoid.npy`` hold them, written by
``experiments/make_sigmoid_tables.py`` from a correctly rounded exp.
"""
from __future__ import annotations

import fnmatch
import hashlib
import io
import math
import sys

import numpy as np
import pytest

from fastbg.reference import nn as rnn
from fastbg.spec import nn as spec_nn

TABLES = [
    (rnn.sigmoid_table, rnn.compute_sigmoid_table, rnn.SIGMOID_FILE, rnn.SIGMOID_SHA256, np.float64, 2049),
    (rnn.hidden_table, rnn.compute_hidden_table, rnn.HIDDEN_SIGMOID_FILE, rnn.HIDDEN_SIGMOID_SHA256, np.int16, 8192),
]
IDS = ["output", "hidden"]


@pytest.mark.parametrize("shipped, compute, name, sha256, dtype, size", TABLES, ids=IDS)
def test_shipped_table_is_what_the_generator_makes(shipped, compute, name, sha256, dtype, size):
    t = shipped()
    assert t.dtype == dtype and t.shape == (size,) and not t.flags.writeable
    assert shipped() is t                       # loaded once per process
    # exp correctly rounded (decimal arithmetic) does not depend on the CPU: exactly equal anywhere
    assert t.tobytes() == compute().tobytes()
    data = (rnn.DATA_DIR / name).read_bytes()
    assert hashlib.sha256(data).hexdigest() == sha256
    buf = io.BytesIO()                          # experiments/make_sigmoid_tables.py's file
    np.save(buf, t.astype(t.dtype.newbyteorder("<")), allow_pickle=False)
    assert buf.getvalue() == data


def test_tables_within_one_unit_of_the_platform_exp():
    # This machine's math.exp is within an ulp of correct rounding, so its tables (what fastbg
    # built at load before) are within one ulp (float) or one unit (int16) of the shipped ones;
    # on x86-64 with FMA (glibc 2.36) they are equal.
    sig = rnn.sigmoid_table()
    libm = np.array([1.0 / (1.0 + math.exp(-(k / 64 - 16))) for k in range(2049)])
    assert np.all(np.abs(libm - sig) <= np.spacing(sig))
    hid = rnn.hidden_table().astype(np.int64)
    libm = np.array([round(16384 / (1.0 + math.exp(-(-8 + (k + 0.5) / 512)))) for k in range(8192)])
    assert np.all(np.abs(libm - hid) <= 1)


def test_known_entries():
    sig, hid = rnn.sigmoid_table(), rnn.hidden_table()
    assert sig[1024] == 0.5 and sig[0].hex() == "0x1.e355b81e5bc48p-24" and sig[2048].hex() == "0x1.fffffc39548fcp-1"
    # the entry that glibc's exp without FMA (qemu-x86_64 -cpu SandyBridge) put one ulp higher
    assert sig[792].hex() == "0x1.a9490c1054030p-6"
    # symmetric about x = 0 (H[k] + H[8191 - k] = 16384), 5 and 16379 at the ends
    assert np.all(hid + hid[::-1] == 16384) and hid[0] == 5 and hid[-1] == 16379
    assert np.all(np.diff(sig) > 0) and np.all(np.diff(hid) >= 0)


def test_corrupt_table_is_refused(tmp_path, monkeypatch):
    data = bytearray((rnn.DATA_DIR / rnn.SIGMOID_FILE).read_bytes())
    data[-1] ^= 1                               # the last bit of T[2048]
    (tmp_path / rnn.SIGMOID_FILE).write_bytes(bytes(data))
    monkeypatch.setattr(spec_nn, "DATA_DIR", tmp_path)
    with pytest.raises(ValueError, match="corrupt"):
        spec_nn._load_table(rnn.SIGMOID_FILE, rnn.SIGMOID_SHA256, np.float64, 2049)


def test_both_engines_read_the_shipped_tables():
    cnn = pytest.importorskip("fastbg._core.nn", reason="Cython core not built")
    w = {"w1": np.zeros((196, 3)), "b1": np.zeros(3), "w2": np.zeros((5, 3)), "b2": np.zeros(5)}
    net = cnn.Net(w["w1"], w["b1"], w["w2"], w["b2"])
    assert net.sig.tobytes() == rnn.sigmoid_table().tobytes()
    pol = cnn.NNPolicy(net)
    assert pol.tables["htab"].tolist() == rnn.hidden_table().tolist()
    assert pol.tables["sig"].tobytes() == rnn.sigmoid_table().tobytes()


def test_tables_are_package_data():
    # (a wheel or sdist carries fastbg/data/nn/*.npy: pyproject's package-data, MANIFEST.in)
    pyproject = rnn.DATA_DIR.parents[2] / "pyproject.toml"
    if sys.version_info < (3, 11) or not pyproject.is_file():
        pytest.skip("needs tomllib and a source checkout")
    import tomllib  # (3.11+, hence here)

    patterns = tomllib.loads(pyproject.read_text())["tool"]["setuptools"]["package-data"]["fastbg"]
    for name in (rnn.SIGMOID_FILE, rnn.HIDDEN_SIGMOID_FILE):
        assert any(fnmatch.fnmatch(f"data/nn/{name}", p) for p in patterns), name
