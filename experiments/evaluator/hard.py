"""Hard decisions: where a net's 0-ply choice and its one-roll look-ahead disagree.

Step 4 of the recipe (issue 11's EVALUATOR.md: "add hard positions where 0-ply and a
one-roll lookahead disagree"). A 0-ply player loses equity only in the decisions it gets
wrong, and a look-ahead that prefers another play is a cheap sign of such a decision. This
script splits a candidates file (``candidates.py``: the positions after the plays one
decision compares, grouped by game and ply) into

``<out>.npz``
    the candidates of the **hard** decisions: those where the play with the best 1-ply
    equity of the nets is not the play with the best 0-ply equity, by more than
    ``--margin`` (mover's cubeless equity), and
``<rest>.npz`` (with ``--rest``)
    the candidates of the others,

so that the expensive 2-ply labels (``lookahead.py --plies 2``) can be spent on the hard
decisions first. Both files keep the candidates file's arrays (``source`` still points
into the positions file the candidates came from) and add ``eq0`` and ``eq1``, the
mover's 0-ply and 1-ply equities of each candidate; the hard file also ``loss1``, the
1-ply equity the 0-ply choice gives up in its decision. Every candidate is a position
with the opponent on roll, so the mover's equity is minus the cubeless equity of the
side on roll there. The split is a function of the nets and the candidates only (no
random numbers).

Cost: a 1-ply look-ahead of every candidate (about 0.3 ms each, the core's nogil
``EvalPolicy.lookahead``): about 3 minutes for 570,000 candidates on one core.

Usage::

    python experiments/evaluator/hard.py --positions RUNS/positions_g15c.npz \\
        --nets RUNS/nets_g14.npz --out RUNS/positions_g15h --rest RUNS/positions_g15e
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from fastbg._core.evaluator import EvalPolicy
from fastbg.reference.evaluator import load_nets


def cubeless_equity(p: np.ndarray) -> np.ndarray:
    """Cubeless equity (DESIGN section 5) of probabilities (n, 5) -> (n,)."""
    return 2 * p[:, 0] - 1 + p[:, 1] - p[:, 3] + p[:, 2] - p[:, 4]


def decision_ids(game: np.ndarray, ply: np.ndarray) -> np.ndarray:
    """A decision number per candidate row (rows of one game and ply share one)."""
    key = game.astype(np.int64) * 100000 + ply.astype(np.int64)
    _, inv = np.unique(key, return_inverse=True)
    return inv


def hard_decisions(dec: np.ndarray, eq0: np.ndarray, eq1: np.ndarray, margin: float
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Per decision: whether it is hard, and the 1-ply equity its 0-ply choice gives up.

    ``dec`` (n,) decision numbers 0..m-1, ``eq0`` and ``eq1`` (n,) the mover's 0-ply and
    1-ply equities of each candidate. The 0-ply choice of a decision is its candidate of
    highest ``eq0`` (ties: the first row); it gives up ``max eq1 - eq1[choice]``; the
    decision is hard when that exceeds ``margin``. Returns ``(hard, loss)``, both (m,).
    """
    m = int(dec.max()) + 1 if len(dec) else 0
    order = np.lexsort((np.arange(len(dec)), -eq0, dec))      # by decision, best eq0 first
    first = np.ones(len(dec), bool)
    first[1:] = dec[order][1:] != dec[order][:-1]
    choice = np.empty(m, np.int64)
    choice[dec[order][first]] = order[first]
    best1 = np.full(m, -np.inf)
    np.maximum.at(best1, dec, eq1)
    loss = best1 - eq1[choice]
    return loss > margin, loss


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", required=True, help="a candidates file (candidates.py)")
    ap.add_argument("--nets", required=True, help="the nets whose 0 and 1 ply are compared")
    ap.add_argument("--out", required=True, help="the hard decisions' candidates, without .npz")
    ap.add_argument("--rest", help="the other decisions' candidates, without .npz")
    ap.add_argument("--margin", type=float, default=0.0,
                    help="hard: the 0-ply choice gives up more than this 1-ply equity")
    args = ap.parse_args(argv)
    if args.margin < 0:
        ap.error(f"--margin is an equity >= 0, got {args.margin}")
    for name in ("positions", "nets"):
        if not Path(getattr(args, name)).is_file():
            ap.error(f"no {name} file {getattr(args, name)}")
    pos = np.load(args.positions)
    if "source" not in pos.files:
        ap.error(f"{args.positions} is not a candidates file (no 'source'): make it with "
                 "candidates.py")
    boards = pos["boards"]
    nets = EvalPolicy(load_nets(args.nets))
    t0 = time.perf_counter()
    eq0 = -cubeless_equity(np.asarray(nets.lookahead(boards, 0)))
    eq1 = -cubeless_equity(np.asarray(nets.lookahead(boards, 1)))
    dec = decision_ids(pos["game"], pos["ply"])
    hard, loss = hard_decisions(dec, eq0, eq1, args.margin)
    rows = hard[dec]
    arrays = {k: pos[k] for k in pos.files if k != "args"}
    meta = {**json.loads(str(pos["args"])), "hard_of": args.positions, "hard_nets": args.nets,
            "hard_margin": args.margin}
    np.savez_compressed(Path(args.out).with_suffix(".npz"),
                        **{k: v[rows] for k, v in arrays.items()}, eq0=eq0[rows], eq1=eq1[rows],
                        loss1=loss[dec][rows], args=json.dumps({**meta, "hard": True}))
    if args.rest:
        np.savez_compressed(Path(args.rest).with_suffix(".npz"),
                            **{k: v[~rows] for k, v in arrays.items()}, eq0=eq0[~rows],
                            eq1=eq1[~rows], args=json.dumps({**meta, "hard": False}))
    print(f"{int(hard.sum())} of {len(hard)} decisions hard ({rows.sum()} of {len(rows)} "
          f"candidates; mean 1-ply loss of their 0-ply choice {loss[hard].mean():.4f}) "
          f"in {time.perf_counter() - t0:.0f} s -> {args.out}.npz", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
