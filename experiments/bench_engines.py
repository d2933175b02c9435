"""Benchmark: the same games in the Cython core and in the pure-Python engine.

Both engines play exactly the same N games (same seed, same blocks, so the dice
and the plays are identical; the script checks that the outcome counts agree) and
the script prints games per second for each and their ratio. The Cython timing is
the median of several repetitions of the same N games, the Python timing a single
run (it is the slow one).

Usage
-----
    python experiments/bench_engines.py [--games 500] [--policy pubeval] [--seed 1]
    python experiments/bench_engines.py --million      # 1,000,000 games, --workers 2

Run both engines in one invocation and compare the ratio, not absolute times: the
machine is shared and noisy.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from fastbg import Position
from fastbg.rollouts import run_blocks


def timed(engine, board, games, seed, policy, workers, opening):
    t0 = time.perf_counter()
    run = run_blocks(board, games, seed, engine=engine, policy=policy, workers=workers, opening=opening)
    return time.perf_counter() - t0, run.counts


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=500)
    ap.add_argument("--policy", choices=["pubeval", "random"], default="pubeval")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5, help="repetitions of the Cython run")
    ap.add_argument("--position", default="start")
    ap.add_argument("--million", action="store_true",
                    help="also time 1,000,000 Cython games with --workers")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    pos = Position.parse(args.position)
    opening = args.position.strip().lower() == "start"
    board = np.ascontiguousarray(pos.board)

    t_py, c_py = timed("python", board, args.games, args.seed, args.policy, 1, opening)
    times = []
    for _ in range(args.repeat):
        t, c_cy = timed("cython", board, args.games, args.seed, args.policy, 1, opening)
        times.append(t)
        assert np.array_equal(c_cy, c_py), f"engines disagree: cython {c_cy} python {c_py}"
    t_cy = statistics.median(times)
    out = {
        "position": pos.to_position_id(),
        "policy": args.policy,
        "games": args.games,
        "seed": args.seed,
        "counts_equal": True,
        "python_games_per_second": args.games / t_py,
        "cython_games_per_second": args.games / t_cy,
        "ratio": t_py / t_cy,
    }
    if args.million:
        n = 1_000_000
        t, _ = timed("cython", board, n, args.seed, args.policy, args.workers, opening)
        out.update(million_seconds=t, million_workers=args.workers, million_games_per_second=n / t)

    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"position {out['position']}, policy {args.policy}, {args.games} games, seed {args.seed}")
    print("outcome counts identical in both engines: yes")
    print("| engine | games/s |\n|---|---:|")
    print(f"| fastbg pure Python | {out['python_games_per_second']:,.0f} |")
    print(f"| fastbg Cython (1 thread) | {out['cython_games_per_second']:,.0f} |")
    print(f"ratio Cython / Python: {out['ratio']:.0f}x")
    if args.million:
        print(f"1,000,000 {args.policy} games with {args.workers} workers: "
              f"{out['million_seconds']:.1f} s ({out['million_games_per_second']:,.0f} games/s)")


if __name__ == "__main__":
    main()
