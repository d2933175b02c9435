"""Thread scaling and memory of long rollouts.

1. Scaling: the same pubeval rollout from the start (same seed, so the same games) with
   ``workers=1`` and ``workers=2``, each the median of ``--repeat`` runs; prints games/s
   and the ratio (the issue's target on a 2-core machine: at least 1.8x).
2. Memory: runs ``fastbg rollout start --games N --workers 2 --policy pubeval`` in a child process and
   reports its peak resident set size (``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``);
   results are streamed integer counts, so memory should not grow with N (target for
   10,000,000 games: under 200 MB).

Usage
-----
    python experiments/bench_scaling.py [--games 200000] [--repeat 3] [--memory-games 10000000]
"""
from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time

from fastbg import rollout


def games_per_second(games: int, workers: int, seed: int) -> float:
    t0 = time.perf_counter()
    res = rollout("start", games, seed=seed, workers=workers, policy="pubeval")
    assert res.games == games
    return games / (time.perf_counter() - t0)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--memory-games", type=int, default=10_000_000,
                    help="games of the child run whose peak RSS is measured (0: skip)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    rates = {w: [] for w in (1, 2)}
    for _ in range(args.repeat):  # interleaved, so drift hits both alike
        for w in (1, 2):
            rates[w].append(games_per_second(args.games, w, args.seed))
    med = {w: statistics.median(r) for w, r in rates.items()}
    out = {"games": args.games, "repeat": args.repeat,
           "workers1_games_per_second": med[1], "workers2_games_per_second": med[2],
           "scaling": med[2] / med[1]}

    if args.memory_games:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "fastbg", "rollout", "start", "--games",
                        str(args.memory_games), "--workers", "2", "--seed", str(args.seed),
                        "--policy", "pubeval", "--json", "--no-progress"],
                       check=True, stdout=subprocess.DEVNULL)
        out.update(memory_games=args.memory_games, memory_seconds=time.perf_counter() - t0,
                   peak_rss_mb=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)

    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"pubeval rollout of the start, {args.games:,} games, median of {args.repeat}")
    print("| workers | games/s |\n|---:|---:|")
    print(f"| 1 | {med[1]:,.0f} |\n| 2 | {med[2]:,.0f} |")
    print(f"scaling workers=2 / workers=1: {out['scaling']:.2f}x")
    if args.memory_games:
        print(f"peak RSS of `fastbg rollout start --games {args.memory_games:,} --workers 2 "
              "--policy pubeval`: "
              f"{out['peak_rss_mb']:.0f} MB ({out['memory_seconds']:.0f} s)")


if __name__ == "__main__":
    main()
