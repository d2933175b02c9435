"""Which cube method is more accurate? Janowski's model against cube rollouts, on positions
whose exact values are known (the two-sided bear-off database).

For ``--positions`` random money bear-offs (each side 2 to 6 checkers on its points 1..6,
centred cube, seeded), three answers to No double / Double/take:

- **exact**: :func:`fastbg._core.bearoffdb.two_sided` (perfect checker and cube play);
- **janowski**: what ``fastbg cube --method janowski`` does: a cubeless rollout of
  ``--games`` games, then Janowski's formulas (:func:`fastbg.money_cube_decision`) with
  GNU Backgammon's cube efficiency for bear-offs (x = 0.6, 0 on the last roll);
- **rollout**: ``fastbg cube --method rollout``: ``--trials`` trials, each played after No
  double and after Double/take with the same dice (:func:`fastbg.cube_rollout`).

Reported per method: the mean absolute error of ND and DT against the exact values, the
share of positions where its action equals the exact action, and its time. The default of
``fastbg cube --method auto`` outside the database follows from these figures.

Usage::

    python experiments/cube_methods.py --json experiments/results/cube_methods.json
"""
from __future__ import annotations

import argparse
import platform
import sys
import time

import numpy as np

import fastbg
from fastbg._core import bearoffdb
from fastbg.cube.bearoff import bearoff_board
from fastbg.cube.money import cube_action
from fastbg import Position

import record  # experiments/record.py: command, date and commit of a result


def positions(n: int, seed: int) -> list[tuple]:
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        sides = []
        for _ in range(2):
            c = [0] * 6
            for _ in range(int(rng.integers(2, 7))):
                c[int(rng.integers(0, 6))] += 1
            sides.append(tuple(c))
        v = bearoffdb.two_sided(*sides)
        if 0.05 < v["win"] < 0.95:          # leave out the trivial ones
            out.append(tuple(sides))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=30)
    ap.add_argument("--games", type=int, default=20000, help="janowski: cubeless games")
    ap.add_argument("--trials", type=int, default=4000, help="rollout: trials")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    rows = []
    for k, (a, b) in enumerate(positions(args.positions, args.seed)):
        board = bearoff_board(a, b)
        pid = Position(board).to_position_id()
        ex = bearoffdb.two_sided(a, b)
        exact = {"nd": ex["nd_centred"], "dt": ex["dt"],
                 "action": cube_action(ex["nd_centred"], ex["dt"], 1.0)}
        t0 = time.perf_counter()
        r = fastbg.rollout(pid, args.games, seed=args.seed + k, workers=args.workers, vr=False,
                           opening=False)
        d = fastbg.money_cube_decision([getattr(r, q) for q in fastbg.PROBABILITY_KEYS],
                                       position=board)
        t1 = time.perf_counter()
        c = fastbg.cube_rollout(pid, args.trials, seed=args.seed + k, workers=args.workers)
        t2 = time.perf_counter()
        row = {"position_id": pid, "mine": a, "theirs": b, "exact": exact,
               "janowski": {"nd": d.nd, "dt": d.dt, "action": d.action, "x": d.x,
                            "seconds": t1 - t0},
               "rollout": {"nd": c.nd, "dt": c.dt, "action": c.action,
                           "se_nd": c.stderr["nd"], "se_dt": c.stderr["dt"],
                           "seconds": t2 - t1}}
        rows.append(row)
        print(f"{pid}  exact ND {exact['nd']:+.3f} DT {exact['dt']:+.3f} {exact['action']:<22}"
              f" janowski {d.nd:+.3f} {d.dt:+.3f} {d.action:<22} rollout {c.nd:+.3f} "
              f"{c.dt:+.3f} {c.action}", flush=True)
    summary = {}
    for m in ("janowski", "rollout"):
        summary[m] = {
            "mae_nd": float(np.mean([abs(r[m]["nd"] - r["exact"]["nd"]) for r in rows])),
            "mae_dt": float(np.mean([abs(r[m]["dt"] - r["exact"]["dt"]) for r in rows])),
            "action_agrees": float(np.mean([r[m]["action"] == r["exact"]["action"]
                                            for r in rows])),
            "seconds": float(sum(r[m]["seconds"] for r in rows)),
        }
        print(f"{m:<9} MAE ND {summary[m]['mae_nd']:.4f}  MAE DT {summary[m]['mae_dt']:.4f}  "
              f"action right {summary[m]['action_agrees']:.0%}  {summary[m]['seconds']:.0f} s")
    if args.json:
        record.write_json(args.json, {"machine": platform.machine(), "args": vars(args),
                                      "summary": summary, "positions": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
