"""What does the results store cost? Games per second of stored and plain rollouts, side by side.

Each case is rolled out with the same seed without a store and with one (a fresh SQLite
file: every 1,000-game block written as it is merged, one transaction a block), alternately
``--repeats`` times, and the script reports the median games per second of each and the
overhead ``1 - stored / plain``. The numbers of both runs are checked to be identical.
Issue 13's target: under 5% of a plain threaded run's games per second.

Usage::

    python experiments/bench_store.py                  # about 2 minutes on 2 cores
    python experiments/bench_store.py --json experiments/results/bench_store.json
"""
from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import fastbg

import record  # experiments/record.py: command, date and commit of a result

#: (name, position, policy, games): the fastest policy (where a per-block cost shows most)
#: and the default one.
CASES = [
    ("start, pubeval", "start", "pubeval", 40000),
    ("contact, nn (plain MC)", "4HPMwQCMz+AIIQ", "nn", 20000),
    ("contact, nn (VR)", "4HPMwQCMz+AIIQ", "nn", 4000),
]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    rows = []
    print(f"{'case':<26} {'games':>7} {'plain g/s':>10} {'stored g/s':>11} {'overhead':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, pos, policy, games in CASES:
            vr = name.endswith("(VR)")
            plain, stored = [], []
            for i in range(args.repeats):
                t0 = time.perf_counter()
                a = fastbg.rollout(pos, games, seed=args.seed, policy=policy, vr=vr)
                plain.append(games / (time.perf_counter() - t0))
                path = Path(tmp) / f"{len(rows)}_{i}.sqlite"
                t0 = time.perf_counter()
                b = fastbg.rollout(pos, games, seed=args.seed, policy=policy, vr=vr, store=path)
                stored.append(games / (time.perf_counter() - t0))
                assert a.counts.tolist() == b.counts.tolist() and a.equity == b.equity
            p, s = statistics.median(plain), statistics.median(stored)
            rows.append(dict(case=name, position=pos, policy=policy, vr=vr, games=games,
                             plain_games_per_s=p, stored_games_per_s=s, overhead=1 - s / p,
                             plain_runs=plain, stored_runs=stored))
            print(f"{name:<26} {games:>7,} {p:>10,.0f} {s:>11,.0f} {1 - s / p:>8.1%}", flush=True)
    out = dict(repeats=args.repeats, seed=args.seed, fastbg_version=fastbg.__version__,
               machine=platform.machine(), python=platform.python_version(), rows=rows)
    if args.json:
        record.write_json(args.json, out)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
