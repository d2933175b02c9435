"""Truncation and the two-sided bear-off database: exact, fast to build, unbiased?

Three parts (issue 12, item 5 and its targets):

1. **The database**: its build time in a fresh process, and its values against
   :class:`fastbg.cube.bearoff.BearoffSolver` (float, same recursion) on every position
   with up to ``--solver-checkers`` checkers a side (bitwise equal is the claim).
2. **Unbiased**: on ``--positions`` race positions (random, seeded: both sides with 3 to 9
   checkers on their points 1..12, so no contact), a plain rollout (no variance reduction,
   pseudo-random dice, played to the end) against the rollout analysts would run (variance
   reduction, quasi-random dice, stopped and scored exactly at the two-sided database):
   the z-score of their difference, which must be within 4 for every position.
3. **Truncation at N half-moves** (scored by the evaluator: biased by its error): the
   equity, its standard error and the time on the start, two contact positions and a priming position against
   the full rollout, for a few N, so a user can judge the trade.

Usage::

    python experiments/bench_truncation.py --json experiments/results/bench_truncation.json
"""
from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

import fastbg
from fastbg.cube.bearoff import BearoffSolver, home_boards
from fastbg import Position

import record  # experiments/record.py: command, date and commit of a result

FULL = dict(vr=True, quasi_random=True)
CONTACT = [("start (opening roll)", "start"), ("contact", "bJ7BARiw5+ABMA"), ("contact 2", "4HPMwQCMz+AIIQ"),
           ("priming", "XGID=---BBBBBA----B--a-a-Bbcce-:0:0:1:00:0:0:3:0:10")]


def build_time() -> dict:
    """Seconds to make the database in a fresh process: built (an empty cache directory),
    then read back from the cache that build wrote."""
    code = ("import time; from fastbg._core import bearoffdb as B; t = time.perf_counter(); "
            "B.two_sided([1,0,0,0,0,0], [1,0,0,0,0,0]); print(time.perf_counter() - t, "
            "B._build2_stats()[2])")
    out = {}
    with tempfile.TemporaryDirectory() as d:
        env = dict(os.environ, FASTBG_CACHE_DIR=d)
        for _ in range(2):
            secs, source = subprocess.run([sys.executable, "-c", code], check=True, env=env,
                                          capture_output=True, text=True).stdout.split()
            out[source] = float(secs)
    return out


def exactness(max_checkers: int) -> dict:
    from fastbg._core import bearoffdb
    solver = BearoffSolver(exact=False)
    sides = home_boards(max_checkers)
    n = bad = 0
    t0 = time.perf_counter()
    for a in sides:
        for b in sides:
            x, y = solver.value(a, b), bearoffdb.two_sided(a, b)
            n += 1
            bad += (y["win"], y["centred"], y["owned"], y["opponent"]) != \
                (x.win, x.centred, x.owned, x.opponent)
    return {"max_checkers": max_checkers, "positions": n, "not_bitwise_equal": bad,
            "seconds": time.perf_counter() - t0}


def race_positions(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        b = np.zeros((2, 25), dtype=np.int8)
        for row in (0, 1):
            for _ in range(int(rng.integers(3, 10))):
                b[row, int(rng.integers(0, 12))] += 1
        out.append(Position(b).to_position_id())
    return out


def unbiased(positions, plain_games, games, seed, workers) -> list[dict]:
    rows = []
    for pid in positions:
        t0 = time.perf_counter()
        a = fastbg.rollout(pid, plain_games, seed=seed, workers=workers, vr=False,
                           quasi_random=False)
        t1 = time.perf_counter()
        b = fastbg.rollout(pid, games, seed=seed + 1, workers=workers, truncate_bearoff=True,
                           **FULL)
        t2 = time.perf_counter()
        se = (a.stderr["equity"] ** 2 + b.stderr["equity"] ** 2) ** 0.5
        z = (b.equity - a.equity) / se if se > 0 else 0.0
        rows.append({"position_id": pid, "plain": a.equity, "plain_se": a.stderr["equity"],
                     "plain_seconds": t1 - t0, "exact_db": b.equity,
                     "exact_db_se": b.stderr["equity"], "exact_db_seconds": t2 - t1,
                     "stopped_in_db": b.truncated, "z": z})
        print(f"  {pid}  plain {a.equity:+.4f} ({a.stderr['equity']:.4f})  "
              f"VR+QR+db {b.equity:+.4f} ({b.stderr['equity']:.4f}, {b.truncated} stopped)  "
              f"z {z:+.2f}", flush=True)
    return rows


def truncation(games, seed, workers, levels) -> list[dict]:
    rows = []
    for name, pid in CONTACT:
        for n in (None, *levels):
            t0 = time.perf_counter()
            r = fastbg.rollout(pid, games, seed=seed, workers=workers, truncate=n, **FULL)
            s = time.perf_counter() - t0
            rows.append({"position": name, "truncate": n, "equity": r.equity,
                         "se": r.stderr["equity"], "seconds": s, "games": r.games})
            print(f"  {name:<22} truncate {str(n):>4}: {r.equity:+.4f} ({r.stderr['equity']:.4f}) "
                  f"{s:6.1f} s", flush=True)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=24)
    ap.add_argument("--plain-games", type=int, default=40000)
    ap.add_argument("--games", type=int, default=5000)
    ap.add_argument("--trunc-games", type=int, default=3000)
    ap.add_argument("--levels", type=int, nargs="*", default=[6, 12, 24])
    ap.add_argument("--solver-checkers", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    out = {"machine": platform.machine(), "fastbg": fastbg.__version__, "args": vars(args)}
    out["build_seconds"] = build_time()
    print(f"two-sided database: built in {out['build_seconds']['built']:.2f} s, read from "
          f"the cache in {out['build_seconds']['cache']:.3f} s")
    out["exactness"] = exactness(args.solver_checkers)
    print(f"against the solver: {out['exactness']}")
    print("unbiased (plain rollout vs VR + quasi-random + exact at the database):")
    out["unbiased"] = unbiased(race_positions(args.positions, args.seed), args.plain_games,
                               args.games, args.seed, args.workers)
    zs = [abs(r["z"]) for r in out["unbiased"]]
    out["max_abs_z"] = max(zs)
    print(f"  max |z| {max(zs):.2f} over {len(zs)} positions")
    print("truncation at N half-moves (VR, quasi-random) against the full rollout:")
    out["truncation"] = truncation(args.trunc_games, args.seed, args.workers, args.levels)
    if args.json:
        record.write_json(args.json, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
