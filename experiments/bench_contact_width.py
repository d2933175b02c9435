"""Rollout speed of the contact net by input width: 236 (the shipped nets) against 252.

The extra contact features (``docs/evaluator.md``, "Extra contact features") are computed
only for a contact net whose first layer reads them (252 inputs); a 236-input net must
roll out as fast as before. This script times, interleaved (variant by variant, repeat by
repeat, so a drifting load on a shared machine hits all alike), ``games`` games of the
Cython core's ``rollout_block`` from each position, one thread, with:

* ``236``: the shipped nets (``fastbg/data/nn/nn2.npz``);
* ``252-zero``: the same nets with the 16 extra feature rows at zero (the same games: the
  difference is the cost of computing the extra features);
* ``252-rand``: the same with small random extra rows (N(0, 0.05)), other games;

and ``fastbg.rollout(pos, games, seed=1, workers=1, policy="nn")``, the public API, for the
shipped nets (its default variance reduction included). Each figure is the best of
``--repeat`` runs, in games per CPU second of this process (``time.process_time``: on a
busy machine less noisy than the wall clock, though caches are still shared; for exact
figures count instructions with ``experiments/callgrind_core.py --policy nn-252-zero``).
On an older fastbg (no 252-input support) only the 236 lines are printed, so the same
script gives the "before" figures::

    python experiments/bench_contact_width.py [--games 2000] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np

import fastbg
from fastbg._core import evaluator as cev
from fastbg._core import rollout as croll
from fastbg.game import Position
from fastbg.reference import evaluator as rev

import record  # experiments/record.py: command, date and commit of a result

POSITIONS = {
    "start": "4HPwATDgc/ABMA",
    # the priming position of issue 11 (contact, long games)
    "prime": "XGID=---BBBBBA----B--a-a-Bbcce-:0:0:1:00:0:0:3:0:10",
}


def widened(nets: dict, scale: float, seed: int = 1) -> dict:
    """The nets with the contact net (and the crashed net, which reads the same inputs)
    widened to the full width, new rows ``N(0, scale)``."""
    out = dict(nets)
    for kind in ("contact", "crashed"):
        if kind in nets:
            w = dict(nets[kind])
            extra = rev.N_INPUTS["contact"] - w["w1"].shape[0]
            rows = np.random.default_rng(seed).normal(0.0, scale, (extra, w["w1"].shape[1]))
            w["w1"] = np.vstack([w["w1"], rows if scale else np.zeros_like(rows)])
            out[kind] = w
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    nets = rev.default_nets()
    policies = {"236": cev.EvalPolicy(nets)}
    wide = rev.N_INPUTS["contact"] > nets["contact"]["w1"].shape[0]
    if wide:
        policies["252-zero"] = cev.EvalPolicy(widened(nets, 0.0))
        policies["252-rand"] = cev.EvalPolicy(widened(nets, 0.05))
    best: dict = {}
    for _ in range(args.repeat):
        for name, spec in POSITIONS.items():
            board = Position.parse(spec).board
            for label, pol in policies.items():
                t = time.process_time()
                croll.rollout_block(board, args.games, np.random.PCG64DXSM(1), pol)
                rate = args.games / (time.process_time() - t)
                key = (name, label)
                best[key] = max(best.get(key, 0.0), rate)
            t = time.process_time()
            fastbg.rollout(spec, args.games, seed=1, workers=1, policy="nn")
            key = (name, "rollout() 236")
            best[key] = max(best.get(key, 0.0), args.games / (time.process_time() - t))
    print(f"fastbg {fastbg.__version__} from {os.path.dirname(fastbg.__file__)}; "
          f"best of {args.repeat}, {args.games} games, CPU time; load {os.getloadavg()[0]:.2f}")
    for (name, label), rate in best.items():
        ratio = rate / best[(name, "236")] if label.startswith("252") else 1.0
        print(f"{name:6s} {label:14s} {rate:9,.0f} games/s  x{ratio:.3f}")
    if args.json:
        record.write_json(args.json, {"games_per_s": {f"{n} {lab}": r for (n, lab), r in best.items()}})


if __name__ == "__main__":
    main()
