"""A float hook that values the blot features of the side that has moved only for a
decision's best few plays, for ``experiments/errorrate.py score --hook`` (TRAINING.md, stop
33: the engine's cost is the search of those features for every candidate play).

``--hook experiments/evaluator/hook_topk.py:load --hook-arg k=4,contact=...,race=...,crashed=...``
(the nets as ``hook.py`` takes them; the crashed net one of 246 inputs). Pass 1 values every
play with the mover's five blot columns at 0 (the side on roll's are kept: an engine finds
them in its memo); pass 2 values the ``k`` best plays of pass 1 with all the columns, and
the play chosen is the best of those. The other plays get -1e9, so that only the choice
counts.
"""
from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np


def _hook():
    spec = importlib.util.spec_from_file_location("hook", Path(__file__).with_name("hook.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def load(spec: str):
    """``"k=K,contact=...,race=...,crashed=..."`` -> the hook."""
    parts = [p for p in spec.split(",") if p]
    k = int(dict(p.partition("=")[::2] for p in parts).get("k", 4))
    hook = _hook()
    full = hook.load(",".join(p for p in parts if not p.startswith("k=")))
    real = hook._cb.crashed_blots

    def mover_blots_zero(boards, shots=False):
        x = real(boards, shots=shots).copy()
        x[:, x.shape[1] // 2:] = 0.0          # side 1: the mover, after its play
        return x

    def mover_equities(boards):
        hook._cb.crashed_blots = mover_blots_zero
        try:
            first = np.asarray(full(boards), dtype=np.float64)
        finally:
            hook._cb.crashed_blots = real
        top = np.argsort(-first, kind="stable")[:k]
        out = np.full(len(first), -1e9)
        out[top] = np.asarray(full([boards[j] for j in top]), dtype=np.float64)
        return out

    return mover_equities
